import HandyProtocol

/// The covered region (docs/GESTURES.md "The covered region") the arena adds to every event that
/// carries a hand, and its `clearSide`: from the fingers of the last frame, sent again with a
/// `changed` event only when its contacts moved (``occlusionResendMm``).
struct GestureOcclusion: Sendable {
    /// The region a hand covers.
    var model = HandOcclusionModel()
    /// Each finger's last position (display frame), for the occlusion of events.
    private var contactMm = [PhysicalPoint](repeating: .zero, count: TouchMask.capacity)
    /// Fingers down after the last frame, and the fingers of the last frame (those lifting in it too).
    private var downFingers = TouchMask()
    private var frameFingers = TouchMask()
    /// Per continuous gesture in progress: what its last region was computed from, and its clear side.
    /// A list searched from the end, not a dictionary: a handful of gestures run at once, and
    /// hashing the id of every event cost more than the search.
    private var sentOcclusion: [SentRegion] = []
    /// The region's working arrays, kept from one region to the next.
    private var occlusionScratch = HandOcclusionModel.Scratch()
    /// The regions made for one frame's events, by fingers and hand (see `add(to:from:)`): kept, its
    /// room reused, where a new array was allocated and freed on every frame that made a region.
    private var frameShapes: [(touch: Int, hand: Hand, shape: OcclusionShape?)] = []
    /// The device's hovering contacts in range at the last frame (display mm); always empty on a
    /// device without hover, where the region is the model's alone.
    private var hoverMm: [PhysicalPoint] = []
    /// A hovering contact within this of one of a gesture's fingers (along x and y, mm) is taken
    /// as a finger of its hand: a hand spans ~180 mm from thumb to little finger, its fingertips
    /// lie within ~90 mm of the index's.
    static let hoverNearMm = 90.0
    /// A `changed` event carries the region again only when one of its contacts moved more than this
    /// along x or y (mm) since the region was last sent.
    static let occlusionResendMm = 2.0

    /// The inputs of the region last sent with a gesture: while they stay put, the region and its
    /// clear side stay what the client has.
    private struct SentRegion {
        var id: UInt64
        var contactsMm: [PhysicalPoint]
        var hand: Hand
        var clearSide: Side
    }

    /// Keeps the hovering contacts in range (not those that landed, left or were lost in this frame).
    mutating func noteHovering(_ contacts: [HoverContact]) {
        if !hoverMm.isEmpty { hoverMm.removeAll(keepingCapacity: true) }
        for c in contacts where c.phase == .began || c.phase == .hovering { hoverMm.append(c.mm) }
    }

    /// Records the fingers of `frame` (those in `fingerMask`, and those lifting in it that were down)
    /// and their positions, before the recognizers see it.
    mutating func noteFingers(of frame: TouchFrame, fingerMask: TouchMask) {
        frameFingers = TouchMask()
        for t in frame.touches where fingerMask.contains(t.id) || (t.phase == .ended && downFingers.contains(t.id)) {
            guard t.id >= 0, t.id < TouchMask.capacity else { continue }
            contactMm[t.id] = t.mm
            frameFingers.insert(t.id)
        }
        downFingers = TouchMask()
        for t in frame.touches where frameFingers.contains(t.id) && !t.phase.isFinished { downFingers.insert(t.id) }
    }

    /// Events made without a frame (timers, a cancel) are placed on the fingers still down.
    mutating func lastFrameIsTheFingersDown() { frameFingers = downFingers }

