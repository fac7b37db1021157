import HandyProtocol

/// The part of the display that the hand and forearm probably cover while fingers touch it: the
/// "shadow" an app keeps its UI out of.
///
/// The shape follows the geometric model Vogel & Casiez proposed for multi-touch occlusion when
/// only the contacts' X/Y positions are known ("Hand Occlusion on a Multi-Touch Tabletop", CHI 2012):
/// a circle for the palm, a rectangle for the forearm pivoting from it towards the user, and an
/// ellipse-like "finger" from each contact to the palm. handyd returns the convex hull of those
/// parts, clipped to the display: a small convex polygon (at most a few dozen corners) that holds the
/// whole model, so it errs towards covering too much, never too little of it.
///
/// Units and frame: millimetres in the display frame (x right, y down, after the calibration
/// matrix), so a rotated panel gets its shadow towards the display's bottom edge, where the user
/// stands. The forearm comes from the bottom edge: a wall or kiosk display is used from below,
/// not from the side.
///
/// The numbers are assumptions, not fits: the paper's fitted parameters and its corpus were not
/// available to us (docs/HANDEDNESS.md "The covered region"). They are set from adult hand size
/// (a palm about 85 mm across, fingers about 75 mm long, a forearm about 65 mm wide near the wrist)
/// and from the posture the paper describes (the palm below and to the hand's side of the fingers,
/// the forearm leaning outwards). An app should treat the polygon as "probably covered", and the
/// model is one value, replaceable as a whole (``GestureArena/setOcclusionModel(_:)``).
public struct HandOcclusionModel: Hashable, Sendable {
    /// Radius of the palm circle, mm.
    var palmRadiusMm = 45.0
    /// From the fingers' centroid to the palm circle's centre, mm (finger length plus part of the palm).
    var palmOffsetMm = 85.0
    /// Direction of that offset below the horizontal, towards the hand's side, radians (55°): a right
    /// hand's palm lies below and to the right of its fingertips. Straight down (90°) when the hand
    /// is unknown.
    var palmAngleRadians = 55 * Double.pi / 180
    /// Width of the forearm rectangle, mm.
    var forearmWidthMm = 65.0
    /// The forearm's lean from straight down towards the hand's side, radians (20°).
    var forearmLeanRadians = 20 * Double.pi / 180
    /// Width of a finger from a contact to the palm, mm.
    var fingerWidthMm = 18.0
    /// Corners used for the palm circle.
    var circleCorners = 8

    public init() {}

    /// The covered region for fingers at `contactsMm` (display frame, mm) of `hand`, not clipped
    /// (the forearm runs past the display's bottom edge): corners in order, or none without contacts.
    public func hull(contactsMm: [PhysicalPoint], hand: Hand, displayWidthMm: Double, displayHeightMm: Double)
        -> [PhysicalPoint]
    {
        var scratch = Scratch()
        hull(
            contactsMm: contactsMm, hand: hand, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm,
            into: &scratch)
        return scratch.hull
    }

    /// Arrays a caller keeps from one region to the next (the arena computes a region on most
    /// frames of a moving hand): made once, emptied and filled again, instead of four allocations
    /// per region.
    struct Scratch: Sendable {
        /// The model's corners, then sorted for the hull.
        var points: [PhysicalPoint] = []
        /// The last ``HandOcclusionModel/hull(contactsMm:hand:displayWidthMm:displayHeightMm:into:)``.
        var hull: [PhysicalPoint] = []
        /// The last ``HandOcclusionModel/clip(_:width:height:into:)``, and its other buffer.
        var clipped: [PhysicalPoint] = []
        var spare: [PhysicalPoint] = []
    }

