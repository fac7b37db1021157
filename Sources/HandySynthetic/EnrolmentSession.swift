import HandyProtocol

/// The steps of a person enrolling on a device (`handyctl calibrate hand --device`), as a state
/// machine fed what the daemon publishes of that device: its `touches` frames and its pinches'
/// `began`. Pure, so the takes are decided the same way whether the frames come from a socket or
/// from a test.
///
/// A pinch step records each take (from the first finger down to the last one up) and keeps it when
/// two or more fingers were down and the daemon saw a pinch begin in it; a tap step records its
/// taps as one take, kept once the step's count of touches has gone down and every finger is up.
public struct EnrolmentSession: Sendable {
    public enum Kind: String, Sendable { case pinch, tap }

    public struct Step: Sendable, Hashable {
        public var hand: Hand
        public var kind: Kind
        public var count: Int
        public init(hand: Hand, kind: Kind, count: Int) { (self.hand, self.kind, self.count) = (hand, kind, count) }
    }

    /// What a frame completed.
    public enum Outcome: Sendable {
        /// A take to keep: its recording, the step it belongs to and a name for its file.
        case take(WireTouchRecording, step: Int, name: String)
        /// The count of pinches or taps of the current step so far.
        case progress(done: Int, of: Int, kind: Kind)
        /// The step is complete; ``isFinished`` says whether it was the last.
        case stepFinished
    }

    public let steps: [Step]
    public private(set) var step = 0
    public private(set) var done = 0
    /// Pinch takes of the current step ended without being kept (fewer than two fingers, or no
    /// pinch began in them), so the person can be told to do it again.
    public private(set) var rejectedTakes = 0
    private var take: WireTouchRecording?
    private var takePinched = false
    private var takeMostTouches = 0

    /// Right-hand pinches, left-hand pinches, then (with `taps` > 0) right-hand and left-hand taps.
    public init(pinches: Int, taps: Int) {
        var steps = [Step(hand: .right, kind: .pinch, count: pinches), Step(hand: .left, kind: .pinch, count: pinches)]
        if taps > 0 {
            steps += [Step(hand: .right, kind: .tap, count: taps), Step(hand: .left, kind: .tap, count: taps)]
        }
        self.steps = steps
    }

    public var isFinished: Bool { step == steps.count }
    /// Fingers down in the take being recorded (0 between takes).
    public var fingersDown: Int { take?.touchesDown ?? 0 }
    /// Whether a take is being recorded: a pinch from its first finger down, the taps of a step
    /// from the first tap until the step has its count.
    public var isRecordingTake: Bool { take != nil }

    /// Drops the take being recorded (the device went away, or the frames stopped with a finger
    /// down): a pinch step keeps the pinches already kept, a tap step starts its count again (its
    /// taps are one take).
    public mutating func abandonTake() {
        guard take != nil, let s = current else { return }
        take = nil
        if s.kind == .tap { done = 0 }
    }
    public var current: Step? { isFinished ? nil : steps[step] }

    /// The daemon published a pinch `began` on the device.
    public mutating func pinchBegan() {
        if take != nil { takePinched = true }
    }

    /// One `touches` frame of the device, on a display of this size, while the person has started
    /// the current step.
    public mutating func handle(_ frame: TouchesMessage, widthMm: Double, heightMm: Double) -> [Outcome] {
        guard let s = current else { return [] }
        var r = take ?? WireTouchRecording(widthMm: widthMm, heightMm: heightMm)
        if take == nil { (takePinched, takeMostTouches) = (false, 0) }
        let before = r.touchesDown
        r.append(frame)
        take = r
        var outcomes: [Outcome] = []
        switch s.kind {
        case .tap:
            if r.touchesDown > before { done += r.touchesDown - before }
            guard done >= s.count, r.touchesDown == 0 else { return [] }
            outcomes += [.take(r, step: step, name: "taps"), .progress(done: done, of: s.count, kind: .tap)]
            take = nil
        case .pinch:
            takeMostTouches = Swift.max(takeMostTouches, r.touchesDown)
            // A take ends when its last finger lifts (a frame without one down before or after is none).
            guard before > 0 || r.touchesDown > 0, r.touchesDown == 0 else { return [] }
            take = nil
            if takePinched && takeMostTouches >= 2 {
                done += 1
                outcomes += [.take(r, step: step, name: "pinch"), .progress(done: done, of: s.count, kind: .pinch)]
            } else {
                rejectedTakes += 1
            }
            guard done >= s.count else { return outcomes }
        }
        step += 1
        done = 0
        rejectedTakes = 0
        return outcomes + [.stepFinished]
    }
}
