import CLibsystemd
import Logging
import Synchronization

/// Tells systemd (Type=notify) READY=1 once every named part runs, and STOPPING=1 on shutdown.
/// Without NOTIFY_SOCKET, sd_notify does nothing, so this is safe outside systemd.
public final class Readiness: Sendable {
    private let waitingFor: Mutex<Set<String>>
    private let logger: Logger

    public init(parts: Set<String>, logger: Logger) {
        self.waitingFor = Mutex(parts)
        self.logger = logger
    }

    /// Marks `part` running; the last one sends READY=1.
    public func markReady(_ part: String) {
        let allReady = waitingFor.withLock { set -> Bool in
            guard set.remove(part) != nil else { return false }
            return set.isEmpty
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
