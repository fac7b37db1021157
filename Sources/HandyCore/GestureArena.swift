import HandyProtocol

/// Runs every recognizer over the same frames, with the policy of ``GesturePolicy`` (data, not ifs).
///
/// Per frame: palms are judged and the frame's motion (``FrameMotion``) is computed once; timers
/// due at or before the frame fire first (in time order); then the recognizers see the frame in the
/// fixed order of their table (``ArenaRecognizers``) — long press (it opens the two-finger gate),
/// pinch, rotate, pan, swipe, tap, per-touch sub-gestures — so the output order is deterministic. A gesture kind starts only if the
/// policy pairs it with every kind already recognised since the last time no finger was down.
/// Gesture ids are unique per arena, monotonic from 1. A resynced frame cancels everything in
/// progress (reason `resync`) before it is handled.
public struct GestureArena: Sendable {
    /// The device's id, carried by every event.
    public let deviceID: String
    /// The device's geometry (units → mm, calibration).
    public let geometry: DeviceGeometry
    /// The thresholds and policy; setting it re-arms the timers' deadline.
    public var configuration: GestureConfiguration {
        get { context.configuration }
        set { context.configuration = newValue; refreshDeadline() }
    }

    private var context: ArenaContext
    private var motion = MotionTracker()
    private var recognizers = ArenaRecognizers()
    private var cachedDeadline: Timestamp?
    /// Every finger down since the last time none was.
    private var sequenceFingers = TouchMask()
    /// The covered region added to every event that carries a hand (``GestureOcclusion``).
    private var occlusion = GestureOcclusion()
    /// The occlusion model in use (``setOcclusionModel(_:)``).
    var occlusionModel: HandOcclusionModel { occlusion.model }

    /// An arena for one device, every recognizer idle.
    public init(deviceID: String, geometry: DeviceGeometry, configuration: GestureConfiguration = .init()) {
        self.deviceID = deviceID
        self.geometry = geometry
        self.context = ArenaContext(device: deviceID, configuration: configuration, geometry: geometry)
    }

    /// The id the next gesture gets (ids count up from 1). Set it when a device's pipeline is
    /// rebuilt (a reload, the device unplugged and back) so that one device never reuses an id.
    package var nextGestureID: UInt64 {
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
        occlusion.model = model
    }

    /// "handyd bug: ..." reports of impossible transitions (the daemon logs them; tests want none).
    package var bugReports: [String] { context.bugs }

    /// When true, every state change of the multi-finger recognizers is recorded in
    /// ``transitions`` as `recognizer: state -> input -> state` (libinput's tap log; the daemon
    /// drains it at trace level). Off by default: it costs string building per input.
    package var tracesTransitions = false
    /// Recorded transitions (see ``tracesTransitions``); the caller empties it with ``drainTransitions()``.
    package private(set) var transitions: [String] = []

    /// Returns and clears the recorded transitions.
    package mutating func drainTransitions() -> [String] {
        defer { transitions.removeAll(keepingCapacity: true) }
        return transitions
    }
    /// Touches ignored because their id is beyond the 64 the recognizers track.
    var ignoredTouches: UInt64 { motion.ignoredTouches }

    /// Feeds one frame; returns the gesture events it caused, in order.
    public mutating func handle(_ frame: TouchFrame) -> [CoreGestureEvent] {
        var out: [CoreGestureEvent] = []
        handle(frame, into: &out)
        return out
    }

    /// The device's hovering contacts after the frame about to be handled (``TouchTracker/hovering``):
    /// the covered region is built from those near a gesture's fingers, and the hand of one finger
    /// from those beside it (``HoverHandedness``). No recognizer reads them otherwise: a hovering
    /// contact never makes or holds back a gesture. Called only on a device that tracks hover.
    package mutating func noteHovering(_ contacts: [HoverContact]) {
        occlusion.noteHovering(contacts)
        context.noteHovering(contacts)
    }

