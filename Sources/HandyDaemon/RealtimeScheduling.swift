#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Round-robin real-time scheduling for the daemon's threads, best effort.
///
/// Under load the tail of the frame → subscriber latency is scheduling, not work: a busy machine
/// keeps a woken normal-priority thread waiting for a time slice, several milliseconds on a
/// loaded 2-core board, while `Broadcaster.publish` needs a fraction of one (docs/PERFORMANCE.md,
/// "Under a load that can be repeated"). Under `SCHED_RR` the input thread and the event loop run as soon as a
/// frame arrives. The kernel still keeps 5 % of every second for normal tasks
/// (`sched_rt_runtime_us`), and the daemon's work per frame is bounded, so a low priority cannot
/// starve the kiosk.
public enum RealtimeScheduling {
    /// The priorities accepted. The highest stays below the kernel's threaded interrupt handlers
    /// (SCHED_FIFO 50), which deliver the touch events themselves. The unit's 10 also stays below
    /// the 20 that rtkit gives PipeWire's audio threads: a glitch in sound is worse than a late
    /// gesture.
    public static let priorities: ClosedRange<Int32> = 1...49

    /// Puts the calling thread under `SCHED_RR` at `priority`. Threads it creates afterwards
    /// inherit the policy, so call it before starting them. (Not `SCHED_RESET_ON_FORK`: the kernel
    /// resets every new task with it, threads included, and the daemon starts no processes.)
    /// Needs CAP_SYS_NICE or an `RLIMIT_RTPRIO` of at least `priority` (`LimitRTPRIO=` in
    /// systemd/handyd.service), and a system call filter that lets `sched_setscheduler` through.
    ///
    /// - Returns: nil on success, else why not (errno text) — the caller logs it and carries on at
    ///   normal priority: a daemon that cannot get real-time scheduling still works.
    public static func enter(priority: Int32) -> String? {
        guard priorities.contains(priority) else {
            return "priority \(priority) is outside \(priorities.lowerBound) … \(priorities.upperBound)"
        }
        var parameters = sched_param()
        parameters.sched_priority = priority
        // 0: the calling thread (Linux schedules threads, not processes).
        guard sched_setscheduler(0, SCHED_RR, &parameters) == 0 else {
            return String(cString: strerror(errno))
        }
        return nil
    }
}
