import HandyProtocol

/// Runs every recognizer over the same frames, with the policy of ``GesturePolicy`` (data, not ifs).
///
/// Per frame: palms are judged and the frame's motion (``FrameMotion``) is computed once; timers
/// due at or before the frame fire first (in time order); then the recognizers see the frame in a
/// fixed order — long press (it opens the two-finger gate), pinch, rotate, pan, swipe, tap,
/// per-touch sub-gestures — so the output order is deterministic. A gesture kind starts only if the
/// policy pairs it with every kind already recognised since the last time no finger was down.
/// Gesture ids are unique per arena, monotonic from 1. A resynced frame cancels everything in
/// progress (reason `resync`) before it is handled.
public struct GestureArena: Sendable {
    public let deviceID: String
    public let geometry: DeviceGeometry
    public var configuration: GestureConfiguration {
        get { context.configuration }
        set { context.configuration = newValue; refreshDeadline() }
    }

    private var context: ArenaContext
    private var motion = MotionTracker()
    private var longPress = LongPressRecognizer()
    private var pinch = PinchRecognizer()
    private var rotate = RotateRecognizer()
    private var pan = PanRecognizer()
    private var swipe = SwipeRecognizer()
    private var tap = TapRecognizer()
    private var touchGestures = TouchGestureRecognizer()
    private var cachedDeadline: Timestamp?
    /// Every finger down since the last time none was.
    private var sequenceFingers = TouchMask()
    /// The region a hand covers, added to every event that carries a hand.
    public private(set) var occlusionModel = HandOcclusionModel()
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
    /// The regions made for one frame's events, by fingers and hand (see `addOcclusion`): kept, its
    /// room reused, where a new array was allocated and freed on every frame that made a region.
    private var frameShapes: [(touch: Int, hand: Hand, shape: OcclusionShape?)] = []
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

    public init(deviceID: String, geometry: DeviceGeometry, configuration: GestureConfiguration = .init()) {
        self.deviceID = deviceID
        self.geometry = geometry
        self.context = ArenaContext(device: deviceID, configuration: configuration, geometry: geometry)
    }

    /// The id the next gesture gets (ids count up from 1). Set it when a device's pipeline is
    /// rebuilt (a reload, the device unplugged and back) so that one device never reuses an id.
    public var nextGestureID: UInt64 {
        get { context.nextID }
        set { context.nextID = newValue }
    }

    /// Replaces the handedness classifier (every gesture with two or more fingers).
    public mutating func setHandednessClassifier(_ classifier: any HandednessClassifier) {
        context.classifier = classifier
    }

    /// Applies a device's enrolled hand profile (``HandProfile``): pinches and other gestures of two
    /// or more fingers by the default classifier recalibrated (``ProfiledHandednessClassifier``),
    /// one finger by the profile's own one-finger model when it has one. nil: back to the defaults.
    public mutating func setHandProfile(_ profile: HandProfile?) {
        context.handProfile = profile
        context.classifier = profile.map { ProfiledHandednessClassifier(profile: $0) } ?? EvidenceHandednessClassifier()
    }

    /// The hand profile in use (``setHandProfile(_:)``).
    public var handProfile: HandProfile? { context.handProfile }

    /// Replaces the occlusion model (docs/GESTURES.md "The covered region").
    public mutating func setOcclusionModel(_ model: HandOcclusionModel) {
        occlusionModel = model
    }

    /// "handyd bug: ..." reports of impossible transitions (the daemon logs them; tests want none).
    public var bugReports: [String] { context.bugs }

    /// When true, every state change of the multi-finger recognizers is recorded in
    /// ``transitions`` as `recognizer: state -> input -> state` (libinput's tap log; the daemon
    /// drains it at trace level). Off by default: it costs string building per input.
    public var tracesTransitions = false
    /// Recorded transitions (see ``tracesTransitions``); the caller empties it with ``drainTransitions()``.
    public private(set) var transitions: [String] = []

    /// Returns and clears the recorded transitions.
    public mutating func drainTransitions() -> [String] {
        defer { transitions.removeAll(keepingCapacity: true) }
        return transitions
    }
    /// Touches ignored because their id is beyond the 64 the recognizers track.
    public var ignoredTouches: UInt64 { motion.ignoredTouches }

