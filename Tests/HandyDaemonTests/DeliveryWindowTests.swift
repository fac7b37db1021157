import Foundation
import HandyProtocol
import Testing

@testable import HandyDaemon

/// The input thread hands its batches to the event loop through the `DeliveryWindow`: in order, at
/// most one drain queued on the event loop however many batches wait, and bounded, so a source
/// faster than the event loop waits instead of queueing memory (docs/PERFORMANCE.md).
@Suite struct DeliveryWindowTests {
    /// A batch that says which it is: one device added, named `id`.
    static func batch(_ id: String) -> EncodedBatch {
        EncodedBatch([.added(DeviceInfo(id: id, name: id))], forms: EncodedForms())
    }

    static func ids(_ batches: [EncodedBatch]) -> [String] {
        batches.flatMap {
            $0.storage.items.map { item -> String in
                if case .added(let info) = item { return info.id }
                return "?"
            }
        }
    }

    @Test func oneDrainIsAskedForUntilTheEventLoopTakesTheBatches() {
        let window = DeliveryWindow(limit: 8)
        #expect(window.post(Self.batch("a")))
        #expect(!window.post(Self.batch("b")), "a drain is queued already")
        #expect(!window.post(Self.batch("c")))
        var taken: [EncodedBatch] = []
        window.take(into: &taken)
        #expect(Self.ids(taken) == ["a", "b", "c"], "in the order posted")
        #expect(window.post(Self.batch("d")), "taken: the next batch needs a drain of its own")
        var next: [EncodedBatch] = []
        window.take(into: &next)
        #expect(Self.ids(next) == ["d"])
        window.release(4)
        #expect(window.waits == 0)
    }

    @Test func aFullWindowHoldsTheInputThreadUntilABatchIsPublished() throws {
        let window = DeliveryWindow(limit: 2, maximumWaitSeconds: 30)
        _ = window.post(Self.batch("a"))
        _ = window.post(Self.batch("b"))
        let posted = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = window.post(Self.batch("c"))
            posted.signal()
        }
        thread.start()
        // Not posted while the window is full (however long we look: it cannot return before the release).
        #expect(posted.wait(timeout: .now() + 0.2) == .timedOut)
        var taken: [EncodedBatch] = []
        window.take(into: &taken)
        #expect(posted.wait(timeout: .now() + 0.2) == .timedOut, "taken is not published: still in flight")
        window.release(1)
        #expect(posted.wait(timeout: .now() + 30) == .success, "a published batch makes room")
        #expect(window.waits == 1)
        var rest: [EncodedBatch] = []
        window.take(into: &rest)
        #expect(Self.ids(taken) == ["a", "b"] && Self.ids(rest) == ["c"])
    }

    /// A stopped event loop never takes or publishes: the input thread waits at most
    /// `maximumWaitSeconds` a batch and carries on.
    @Test func aStoppedEventLoopDoesNotWedgeTheInputThread() {
        let window = DeliveryWindow(limit: 1, maximumWaitSeconds: 0.05)
        _ = window.post(Self.batch("a"))
        let start = Date()
        _ = window.post(Self.batch("b"))
        #expect(Date().timeIntervalSince(start) >= 0.04)
        #expect(window.waits == 1)
        var taken: [EncodedBatch] = []
        window.take(into: &taken)
        #expect(Self.ids(taken) == ["a", "b"])
    }

    /// What flows back shares the window's lock: the forms the event loop set, and the arrays of a
    /// published batch, handed to the input thread once (a second `prepare` has none to give) and
    /// kept across a release that brings none.
    @Test func formsAndTheSpareArraysFlowBackToTheInputThread() {
        let window = DeliveryWindow(limit: 8)
        #expect(
            window.prepare().forms == EncodedForms(), "until a client comes: the full form, as before forms existed")
        #expect(window.prepare().spare == nil)
        let compact = EncodedForms(full: false, fullTouches: false, compact: true, compactTouches: true)
        window.setForms(compact)
        #expect(window.prepare().forms == compact)

        _ = window.post(Self.batch("a"))
        var taken: [EncodedBatch] = []
        window.take(into: &taken)
        var storage = taken[0].storage
        storage.bytes.reserveCapacity(4096)
        let room = storage.bytes.capacity
        var spare: EncodedBatch.Storage? = storage
        window.release(1, spare: &spare)
        #expect(spare == nil, "swapped in")
        _ = window.post(Self.batch("b"))
        window.release(1)  // without arrays: the spare stays
        let first = window.prepare()
        #expect(first.spare?.bytes.capacity == room)
        #expect(window.prepare().spare == nil, "handed back once")
    }

    /// With several event loops one batch serves every broadcaster: it is made in each form some
    /// client of one of them receives, and a broadcaster without clients adds nothing (its own
    /// forms say "the full form", made for no one).
    @Test func aSharedBatchIsMadeInEveryFormSomeLoopNeeds() {
        let noClient = EncodedForms()
        let compact = EncodedForms(full: false, compact: true, compactTouches: true, someClient: true)
        let full = EncodedForms(full: true, fullTouches: true, someClient: true)
        func union(_ all: [EncodedForms]) -> EncodedForms {
            var forms = EncodedForms.nothing
            for each in all { forms.include(each) }
            return forms.toEncode
        }
        #expect(union([noClient, noClient]) == noClient)
        #expect(union([noClient, compact]) == compact)
        #expect(
            union([compact, full])
                == EncodedForms(
                    full: true, fullTouches: true, compact: true, compactTouches: true,
                    someClient: true))
    }

    /// A broadcaster's forms are those its clients receive: a full client without touches and a
    /// compact one with them need neither full touches nor compact gestures without touches.
    @Test func aBroadcastersFormsAreItsClients() {
        var forms = EncodedForms.nothing
        forms.include(EncodedForms(receivedBy: Subscription()))
        forms.include(EncodedForms(receivedBy: Subscription(touches: true, form: .compact)))
        #expect(
            forms == EncodedForms(full: true, fullTouches: false, compact: true, compactTouches: true, someClient: true)
        )
        #expect(EncodedForms.nothing.toEncode == EncodedForms(), "no client: the full form, for no one")
    }
}
