import CLibsystemd
import Logging
import NIOConcurrencyHelpers

/// Tells systemd (Type=notify) READY=1 once every named part runs, and STOPPING=1 on shutdown.
/// Without NOTIFY_SOCKET, sd_notify does nothing, so this is safe outside systemd.
///
/// Every lock in the daemon is NIO's `NIOLockedValueBox` (a pthread mutex): ThreadSanitizer sees
/// it, while it does not see Synchronization's Mutex on Linux (taken in uninstrumented standard
/// library code), and reported the two services marking themselves ready as a race; and it needs
/// no Foundation.
public final class Readiness: Sendable {
    private let waitingFor: NIOLockedValueBox<Set<String>>
    private let logger: Logger

    public init(parts: Set<String>, logger: Logger) {
        self.waitingFor = NIOLockedValueBox(parts)
        self.logger = logger
    }

    /// Marks `part` running; the last one sends READY=1.
    public func markReady(_ part: String) {
        let allReady = waitingFor.withLockedValue { waiting -> Bool in
            guard waiting.remove(part) != nil else { return false }
            return waiting.isEmpty
        }
        if allReady {
            logger.info("ready")
            _ = sd_notify(0, "READY=1")
        }
    }

    public func markStopping() {
        _ = sd_notify(0, "STOPPING=1")
    }
}
