import HandyCore
import HandyProtocol
import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the clock the input loop plans wake-ups with.
public struct MonotonicInstant: Hashable, Comparable, Sendable {
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public static func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
    /// Saturates at Int64's ends: a replay's far-future times become "never", not a trap.
    public func adding(nanoseconds ns: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: Timestamp.saturatingSum(nanoseconds, ns))
    }
    /// A live device's event time (CLOCK_MONOTONIC in µs) on this clock, saturated: a deadline far
    /// in the future (a long threshold after a late timestamp) is "never", not an overflow trap.
    public init(deviceTime t: Timestamp) {
        let (ns, overflow) = t.microseconds.multipliedReportingOverflow(by: 1000)
        self.nanoseconds = overflow ? (t.microseconds < 0 ? .min : .max) : ns
    }
}

/// Something that produces device input for the ``InputLoop``: the replay of a recording, or the
/// live touchscreens. Called only on the input thread.
public protocol DeviceSource: AnyObject {
    /// Descriptors to wait on for reading. Asked on every turn of the loop: a stored array, not
    /// one built per call (an allocation per frame on a live device).
    var pollDescriptors: [Int32] { get }
    /// When the source must run even if no descriptor is readable (a replay's next event, a
    /// recognizer's timeout); nil = no timer, the loop may sleep until a descriptor wakes it.
    var wakeupTime: MonotonicInstant? { get }
    /// Starts: announces the devices already present.
    func start(now: MonotonicInstant, into notices: inout InputNotices)
    /// Runs after `readable` (some of ``pollDescriptors``) became readable or the wake-up time passed.
    /// A frame's output is best made in ``InputNotices/takeOutput()``'s (no new arrays).
    func service(now: MonotonicInstant, readable: [Int32], into notices: inout InputNotices)
    /// SIGHUP: re-read configuration (udev properties, thresholds) without dropping devices.
    func reload(now: MonotonicInstant, into notices: inout InputNotices)
    /// A signal from the socket side (enough clients subscribed): a paused replay begins.
    func release(now: MonotonicInstant)
    /// Frees every device; no more notices are delivered after this.
    func stop()
}

extension DeviceSource {
    public func reload(now: MonotonicInstant, into notices: inout InputNotices) {}
    public func release(now: MonotonicInstant) {}
}

/// The input thread: poll() over the sources' descriptors plus an eventfd for commands, with a
/// timeout only while some source has a wake-up time. It never writes to a socket; each batch of
/// notices goes to `deliver` (which hops to the event loop).
///
/// `@unchecked Sendable`: the sources are not Sendable and are touched only by the thread in
/// ``run()``; the one method called from other threads, ``send(_:)``, touches only the locked
/// command queue and the pipe.
public final class InputLoop: @unchecked Sendable {
    public enum Command: Sendable { case stop, reload, release }

    private let sources: [any DeviceSource]
    private let deliver: @Sendable ([InputNotice]) -> Void
    private let logger: Logger
    /// Read and write ends of the self-pipe that wakes poll() for commands.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let commands = NIOLockedValueBox<[Command]>([])
    /// Called once on the input thread after the sources started and their first notices (the
    /// devices present at start) went to `deliver`.
    private let started: (@Sendable () -> Void)?
    /// systemd's watchdog, ticked from this thread (nil: none asked for, no timer).
    private let watchdog: Watchdog?