    /// Feeds one frame; returns the gesture events it caused, in order.
    public mutating func handle(_ frame: TouchFrame) -> [GestureEvent] {
        var out: [GestureEvent] = []
        handle(frame, into: &out)
        return out
    }

    /// Feeds one frame, appending its gesture events to `out` (no intermediate arrays).
    public mutating func handle(_ frame: TouchFrame, into out: inout [GestureEvent]) {
        let first = out.count
        defer { addOcclusion(to: &out, from: first) }
        fireTimers(upTo: frame.time, into: &out)
        if frame.resynced { cancelRecognizers(at: frame.time, reason: "resync", into: &out) }
        let m = motion.motion(for: frame, configuration: context.configuration)
        frameFingers = TouchMask()
        for t in frame.touches where m.fingerMask.contains(t.id) || (t.phase == .ended && downFingers.contains(t.id)) {
            guard t.id >= 0, t.id < TouchMask.capacity else { continue }
            contactMm[t.id] = t.mm
            frameFingers.insert(t.id)
        }
        downFingers = TouchMask()
        for t in frame.touches where frameFingers.contains(t.id) && !t.phase.isFinished { downFingers.insert(t.id) }
        // A finger of this sequence turned into a palm: what it took part in is cancelled, and the
        // multi-finger recognizers wait for every finger to lift.
        if m.newPalmMask.intersects(sequenceFingers), context.configuration.policy.palmCancels {
            cancelMultiFinger(at: m.time, reason: "palm", into: &out)
        }
        sequenceFingers = m.fingers == 0 ? TouchMask() : sequenceFingers | m.fingerMask
        let noFingers = m.fingers == 0, time = m.time
        // Moved into the input, not copied: a copy retained the frame's touches, and both were
        // destroyed (~150 instructions a frame).
        let input = RecognizerInput.frame(consume m)
        let before = tracesTransitions ? stateNames : nil
        feedMultiFinger(input, into: &out)
        touchGestures.handle(input, &context, into: &out)
        if let before { trace(before, "frame@\(time)") }
        if noFingers { context.startedKinds = 0 }
        refreshDeadline()
    }

    /// Delivers timers (tap timeout, long-press delay) up to `time`.
    public mutating func advanceTime(to time: Timestamp) -> [GestureEvent] {
        var out: [GestureEvent] = []
        advanceTime(to: time, into: &out)
        return out
    }

    /// Delivers timers up to `time`, appending their gesture events to `out`.
    public mutating func advanceTime(to time: Timestamp, into out: inout [GestureEvent]) {
        let first = out.count
        fireTimers(upTo: time, into: &out)
        frameFingers = downFingers
        addOcclusion(to: &out, from: first)
    }

