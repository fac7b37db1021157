import CLibsystemd
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// systemd's watchdog (`WatchdogSec=` in the unit; off in the shipped one): while every thread
/// that serves runs, `WATCHDOG=1` goes to systemd at half the interval; a daemon stuck anywhere
/// stops sending it, and systemd kills and restarts it (`Restart=on-failure`).
///
/// The ping is sent from the input thread (``InputLoop`` asks ``nextPing`` for its poll timeout
/// and calls ``tick(now:)``), so a stuck input thread stops it; and only when every event loop
/// ran the small task handed to it at the previous tick, so a stuck event loop stops it too. A
/// loop that is late once (by half the interval) misses one ping, which systemd does not notice;
/// one stuck for the whole interval gets the daemon restarted.
///
/// Off (no `WATCHDOG_USEC`, or it names another process) it costs nothing: no timer, no wake-up.
/// On, it costs a wake-up of the input thread and of each event loop per half interval, which is
/// why the shipped unit leaves it to the kiosk (docs/RELIABILITY.md).
public final class Watchdog: Sendable {
    /// Half of systemd's `WATCHDOG_USEC`: how often the ping goes.
    public let intervalNanoseconds: Int64
    private let eventLoops: [any EventLoop]
    private let notify: @Sendable (String) -> Void
    private let logger: Logger
    private struct State {
        var nextPing: MonotonicInstant
        /// Event loops that have not yet run the task of the last tick.
        var unanswered = 0
        /// Ticks in a row at which some loop had not answered (warned at the first).
        var late = 0
    }
    private let state: NIOLockedValueBox<State>

    /// The watchdog systemd asks for, or nil when it asks for none.
    public static func fromEnvironment(eventLoops: [any EventLoop], logger: Logger) -> Watchdog? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Watchdog(
            intervalNanoseconds: Int64(min(usec, UInt64(Int64.max / 1000))) * 1000 / 2, eventLoops: eventLoops,
            logger: logger
        ) { _ = sd_notify(0, $0) }
    }

    /// - Parameter notify: sends one sd_notify state string (tests collect them).
    public init(
        intervalNanoseconds: Int64, eventLoops: [any EventLoop], logger: Logger,
        now: MonotonicInstant = .now(), notify: @escaping @Sendable (String) -> Void
    ) {
        self.intervalNanoseconds = max(1_000_000, intervalNanoseconds)
        self.eventLoops = eventLoops
        self.notify = notify
        self.logger = logger
        state = NIOLockedValueBox(State(nextPing: now))
    }

    /// When the input loop must wake for the next tick.
    public var nextPing: MonotonicInstant { state.withLockedValue { $0.nextPing } }

    /// On the input thread, at or after ``nextPing``: pings systemd if every event loop answered
    /// the previous tick, and hands each loop the task for this one.
    /// - Returns: whether `WATCHDOG=1` was sent.
    @discardableResult
    public func tick(now: MonotonicInstant) -> Bool {
        let (answered, lateTicks) = state.withLockedValue { s -> (Bool, Int) in
            guard now >= s.nextPing else { return (false, -1) }
            s.nextPing = now.adding(nanoseconds: intervalNanoseconds)
            let answered = s.unanswered == 0
            s.late = answered ? 0 : s.late + 1
            if answered { s.unanswered = eventLoops.count }
            return (answered, s.late)
        }
        guard lateTicks >= 0 else { return false }
        guard answered else {
            if lateTicks == 1 {
                logger.warning(
                    "watchdog: an event loop did not run for half the watchdog interval; not telling systemd all is well"
                )
            }
            return false
        }
        notify("WATCHDOG=1")
        for loop in eventLoops {
            loop.execute { self.state.withLockedValue { $0.unanswered -= 1 } }
        }
        return true
    }
}