    /// ``hull(contactsMm:hand:displayWidthMm:displayHeightMm:)`` into `scratch.hull`.
    func hull(
        contactsMm: [PhysicalPoint], hand: Hand, displayWidthMm: Double, displayHeightMm: Double,
        into scratch: inout Scratch
    ) {
        guard !contactsMm.isEmpty, displayWidthMm > 0, displayHeightMm > 0 else {
            scratch.hull.removeAll(keepingCapacity: true)
            return
        }
        let side: Double =
            switch hand {
            case .right: 1
            case .left: -1
            case .unknown: 0
            }
        let centroid = contactsMm.reduce(PhysicalPoint.zero, +) / Double(contactsMm.count)
        let palmAngle = palmAngleRadians
        // Straight down for an unknown hand: exactly (0, 1), so that shadow is mirror-symmetric to the last bit.
        let palmDirection =
            side == 0 ? PhysicalPoint(x: 0, y: 1) : PhysicalPoint(x: side * cosine(palmAngle), y: sine(palmAngle))
        let palm = centroid + palmDirection * palmOffsetMm
        var points: [PhysicalPoint] = []
        swap(&points, &scratch.points)
        defer { swap(&points, &scratch.points) }
        points.removeAll(keepingCapacity: true)
        points.reserveCapacity(circleCorners + 4 + 2 * contactsMm.count)
        let corners = Swift.max(circleCorners, 3)
        if corners == Self.unitCircle8.count {
            // The default: the same unit vectors, computed once (16 libm calls per region otherwise).
            for u in Self.unitCircle8 { points.append(palm + u * palmRadiusMm) }
        } else {
            for i in 0..<corners { points.append(palm + Self.unitCircleCorner(i, of: corners) * palmRadiusMm) }
        }
        // Each finger: a band from the contact to the palm, as wide as a finger.
        for c in contactsMm {
            let along = palm - c
            let length = along.length
            guard length > 1e-9 else { continue }
            let normal = PhysicalPoint(x: -along.y / length, y: along.x / length) * (fingerWidthMm / 2)
            points.append(c + normal)
            points.append(c - normal)
        }
        // The forearm: from the palm towards the user, long enough to leave the display.
        let lean = side * forearmLeanRadians
        let direction = PhysicalPoint(x: sine(lean), y: cosine(lean))
        let reach = (displayWidthMm * displayWidthMm + displayHeightMm * displayHeightMm).squareRoot() + palmOffsetMm
        let across = PhysicalPoint(x: -direction.y, y: direction.x) * (forearmWidthMm / 2)
        let elbow = palm + direction * reach
        // The forearm's palm end lies inside the palm's polygon while the forearm is narrower than
        // the polygon's inner circle (by default 32.5 mm from the centre against 41.6): never a
        // corner of the hull, so left out, two fewer corners to sort and chain. A millimetre of
        // margin keeps them out of the hull's collinearity tolerance.
        let inradius =
            palmRadiusMm
            * (corners == Self.unitCircle8.count ? Self.cosineOfPiOver8 : cosine(Double.pi / Double(corners)))
        if !(forearmWidthMm / 2 < inradius - 1) {
            points.append(palm + across)
            points.append(palm - across)
        }
        points.append(elbow + across)
        points.append(elbow - across)
        Self.convexHull(sorting: &points, into: &scratch.hull)
    }

    /// ``hull(contactsMm:hand:displayWidthMm:displayHeightMm:)`` clipped to the display.
    public func polygon(contactsMm: [PhysicalPoint], hand: Hand, displayWidthMm: Double, displayHeightMm: Double)
        -> [PhysicalPoint]
    {
        Self.clip(
            hull(contactsMm: contactsMm, hand: hand, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm),
            width: displayWidthMm, height: displayHeightMm)
    }

    /// The side of `centroid` with less of `polygon` on it: where a popover stays visible. `unknown`
    /// when the two sides differ by less than a tenth of the whole (a shadow straight below). Judged
    /// on the unclipped hull, so a hand near a display edge keeps its side.
    public static func clearSide(of polygon: [PhysicalPoint], at centroid: PhysicalPoint) -> Side {
        let total = area(polygon)
        guard total > 1e-9 else { return .unknown }
        let leftPart = clippedArea(
            polygon, keeping: { $0.x <= centroid.x },
            boundary: { a, b in
                intersect(a, b, x: centroid.x)
            })
        let rightPart = total - leftPart
        if Swift.abs(leftPart - rightPart) < 0.1 * total { return .unknown }
        return leftPart < rightPart ? .left : .right
    }

