import HandyCore
import HandyProtocol
import HandySynthetic
import Testing

/// `handyctl calibrate hand --device` as the state machine it runs, without a daemon: the daemon's
/// messages and the person's starts in, what to say and write out.
@Suite struct EnrolmentTakeTests {
    static let screen = DeviceInfo(id: "screen-1", name: "Test screen", node: "event7", widthMm: 250, heightMm: 150)

    static func touches(_ time: Double, _ touches: [(id: Int, phase: String, x: Double, y: Double)])
        -> EnrolmentTake
        .Event
    {
        .message(.touches(EnrolmentSessionTests.frame(time, touches).withDevice(screen.id)))
    }

    static func pinchBegan(_ time: Double, device: String = screen.id) -> EnrolmentTake.Event {
        .message(.gesture(GestureEvent(gesture: .pinch, phase: .began, id: 1, time: time, device: device)))
    }

    /// Two fingers down, closing in, lifted, the daemon's pinch `began` among them when `pinched`.
    static func pinch(at t: Double, pinched: Bool, ids: (Int, Int) = (1, 2)) -> [EnrolmentTake.Event] {
        [touches(t, [(ids.0, "began", 100, 50), (ids.1, "began", 80, 80)])]
            + (pinched ? [pinchBegan(t + 0.05)] : [])
            + [
                touches(t + 0.1, [(ids.0, "moved", 95, 55), (ids.1, "moved", 85, 75)]),
                touches(t + 0.2, [(ids.0, "ended", 95, 55), (ids.1, "ended", 85, 75)]),
            ]
    }

    /// Every action as a line; a written take with its file, label, device and frame count.
    static func run(_ take: inout EnrolmentTake, _ events: [EnrolmentTake.Event]) -> [String] {
        events.flatMap { take.handle($0) }.map {
            switch $0 {
            case .say(let line): "say \(line)"
            case .awaitStart(let step): "await start \(step)"
            case .write(let r, let fileName, let label, let deviceName):
                "write \(fileName) [\(label)] on \(deviceName), \(r.events.filter { $0.type == EventType.syn }.count) frames"
            case .finish: "finish"
            }
        }
    }

    static let promptRight =
        "say Step 1 of 2: with your RIGHT hand, pinch 1 times (two fingers, lift between pinches). Press Enter to start."
    static let promptLeft =
        "say Step 2 of 2: with your LEFT hand, pinch 1 times (two fingers, lift between pinches). Press Enter to start."

