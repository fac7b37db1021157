import HandySynthetic
import Testing

@testable import HandyCore

/// The synthetic stream builder itself: the events it makes must be what a kernel would send.
@Suite struct TrackerSyntheticTests {
    let screen = SyntheticTouchscreen(mtProtocol: .slots(4), maxX: 1999, maxY: 999, resolution: 10)

    @Test func protocolBTwoFingersHaveSlotsTrackingIDsAndLifts() {
        let stream = SyntheticStream(device: screen, frameRateHz: 100)
        let frames = stream.frames([
            .hold(atMm: (10, 20), startSeconds: 0, durationSeconds: 0.03),
            .line(fromMm: (50, 50), toMm: (51, 50), startSeconds: 0.01, durationSeconds: 0.01),
        ])
        // frame 0: finger 0 down in slot 0; frame 1: finger 1 down in slot 1; frame 2: finger 1 lifts
        // (moved 1 mm = 10 units), frame 3: finger 0 lifts.
        let abs = EventType.abs
        func trackerEvent(_ k: Int, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: stream.time(ofFrame: k), type: type, code: code, value: value)
        }
        #expect(frames.count == 4)
        #expect(
            frames[0] == [
                trackerEvent(0, abs, AbsCode.mtTrackingID, 0), trackerEvent(0, abs, AbsCode.mtPositionX, 100),
                trackerEvent(0, abs, AbsCode.mtPositionY, 200),
                trackerEvent(0, EventType.key, KeyCode.btnTouch, 1), trackerEvent(0, abs, AbsCode.x, 100),
                trackerEvent(0, abs, AbsCode.y, 200),
                trackerEvent(0, EventType.syn, SynCode.report, 0),
            ])
        #expect(
            frames[1] == [
                trackerEvent(1, abs, AbsCode.mtSlot, 1), trackerEvent(1, abs, AbsCode.mtTrackingID, 1),
                trackerEvent(1, abs, AbsCode.mtPositionX, 500),
                trackerEvent(1, abs, AbsCode.mtPositionY, 500), trackerEvent(1, EventType.syn, SynCode.report, 0),
            ])
        #expect(
            frames[2] == [
                trackerEvent(2, abs, AbsCode.mtTrackingID, -1), trackerEvent(2, EventType.syn, SynCode.report, 0),
            ])
        #expect(
            frames[3] == [
                trackerEvent(3, abs, AbsCode.mtSlot, 0), trackerEvent(3, abs, AbsCode.mtTrackingID, -1),
                trackerEvent(3, EventType.key, KeyCode.btnTouch, 0),
                trackerEvent(3, EventType.syn, SynCode.report, 0),
            ])
    }

    @Test func protocolAClosesEachContactAndEndsWithEmptyReport() {
        let a = SyntheticTouchscreen(mtProtocol: .contacts, maxX: 999, maxY: 999, resolution: 0, emulatesPointer: false)
        let frames = SyntheticStream(device: a).frames([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.02),
            .hold(atMm: (100, 100), startSeconds: 0, durationSeconds: 0.02),
        ])
        #expect(frames.count == 3)
        #expect(frames[0].filter(\.isSynMTReport).count == 2)
        #expect(frames[1].filter(\.isSynMTReport).count == 2)
        #expect(frames[2].map(\.code) == [SynCode.mtReport, SynCode.report])
        // Fallback geometry: 1000 units over 250 mm = 4 units per mm.
        #expect(
            frames[0].first
                == InputEvent(time: Timestamp(seconds: 100), type: EventType.abs, code: AbsCode.mtPositionX, value: 40))
    }

    @Test func libevdevSynDroppedCarriesTerminationAndNewState() {
        let stream = SyntheticStream(device: screen, frameRateHz: 100)
        let frames = stream.frames([
            .hold(atMm: (10, 20), startSeconds: 0, durationSeconds: 0.02),
            .hold(atMm: (30, 20), startSeconds: 0.05, durationSeconds: 0.02),
        ])
        // Frames: [down A], [lift A], [down B], [lift B]. Drop lift A + down B.
        #expect(frames.count == 4)
        let faulty = SyntheticFault.libevdevSynDropped(frames, dropping: 1..<3)
        #expect(faulty.count == 3)
        let sync = faulty[1]
        #expect(sync.first?.isSynDropped == true)
        #expect(sync.filter(\.isSynReport).count == 2)
        #expect(sync.contains { $0.code == AbsCode.mtTrackingID && $0.value == -1 })
        #expect(sync.contains { $0.code == AbsCode.mtTrackingID && $0.value == 1 })
        #expect(sync.contains { $0.code == AbsCode.mtPositionX && $0.value == 300 })
    }
}

@Suite struct TrackerFingerPathTests {
    @Test func keyframesInterpolateAndTransformsCompose() {
        let path = FingerPath(keyframes: [
            (0, FingerSample(xMm: 0, yMm: 0, pressure: 0)),
            (1, FingerSample(xMm: 10, yMm: 20, pressure: 1, tool: .palm)),
        ])
        #expect(path.sample(0.5) == FingerSample(xMm: 5, yMm: 10, pressure: 0.5))
        #expect(path.sample(1).tool == .palm)
        let moved = path.delayed(bySeconds: 2).translated(byMm: 1, -1)
        #expect(moved.downSeconds == 2 && moved.upSeconds == 3)
        #expect(moved.sample(2.5) == FingerSample(xMm: 6, yMm: 9, pressure: 0.5))
        let palm = path.mapSamples { t, s in
            var s = s; if t > 0.7 { s.tool = .palm }; return s
        }
        #expect(palm.sample(0.5).tool == .finger && palm.sample(0.8).tool == .palm)
    }

    @Test func trackingIDsWrapAt65535() {
        let screen = SyntheticTouchscreen(mtProtocol: .slots(2))
        let events = SyntheticStream(device: screen, firstTrackingID: 65535).events([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.01),
            .hold(atMm: (10, 10), startSeconds: 0.05, durationSeconds: 0.01),
        ])
        #expect(
            events.filter { $0.code == AbsCode.mtTrackingID && $0.type == EventType.abs }.map(\.value) == [
                65535, -1, 0, -1,
            ])
    }
}