    /// Area of a simple polygon (shoelace), mm².
    public static func area(_ p: [PhysicalPoint]) -> Double {
        guard p.count >= 3 else { return 0 }
        var s = 0.0
        for i in 0..<p.count {
            let a = p[i], b = p[(i + 1) % p.count]
            s += a.x * b.y - b.x * a.y
        }
        return Swift.abs(s) / 2
    }

    // MARK: geometry

    /// Corner `i` of `n` on the unit circle.
    static func unitCircleCorner(_ i: Int, of n: Int) -> PhysicalPoint {
        let a = 2 * Double.pi * Double(i) / Double(n)
        return PhysicalPoint(x: cosine(a), y: sine(a))
    }

    /// The default palm polygon's corners on the unit circle, in the hull's sorting order (by x, then
    /// y): the palm's corners come nearly sorted (the insertion sort's cost is its inversions).
    static let unitCircle8: [PhysicalPoint] = (0..<8).map { unitCircleCorner($0, of: 8) }.sorted {
        ($0.x, $0.y) < ($1.x, $1.y)
    }

    /// cos(π/8): the default palm polygon's inner radius over its outer one.
    static let cosineOfPiOver8 = cosine(Double.pi / 8)

    /// Andrew's monotone chain; clockwise on screen (y down), no corner that is collinear with its
    /// neighbours to within 1e-6 mm² (so a stream and its mirror image keep the same corners).
    static func convexHull(_ input: consuming [PhysicalPoint]) -> [PhysicalPoint] {
        var points = input
        var hull: [PhysicalPoint] = []
        convexHull(sorting: &points, into: &hull)
        return hull
    }

    /// ``convexHull(_:)`` of `points` (sorted in place, not copied) into `hull` (emptied first).
    static func convexHull(sorting points: inout [PhysicalPoint], into hull: inout [PhysicalPoint]) {
        hull.removeAll(keepingCapacity: true)
        points.removeAll { !($0.x.isFinite && $0.y.isFinite) }
        // By x, then y: an insertion sort over the ~16 corners (the generic sort calls a closure
        // per comparison).
        points.withUnsafeMutableBufferPointer { b in
            guard b.count > 1 else { return }
            for i in 1..<b.count {
                let p = b[i]
                var j = i
                while j > 0 && (b[j - 1].x > p.x || (b[j - 1].x == p.x && b[j - 1].y > p.y)) {
                    b[j] = b[j - 1]
                    j -= 1
                }
                b[j] = p
            }
        }
        guard points.count >= 3 else { hull.append(contentsOf: points); return }
        @inline(__always) func cross(_ o: PhysicalPoint, _ a: PhysicalPoint, _ b: PhysicalPoint) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        // The chains are built in the hull's spare room through a pointer, as a stack with its top
        // in `n`: appended and popped one by one, the array checked its uniqueness and room at each
        // step (~2,000 instructions a hull of 16 corners, docs/PERFORMANCE.md section 5). At most
        // 2·count corners are pushed in all, and the count is set once at the end.
        points.withUnsafeBufferPointer { sorted in
            hull.append(addingCapacity: 2 * sorted.count) { span in
                span.withUnsafeMutableBufferPointer { buffer, count in
                    let h = buffer.baseAddress!
                    var n = 0
                    for p in sorted {
                        while n >= 2 && cross(h[n - 2], h[n - 1], p) <= 1e-6 { n -= 1 }
                        (h + n).initialize(to: p)
                        n += 1
                    }
                    n -= 1
                    // The upper chain, on top of the lower one: it may not pop below where it starts.
                    let lowerEnd = n
                    for p in sorted.reversed() {
                        while n >= lowerEnd + 2 && cross(h[n - 2], h[n - 1], p) <= 1e-6 { n -= 1 }
                        (h + n).initialize(to: p)
                        n += 1
                    }
                    count = n - 1
                }
            }
        }
    }

    /// `polygon` clipped to the display rectangle (Sutherland–Hodgman, four edges).
    /// An edge that no corner lies beyond is skipped: clipping against it would give back the same
    /// corners in the same order (most regions cross one or two edges: the forearm leaves the display).
    static func clip(_ polygon: [PhysicalPoint], width: Double, height: Double) -> [PhysicalPoint] {
        var scratch = Scratch()
        clip(polygon, width: width, height: height, into: &scratch)
        return scratch.clipped
    }