    /// Adds `occlusion` to the events from `first` on that carry a hand, from the fingers of the
    /// last frame (a per-touch gesture: its own touch), and derives `clearSide` from it. An event
    /// with no finger left to place it uses its own centroid or position. A `changed` event carries
    /// it only when one of its contacts moved more than ``occlusionResendMm``, or its hand changed,
    /// since the last one sent with that gesture (the client keeps the last); without it, its
    /// `clearSide` is the one of that kept region. The test is on the contacts, before any geometry: the region was half of every line's
    /// bytes on a busy device, and computing regions that were not sent was half of the pipeline.
    mutating func add(
        to out: inout [CoreGestureEvent], from first: Int, displayWidthMm: Double, displayHeightMm: Double
    ) {
        guard first < out.count else { return }
        // With hovering contacts, the region's own path; without, this one, as before hover existed.
        if !hoverMm.isEmpty {
            addWithHover(to: &out, from: first, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm)
            return
        }
        // Gestures of one frame with the same fingers and hand (pinch, rotate and pan of one hand)
        // have the same region: it is computed once per frame for them. Key: the touch (−1 for the
        // frame's fingers) and the hand.
        var shapes: [(touch: Int, hand: Hand, shape: OcclusionShape?)] = []
        swap(&shapes, &frameShapes)
        defer {
            // Only when filled: emptying costs a generic call (~60 instructions) even when empty.
            if !shapes.isEmpty { shapes.removeAll(keepingCapacity: true) }
            swap(&shapes, &frameShapes)
        }
        for i in first..<out.count where out[i].hand != nil {
            let hand = out[i].hand ?? .unknown
            guard let (key, anchor) = placement(of: out[i]) else { continue }
            let id = out[i].id
            // Most `changed` events stop here, before any array is made.
            let sent = sentOcclusion.lastIndex { $0.id == id }
            if out[i].phase == .changed, let sent, sentOcclusion[sent].hand == hand,
                contactsStay(sentOcclusion[sent].contactsMm, key: key, anchor: anchor)
            {
                out[i].clearSide = sentOcclusion[sent].clearSide
                continue
            }
            let contacts: [PhysicalPoint]
            if let anchor {
                contacts = [anchor]
            } else {
                contacts = Self.contacts(key: key ?? -1, frameFingers: frameFingers, contactMm: contactMm)
            }
            sendRegion(
                key: key, hand: hand, contacts: contacts, shapes: &shapes, widthMm: displayWidthMm,
                heightMm: displayHeightMm, sent: sent, to: &out[i])
        }
        // A gesture whose end went unseen must not pile up here; forgetting one only makes its next
        // `changed` event carry the region again.
        if sentOcclusion.count > 64 { sentOcclusion.removeAll() }
    }

    /// ``add(to:from:displayWidthMm:displayHeightMm:)`` while the device has hovering contacts:
    /// those near a gesture's fingers join them in its region (source hover), else the model's
    /// region (source model).
    private mutating func addWithHover(
        to out: inout [CoreGestureEvent], from first: Int, displayWidthMm: Double, displayHeightMm: Double
    ) {
        // Gestures of one frame with the same fingers and hand (pinch, rotate and pan of one hand)
        // have the same region: it is computed once per frame for them. Key: the touch (−1 for the
        // frame's fingers) and the hand.
        var shapes: [(touch: Int, hand: Hand, shape: OcclusionShape?)] = []
        swap(&shapes, &frameShapes)
        defer {
            // Only when filled: emptying costs a generic call (~60 instructions) even when empty.
            if !shapes.isEmpty { shapes.removeAll(keepingCapacity: true) }
            swap(&shapes, &frameShapes)
        }
        for i in first..<out.count where out[i].hand != nil {
            let hand = out[i].hand ?? .unknown
            guard let (key, anchor) = placement(of: out[i]) else { continue }
            let id = out[i].id
            // Hovering contacts near the gesture's fingers join them in its region (source hover),
            // else the model makes it (source model). The region's contacts are the fingers' and
            // then the hovering ones' (`contactsMm` of the region sent): a hovering finger that
            // comes, goes or moves makes another region.
            let fingers =
                anchor.map { [$0] } ?? Self.contacts(key: key ?? -1, frameFingers: frameFingers, contactMm: contactMm)
            let near = hoverMm.filter { h in fingers.contains { Self.near(h, $0, within: Self.hoverNearMm) } }
            let hovering = near.isEmpty ? nil : near
            // Most `changed` events stop here, before the region's contacts are made.
            let sent = sentOcclusion.lastIndex { $0.id == id }
            if out[i].phase == .changed, let sent, sentOcclusion[sent].hand == hand,
                contactsStay(sentOcclusion[sent].contactsMm, key: key, anchor: anchor, hovering: hovering)
            {
                out[i].clearSide = sentOcclusion[sent].clearSide
                continue
            }
            let contacts = hovering.map { fingers + $0 } ?? fingers
            guard
                sendRegion(
                    key: key, hand: hand, contacts: contacts, shapes: &shapes, widthMm: displayWidthMm,
                    heightMm: displayHeightMm, sent: sent, to: &out[i])
            else { continue }
            out[i].occlusionSource = hovering == nil ? .model : .hover
        }
        // A gesture whose end went unseen must not pile up here; forgetting one only makes its next
        // `changed` event carry the region again.
        if sentOcclusion.count > 64 { sentOcclusion.removeAll() }
    }

