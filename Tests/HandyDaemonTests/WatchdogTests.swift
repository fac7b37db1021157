import Foundation
import HandyDaemon
import HandyTestSupport
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// ``Watchdog`` against real event loops: it tells systemd all is well only while every loop runs
/// the tasks handed to it, and a loop stuck in a task (here: waiting on a semaphore) stops it.
@Suite struct WatchdogTests {
    static let logger = Logger(label: "test")
    static let ms: Int64 = 1_000_000

    /// Waits (up to 5 s) until every loop has run what was queued on it before this call.
    static func settle(_ loops: [any EventLoop]) throws {
        for loop in loops { try loop.submit {}.wait() }
    }

    @Test func pingsWhileEveryLoopRunsAndStopsWhileOneIsStuck() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        let sent = NIOLockedValueBox<[String]>([])
        let t0 = MonotonicInstant(nanoseconds: 1_000 * Self.ms)
        let watchdog = Watchdog(intervalNanoseconds: 100 * Self.ms, eventLoops: loops, logger: Self.logger, now: t0) {
            state in
            sent.withLockedValue { $0.append(state) }
        }
        // Due at once, then every 100 ms of the input loop's clock.
        #expect(watchdog.nextPing == t0)
        #expect(watchdog.tick(now: t0))
        #expect(watchdog.nextPing == t0.adding(nanoseconds: 100 * Self.ms))
        #expect(!watchdog.tick(now: t0.adding(nanoseconds: 50 * Self.ms)), "not due yet")
        try Self.settle(loops)
        #expect(watchdog.tick(now: t0.adding(nanoseconds: 100 * Self.ms)))
        #expect(sent.withLockedValue { $0 } == ["WATCHDOG=1", "WATCHDOG=1"])

        // The second loop stuck in a task: the ticks while it is stuck send nothing.
        try Self.settle(loops)
        let release = DispatchSemaphore(value: 0)
        loops[1].execute { release.wait() }
        #expect(
            watchdog.tick(now: t0.adding(nanoseconds: 200 * Self.ms)),
            "every loop answered the previous tick; this tick's task waits behind the stuck one")
        #expect(!watchdog.tick(now: t0.adding(nanoseconds: 300 * Self.ms)), "a stuck loop must stop the ping")
        #expect(!watchdog.tick(now: t0.adding(nanoseconds: 400 * Self.ms)))
        #expect(sent.withLockedValue { $0.count } == 3)
        // Running again: the ping comes back at the next tick.
        release.signal()
        try Self.settle(loops)
        #expect(watchdog.tick(now: t0.adding(nanoseconds: 500 * Self.ms)))
        #expect(sent.withLockedValue { $0.count } == 4)
    }

    /// A daemon started as systemd starts it with `WatchdogSec=`: it sends WATCHDOG=1 to
    /// NOTIFY_SOCKET again and again; without WATCHDOG_USEC it sends none (no timer at all).
    @Test(arguments: [true, false]) func theDaemonPingsOnlyWhenAskedTo(asked: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-notify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notify = try NotifySocket(path: directory.appendingPathComponent("notify").path)
        var environment = ["NOTIFY_SOCKET": notify.path]
        if asked { environment["WATCHDOG_USEC"] = "200000" }
        let daemon = try DaemonProcess(arguments: ["--replay", fixture(twoFingerFixture)], environment: environment)
        let states = notify.receive(forSeconds: 1.5)
        let pings = states.filter { $0 == "WATCHDOG=1" }.count
        #expect(states.contains("READY=1"), "\(states) \(daemon.stateForFailure)")
        if asked {
            // Every 100 ms: ~15 in 1.5 s; a loaded machine may delay some, none may be missing for long.
            #expect(pings >= 5, "\(pings) pings in 1.5 s at a 200 ms watchdog: \(daemon.stateForFailure)")
            #expect(daemon.log.contains("watchdog: telling systemd every 0.1 s"))
        } else {
            #expect(pings == 0, "\(states)")
            #expect(!daemon.log.contains("watchdog"))
        }
    }
}

/// The datagram socket systemd listens on for sd_notify: the states a process sends.
final class NotifySocket {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        try socketCall(fd, &address, "bind \(path)", bind)
    }

    deinit { close(fd) }

    /// Every state line received within `seconds` (a datagram may carry several, one a line).
    func receive(forSeconds seconds: Double) -> [String] {
        var states: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return states }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, left * 1000))) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            states += String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }
}
