import HandyProtocol
import HandyRecording
import HandyWire
import Testing

@testable import HandyCore

/// Stuck contacts (``StuckContactFilter``): still beyond the threshold, left out of recognition.
@Suite struct StuckContactTests {
    static func touch(_ id: Int, _ phase: TouchPhase, _ x: Double, _ y: Double, at t: Double) -> Touch {
        Touch(
            id: id, phase: phase, device: DevicePoint(x: 0, y: 0), mm: PhysicalPoint(x: x, y: y),
            normalized: NormalizedPoint(x: 0, y: 0), beganAt: Timestamp(seconds: 0), time: Timestamp(seconds: t))
    }

    static func frame(_ t: Double, _ touches: [Touch]) -> TouchFrame {
        TouchFrame(time: Timestamp(seconds: t), touches: touches)
    }

    @Test func aTouchStillForTheThresholdIsStuckOnceAndReleasedAtItsLift() throws {
        var filter = StuckContactFilter(stuckAfterSeconds: 10, slopMm: 2.5)
        var changes: [StuckContactChange] = []
        _ = filter.filter(Self.frame(0, [Self.touch(0, .began, 50, 50, at: 0)]), changes: &changes)
        #expect(filter.nextDeadline == Timestamp(seconds: 10))
        // Jitter within the slop does not move the deadline; a move beyond it does.
        _ = filter.filter(Self.frame(4, [Self.touch(0, .moved, 51.5, 51.5, at: 4)]), changes: &changes)
        #expect(filter.nextDeadline == Timestamp(seconds: 10))
        _ = filter.filter(Self.frame(5, [Self.touch(0, .moved, 55, 50, at: 5)]), changes: &changes)
        #expect(filter.nextDeadline == Timestamp(seconds: 15))
        #expect(changes.isEmpty)
        let current = Self.frame(15, [Self.touch(0, .stationary, 55.5, 50, at: 15)])
        let told = try #require(filter.fire(at: Timestamp(seconds: 15), current: current, changes: &changes))
        #expect(told.touches.map(\.phase) == [.cancelled], "the arena sees the stuck touch cancelled")
        #expect(
            changes == [
                StuckContactChange(
                    kind: .stuck, touchID: 0, time: Timestamp(seconds: 15),
                    positionMm: PhysicalPoint(x: 55.5, y: 50), stillSeconds: 10, stuckSeconds: 0)
            ])
        #expect(filter.stuckCount == 1 && filter.nextDeadline == nil)
        #expect(filter.fire(at: Timestamp(seconds: 16), current: current, changes: &changes) == nil, "stuck once")
        // Another finger comes and goes: the arena never sees the stuck one again.
        let kept = filter.filter(
            Self.frame(16, [Self.touch(0, .stationary, 55, 50, at: 16), Self.touch(1, .began, 90, 40, at: 16)]),
            changes: &changes)
        #expect(kept.touches.map(\.id) == [1])
        let lifted = filter.filter(
            Self.frame(20, [Self.touch(0, .ended, 55, 50, at: 20), Self.touch(1, .moved, 95, 40, at: 20)]),
            changes: &changes)
        #expect(lifted.touches.map(\.id) == [1], "its lift is not the arena's either")
        #expect(
            changes.last
                == StuckContactChange(
                    kind: .released, touchID: 0, time: Timestamp(seconds: 20),
                    positionMm: PhysicalPoint(x: 55, y: 50), stillSeconds: 15, stuckSeconds: 5))
        #expect(filter.stuckCount == 0 && changes.count == 2)
    }

    @Test func zeroTurnsItOff() {
        let axes: [UInt16: AbsInfo] = [
            AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: 1),
            AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 999, resolution: 10),
            AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 999, resolution: 10),
            AbsCode.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ]
        var pipeline = GesturePipeline(
            deviceID: "t", description: DeviceDescription(name: "t", absAxes: axes), stuckAfterSeconds: 0)
        #expect(!pipeline.stuckContacts.isEnabled)
        var out = PipelineOutput()
        for e in [
            InputEvent(time: .zero, type: EventType.abs, code: AbsCode.mtSlot, value: 0),
            InputEvent(time: .zero, type: EventType.abs, code: AbsCode.mtTrackingID, value: 1),
            InputEvent(time: .zero, type: EventType.syn, code: SynCode.report, value: 0),
        ] { pipeline.handle(e, into: &out) }
        pipeline.advanceTime(to: Timestamp(seconds: 3600), into: &out)
        #expect(out.stuckContacts.isEmpty && pipeline.nextDeadline == nil)
    }

    /// The recording of the issue: a contact still for 35 s, a right hand pinching beside it at 31 s.
    /// Without the filter: one long press from 0.5 s to 35 s and no pinch (the ghost's distance
    /// swamps the pinch's). With it: the long press cancelled at 30 s, a two-finger right-hand pinch.
    @Test func aGhostNoLongerTakesThePinchAway() throws {
        let result = try GestureFixtures.replayWithHealth("health/stuck-contact-pinch.evemu")
        #expect(result.stuck.map(\.kind) == [.stuck, .released])
        let stuck = try #require(result.stuck.first), released = try #require(result.stuck.last)
        // The ghost is the first touch down (id 0), still (0.3 mm of jitter) from 0 s on.
        #expect(stuck.touchID == 0 && stuck.time == Timestamp(seconds: 30))
        #expect(released.touchID == 0 && released.time == Timestamp(seconds: 35) && released.stuckSeconds == 5)
        let longPress = result.gestures.filter { $0.gesture == .longPress }
        #expect(
            longPress.first?.phase == .began && longPress.last?.phase == .cancelled
                && longPress.last?.time == Timestamp(seconds: 30))
        let pinch = result.gestures.filter { $0.gesture == .pinch && $0.phase == .began }
        #expect(pinch.count == 1)
        #expect(pinch.first?.fingers == 2 && pinch.first?.hand == .right)
        let without = try GestureFixtures.replayWithHealth("health/stuck-contact-pinch.evemu", stuckAfterSeconds: 0)
        #expect(
            without.stuck.isEmpty && !without.gestures.contains { $0.gesture == .pinch }, "the failure the filter mends"
        )
    }

    /// A touch whose stuck moment passes inside a frame that already ends it (a new tracking id in
    /// its slot, then an event stamped 35 s later: a broken recording's times, as the Pipeline
    /// fuzzer made them) is not stuck: the arena sees it cancelled in that frame, and its per-touch
    /// pan ends. Before, it was made stuck outside any frame, its end was kept from the arena as a
    /// stuck touch's, and the pan stayed open for good.
    @Test func aTouchThatEndsInTheFrameItsTimerFiresInIsNotStuck() throws {
        let axes: [UInt16: AbsInfo] = [
            AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: 1),
            AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 9999, resolution: 10),
            AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 9999, resolution: 10),
            AbsCode.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ]
        var pipeline = GesturePipeline(deviceID: "t", description: DeviceDescription(name: "t", absAxes: axes))
        var out = PipelineOutput()
        func send(_ seconds: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            pipeline.handle(
                InputEvent(time: Timestamp(seconds: seconds), type: type, code: code, value: value), into: &out)
        }
        func frame(_ seconds: Double, _ events: [(UInt16, Int32)]) {
            for (code, value) in events { send(seconds, EventType.abs, code, value) }
            send(seconds, EventType.syn, SynCode.report, 0)
        }
        // One finger, slowly 4 mm to the right (beyond the slop, under a flick's speed): a touch-pan.
        frame(
            0,
            [(AbsCode.mtSlot, 0), (AbsCode.mtTrackingID, 1), (AbsCode.mtPositionX, 1000), (AbsCode.mtPositionY, 1000)])
        for step in 1...4 { frame(Double(step) / 10, [(AbsCode.mtPositionX, 1000 + Int32(step) * 10)]) }
        let pan = try #require(out.gestures.first { $0.gesture == .touchPan && $0.phase == .began })
        // Still since 0.4 s; at 5 s its slot gets a new tracking id, and the frame's next event comes 35 s on.
        send(5, EventType.abs, AbsCode.mtTrackingID, 2)
        frame(40, [(AbsCode.mtPositionX, 2000)])
        let end = try #require(out.gestures.first { $0.id == pan.id && $0.phase != .began && $0.phase != .changed })
        #expect(end.phase == .cancelled && end.reason == "touch-cancelled" && end.time == Timestamp(seconds: 40))
        #expect(!out.stuckContacts.contains { $0.touchID == pan.touch }, "\(out.stuckContacts)")
        out.gestures.append(contentsOf: pipeline.deviceRemoved(at: Timestamp(seconds: 41)).gestures)
        let began = Set(out.gestures.filter { $0.phase == .began }.map(\.id))
        let finished = Set(out.gestures.filter { $0.phase == .ended || $0.phase == .cancelled }.map(\.id))
        #expect(began == finished, "every gesture that began ends")
    }

    /// Every slot stuck: each reported once, each release once, nothing left behind.
    @Test func everySlotStuckIsReportedOnceEach() throws {
        var result = try GestureFixtures.replayWithHealth("health/stuck-every-slot.evemu")
        #expect(result.stuck.filter { $0.kind == .stuck }.map(\.touchID).sorted() == Array(0..<10))
        #expect(result.stuck.filter { $0.kind == .released }.map(\.touchID).sorted() == Array(0..<10))
        #expect(result.stuck.filter { $0.kind == .stuck }.allSatisfy { $0.time == Timestamp(seconds: 30) })
        #expect(result.pipeline.stuckContacts.stuckCount == 0 && result.pipeline.stuckContacts.nextDeadline == nil)
        #expect(
            !result.gestures.contains { $0.phase == .began && $0.time > Timestamp(seconds: 30) },
            "nothing begins from stuck touches")
        result.pipeline.advanceTime(to: Timestamp(seconds: 100), into: &result.output)
        #expect(result.output.stuckContacts.isEmpty)
    }
}

extension GestureFixtures {
    struct HealthResult {
        var pipeline: GesturePipeline
        var gestures: [CoreGestureEvent]
        var stuck: [StuckContactChange]
        var output = PipelineOutput()
    }

    /// A fixture through a pipeline with the stuck-contact filter; timers fire as events pass them.
    static func replayWithHealth(
        _ relative: String, stuckAfterSeconds: Double = GesturePipeline.defaultStuckAfterSeconds
    ) throws -> HealthResult {
        let recording = try Recording.load(path: path(relative))
        var pipeline = GesturePipeline(
            deviceID: "replay", description: recording.description, stuckAfterSeconds: stuckAfterSeconds)
        var out = PipelineOutput()
        for e in recording.events { pipeline.handle(e, into: &out) }
        if let last = recording.events.last {
            pipeline.advanceTime(to: last.time.advanced(byMilliseconds: 2000), into: &out)
        }
        return HealthResult(pipeline: pipeline, gestures: out.gestures, stuck: out.stuckContacts)
    }
}