    /// Feeds one frame, appending its gesture events to `out` (no intermediate arrays).
    public mutating func handle(_ frame: TouchFrame, into out: inout [CoreGestureEvent]) {
        let first = out.count
        defer { addOcclusion(to: &out, from: first) }
        fireTimers(upTo: frame.time, into: &out)
        if frame.resynced { cancelRecognizers(at: frame.time, reason: "resync", into: &out) }
        let m = motion.motion(for: frame, configuration: context.configuration)
        occlusion.noteFingers(of: frame, fingerMask: m.fingerMask)
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
        context.frameNumber &+= 1
        let before = tracesTransitions ? stateNames() : nil
        feed(input, perTouchToo: true, into: &out)
        if let before { trace(before, "frame@\(time)") }
        if noFingers { context.startedKinds = 0 }
        refreshDeadline()
    }

    /// Delivers timers (tap timeout, long-press delay) up to `time`.
    public mutating func advanceTime(to time: Timestamp) -> [CoreGestureEvent] {
        var out: [CoreGestureEvent] = []
        advanceTime(to: time, into: &out)
        return out
    }

    /// Delivers timers up to `time`, appending their gesture events to `out`.
    public mutating func advanceTime(to time: Timestamp, into out: inout [CoreGestureEvent]) {
        let first = out.count
        fireTimers(upTo: time, into: &out)
        occlusion.lastFrameIsTheFingersDown()
        addOcclusion(to: &out, from: first)
    }

    private mutating func addOcclusion(to out: inout [CoreGestureEvent], from first: Int) {
        occlusion.add(
            to: &out, from: first, displayWidthMm: context.displayWidthMm, displayHeightMm: context.displayHeightMm)
    }

    /// Cancels every gesture in progress (device removed, resync); the fingers still down start
    /// nothing new until they all lift.
    public mutating func cancelAll(at time: Timestamp, reason: String) -> [CoreGestureEvent] {
        var out: [CoreGestureEvent] = []
        cancelRecognizers(at: time, reason: reason, into: &out)
        occlusion.lastFrameIsTheFingersDown()
        addOcclusion(to: &out, from: 0)
        refreshDeadline()
        return out
    }

    /// The earliest time a recognizer waits for; the caller arms a timer for it. nil = no timer.
    public var nextDeadline: Timestamp? { cachedDeadline }

    private mutating func cancelRecognizers(at time: Timestamp, reason: String, into out: inout [CoreGestureEvent]) {
        cancel(at: time, reason: reason, perTouchToo: true, into: &out)
        motion.reset()
        sequenceFingers = TouchMask()
    }

    /// Cancels the gestures of the whole hand (a palm), and the per-touch ones when `perTouchToo`.
    private mutating func cancelMultiFinger(at time: Timestamp, reason: String, into out: inout [CoreGestureEvent]) {
        cancel(at: time, reason: reason, perTouchToo: false, into: &out)
    }

    private mutating func cancel(
        at time: Timestamp, reason: String, perTouchToo: Bool, into out: inout [CoreGestureEvent]
    ) {
        let before = tracesTransitions ? stateNames() : nil
        defer { if let before { trace(before, "cancel(\(reason))@\(time)") } }
        feed(.cancel(at: time, reason: reason), perTouchToo: perTouchToo, into: &out)
    }

    /// Feeds `input` to every recognizer in the table's order (the per-touch ones only when
    /// `perTouchToo`; a timer only to those that use timers).
    private mutating func feed(_ input: __owned RecognizerInput, perTouchToo: Bool, into out: inout [CoreGestureEvent])
    {
        var visitor = FeedVisitor(input: input, perTouchToo: perTouchToo)
        recognizers.visitInOrder(&visitor, &context, &out)
    }