    /// Where event `e`'s region is placed: `key`, its own finger for a per-touch gesture (while
    /// down), −1 for the frame's fingers otherwise; with neither (a tap recognised after the lift),
    /// `anchor`, the event's own point. nil: nothing to place it on.
    @inline(__always) private func placement(of e: CoreGestureEvent) -> (key: Int?, anchor: PhysicalPoint?)? {
        let key: Int?
        if let touch = e.touch {
            key = frameFingers.contains(touch) || downFingers.contains(touch) ? touch : nil
        } else {
            key = frameFingers.bits != 0 ? -1 : nil
        }
        if key != nil { return (key, nil) }
        guard let point = e.centroidMm ?? e.positionMm else { return nil }
        return (nil, PhysicalPoint(x: point.x, y: point.y))
    }

    /// The region of `hand` at `contacts`: the one already made this frame for the same `key` and
    /// hand (pinch, rotate and pan of one hand share it), else made and kept in `shapes`.
    @inline(__always) private mutating func regionShape(
        key: Int?, hand: Hand, contacts: [PhysicalPoint],
        shapes: inout [(touch: Int, hand: Hand, shape: OcclusionShape?)], widthMm: Double, heightMm: Double
    ) -> OcclusionShape? {
        if let key, let known = shapes.first(where: { $0.touch == key && $0.hand == hand }) { return known.shape }
        let shape = Self.occlusionShape(
            contacts: contacts, hand: hand, model: model, widthMm: widthMm, heightMm: heightMm,
            scratch: &occlusionScratch)
        if let key { shapes.append((key, hand, shape)) }
        return shape
    }

    /// The region of `contacts` for `hand` (``regionShape``) put on event `e` (``send``); false when
    /// none could be made. Both paths of ``add(to:from:displayWidthMm:displayHeightMm:)`` end here.
    @discardableResult @inline(__always) private mutating func sendRegion(
        key: Int?, hand: Hand, contacts: [PhysicalPoint],
        shapes: inout [(touch: Int, hand: Hand, shape: OcclusionShape?)], widthMm: Double, heightMm: Double,
        sent: Int?, to e: inout CoreGestureEvent
    ) -> Bool {
        guard
            let shape = regionShape(
                key: key, hand: hand, contacts: contacts, shapes: &shapes, widthMm: widthMm, heightMm: heightMm)
        else { return false }
        send(shape, contacts: contacts, hand: hand, sent: sent, to: &e)
        return true
    }

    /// Puts `shape` on event `e` (its region and clear side) and keeps what it was made from for
    /// the gesture's next `changed` event (`sent`: its record, if it has one), until it ends.
    @inline(__always) private mutating func send(
        _ shape: OcclusionShape, contacts: [PhysicalPoint], hand: Hand, sent: Int?, to e: inout CoreGestureEvent
    ) {
        e.clearSide = shape.clearSide
        switch e.phase {
        case .began, .changed:
            let region = SentRegion(id: e.id, contactsMm: contacts, hand: hand, clearSide: shape.clearSide)
            if let sent { sentOcclusion[sent] = region } else { sentOcclusion.append(region) }
        case .ended, .cancelled, .recognized:
            if let sent { sentOcclusion.remove(at: sent) }
        }
        e.occlusion = OcclusionRegion(polygon: shape.normalised, polygonMm: shape.corners)
    }

    /// The contacts of `key`: its own finger (a touch id), or the frame's fingers (−1) in id order.
    private static func contacts(key: Int, frameFingers: TouchMask, contactMm: [PhysicalPoint]) -> [PhysicalPoint] {
        if key >= 0 { return [contactMm[key]] }
        var out: [PhysicalPoint] = []
        out.reserveCapacity(frameFingers.bits.nonzeroBitCount)
        var b = frameFingers.bits
        while b != 0 {
            out.append(contactMm[b.trailingZeroBitCount])
            b &= b - 1
        }
        return out
    }