    /// Adds `occlusion` to the events from `first` on that carry a hand, from the fingers of the
    /// last frame (a per-touch gesture: its own touch), and derives `clearSide` from it. An event
    /// with no finger left to place it uses its own centroid or position. A `changed` event carries
    /// it only when one of its contacts moved more than ``occlusionResendMm``, or its hand changed,
    /// since the last one sent with that gesture (the client keeps the last); without it, its
    /// `clearSide` is the one of that kept region. The test is on the contacts, before any geometry: the region was half of every line's
    /// bytes on a busy device, and computing regions that were not sent was half of the pipeline.
    private mutating func addOcclusion(to out: inout [GestureEvent], from first: Int) {
        guard first < out.count else { return }
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
            // Its own finger for a per-touch gesture (while down), the frame's fingers otherwise;
            // nil: none left (a tap recognised after the lift), the event's own point stands in.
            let key: Int?
            if let touch = out[i].touch {
                key = frameFingers.contains(touch) || downFingers.contains(touch) ? touch : nil
            } else {
                key = frameFingers.bits != 0 ? -1 : nil
            }
            let anchor: PhysicalPoint?
            if key == nil {
                guard let point = out[i].centroidMm ?? out[i].positionMm else { continue }
                anchor = PhysicalPoint(x: point.x, y: point.y)
            } else {
                anchor = nil
            }
            let id = out[i].id
            // Most `changed` events stop here, before any array is made.
            let sent = sentOcclusion.lastIndex { $0.id == id }
            if out[i].phase == .changed, let sent, sentOcclusion[sent].hand == hand,
               contactsStay(sentOcclusion[sent].contactsMm, key: key, anchor: anchor) {
                out[i].clearSide = sentOcclusion[sent].clearSide
                continue
            }
            let contacts: [PhysicalPoint]
            if let anchor {
                contacts = [anchor]
            } else {
                contacts = Self.contacts(key: key ?? -1, frameFingers: frameFingers, contactMm: contactMm)
            }
            let shape: OcclusionShape?
            if let key, let known = shapes.first(where: { $0.touch == key && $0.hand == hand }) {
                shape = known.shape
            } else {
                shape = Self.occlusionShape(contacts: contacts, hand: hand, model: occlusionModel,
                                            widthMm: context.displayWidthMm, heightMm: context.displayHeightMm,
                                            scratch: &occlusionScratch)
                if let key { shapes.append((key, hand, shape)) }
            }
            guard let shape else { continue }
            out[i].clearSide = shape.clearSide
            switch out[i].phase {
            case .began, .changed:
                let region = SentRegion(id: id, contactsMm: contacts, hand: hand, clearSide: shape.clearSide)
                if let sent { sentOcclusion[sent] = region } else { sentOcclusion.append(region) }
            case .ended, .cancelled, .recognized:
                if let sent { sentOcclusion.remove(at: sent) }
            }
            out[i].occlusion = Occlusion(polygon: shape.normalised, polygonMm: shape.corners)
        }
        // A gesture whose end went unseen must not pile up here; forgetting one only makes its next
        // `changed` event carry the region again.
        if sentOcclusion.count > 64 { sentOcclusion.removeAll() }
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

    /// No more than ``occlusionResendMm`` apart along x and along y.
    private static func stays(_ a: PhysicalPoint, _ b: PhysicalPoint) -> Bool {
        Swift.abs(a.x - b.x) <= occlusionResendMm && Swift.abs(a.y - b.y) <= occlusionResendMm
    }

    /// A covered region as the wire carries it, and the clear side taken from it.
    struct OcclusionShape {
        var clearSide: Side
        var corners: [WirePoint]
        var normalised: [WirePoint]
    }

    /// The region of `hand` for fingers at `contacts` (display mm); nil when nothing of it is on the display.
    /// Static, with what it reads passed in: as a method it was handed a copy of the whole arena.
    private static func occlusionShape(contacts: [PhysicalPoint], hand: Hand, model: HandOcclusionModel,
                                       widthMm width: Double, heightMm height: Double,
                                       scratch: inout HandOcclusionModel.Scratch) -> OcclusionShape? {
        model.hull(contactsMm: contacts, hand: hand, displayWidthMm: width, displayHeightMm: height, into: &scratch)
        HandOcclusionModel.clip(scratch.hull, width: width, height: height, into: &scratch)
        let hull = scratch.hull, polygon = scratch.clipped
        guard !polygon.isEmpty else { return nil }
        let centroid = contacts.reduce(PhysicalPoint.zero, +) / Double(contacts.count)
        let clearSide: Side = hand == .unknown ? .unknown : HandOcclusionModel.clearSide(of: hull, at: centroid)
        // Each corner once: a vertex on the display's edge comes out of clipping twice, and the
        // wire's rounding can make close neighbours equal.
        var corners: [WirePoint] = [], normalised: [WirePoint] = []
        corners.reserveCapacity(polygon.count)
        normalised.reserveCapacity(polygon.count)
        for p in polygon {
            let c = WirePoint(x: inlineRounded(p.x, 10), y: inlineRounded(p.y, 10))
            let n = WirePoint(x: inlineRounded(p.x / width, 1_000), y: inlineRounded(p.y / height, 1_000))
            if let lastC = corners.last, let lastN = normalised.last, lastC == c || lastN == n { continue }
            corners.append(c)
            normalised.append(n)
        }
        while corners.count > 1, corners[0] == corners[corners.count - 1] || normalised[0] == normalised[normalised.count - 1] {
            corners.removeLast()
            normalised.removeLast()
        }
        return OcclusionShape(clearSide: clearSide, corners: corners, normalised: normalised)
    }

