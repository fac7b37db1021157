import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic
import HandyTestSupport
import HandyWire
import Logging
import Testing

@testable import HandyDaemon

/// A replay that fell behind (a starved machine, a stalled event loop) catches up in batches of at
/// most ``ReplaySource/maximumOutputsPerService`` outputs, with the same output in the same order
/// as one event at a time: one batch of everything due was one buffer of megabytes per subscription.
@Suite struct ReplayCatchUpTests {
    @Test func aReplayThatFellBehindCatchesUpInBoundedBatches() throws {
        let path = fixture(busyFixture)
        let expected = try ExpectedOutput(recordingPath: path)
        let batches = try onLargeStack { () throws -> [[InputNotice]] in
            let source = try ReplaySource.load(
                path: path, descPath: nil, options: .init(), logger: Logger(label: "test"))
            var added = InputNotices()
            let start = MonotonicInstant.now()
            source.start(now: start, into: &added)
            // An hour late: every event of the recording is due at once.
            let late = start.adding(nanoseconds: 3_600_000_000_000)
            var batches: [[InputNotice]] = []
            while batches.count < 100_000 {
                var batch = InputNotices()
                source.service(now: late, readable: [], into: &batch)
                if batch.isEmpty { break }
                batches.append(batch.list)
            }
            return batches
        }
        // Many batches, none over the bound (+1: the timers' gestures once caught up).
        #expect(batches.count > expected.touches.count / ReplaySource.maximumOutputsPerService)
        #expect(
            batches.allSatisfy { $0.count <= ReplaySource.maximumOutputsPerService + 1 },
            "\(batches.map(\.count).max() ?? 0)")
        var items: [ExpectedOutput.Item] = []
        for notice in batches.joined() {
            guard case .output(let device, let output) = notice else { Issue.record("unexpected \(notice)"); continue }
            for frame in output.frames where frame.hasChanges {
                items.append(.touches(frame.wireMessage(device: device)))
            }
            for g in output.gestures { items.append(.gesture(.init(gesture: g.gesture, phase: g.phase))) }
        }
        #expect(items.count == expected.sequence.count)
        #expect(items == expected.sequence)
    }

    /// A looped recording whose times go back (its last event 5 s before its first) goes on one pass
    /// at a time, each after the latest event of the one before and the pause: it used to start
    /// each pass 4 s earlier than the last, always due at once, and loop without end.
    @Test func aLoopedRecordingWhoseTimesGoBackAdvances() throws {
        func frame(_ seconds: Double, _ events: [(UInt16, UInt16, Int32)]) -> [InputEvent] {
            (events + [(EventType.syn, SynCode.report, 0)]).map {
                InputEvent(time: Timestamp(seconds: seconds), type: $0.0, code: $0.1, value: $0.2)
            }
        }
        let abs = EventType.abs
        let events =
            frame(
                5.0,
                [
                    (abs, AbsCode.mtSlot, 0), (abs, AbsCode.mtTrackingID, 1), (abs, AbsCode.mtPositionX, 100),
                    (abs, AbsCode.mtPositionY, 100),
                ])
            + frame(2.0, [(abs, AbsCode.mtPositionX, 140)])
            + frame(0.0, [(abs, AbsCode.mtTrackingID, -1)])
        let recording = Recording(
            description: DemoScenario.device.description, events: events, format: .evemu, path: "backwards.evemu")
        let source = ReplaySource(recording: recording, options: .init(loop: true), logger: Logger(label: "test"))
        var notices = InputNotices()
        let start = MonotonicInstant.now()
        source.start(now: start, into: &notices)
        // Its first event is its latest, so a pass spans nothing and the next begins 1 s (the
        // pause) after it: 3.5 s later, four passes are done (at 0, 1, 2 and 3 s) — not thousands.
        let later = start.adding(nanoseconds: 3_500_000_000)
        var frames = 0
        for _ in 0..<1_000 {
            var batch = InputNotices()
            source.service(now: later, readable: [], into: &batch)
            if batch.isEmpty { break }
            for case .output(_, let output) in batch.list { frames += output.frames.count }
        }
        #expect(source.passes == 4, "\(source.passes) passes")
        #expect(frames > 0 && frames <= 4 * 3, "\(frames) frames")
    }
}
