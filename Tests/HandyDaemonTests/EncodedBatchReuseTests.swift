import HandyCore
import HandyProtocol
import HandyTestSupport
import Logging
import Testing

@testable import HandyDaemon

/// The input thread encodes each batch into the arrays of a batch published before it (handed
/// back by the event loop, docs/PERFORMANCE.md section 5). Whatever the earlier batch held, longer
/// or shorter, in either form, the new batch must be exactly what fresh arrays give.
@Suite struct EncodedBatchReuseTests {
    @Test func aBatchMadeInAnEarlierBatchsArraysIsTheBatchFreshArraysMake() throws {
        let batches = try Self.catchUpBatches(of: fixture(busyFixture))
        // Batches of different sizes follow each other: the reused arrays held more, then less.
        let sizes = Set(batches.map { $0.count })
        #expect(batches.count > 20 && sizes.count > 1, "\(batches.count) batches of sizes \(sizes.sorted())")
        let everything = EncodedForms(full: true, fullTouches: true, compact: true, compactTouches: true)
        // Forms change between batches too: arrays a form left empty, then filled, then emptied.
        let formsInTurn = [
            everything, EncodedForms(), EncodedForms(full: false, compact: true),
            EncodedForms(full: true, fullTouches: true), everything,
        ]
        var storage = EncodedBatch.Storage()
        var compared = 0
        for (i, notices) in batches.enumerated() {
            let forms = formsInTurn[i % formsInTurn.count]
            let fresh = EncodedBatch(notices, forms: forms)
            let reused = EncodedBatch(notices, forms: forms, reusing: consume storage)
            // Compared as Bools: on a failure the testing library would diff megabytes of bytes.
            let same = [
                ("full lines", reused.storage.bytes == fresh.storage.bytes),
                ("full line ends", reused.storage.lineEnds == fresh.storage.lineEnds),
                ("full lines' gestures", reused.storage.lineGestures == fresh.storage.lineGestures),
                ("compact lines", reused.storage.compactBytes == fresh.storage.compactBytes),
                ("compact frames", reused.storage.compactFrames == fresh.storage.compactFrames),
                ("compact gestures", reused.storage.compactGestures == fresh.storage.compactGestures),
                ("items", reused.storage.items == fresh.storage.items),
                ("counters", reused.frames == fresh.frames && reused.events == fresh.events),
                ("forms", reused.hasFull == fresh.hasFull && reused.hasCompact == fresh.hasCompact),
            ]
            for (what, equal) in same where !equal {
                let sizes = "\(reused.storage.bytes.count) against \(fresh.storage.bytes.count) full bytes"
                Issue.record("batch \(i) (\(notices.count) notices, forms \(forms)): the \(what) differ; \(sizes)")
            }
            if same.contains(where: { !$0.1 }) { return }
            if !fresh.storage.bytes.isEmpty || !fresh.storage.compactBytes.isEmpty { compared += 1 }
            // What the event loop hands back: the batch's own arrays (they held this batch).
            storage = reused.storage
        }
        #expect(compared > 20)
    }

    /// The recording replayed an hour late: batches of up to 16 outputs each, the last ones smaller.
    static func catchUpBatches(of path: String) throws -> [[InputNotice]] {
        try onLargeStack { () throws -> [[InputNotice]] in
            let source = try ReplaySource.load(
                path: path, descPath: nil, options: .init(), logger: Logger(label: "test"))
            var added = InputNotices()
            let start = MonotonicInstant.now()
            source.start(now: start, into: &added)
            var batches: [[InputNotice]] = [added.list]
            let late = start.adding(nanoseconds: 3_600_000_000_000)
            while batches.count < 100_000 {
                var notices = InputNotices()
                source.service(now: late, readable: [], into: &notices)
                var batch = notices.list
                if batch.isEmpty { break }
                // Every third batch split in two: a batch of one output follows one of sixteen.
                if batches.count % 3 == 0, batch.count > 1 {
                    batches.append(Array(batch.prefix(1)))
                    batch.removeFirst()
                }
                batches.append(batch)
            }
            return batches
        }
    }
}
