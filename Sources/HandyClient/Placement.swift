import HandyProtocol

/// A rectangle in the app's units (e.g. points or pixels), y down.
public struct PlacementRect: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A popover's size, in the view's units.
public struct PlacementSize: Hashable, Sendable, Codable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// Where ``placement(for:size:gap:view:margin:threshold:)`` put a popover and why.
public struct Placement: Hashable, Sendable {
    /// The rules, in the order they are tried (the same names in every client).
    public enum Rule: String, Hashable, Sendable, CaseIterable, Codable {
        case besideClearSide = "beside-clear-side"
        case above
        case farSide = "far-side"
        case neutralAbove = "neutral-above"
        case neutralBeside = "neutral-beside"
        case corner
        case overlapping
        case tooBig = "too-big"
    }
    public var rect: PlacementRect
    public var rule: Rule
    /// Clear of the covered region (false only for `overlapping`, and maybe `tooBig`).
    public var clear: Bool
}

/// Where to put a popover of `size` next to the fingers of a gesture event: on the side the hand
/// leaves clear, outside the region it covers (`occlusion.polygon`), on screen, saying which rule
/// placed it. The same function, rule for rule, as `placement` in clients/js/handyd.js and
/// `handyd.placement` in Python; clients/placement-cases.json checks all three.
///
/// Coordinates: `view` is the rectangle (in the app's units) that shows the whole display; the
/// event's normalised positions (0…1) map onto it. `size`, `gap`, `margin` and the result are in
/// the same units.
///
/// The side: `clearSide` when it is left or right, else the one `hand` leaves clear, else (hand
/// unknown) from `rightHandProbability` when a `threshold` is given (a right hand when P > 0.5 and
/// P ≥ threshold, a left hand when P < 0.5 and P ≤ 1 − threshold), else none: neutral.
///
/// Rules, the first that is clear of the region and on screen (inset by `margin`): with a side,
/// `beside-clear-side` (`gap` from the centroid, vertically centred; else raised above the region
/// in its column; else below it; else pushed further out past it; else at the screen's edge on that
/// side), `above` (centred, `gap` above, raised above the region if needed), `far-side` (as beside,
/// on the hand's side), `corner` (the nearest clear corner of the screen); without, `neutral-above`,
/// `neutral-beside` (the roomier side first), `corner`. None clear: `overlapping`, the first rule's
/// place moved onto the screen; a popover larger than the screen: `too-big`, the same. The region
/// is convex, so a clear place exists on screen only if a corner is clear: `overlapping` means none
/// exists. Touching the region is not overlapping it.
///
/// - Returns: nil when the event has neither `centroid` nor `position`.
public func placement(
    for event: GestureEvent, size: PlacementSize, gap: Double, view: PlacementRect,
    margin: Double = 0, threshold: Double? = nil
) -> Placement? {
    guard let at = event.centroid ?? event.position else { return nil }
    return placement(
        at: at, hand: event.hand, clearSide: event.clearSide, polygon: event.occlusion?.polygon ?? [],
        rightHandProbability: event.rightHandProbability, size: size, gap: gap, view: view,
        margin: margin, threshold: threshold)
}

/// The side ``placement(for:size:gap:view:margin:threshold:)`` puts the popover on (`.left`,
/// `.right`), or nil: neutral.
public func placementSide(hand: Hand?, clearSide: Side?, rightHandProbability: Double?, threshold: Double?) -> Side? {
    if clearSide == .left || clearSide == .right { return clearSide }
    if hand == .right { return .left }
    if hand == .left { return .right }
    if let threshold, let p = rightHandProbability {
        if p > 0.5 && p >= threshold { return .left }
        if p < 0.5 && p <= 1 - threshold { return .right }
    }
    return nil
}

