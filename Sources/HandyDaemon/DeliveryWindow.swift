/// Bounds the batches the input thread has handed to the event loop and the event loop has not
/// published yet. Without it a source faster than the event loop (a replay at high `--speed`, a
/// storming device) queues batches without limit: 167–325 MB were measured at replay speeds 10–100
/// with 64 subscribers (docs/PERFORMANCE.md). With it the input thread waits, the kernel's evdev
/// buffer fills and overflows into SYN_DROPPED, which the tracker resyncs from — a live device loses
/// intermediate frames, never memory.
///
/// The wait is bounded too (``maximumWaitSeconds`` at a time), so a stopped event loop cannot wedge
/// the input thread: it then carries on without the bound, as before.
///
/// `@unchecked Sendable`: `inFlight` and `waits` are touched only with `condition` locked. A
/// condition variable because the input thread must wait with a deadline for the event loop's signal.
final class DeliveryWindow: @unchecked Sendable {
    let limit: Int
    let maximumWaitSeconds: Double
    private let condition = MonotonicCondition()
    private var inFlight = 0
    /// Times the input thread had to wait (status and tests).
    private(set) var waits = 0

    init(limit: Int = 64, maximumWaitSeconds: Double = 1) {
        self.limit = limit
        self.maximumWaitSeconds = maximumWaitSeconds
    }

    /// Called on the input thread before handing a batch over; blocks while the window is full.
    func acquire() {
        condition.lock()
        defer { condition.unlock() }
        if inFlight >= limit {
            waits += 1
            let deadline = MonotonicInstant.now().adding(nanoseconds: Int64(maximumWaitSeconds * 1e9))
            while inFlight >= limit, condition.wait(until: deadline) {}
        }
        inFlight += 1
    }

    /// Called on the event loop once a batch is published.
    func release() {
        condition.lock()
        inFlight = Swift.max(0, inFlight - 1)
        condition.signal()
        condition.unlock()
    }
}
