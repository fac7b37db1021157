/// The batches the input thread has handed to the event loop and the event loop has not published
/// yet: held here in order (the event loop takes all that wait at once, on one hop) and bounded.
/// Without the bound a source faster than the event loop (a replay at high `--speed`, a storming
/// device) queues batches without limit: 167–325 MB were measured at replay speeds 10–100 with 64
/// subscribers (docs/PERFORMANCE.md). With it the input thread waits, the kernel's evdev buffer
/// fills and overflows into SYN_DROPPED, which the tracker resyncs from — a live device loses
/// intermediate frames, never memory.
///
/// The wait is bounded too (``maximumWaitSeconds`` at a time), so a stopped event loop cannot wedge
/// the input thread: it then carries on without the bound, as before.
///
/// It is also the one place the two threads share for what flows back: which forms the input
/// thread encodes (``setForms(_:)``, from the event loop) and the arrays of a published batch to
/// encode the next one in (``release(_:spare:)``). One lock for all of it: a batch costs the
/// input thread two (``prepare()``, ``post(_:)``) and a drain costs the event loop two
/// (``take(into:)``, ``release(_:spare:)``).
///
/// `@unchecked Sendable`: its state is touched only with `condition` locked. A condition variable
/// because the input thread must wait with a deadline for the event loop's signal.
final class DeliveryWindow: @unchecked Sendable {
    let limit: Int
    let maximumWaitSeconds: Double
    private let condition = MonotonicCondition()
    /// Posted and not yet published (taken or not).
    private var inFlight = 0
    /// Posted and not yet taken by the event loop, in order.
    private var pending: [EncodedBatch] = []
    /// A drain is queued on the event loop and has not taken `pending` yet.
    private var drainQueued = false
    /// Times the input thread had to wait (status and tests).
    private(set) var waits = 0
    /// Which forms the input thread encodes; set by the event loop when the clients change.
    private var forms = EncodedForms()
    /// A published batch's arrays, for the input thread to encode the next batch in.
    private var spare: EncodedBatch.Storage?

    init(limit: Int = 64, maximumWaitSeconds: Double = 1) {
        self.limit = limit
        self.maximumWaitSeconds = maximumWaitSeconds
    }

    /// Called on the input thread before it encodes a batch: the forms to encode and, swapped out
    /// (a copy would retain and release each array), the arrays to encode into, if any came back.
    func prepare() -> (forms: EncodedForms, spare: EncodedBatch.Storage?) {
        var taken: EncodedBatch.Storage?
        condition.lock()
        swap(&taken, &spare)
        let forms = self.forms
        condition.unlock()
        return (forms, taken)
    }

    /// Called on the event loop when the clients or their subscriptions change.
    func setForms(_ forms: EncodedForms) {
        condition.lock()
        self.forms = forms
        condition.unlock()
    }

    /// Called on the input thread: queues `batch` behind those posted before, waiting while the
    /// window is full. True when the caller must ask the event loop to drain (none is queued).
    func post(_ batch: consuming EncodedBatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if inFlight >= limit {
            waits += 1
            let deadline = MonotonicInstant.now().adding(nanoseconds: Int64(maximumWaitSeconds * 1e9))
            while inFlight >= limit, condition.wait(until: deadline) {}
        }
        inFlight += 1
        pending.append(batch)
        if drainQueued { return false }
        drainQueued = true
        return true
    }

    /// Nothing posted is unpublished: the input thread may publish a batch itself (only it posts,
    /// so this stays true until it posts again).
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return inFlight == 0
    }

    /// Called on the event loop: every batch posted so far, in order, swapped into `batches`
    /// (given empty; its room goes to the next posts, so neither side allocates per batch).
    func take(into batches: inout [EncodedBatch]) {
        condition.lock()
        swap(&pending, &batches)
        drainQueued = false
        condition.unlock()
    }

    /// Called on the event loop once `count` taken batches are published, with the arrays of one of
    /// them, if any, for the input thread's next batch (swapped in, replacing any it has not taken).
    func release(_ count: Int, spare storage: inout EncodedBatch.Storage?) {
        condition.lock()
        inFlight = Swift.max(0, inFlight - count)
        if storage != nil { swap(&spare, &storage) }
        condition.signal()
        condition.unlock()
    }

    /// ``release(_:spare:)`` without arrays.
    func release(_ count: Int) {
        var none: EncodedBatch.Storage?
        release(count, spare: &none)
    }
}