    /// ``clip(_:width:height:)`` into `scratch.clipped`, through `scratch`'s two buffers.
    static func clip(_ polygon: [PhysicalPoint], width: Double, height: Double, into scratch: inout Scratch) {
        var p: [PhysicalPoint] = [], q: [PhysicalPoint] = []
        swap(&p, &scratch.clipped)
        swap(&q, &scratch.spare)
        defer {
            swap(&p, &scratch.clipped)
            swap(&q, &scratch.spare)
        }
        p.removeAll(keepingCapacity: true)
        p.append(contentsOf: polygon)
        if p.contains(where: { !($0.x >= 0) }) {
            clip(p, keeping: { $0.x >= 0 }, boundary: { intersect($0, $1, x: 0) }, into: &q); swap(&p, &q)
        }
        if p.contains(where: { !($0.x <= width) }) {
            clip(p, keeping: { $0.x <= width }, boundary: { intersect($0, $1, x: width) }, into: &q); swap(&p, &q)
        }
        if p.contains(where: { !($0.y >= 0) }) {
            clip(p, keeping: { $0.y >= 0 }, boundary: { intersect($0, $1, y: 0) }, into: &q); swap(&p, &q)
        }
        if p.contains(where: { !($0.y <= height) }) {
            clip(p, keeping: { $0.y <= height }, boundary: { intersect($0, $1, y: height) }, into: &q); swap(&p, &q)
        }
    }

    /// One edge of Sutherland–Hodgman: the part of `polygon` where `inside` holds, into `out` (emptied first).
    static func clip(
        _ polygon: [PhysicalPoint], keeping inside: (PhysicalPoint) -> Bool,
        boundary: (PhysicalPoint, PhysicalPoint) -> PhysicalPoint, into out: inout [PhysicalPoint]
    ) {
        out.removeAll(keepingCapacity: true)
        guard !polygon.isEmpty else { return }
        out.reserveCapacity(polygon.count + 4)
        var previous = polygon[polygon.count - 1]
        for current in polygon {
            let a = inside(previous), b = inside(current)
            if b {
                if !a { out.append(boundary(previous, current)) }
                out.append(current)
            } else if a {
                out.append(boundary(previous, current))
            }
            previous = current
        }
    }

    /// `area(clip(polygon, keeping: inside, boundary: boundary))` without making the clipped
    /// polygon: its corners are summed (shoelace) as clipping emits them, in the same order as
    /// ``area(_:)`` sums them, so the result is the same to the last bit.
    static func clippedArea(
        _ polygon: [PhysicalPoint], keeping inside: (PhysicalPoint) -> Bool,
        boundary: (PhysicalPoint, PhysicalPoint) -> PhysicalPoint
    ) -> Double {
        guard !polygon.isEmpty else { return 0 }
        var first = PhysicalPoint.zero, last = PhysicalPoint.zero
        var count = 0
        var s = 0.0
        func emit(_ v: PhysicalPoint) {
            if count == 0 { first = v } else { s += last.x * v.y - v.x * last.y }
            last = v
            count += 1
        }
        var previous = polygon[polygon.count - 1]
        for current in polygon {
            let a = inside(previous), b = inside(current)
            if b {
                if !a { emit(boundary(previous, current)) }
                emit(current)
            } else if a {
                emit(boundary(previous, current))
            }
            previous = current
        }
        guard count >= 3 else { return 0 }
        s += last.x * first.y - first.x * last.y
        return Swift.abs(s) / 2
    }

    private static func intersect(_ a: PhysicalPoint, _ b: PhysicalPoint, x: Double) -> PhysicalPoint {
        let t = (x - a.x) / (b.x - a.x)
        return PhysicalPoint(x: x, y: a.y + t * (b.y - a.y))
    }

    private static func intersect(_ a: PhysicalPoint, _ b: PhysicalPoint, y: Double) -> PhysicalPoint {
        let t = (y - a.y) / (b.y - a.y)
        return PhysicalPoint(x: a.x + t * (b.x - a.x), y: y)
    }
}
