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

    init(limit: Int = 64, maximumWaitSeconds: Double = 1) {
        self.limit = limit
        self.maximumWaitSeconds = maximumWaitSeconds
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

    /// Called on the event loop: every batch posted so far, in order, swapped into `batches`
    /// (given empty; its room goes to the next posts, so neither side allocates per batch).
    func take(into batches: inout [EncodedBatch]) {
        condition.lock()
        swap(&pending, &batches)
        drainQueued = false
        condition.unlock()
    }

    /// Called on the event loop once `count` taken batches are published.
    func release(_ count: Int) {
        condition.lock()
        inFlight = Swift.max(0, inFlight - count)
        condition.signal()
        condition.unlock()
    }
}
