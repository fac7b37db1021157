import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP, taken synchronously by the daemon's main thread.
///
/// ``block()`` runs before any thread starts, so every thread inherits the mask and the kernel
/// delivers these signals to the one thread waiting in `sigwait`. No handler, no DispatchSource:
/// nothing runs, and nothing wakes, until a signal really comes (docs/PERFORMANCE.md "Idle cost":
/// libdispatch's workqueue monitor woke once a second as soon as any global queue was used).
struct LifecycleSignals {
    private var set = sigset_t()

    /// Blocks the lifecycle signals in the calling thread and in every thread it starts later.
    static func block() -> LifecycleSignals {
        var signals = LifecycleSignals()
        sigemptyset(&signals.set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals.set, signal) }
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Waits for SIGTERM or SIGINT and returns it; each SIGHUP on the way calls `onHangup`.
    func waitForStop(onHangup: () -> Void) -> Int32 {
        var set = self.set
        while true {
            var signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { continue }
            if signal == SIGHUP { onHangup(); continue }
            return signal
        }
    }
}

/// The input thread: runs an ``InputLoop`` until it is told to stop.
///
/// If the loop ends without being asked (it never should: only a failing `poll` ends it), the
/// daemon is told to stop as SIGTERM would, so a daemon without input does not linger.
final class InputThread: Sendable {
    let loop: InputLoop
    private let finished = ConditionLock(value: false)
    private let stopRequested = NIOLockedValueBox(false)

    private init(loop: InputLoop) { self.loop = loop }

    static func start(loop: InputLoop, logger: Logger) throws(DaemonError) -> InputThread {
        let input = InputThread(loop: loop)
        // The recognizers keep sizeable state on the stack in debug builds; do not depend on the
        // platform's default thread stack.
        try startThread(stackBytes: 8 << 20) {
            nameCurrentThread("handyd-input")
            loop.run()
            if !input.stopRequested.withLockedValue({ $0 }) {
                logger.error("input loop ended on its own; stopping")
                kill(getpid(), SIGTERM)
            }
            input.finished.lock()
            input.finished.unlock(withValue: true)
        }
        return input
    }

    /// Stops the loop (its sources free their devices) and waits until the thread is done.
    func stop() {
        stopRequested.withLockedValue { $0 = true }
        loop.send(.stop)
        finished.lock(whenValue: true)
        finished.unlock()
    }
}

/// Names the calling thread for ps, top and /proc (`comm`, at most 15 bytes). Foundation's
/// Thread.name did not reach the kernel on Linux, and glibc's pthread_setname_np is not visible
/// to Swift without _GNU_SOURCE; /proc/thread-self/comm is the same thing.
func nameCurrentThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