    /// Fires due timers one deadline at a time, so events come out in time order.
    private mutating func fireTimers(upTo time: Timestamp, into out: inout [CoreGestureEvent]) {
        var guardCount = 0
        while let deadline = cachedDeadline, deadline <= time {
            let states = tracesTransitions ? stateNames() : nil
            feed(.timeAdvanced(to: deadline), perTouchToo: true, into: &out)
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

    /// The name and case name of the state of each recognizer of the whole hand, in table order.
    private mutating func stateNames() -> [(name: String, state: String)] {
        var visitor = StateNameVisitor()
        var none: [CoreGestureEvent] = []
        recognizers.visitInOrder(&visitor, &context, &none)
        return visitor.names
    }

    private mutating func trace(_ before: [(name: String, state: String)], _ input: String) {
        let after = stateNames()
        for i in before.indices where before[i].state != after[i].state {
            if transitions.count >= 10_000 { transitions.removeFirst(5_000) }  // bounded if nobody drains
            transitions.append("\(before[i].name): \(before[i].state) -> \(input) -> \(after[i].state)")
        }
    }

    private mutating func refreshDeadline() {
        var visitor = DeadlineVisitor()
        var none: [CoreGestureEvent] = []
        recognizers.visitInOrder(&visitor, &context, &none)
        cachedDeadline = visitor.earliest
    }

    /// The kinds the recognizers of the table report, in table order, each with whether its
    /// recognizer is per touch (a test checks every kind is there once, in the right layer).
    var recognizedKinds: [(kind: GestureKind, perTouchRecognizer: Bool)] {
        var visitor = KindVisitor(), copy = self
        var none: [CoreGestureEvent] = []
        copy.recognizers.visitInOrder(&visitor, &copy.context, &none)
        return visitor.kinds
    }
}

/// The recognizers of the arena, and the order in which they see each input: long press first (it
/// opens the two-finger gate), then pinch, rotate, pan, swipe, tap, and the per-touch sub-gestures.
/// The order is the order of the events a frame makes. A new gesture is its recognizer here and
/// its line in ``visitInOrder(_:_:_:)``.
struct ArenaRecognizers: Sendable {
    var longPress = LongPressRecognizer()
    var pinch = PinchRecognizer()
    var rotate = RotateRecognizer()
    var pan = PanRecognizer()
    var swipe = SwipeRecognizer()
    var tap = TapRecognizer()
    var touchGestures = TouchGestureRecognizer()

    /// The one list of the recognizers: feeding, timers, deadlines and the transition log all go through it.
    @inline(__always)
    mutating func visitInOrder<V: RecognizerVisitor>(
        _ v: inout V, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        v.visit(&longPress, &context, &out)
        v.visit(&pinch, &context, &out)
        v.visit(&rotate, &context, &out)
        v.visit(&pan, &context, &out)
        v.visit(&swipe, &context, &out)
        v.visit(&tap, &context, &out)
        v.visit(&touchGestures, &context, &out)
    }
}

/// Feeds one input to each recognizer (and lets it update the context before the next one sees it).
private struct FeedVisitor: RecognizerVisitor {
    let input: RecognizerInput
    let perTouchToo: Bool

    @inline(__always)
    mutating func visit<R: GestureRecognizer>(
        _ recognizer: inout R, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        if R.isPerTouch, !perTouchToo { return }
        if case .timeAdvanced = input, !R.usesTimers { return }
        recognizer.handle(input, &context, into: &out)
        recognizer.afterHandling(&context)
    }
}

/// The earliest deadline of all recognizers.
private struct DeadlineVisitor: RecognizerVisitor {
    var earliest: Timestamp?

    @inline(__always)
    mutating func visit<R: GestureRecognizer>(
        _ recognizer: inout R, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        guard R.usesTimers, let t = recognizer.nextDeadline(context) else { return }
        if earliest == nil || t < earliest! { earliest = t }
    }
}

/// The state of each recognizer of the whole hand, for the transition log.
private struct StateNameVisitor: RecognizerVisitor {
    var names: [(name: String, state: String)] = []

    mutating func visit<R: GestureRecognizer>(
        _ recognizer: inout R, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        guard !R.isPerTouch else { return }
        names.append((R.kinds[0].rawValue, recognizer.stateName))
    }
}

private struct KindVisitor: RecognizerVisitor {
    var kinds: [(kind: GestureKind, perTouchRecognizer: Bool)] = []

    mutating func visit<R: GestureRecognizer>(
        _ recognizer: inout R, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        kinds += R.kinds.map { ($0, R.isPerTouch) }
    }
}
