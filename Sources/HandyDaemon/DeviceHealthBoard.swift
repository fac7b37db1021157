import HandyProtocol
import NIOConcurrencyHelpers

/// Every device's health counts by device id, across unplugs: written by the input thread when
/// something changes (and the last touch at most once a second), read by `status` and the metrics
/// on other threads. Counts run from the daemon's start.
public final class DeviceHealthBoard: @unchecked Sendable {
    private struct Entry {
        var health = DeviceHealth()
        var lastTouch: MonotonicInstant?
    }

    private let lock = NIOLock()
    private var entries: [String: Entry] = [:]

    public init() {}

    /// Changes a device's counts and returns them.
    @discardableResult
    func update(_ id: String, _ change: (inout DeviceHealth) -> Void) -> DeviceHealth {
        lock.withLock {
            change(&entries[id, default: Entry()].health)
            return entries[id]!.health
        }
    }

    /// A finger went down, moved or lifted on the device at `time`.
    func touched(_ id: String, at time: MonotonicInstant) {
        lock.withLock { entries[id, default: Entry()].lastTouch = time }
    }

    /// A device's counts as of `now` (with the seconds since its last touch).
    public func health(of id: String, now: MonotonicInstant = .now()) -> DeviceHealth {
        lock.withLock { Self.withAge(entries[id] ?? Entry(), now: now) }
    }

    /// Every device's counts as of `now`.
    public func snapshot(now: MonotonicInstant = .now()) -> [String: DeviceHealth] {
        lock.withLock { entries.mapValues { Self.withAge($0, now: now) } }
    }

    private static func withAge(_ e: Entry, now: MonotonicInstant) -> DeviceHealth {
        var h = e.health
        h.secondsSinceLastTouch = e.lastTouch.map {
            Double(Swift.max(0, now.nanoseconds - $0.nanoseconds) / 1_000_000) / 1000
        }
        return h
    }
}
