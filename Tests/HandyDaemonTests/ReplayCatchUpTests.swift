import HandyCore
@testable import HandyDaemon
import HandyProtocol
import Logging
import Testing

/// A replay that fell behind (a starved machine, a stalled event loop) catches up in batches of at
/// most ``ReplaySource/maximumOutputsPerService`` outputs, with the same output in the same order
/// as one event at a time: one batch of everything due was one buffer of megabytes per subscription.
@Suite struct ReplayCatchUpTests {
    @Test func aReplayThatFellBehindCatchesUpInBoundedBatches() throws {
        let path = fixture(busyFixture)
        let expected = try ExpectedOutput(recordingPath: path)
        let batches = try onLargeStack { () throws -> [[InputNotice]] in
            let source = try ReplaySource.load(path: path, descPath: nil, options: .init(), logger: Logger(label: "test"))
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
        #expect(batches.allSatisfy { $0.count <= ReplaySource.maximumOutputsPerService + 1 }, "\(batches.map(\.count).max() ?? 0)")
        var items: [ExpectedOutput.Item] = []
        for notice in batches.joined() {
            guard case .output(let device, let output) = notice else { Issue.record("unexpected \(notice)"); continue }
            for frame in output.frames where frame.hasChanges { items.append(.touches(frame.wireMessage(device: device))) }
            for g in output.gestures { items.append(.gesture(.init(gesture: g.gesture, phase: g.phase))) }
        }
        #expect(items.count == expected.sequence.count)
        #expect(items == expected.sequence)
    }
}