    public init(
        sources: [any DeviceSource], logger: Logger, watchdog: Watchdog? = nil, started: (@Sendable () -> Void)? = nil,
        deliver: @escaping @Sendable ([InputNotice]) -> Void
    ) throws {
        self.sources = sources
        self.watchdog = watchdog
        self.deliver = deliver
        self.started = started
        self.logger = logger
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DaemonError("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        self.wakeFD = fds[0]
        self.wakeWriteFD = fds[1]
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    /// Queues a command for the input thread and wakes it. Safe from any thread.
    public func send(_ command: Command) {
        commands.withLockedValue { $0.append(command) }
        var one: UInt8 = 1
        // A full pipe already means "wake up"; losing this byte is fine.
        _ = write(wakeWriteFD, &one, 1)
    }

    /// Runs on the calling thread until ``Command/stop``.
    public func run() {
        var notices = InputNotices()
        let start = MonotonicInstant.now()
        for source in sources { source.start(now: start, into: &notices) }
        flush(&notices)
        started?()

        var pollSet: [pollfd] = []
        // Where each source's descriptors sit in pollSet: its readable ones are read from there.
        var ranges = [Range<Int>](repeating: 0..<0, count: sources.count)
        // Reused: a Set per source per turn was an allocation per frame; a source has a handful
        // of descriptors, so `contains` on an array is as fast.
        var mine: [Int32] = []
        // The descriptors pollSet was built from: it is built again only when a source's changed
        // (a device came or went). Rebuilt every turn, emptying and refilling it cost ~150
        // instructions a frame; the kernel writes every entry's revents on each poll, so the
        // entries are reused as they are. A source keeps its array until it changes, so the
        // comparison is of two references, mostly.
        var polled = [[Int32]](repeating: [], count: sources.count)
        var built = false
        // Only this thread moves the watchdog's time: kept here, not asked for (a lock) each turn.
        var pingAt = watchdog?.nextPing
        while true {
            var wakeup: MonotonicInstant? = pingAt
            for (i, source) in sources.enumerated() {
                let descriptors = source.pollDescriptors
                if descriptors != polled[i] {
                    polled[i] = descriptors
                    built = false
                }
                if let time = source.wakeupTime, wakeup.map({ time < $0 }) ?? true { wakeup = time }
            }
            if !built {
                pollSet.removeAll(keepingCapacity: true)
                pollSet.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
                for i in sources.indices {
                    let first = pollSet.count
                    for fd in polled[i] { pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
                    ranges[i] = first..<pollSet.count
                }
                built = true
            }
            var timeoutMs: Int32 = -1
            if let wakeup {
                let remaining = Timestamp.saturatingSum(wakeup.nanoseconds, -MonotonicInstant.now().nanoseconds)
                // Round up so we never wake just before the deadline and spin; divide first, so a
                // wake-up near Int64.max ("never") cannot overflow.
                timeoutMs =
                    remaining <= 0
                    ? 0 : Int32(min(Int64(Int32.max), remaining / 1_000_000 + (remaining % 1_000_000 == 0 ? 0 : 1)))
            }
            let rc = poll(&pollSet, nfds_t(pollSet.count), timeoutMs)
            if rc < 0 {
                if errno == EINTR { continue }
                logger.error("handyd bug: poll failed", metadata: ["error": "\(String(cString: strerror(errno)))"])
                break
            }
            let now = MonotonicInstant.now()
            if let watchdog, let due = pingAt, due <= now {
                watchdog.tick(now: now)
                pingAt = watchdog.nextPing
            }

            if pollSet[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeFD, &drain, drain.count) > 0 {}
                let pending = commands.withLockedValue { c -> [Command] in
                    defer { c.removeAll() }; return c
                }
                var stop = false
                for command in pending {
                    switch command {
                    case .stop: stop = true
                    case .reload:
                        logger.info("reloading configuration")
                        for source in sources { source.reload(now: now, into: &notices) }
                    case .release:
                        for source in sources { source.release(now: now) }
                    }
                }
                if stop { break }
            }

            for (i, source) in sources.enumerated() {
                let due = source.wakeupTime.map { $0 <= now } ?? false
                if !mine.isEmpty { mine.removeAll(keepingCapacity: true) }
                for entry in pollSet[ranges[i]] where entry.revents != 0 { mine.append(entry.fd) }
                if due || !mine.isEmpty { source.service(now: now, readable: mine, into: &notices) }
            }
            flush(&notices)
        }
        for source in sources { source.stop() }
        logger.debug("input loop stopped")
    }

    private func flush(_ notices: inout InputNotices) {
        guard !notices.isEmpty else { return }
        deliver(notices.list)
        notices.recycle()
    }
}
