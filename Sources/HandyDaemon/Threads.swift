#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Threads and a timed condition straight from pthreads: the daemon does not link Foundation (its
// Thread and NSCondition were the only reasons), which keeps ~12 MB of mapped code and ICU out of
// handyd (docs/PERFORMANCE.md, memory).

/// A mutex with a condition variable whose timed waits run on CLOCK_MONOTONIC, so a deadline does
/// not move when the wall clock is set.
///
/// `@unchecked Sendable`: the pthread objects live at fixed addresses for the object's lifetime
/// and are made for use from several threads.
final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Wakes one waiter; call with the lock held.
    func signal() { pthread_cond_signal(condition) }

    /// Waits, the lock held, until signalled (or woken spuriously) or until `deadline`. Returns
    /// false once the deadline has passed, as `NSCondition.wait(until:)` does.
    func wait(until deadline: MonotonicInstant) -> Bool {
        let ns = max(deadline.nanoseconds, 0)
        var time = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }
}

/// Starts a detached thread running `body` with a stack of `stackBytes`.
/// - Throws: ``DaemonError`` when the system refuses a thread (`pthread_create`'s error).
func startThread(stackBytes: Int, _ body: @escaping @Sendable () -> Void) throws(DaemonError) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackBytes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, &attributes,
        { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw DaemonError("cannot start a thread: \(String(cString: strerror(rc)))")
    }
}

/// What ``startThread(stackBytes:_:)`` hands the new thread through `pthread_create`'s one pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