/// ``placement(for:size:gap:view:margin:threshold:)`` from the event's fields (for a `changed`
/// event, pass the region kept from the last event that carried one).
public func placement(
    at: WirePoint, hand: Hand?, clearSide: Side?, polygon normalised: [WirePoint],
    rightHandProbability: Double?, size: PlacementSize, gap: Double, view: PlacementRect,
    margin: Double = 0, threshold: Double? = nil
) -> Placement {
    let w = size.width, h = size.height
    let sl = view.x + margin, st = view.y + margin
    let sr = view.x + view.width - margin, sb = view.y + view.height - margin
    let cx = view.x + at.x * view.width, cy = view.y + at.y * view.height
    let poly: [WirePoint] =
        normalised.count >= 3
        ? normalised.map { WirePoint(x: view.x + $0.x * view.width, y: view.y + $0.y * view.height) } : []
    let eps = 1e-9 * max(abs(view.width), abs(view.height))
    let side = placementSide(
        hand: hand, clearSide: clearSide, rightHandProbability: rightHandProbability,
        threshold: threshold)
    func clampX(_ x: Double) -> Double { max(sl, min(x, sr - w)) }
    func clampY(_ y: Double) -> Double { max(st, min(y, sb - h)) }
    func clear(_ x: Double, _ y: Double) -> Bool {
        !rectOverlapsPolygon(PlacementRect(x: x, y: y, width: w, height: h), poly, eps: eps)
    }
    func onX(_ x: Double) -> Bool { x >= sl - eps && x + w <= sr + eps }
    func onY(_ y: Double) -> Bool { y >= st - eps && y + h <= sb + eps }
    func result(_ x: Double, _ y: Double, _ rule: Placement.Rule) -> Placement {
        Placement(rect: PlacementRect(x: x, y: y, width: w, height: h), rule: rule, clear: clear(x, y))
    }

    let preferred: (x: Double, y: Double)
    switch side {
    case .left: preferred = (cx - gap - w, cy - h / 2)
    case .right: preferred = (cx + gap, cy - h / 2)
    default: preferred = (cx - w / 2, cy - gap - h)
    }
    if w > sr - sl || h > sb - st { return result(clampX(preferred.x), clampY(preferred.y), .tooBig) }

    /// A clear y in the column at x: y0, else raised above the region, else below it.
    func column(_ x: Double, _ y0: Double, down: Bool) -> Double? {
        guard onX(x), onY(y0) else { return nil }
        if clear(x, y0) { return y0 }
        guard let range = polygonRange(poly, x, x + w, transposed: false) else { return nil }
        let up = range.min - h
        if up <= y0 && onY(up) && clear(x, up) { return up }
        if down && range.max >= y0 && onY(range.max) && clear(x, range.max) { return range.max }
        return nil
    }
    func beside(_ s: Side) -> (Double, Double)? {
        let near = s == .left ? cx - gap - w : cx + gap
        let edge = s == .left ? sl : sr - w
        guard onX(near) else { return nil }
        let y0 = clampY(cy - h / 2)
        if let y = column(near, y0, down: true) { return (near, y) }
        if let band = polygonRange(poly, y0, y0 + h, transposed: true) {
            let x = s == .left ? band.min - w : band.max
            if onX(x) && (s == .left ? x <= near : x >= near) && clear(x, y0) { return (x, y0) }
        }
        if let y = column(edge, y0, down: true) { return (edge, y) }
        return nil
    }
    func above() -> (Double, Double)? {
        let x = clampX(cx - w / 2)
        guard let y = column(x, cy - gap - h, down: false) else { return nil }
        return (x, y)
    }
    func corner() -> (Double, Double)? {
        let first = side ?? .left
        let xs = first == .left ? [sl, sr - w] : [sr - w, sl]
        var best: (Double, Double)?
        var bestD = Double.infinity
        for y in [st, sb - h] {
            for x in xs {
                let dx = x + w / 2 - cx, dy = y + h / 2 - cy
                let d = dx * dx + dy * dy
                if d < bestD && clear(x, y) { best = (x, y); bestD = d }
            }
        }
        return best
    }

    let tries: [(Placement.Rule, () -> (Double, Double)?)]
    if let side {
        let other: Side = side == .left ? .right : .left
        tries = [
            (.besideClearSide, { beside(side) }), (.above, above), (.farSide, { beside(other) }), (.corner, corner),
        ]
    } else {
        let roomier: Side = cx - sl > sr - cx ? .left : .right
        let second: Side = roomier == .left ? .right : .left
        tries = [
            (.neutralAbove, above), (.neutralBeside, { beside(roomier) }), (.neutralBeside, { beside(second) }),
            (.corner, corner),
        ]
    }
    for (rule, attempt) in tries {
        if let (x, y) = attempt() { return result(x, y, rule) }
    }
    return result(clampX(preferred.x), clampY(preferred.y), .overlapping)
}

/// Whether the rectangle's inside meets the convex polygon's (separating axes: the rectangle's and
/// each edge's normal); touching, or meeting by no more than `eps`, is not overlapping.
public func rectOverlapsPolygon(_ rect: PlacementRect, _ polygon: [WirePoint], eps: Double = 0) -> Bool {
    let n = polygon.count
    if n < 3 { return false }
    let x0 = rect.x, y0 = rect.y, x1 = rect.x + rect.width, y1 = rect.y + rect.height
    var pminx = Double.infinity, pmaxx = -Double.infinity, pminy = Double.infinity, pmaxy = -Double.infinity
    for p in polygon {
        pminx = min(pminx, p.x); pmaxx = max(pmaxx, p.x)
        pminy = min(pminy, p.y); pmaxy = max(pmaxy, p.y)
    }
    if min(x1, pmaxx) - max(x0, pminx) <= eps { return false }
    if min(y1, pmaxy) - max(y0, pminy) <= eps { return false }
    for i in 0..<n {
        let a = polygon[i], b = polygon[(i + 1) % n]
        let dx = b.x - a.x, dy = b.y - a.y
        let len = (dx * dx + dy * dy).squareRoot()
        if !(len > 0) { continue }
        let nx = -dy / len, ny = dx / len
        var pmin = Double.infinity, pmax = -Double.infinity
        for p in polygon {
            let d = p.x * nx + p.y * ny
            pmin = min(pmin, d); pmax = max(pmax, d)
        }
        var rmin = Double.infinity, rmax = -Double.infinity
        for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
            let d = x * nx + y * ny
            rmin = min(rmin, d); rmax = max(rmax, d)
        }
        if min(rmax, pmax) - max(rmin, pmin) <= eps { return false }
    }
    return true
}

/// The polygon's extent along y within the strip lo ≤ x ≤ hi, or (`transposed`) along x within
/// lo ≤ y ≤ hi; nil when it does not reach the strip.
func polygonRange(_ polygon: [WirePoint], _ lo: Double, _ hi: Double, transposed: Bool) -> (min: Double, max: Double)? {
    let n = polygon.count
    var mn = Double.infinity, mx = -Double.infinity
    for i in 0..<n {
        let a = polygon[i], b = polygon[(i + 1) % n]
        let au = transposed ? a.y : a.x, av = transposed ? a.x : a.y
        let bu = transposed ? b.y : b.x, bv = transposed ? b.x : b.y
        if au >= lo && au <= hi { mn = min(mn, av); mx = max(mx, av) }
        for u in [lo, hi] where (au < u && bu > u) || (au > u && bu < u) {
            let v = av + (u - au) * (bv - av) / (bu - au)
            mn = min(mn, v); mx = max(mx, v)
        }
    }
    return mn <= mx ? (mn, mx) : nil
}
