import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A subscriber that keeps up, then falls behind (stops reading while the daemon queues its bytes),
/// then catches up, twice over, against one that reads throughout: the real daemon, real sockets.
/// Whatever path its bytes take (written at once while its socket has room, queued in the daemon
/// while it has none), it must get every byte, in order: the same bytes as the steady reader.
/// In DaemonTests' serialized suite: run beside the slow-client test, its load could make that
/// test's reader fall behind.
extension DaemonTests {
    /// What the daemon holds for the lagging client must pass this before it counts as behind:
    /// well past what a batch or two is, so the bytes really waited in the daemon.
    static let fallingBehindBytes = 256 << 10

    @Test func aClientFallingBehindAndCatchingUpLosesNoByteAndKeepsTheirOrder() throws {
        // Looped so the stream lasts as long as the test needs; a bound far above what the stalls
        // queue, so falling behind is never dropping.
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(busyFixture), "--loop", "--speed", "2",
            "--client-queue-bytes", "\(64 << 20)", "--wait-clients", "2",
        ])
        let steadyFD = try connectUnixSocket(daemon.socketPath)
        let laggingFD = try connectUnixSocket(daemon.socketPath)
        defer {
            close(steadyFD)
            close(laggingFD)
        }
        // A small receive buffer: the kernel holds little, so a stall soon queues in the daemon.
        var small: Int32 = 4096
        setsockopt(laggingFD, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let subscribe = Array((#"{"type":"subscribe","touches":true}"# + "\n").utf8)
        for fd in [steadyFD, laggingFD] {
            #expect(subscribe.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == subscribe.count)
        }

        // The steady client reads everything, on its own thread, until EOF.
        let steady = SteadyReader(fd: steadyFD)
        let steadyThread = Thread { steady.run(deadline: Date().addingTimeInterval(120)) }
        steadyThread.start()

        var lagging: [UInt8] = []
        var eof = false
        /// Bytes the daemon holds for the lagging client: what the steady one got beyond what the
        /// lagging one read and what waits in its socket (a Unix socket's bytes in flight all
        /// sit in the receiver's queue).
        func heldByDaemon() -> Int {
            var queued: Int32 = 0
            _ = ioctl(laggingFD, UInt(FIONREAD), &queued)
            return steady.count - lagging.count - Int(queued)
        }
        func keepUp(seconds: Double) throws {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end, !eof { eof = try readSome(laggingFD, into: &lagging, waitingMs: 50) }
        }

        var heldMost: [Int] = []
        for _ in 0..<2 {
            // Keeping up.
            try keepUp(seconds: 1)
            // Falling behind: not reading until the daemon holds `behindBytes` for it.
            let stallEnd = Date().addingTimeInterval(30)
            var most = 0
            while Date() < stallEnd, most < Self.fallingBehindBytes {
                usleep(20_000)
                most = max(most, heldByDaemon())
            }
            heldMost.append(most)
            // Catching up: reading until it has what the steady client had when it started again.
            let target = steady.count
            let catchUpEnd = Date().addingTimeInterval(30)
            while Date() < catchUpEnd, !eof, lagging.count < target {
                eof = try readSome(laggingFD, into: &lagging, waitingMs: 50)
            }
            #expect(lagging.count >= target, "caught up within 30 s")
        }
        // Keeping up again, then the end: shutdown to both, after everything queued before it.
        try keepUp(seconds: 1)
        daemon.signal(SIGTERM)
        let eofEnd = Date().addingTimeInterval(30)
        while Date() < eofEnd, !eof { eof = try readSome(laggingFD, into: &lagging, waitingMs: 100) }
        #expect(eof, "the lagging client reached EOF within 30 s")
        let steadyEnd = Date().addingTimeInterval(30)
        while Date() < steadyEnd, !steady.finished { usleep(20_000) }
        #expect(steady.finished, "the steady client reached EOF within 30 s")

        #expect(heldMost.allSatisfy { $0 >= Self.fallingBehindBytes }, "each stall queued in the daemon: \(heldMost)")
        let reference = steady.bytes
        #expect(reference.count > 1 << 20, "a stream long enough to fall behind in: \(reference.count) bytes")
        // Every byte, in order: the same stream as the client that never stopped reading.
        if lagging != reference {
            let firstDifference =
                lagging.indices.first { $0 >= reference.count || lagging[$0] != reference[$0] } ?? lagging.count
            Issue.record(
                "lagging \(lagging.count) bytes, steady \(reference.count); first difference at byte \(firstDifference)"
            )
        }
        // And that stream is whole: each line a message, the touches' times never going back, the
        // last line the shutdown.
        let lines = reference.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.last?.isEmpty == true, "ends with a whole line")
        var lastTime = -Double.infinity
        var touchFrames = 0
        var last: ServerMessage?
        for line in lines.dropLast() {
            let message = try JSONLines.decodeServerMessage(Array(line))
            if case .touches(let t) = message {
                #expect(t.time >= lastTime, "touch frames in time order")
                lastTime = t.time
                touchFrames += 1
            }
            last = message
        }
        #expect(touchFrames > 1000)
        if case .shutdown? = last {} else { Issue.record("last message is not shutdown: \(String(describing: last))") }
        #expect(!daemon.log.contains("client too slow"))
        #expect(!daemon.log.contains("handyd bug"))
    }
}

/// Reads what arrives on `fd` within `waitingMs` into `bytes`; true at EOF.
private func readSome(_ fd: Int32, into bytes: inout [UInt8], waitingMs: Int32) throws -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&p, 1, waitingMs)
    if ready < 0 && errno != EINTR { throw HarnessError("poll: \(String(cString: strerror(errno)))") }
    guard ready > 0 else { return false }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 {
        if errno == EINTR || errno == EAGAIN { return false }
        if errno == ECONNRESET { return true }
        throw HarnessError("read: \(String(cString: strerror(errno)))")
    }
    bytes.append(contentsOf: chunk[..<n])
    return n == 0
}

/// A client that reads every byte as it comes, on its own thread, until EOF or its deadline.
private final class SteadyReader: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var done = false

    init(fd: Int32) { self.fd = fd }

    var count: Int { lock.withLock { received.count } }
    var bytes: [UInt8] { lock.withLock { received } }
    var finished: Bool { lock.withLock { done } }

    func run(deadline: Date) {
        var chunk: [UInt8] = []
        while Date() < deadline {
            chunk.removeAll(keepingCapacity: true)
            guard let eof = try? readSome(fd, into: &chunk, waitingMs: 100) else { break }
            lock.withLock { received.append(contentsOf: chunk) }
            if eof { break }
        }
        lock.withLock { done = true }
    }
}
