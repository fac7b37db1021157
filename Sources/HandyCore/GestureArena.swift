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
    /// The covered region added to every event that carries a hand (``GestureOcclusion``).
    private var occlusion = GestureOcclusion()
    /// The occlusion model in use (``setOcclusionModel(_:)``).
    public var occlusionModel: HandOcclusionModel { occlusion.model }

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
        occlusion.model = model
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
        occlusion.lastFrameIsTheFingersDown()
        addOcclusion(to: &out, from: first)
    }

    private mutating func addOcclusion(to out: inout [GestureEvent], from first: Int) {
        occlusion.add(to: &out, from: first, displayWidthMm: context.displayWidthMm, displayHeightMm: context.displayHeightMm)
    }

    /// Cancels every gesture in progress (device removed, resync); the fingers still down start
    /// nothing new until they all lift.
    public mutating func cancelAll(at time: Timestamp, reason: String) -> [GestureEvent] {
        var out: [GestureEvent] = []
        cancelRecognizers(at: time, reason: reason, into: &out)
        occlusion.lastFrameIsTheFingersDown()
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