    @Test func aGoodTakeIsWrittenAndTheStepsRunToTheFinish() {
        var take = EnrolmentTake(device: "event7", pinches: 1, taps: 0)
        #expect(take.state == .waitingForDevice)
        var said = Self.run(&take, [.message(.hello(HelloMessage(version: "t", devices: [Self.screen])))])
        #expect(said == [Self.promptRight, "await start 0"])
        #expect(take.state == .waitingForStart(step: 0))
        // Before the person starts, the device's frames are not recorded.
        said = Self.run(&take, Self.pinch(at: 0, pinched: true))
        #expect(said.isEmpty)
        // A start for another step changes nothing.
        #expect(Self.run(&take, [.started(step: 1)]).isEmpty && take.state == .waitingForStart(step: 0))
        said = Self.run(&take, [.started(step: 0)] + Self.pinch(at: 1, pinched: true))
        #expect(
            said == [
                "write 001-right-pinch.evemu [hand=right tier=positions source=calibrate:event7:step1] on Test screen (enrolment), 3 frames",
                "say   pinch 1 of 1", Self.promptLeft, "await start 1",
            ])
        #expect(take.state == .waitingForStart(step: 1))
        said = Self.run(&take, [.started(step: 1)] + Self.pinch(at: 2, pinched: true))
        #expect(
            said == [
                "write 002-left-pinch.evemu [hand=left tier=positions source=calibrate:event7:step2] on Test screen (enrolment), 3 frames",
                "say   pinch 1 of 1", "finish",
            ])
        #expect(take.isFinished && take.written == 2)
        // After the finish nothing more is taken.
        #expect(Self.run(&take, Self.pinch(at: 3, pinched: true)).isEmpty)
    }

    @Test func aRejectedGestureIsSaidAndTheStepWaitsForAGoodOne() {
        var take = EnrolmentTake(device: "screen-1", pinches: 1, taps: 0)
        _ = Self.run(&take, [.message(.hello(HelloMessage(version: "t", devices: [Self.screen]))), .started(step: 0)])
        // Two fingers without a pinch the daemon saw; and a pinch of another device.
        var said = Self.run(&take, Self.pinch(at: 0, pinched: false))
        #expect(said == ["say   Not taken: the daemon saw no two-finger pinch in it; pinch again."])
        said = Self.run(
            &take,
            [Self.touches(1, [(3, "began", 100, 50), (4, "began", 80, 80)]), Self.pinchBegan(1.05, device: "other")]
                + [Self.touches(1.2, [(3, "ended", 95, 55), (4, "ended", 85, 75)])])
        #expect(said.count == 1 && said.first?.contains("Not taken") == true, "\(said)")
        #expect(take.state == .recording(step: 0) && take.session.rejectedTakes == 2)
        said = Self.run(&take, Self.pinch(at: 2, pinched: true))
        #expect(
            said.first?.hasPrefix("write 001-right-pinch.evemu") == true && said.contains(Self.promptLeft), "\(said)")
        #expect(take.session.rejectedTakes == 0, "the count is the step's")
    }

    @Test func aTakeWhoseFramesStopWithAFingerDownIsDroppedByTheFramesClock() {
        var take = EnrolmentTake(device: "screen-1", pinches: 1, taps: 0)
        _ = Self.run(&take, [.message(.hello(HelloMessage(version: "t", devices: [Self.screen]))), .started(step: 0)])
        // Two fingers down and a pinch began, then the frames stop: they are never lifted.
        var said = Self.run(
            &take, [Self.touches(0, [(1, "began", 100, 50), (2, "began", 80, 80)]), Self.pinchBegan(0.05)])
        #expect(said.isEmpty && take.session.fingersDown == 2)
        // Within the gap the take goes on (the stuck fingers keep it open).
        said = Self.run(&take, [Self.touches(EnrolmentTake.maximumGapSeconds, [(1, "moved", 99, 51)])])
        #expect(said.isEmpty && take.session.fingersDown == 2)
        // A fresh pinch more than the gap after the last frame: the stuck take is dropped, the new one kept alone.
        said = Self.run(&take, Self.pinch(at: 2 * EnrolmentTake.maximumGapSeconds + 0.5, pinched: true, ids: (5, 6)))
        #expect(
            said.prefix(2) == [
                "say   The take was interrupted (no touches for 10 s with a finger down); it is dropped, do it again.",
                "write 001-right-pinch.evemu [hand=right tier=positions source=calibrate:screen-1:step1] on Test screen (enrolment), 3 frames",
            ], "\(said)")
    }

    @Test func theDeviceComingAndGoingWaitsAndDropsTheTakeInProgress() {
        var take = EnrolmentTake(device: "screen-1", pinches: 1, taps: 0)
        #expect(
            Self.run(&take, [.message(.hello(HelloMessage(version: "t", devices: [])))]) == [
                "say Waiting for device screen-1 (not attached now)."
            ])
        #expect(take.state == .waitingForDevice)
        var said = Self.run(&take, [.message(.device(DeviceMessage(event: .added, device: Self.screen)))])
        #expect(said == [Self.promptRight, "await start 0"])
        _ = Self.run(&take, [.started(step: 0), Self.touches(0, [(1, "began", 100, 50), (2, "began", 80, 80)])])
        said = Self.run(&take, [.message(.device(DeviceMessage(event: .removed, device: Self.screen)))])
        #expect(
            said == [
                "say Device screen-1 was removed; waiting for it.",
                "say   The take in progress is dropped; do it again when the device is back.",
            ])
        #expect(!take.session.isRecordingTake)
        // Back under the same id: the step goes on, and a whole pinch is taken.
        _ = Self.run(&take, [.message(.device(DeviceMessage(event: .added, device: Self.screen)))])
        said = Self.run(&take, Self.pinch(at: 1, pinched: true))
        #expect(
            said.first
                == "write 001-right-pinch.evemu [hand=right tier=positions source=calibrate:screen-1:step1] on Test screen (enrolment), 3 frames",
            "\(said)")
    }
}

extension TouchesMessage {
    fileprivate func withDevice(_ device: String) -> TouchesMessage {
        TouchesMessage(time: time, device: device, touches: touches, hovers: hovers)
    }
}
