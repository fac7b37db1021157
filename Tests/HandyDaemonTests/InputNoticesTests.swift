import HandyCore
import HandyProtocol
import HandyTestSupport
import Logging
import Testing

@testable import HandyDaemon

/// A source makes each frame's output in the arrays of an output delivered before
/// (`InputNotices.recycle`, docs/PERFORMANCE.md section 5): the lines must be exactly those fresh
/// arrays give, and the arrays must really be the delivered ones.
@Suite struct InputNoticesTests {
    /// The busy recording replayed twice, in batches of one turn each, as the input loop does:
    /// once with a new `InputNotices` per turn, once with one kept and recycled after each batch
    /// is encoded (the encoder read the list and let it go). Same bytes, batch by batch; and from
    /// the second batch on, the outputs are made in recycled arrays.
    @Test func recycledOutputsGiveTheLinesFreshOnesGive() throws {
        let path = fixture(busyFixture)
        let everything = EncodedForms(full: true, fullTouches: true, compact: true, compactTouches: true)
        let (fresh, recycled, reusedArrays) = try onLargeStack { () throws -> ([[UInt8]], [[UInt8]], Int) in
            func replay(recycling: Bool) throws -> ([[UInt8]], Int) {
                let source = try ReplaySource.load(
                    path: path, descPath: nil, options: .init(), logger: Logger(label: "test"))
                let start = MonotonicInstant.now()
                var notices = InputNotices()
                source.start(now: start, into: &notices)
                var lines: [[UInt8]] = []
                var reused = 0
                // Turns 2 ms apart: a few frames each, as a live device's turns are.
                for turn in 1...20_000 {
                    if !recycling { notices = InputNotices() }
                    source.service(
                        now: start.adding(nanoseconds: Int64(turn) * 2_000_000), readable: [], into: &notices)
                    if notices.isEmpty { continue }
                    let spareBefore = notices.takeOutput()
                    if spareBefore.gestures.capacity > 0 { reused += 1 }
                    notices.returnOutput(spareBefore)
                    let batch = EncodedBatch(notices.list, forms: everything)
                    lines.append(batch.storage.bytes + batch.storage.compactBytes)
                    if recycling { notices.recycle() }
                }
                return (lines, reused)
            }
            let (fresh, _) = try replay(recycling: false)
            let (recycled, reused) = try replay(recycling: true)
            return (fresh, recycled, reused)
        }
        #expect(fresh.count > 100 && fresh.count == recycled.count, "\(fresh.count) against \(recycled.count) batches")
        // Compared as Bools: on a failure the testing library would diff megabytes of bytes.
        let firstDifferent = zip(fresh, recycled).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifferent == nil, "batch \(firstDifferent ?? -1) differs")
        #expect(reusedArrays > fresh.count / 2, "\(reusedArrays) of \(fresh.count) turns had a recycled output ready")
    }

    /// The arrays a delivered output carried are the ones the next output is made in (no new
    /// allocation); an output that a burst made large is let go.
    @Test func theDeliveredArraysAreTheNextOutputs() {
        var notices = InputNotices()
        var output = notices.takeOutput()
        output.gestures.reserveCapacity(8)
        output.gestures.append(
            CoreGestureEvent(gesture: .pan, phase: .began, id: 1, time: Timestamp(seconds: 1), device: "d"))
        let address = output.gestures.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        notices.append(.output(device: "d", output))
        output = PipelineOutput()  // the source let go of it: the list holds the only reference
        notices.recycle()
        #expect(notices.isEmpty)
        let next = notices.takeOutput()
        #expect(next.isEmpty && next.gestures.capacity >= 8)
        #expect(next.gestures.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)

        var large = PipelineOutput()
        large.gestures.reserveCapacity(InputNotices.largestKeptCapacity + 1)
        large.gestures.append(
            CoreGestureEvent(gesture: .pan, phase: .began, id: 2, time: Timestamp(seconds: 2), device: "d"))
        notices.append(.output(device: "d", large))
        large = PipelineOutput()
        notices.recycle()
        #expect(notices.takeOutput().gestures.capacity == 0)
    }
}
