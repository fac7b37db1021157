import CLibsystemd
import Foundation
import Logging

/// Tells systemd (Type=notify) READY=1 once every named part runs, and STOPPING=1 on shutdown.
/// Without NOTIFY_SOCKET, sd_notify does nothing, so this is safe outside systemd.
///
/// The set is guarded by an NSLock (a pthread mutex) rather than Synchronization's Mutex:
/// ThreadSanitizer does not see that Mutex's lock on Linux (it is taken in uninstrumented standard
/// library code) and reported the two services marking themselves ready as a race.
public final class Readiness: @unchecked Sendable {
    private let lock = NSLock()
    private var waitingFor: Set<String>
    private let logger: Logger

    public init(parts: Set<String>, logger: Logger) {
        self.waitingFor = parts
        self.logger = logger
    }

    /// Marks `part` running; the last one sends READY=1.
    public func markReady(_ part: String) {
        let allReady = lock.withLock { () -> Bool in
            guard waitingFor.remove(part) != nil else { return false }
            return waitingFor.isEmpty
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