    /// Whether the contacts of `key` (or the `anchor` standing in for them) are still those of
    /// `sent`, each within ``occlusionResendMm``: the same fingers in the same order, since a
    /// finger that came or went makes another region.
    private func contactsStay(_ sent: [PhysicalPoint], key: Int?, anchor: PhysicalPoint?) -> Bool {
        if let anchor { return sent.count == 1 && Self.stays(sent[0], anchor) }
        guard let key else { return false }
        if key >= 0 { return sent.count == 1 && Self.stays(sent[0], contactMm[key]) }
        var b = frameFingers.bits, i = 0
        while b != 0 {
            guard i < sent.count, Self.stays(sent[i], contactMm[b.trailingZeroBitCount]) else { return false }
            i += 1
            b &= b - 1
        }
        return i == sent.count
    }

    /// `hovering`: the hovering contacts near them, which follow the fingers' in `sent`.
    private func contactsStay(
        _ sent: [PhysicalPoint], key: Int?, anchor: PhysicalPoint?, hovering: [PhysicalPoint]?
    ) -> Bool {
        guard hovering != nil else { return contactsStay(sent, key: key, anchor: anchor) }
        var fingerCount = sent.count
        if let hovering {
            guard sent.count >= hovering.count else { return false }
            fingerCount -= hovering.count
            for k in hovering.indices where !Self.stays(sent[fingerCount + k], hovering[k]) { return false }
        }
        if let anchor { return fingerCount == 1 && Self.stays(sent[0], anchor) }
        guard let key else { return false }
        if key >= 0 { return fingerCount == 1 && Self.stays(sent[0], contactMm[key]) }
        var b = frameFingers.bits, i = 0
        while b != 0 {
            guard i < fingerCount, Self.stays(sent[i], contactMm[b.trailingZeroBitCount]) else { return false }
            i += 1
            b &= b - 1
        }
        return i == fingerCount
    }

    /// No more than ``occlusionResendMm`` apart along x and along y.
    private static func stays(_ a: PhysicalPoint, _ b: PhysicalPoint) -> Bool {
        near(a, b, within: occlusionResendMm)
    }

    /// No more than `distance` apart along x and along y.
    private static func near(_ a: PhysicalPoint, _ b: PhysicalPoint, within distance: Double) -> Bool {
        Swift.abs(a.x - b.x) <= distance && Swift.abs(a.y - b.y) <= distance
    }

    /// A covered region on its grid, and the clear side taken from it.
    struct OcclusionShape {
        var clearSide: Side
        var corners: [PhysicalPoint]
        var normalised: [NormalizedPoint]
    }

    /// The region of `hand` for fingers at `contacts` (display mm); nil when nothing of it is on the display.
    /// Static, with what it reads passed in: as a method it was handed a copy of the whole arena.
    private static func occlusionShape(
        contacts: [PhysicalPoint], hand: Hand, model: HandOcclusionModel,
        widthMm width: Double, heightMm height: Double,
        scratch: inout HandOcclusionModel.Scratch
    ) -> OcclusionShape? {
        model.hull(contactsMm: contacts, hand: hand, displayWidthMm: width, displayHeightMm: height, into: &scratch)
        HandOcclusionModel.clip(scratch.hull, width: width, height: height, into: &scratch)
        let hull = scratch.hull, polygon = scratch.clipped
        guard !polygon.isEmpty else { return nil }
        let centroid = contacts.reduce(PhysicalPoint.zero, +) / Double(contacts.count)
        let clearSide: Side = hand == .unknown ? .unknown : HandOcclusionModel.clearSide(of: hull, at: centroid)
        // Each corner once: a vertex on the display's edge comes out of clipping twice, and the
        // wire's rounding can make close neighbours equal.
        var corners: [PhysicalPoint] = [], normalised: [NormalizedPoint] = []
        corners.reserveCapacity(polygon.count)
        normalised.reserveCapacity(polygon.count)
        for p in polygon {
            let c = PhysicalPoint(x: inlineRounded(p.x, 10), y: inlineRounded(p.y, 10))
            let n = NormalizedPoint(x: inlineRounded(p.x / width, 1_000), y: inlineRounded(p.y / height, 1_000))
            if let lastC = corners.last, let lastN = normalised.last, lastC == c || lastN == n { continue }
            corners.append(c)
            normalised.append(n)
        }
        while corners.count > 1,
            corners[0] == corners[corners.count - 1] || normalised[0] == normalised[normalised.count - 1]
        {
            corners.removeLast()
            normalised.removeLast()
        }
        return OcclusionShape(clearSide: clearSide, corners: corners, normalised: normalised)
    }
}
