import HandyCore
import HandyProtocol

/// A live enrolment (`handyctl calibrate hand --device`) as an explicit state machine: fed the
/// daemon's messages and the person's starts of each step, it says what to print, when to wait
/// for the person and which takes to write. No I/O: `LiveEnrolment` reads the socket and the
/// terminal and writes the files; the steps and takes themselves are an ``EnrolmentSession``.
///
/// The clock is the `touches` frames' time: a take with a finger down whose next frame comes more
/// than ``maximumGapSeconds`` later (the device went quiet or away mid-take) is dropped, and the
/// person is told to do it again.
public struct EnrolmentTake: Sendable {
    public enum State: Sendable, Hashable {
        /// The device is not attached (or the daemon's hello has not come).
        case waitingForDevice
        /// The person was prompted for this step and has not started it.
        case waitingForStart(step: Int)
        /// The person started this step: the device's frames are recorded into takes.
        case recording(step: Int)
        /// Every step has its takes.
        case finished
    }

    public enum Event: Sendable {
        /// A message of the daemon.
        case message(ServerMessage)
        /// The person started this step (Enter, or the end of standard input).
        case started(step: Int)
    }

    public enum Action: Sendable {
        /// A line for the person.
        case say(String)
        /// Wait for the person to start this step (answered by ``Event/started(step:)``).
        case awaitStart(step: Int)
        /// A take to write as a labelled recording: its file name, its `handyd-label` and the
        /// name of the device in it.
        case write(WireTouchRecording, fileName: String, label: String, deviceName: String)
        /// The last step has its takes.
        case finish
    }

    /// A take's frames this far apart with a finger down: the take was interrupted.
    public static let maximumGapSeconds = 10.0

    /// The device as the person named it (an id or a node).
    public let device: String
    public private(set) var state: State = .waitingForDevice
    public private(set) var session: EnrolmentSession
    /// The device once the daemon announced it.
    public private(set) var info: DeviceInfo?
    /// Takes written so far (numbers the files).
    public private(set) var written = 0
    private var lastFrameSeconds: Double?

    public init(device: String, pinches: Int, taps: Int) {
        self.device = device
        self.session = EnrolmentSession(pinches: pinches, taps: taps)
    }

    public var isFinished: Bool { state == .finished }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .started(let step):
            guard state == .waitingForStart(step: step) else { return [] }
            state = .recording(step: step)
            return []
        case .message(.hello(let hello)):
            guard state == .waitingForDevice else { return [] }
            info = hello.devices.first { $0.matches(filter: device) }
            return info == nil ? [.say("Waiting for device \(device) (not attached now).")] : prompt()
        case .message(.device(let d)) where d.device.matches(filter: device):
            if d.event == .added, info == nil, state == .waitingForDevice {
                info = d.device
                return prompt()
            }
            guard d.event == .removed else { return [] }
            var actions: [Action] = [.say("Device \(device) was removed; waiting for it.")]
            if session.isRecordingTake {
                session.abandonTake()
                actions.append(.say("  The take in progress is dropped; do it again when the device is back."))
            }
            lastFrameSeconds = nil
            return actions
        case .message(.gesture(let g)) where g.device == info?.id && g.gesture == .pinch && g.phase == .began:
            session.pinchBegan()
            return []
        case .message(.touches(let t)) where t.device == info?.id:
            guard let info, case .recording = state else { return [] }
            return record(t, info: info)
        case .message:
            return []
        }
    }

    private mutating func prompt() -> [Action] {
        guard let s = session.current else { return [] }
        let what =
            s.kind == .pinch
            ? "pinch \(s.count) times (two fingers, lift between pinches)"
            : "tap \(s.count) times with one finger (anywhere, one finger at a time)"
        state = .waitingForStart(step: session.step)
        return [
            .say(
                "Step \(session.step + 1) of \(session.steps.count): with your \(s.hand.rawValue.uppercased()) hand, \(what). Press Enter to start."
            ),
            .awaitStart(step: session.step),
        ]
    }

    private mutating func record(_ frame: TouchesMessage, info: DeviceInfo) -> [Action] {
        var actions: [Action] = []
        if let last = lastFrameSeconds, session.fingersDown > 0, frame.time - last > Self.maximumGapSeconds {
            session.abandonTake()
            actions.append(
                .say(
                    "  The take was interrupted (no touches for \(Int(Self.maximumGapSeconds)) s with a finger down); it is dropped, do it again."
                ))
        }
        lastFrameSeconds = frame.time
        let rejectedBefore = session.rejectedTakes
        let outcomes = session.handle(frame, widthMm: info.widthMm ?? 250, heightMm: info.heightMm ?? 150)
        if session.rejectedTakes > rejectedBefore, let s = session.current, s.kind == .pinch {
            actions.append(.say("  Not taken: the daemon saw no two-finger pinch in it; pinch again."))
        }
        for outcome in outcomes {
            switch outcome {
            case .take(let r, let step, let name): actions.append(write(r, step: step, name: name, info: info))
            case .progress(let done, _, .tap): actions.append(.say("  \(done) taps recorded."))
            case .progress(let done, let count, .pinch): actions.append(.say("  pinch \(done) of \(count)"))
            case .stepFinished:
                lastFrameSeconds = nil
                if session.isFinished {
                    state = .finished
                    actions.append(.finish)
                } else {
                    actions += prompt()
                }
            }
        }
        return actions
    }

    private mutating func write(_ r: WireTouchRecording, step: Int, name: String, info: DeviceInfo) -> Action {
        let s = session.steps[step]
        let label =
            "hand=\(s.hand.rawValue) tier=\(r.tier.rawValue)" + (s.kind == .tap ? " gesture=tap" : "")
            + " source=calibrate:\(device):step\(step + 1)"
        written += 1
        let number = String(written)
        let fileName =
            String(repeating: "0", count: max(0, 3 - number.count)) + number + "-\(s.hand.rawValue)-\(name).evemu"
        return .write(r, fileName: fileName, label: label, deviceName: "\(info.name) (enrolment)")
    }
}