    /// Cancels every gesture in progress (device removed, resync); the fingers still down start
    /// nothing new until they all lift.
    public mutating func cancelAll(at time: Timestamp, reason: String) -> [GestureEvent] {
        var out: [GestureEvent] = []
        cancelRecognizers(at: time, reason: reason, into: &out)
        frameFingers = downFingers
        addOcclusion(to: &out, from: 0)
        refreshDeadline()
        return out
    }

    /// The earliest time a recognizer waits for; the caller arms a timer for it. nil = no timer.
    public var nextDeadline: Timestamp? { cachedDeadline }

    private mutating func cancelRecognizers(at time: Timestamp, reason: String, into out: inout [GestureEvent]) {
        cancelMultiFinger(at: time, reason: reason, into: &out)
        touchGestures.handle(.cancel(at: time, reason: reason), &context, into: &out)
        motion.reset()
        sequenceFingers = TouchMask()
    }

    private mutating func cancelMultiFinger(at time: Timestamp, reason: String, into out: inout [GestureEvent]) {
        let before = tracesTransitions ? stateNames : nil
        defer { if let before { trace(before, "cancel(\(reason))@\(time)") } }
        feedMultiFinger(.cancel(at: time, reason: reason), into: &out)
    }

    /// The recognizers of the whole hand, in their order: long press first, so the gate it opens
    /// (with the policy on, a two-finger hold lets two-finger pan and rotate start) is up to date
    /// before the others see the input.
    private mutating func feedMultiFinger(_ input: RecognizerInput, into out: inout [GestureEvent]) {
        longPress.handle(input, &context, into: &out)
        updateGate()
        pinch.handle(input, &context, into: &out)
        rotate.handle(input, &context, into: &out)
        pan.handle(input, &context, into: &out)
        swipe.handle(input, &context, into: &out)
        tap.handle(input, &context, into: &out)
    }

    /// Fires due timers one deadline at a time, so events come out in time order.
    private mutating func fireTimers(upTo time: Timestamp, into out: inout [GestureEvent]) {
        var guardCount = 0
        while let deadline = cachedDeadline, deadline <= time {
            let input = RecognizerInput.timeAdvanced(to: deadline)
            let states = tracesTransitions ? stateNames : nil
            longPress.handle(input, &context, into: &out)
            updateGate()
            tap.handle(input, &context, into: &out)
            touchGestures.handle(input, &context, into: &out)
            if let states { trace(states, "timer@\(deadline)") }
            let previous = cachedDeadline
            refreshDeadline()
            guardCount += 1
            if cachedDeadline == previous || guardCount > 1000 {
                context.bug("timer at \(deadline) did not advance")
                break
            }
        }
    }

    /// The case name of each multi-finger recognizer's state, in arena order.
    private var stateNames: [String] {
        [Self.caseName(longPress.state), Self.caseName(pinch.state), Self.caseName(rotate.state),
         Self.caseName(pan.state), Self.caseName(swipe.state), Self.caseName(tap.state)]
    }
    private static let recognizerNames = ["long-press", "pinch", "rotate", "pan", "swipe", "tap"]

    private static func caseName(_ state: Any) -> String {
        let s = String(describing: state)
        return s.firstIndex(of: "(").map { String(s[..<$0]) } ?? s
    }

    private mutating func trace(_ before: [String], _ input: String) {
        let after = stateNames
        for i in before.indices where before[i] != after[i] {
            if transitions.count >= 10_000 { transitions.removeFirst(5_000) }   // bounded if nobody drains
            transitions.append("\(Self.recognizerNames[i]): \(before[i]) -> \(input) -> \(after[i])")
        }
    }

    private mutating func updateGate() {
        context.gateOpen = longPress.activeFingers == 2
    }

    private mutating func refreshDeadline() {
        var d = longPress.nextDeadline
        if let t = tap.nextDeadline(doubleTapTimeoutMs: context.configuration.doubleTapTimeoutMs), d == nil || t < d! { d = t }
        if let t = touchGestures.nextDeadline(longPressMs: context.configuration.longPressMs), d == nil || t < d! { d = t }
        cachedDeadline = d
    }
}
