import Foundation
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// A deliberately small RFC 6455 client over a blocking TCP socket, for tests that must also send
// what a well-behaved client never would (binary frames, oversized frames, no reads at all). It
// talks to the real handyd; it is the test's peer, not a stand-in for the daemon.

/// A free TCP port on 127.0.0.1 (bound and released; the daemon binds it right after).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else { throw HarnessError("cannot find a free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A socket listening on 127.0.0.1 at a port the kernel chose: a port taken, for a daemon to fail on.
func listeningLoopbackSocket() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else {
        let e = errno
        close(fd)
        throw HarnessError("cannot listen on a loopback port: \(String(cString: strerror(e)))")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

final class WebSocketTestClient: @unchecked Sendable {
    let fd: Int32
    /// The status line of the handshake's response ("HTTP/1.1 101 Switching Protocols").
    private(set) var status = ""
    private var pending: [UInt8] = []

    enum Frame: Equatable {
        case text(String)
        case binary([UInt8])
        case close(code: UInt16?)
        case other(opcode: UInt8)
    }

    /// Connects to 127.0.0.1:`port` and sends the upgrade request (with `origin` if given).
    /// `status` tells whether it was accepted; frames follow only after a 101.
    /// `receiveBufferBytes`: a small window for a client that will not read, so what it leaves
    /// unread piles up in the daemon (where the bound is) rather than in the kernel's buffers.
    init(port: Int, origin: String? = nil, path: String = "/", upgrade: Bool = true, receiveBufferBytes: Int32? = nil)
        throws
    {
        fd = try connectLoopback(port: port, receiveBufferBytes: receiveBufferBytes)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if upgrade {
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            request +=
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        }
        if let origin { request += "Origin: \(origin)\r\n" }
        request += "\r\n"
        sendRaw(Array(request.utf8))
        // The response head: up to the blank line.
        while true {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                status = head.components(separatedBy: "\r\n").first ?? ""
                pending.removeSubrange(..<end.upperBound)
                break
            }
            guard try fill(timeoutSeconds: 10) else { throw HarnessError("connection closed during the handshake") }
        }
    }

    deinit { close(fd) }

    var upgraded: Bool { status.contains(" 101 ") }

    /// Writes bytes as they are (MSG_NOSIGNAL: a closed peer must not kill the test runner).
    @discardableResult
    func sendRaw(_ bytes: [UInt8]) -> Int32 {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return errno }
            sent += n
        }
        return 0
    }

    /// One frame, masked as a client must send it (`masked: false` and `rsv` bits, 0…7, for a
    /// client that breaks RFC 6455).
    @discardableResult
    func send(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) -> Int32 {
        sendRaw(Self.frame(opcode: opcode, payload: payload, fin: fin, rsv: rsv, masked: masked))
    }

    /// The bytes of one client frame (``send(opcode:payload:fin:rsv:masked:)`` sends them).
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true)
        -> [UInt8]
    {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | opcode]
        let n = payload.count
        let maskBit: UInt8 = masked ? 0x80 : 0
        if n < 126 {
            frame.append(maskBit | UInt8(n))
        } else if n < 65536 {
            frame += [maskBit | 126, UInt8(n >> 8), UInt8(n & 0xff)]
        } else {
            frame.append(maskBit | 127);
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((n >> shift) & 0xff)) }
        }
        guard masked else { return frame + payload }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// This end's port.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends `bytes` to the daemon listening on `daemonPort`, waiting as long as the daemon reads.
    /// Returns nil once all are sent, or why not.
    ///
    /// A blocked send is not a daemon that stopped reading: a flooding client fills the daemon's
    /// receive window, and TCP then probes the window with a back-off (seconds, then tens of
    /// seconds), while the client's send buffer (megabytes, autotuned) wakes a blocked send only
    /// once a third of it is acknowledged. On a loaded machine a daemon that reads slowly but
    /// steadily left a send blocked over 30 s (fresh-clone CI, twice). So the daemon is
    /// judged by its end of the connection, from /proc/net/tcp: it stalls when it holds unread
    /// bytes and reads none of them for `stallSeconds`. Holding none, it has read all TCP
    /// delivered and the wait is TCP's. `deadlineSeconds` bounds the whole send either way.
    func sendWhileTheDaemonReads(
        _ bytes: [UInt8], daemonPort: Int, stallSeconds: Double = 30, deadlineSeconds: Double = 300
    ) -> String? {
        var sent = 0
        return waitWhileTheDaemonReads(
            daemonPort: daemonPort, stallSeconds: stallSeconds, deadlineSeconds: deadlineSeconds,
            what: { "\(sent) of \(bytes.count) bytes sent" }
        ) { _ in
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { break }
                    return .failed("send: \(String(cString: strerror(errno)))")
                }
                sent += n
            }
            if sent == bytes.count { return .done }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 250)
            return .waiting
        }
    }

    /// Waits until the daemon on `daemonPort` has read everything this client sent: nothing of
    /// it unacknowledged here (SIOCOUTQ), nothing unread there. Returns nil then, or why not (as
    /// ``sendWhileTheDaemonReads(_:daemonPort:stallSeconds:deadlineSeconds:)``).
    func waitUntilTheDaemonRead(
        daemonPort: Int, stallSeconds: Double = 30, deadlineSeconds: Double = 300
    ) -> String? {
        waitWhileTheDaemonReads(
            daemonPort: daemonPort, stallSeconds: stallSeconds, deadlineSeconds: deadlineSeconds,
            what: { "waiting for the daemon to read all that was sent" }
        ) { unread in
            var unacknowledged: Int32 = 0
            guard ioctl(fd, UInt(TIOCOUTQ), &unacknowledged) == 0 else {
                return .failed("SIOCOUTQ: \(String(cString: strerror(errno)))")
            }
            guard let unread else { return .failed("the daemon's end is not in /proc/net/tcp") }
            if unacknowledged == 0 && unread == 0 { return .done }
            usleep(50_000)
            return .waiting
        }
    }

    private enum Step { case done, waiting, failed(String) }

    /// Runs `step` until it is done or fails, judging the daemon's end of the connection (its
    /// unread bytes, which `step` is given; nil when the connection is not found) between steps
    /// (see ``sendWhileTheDaemonReads(_:daemonPort:stallSeconds:deadlineSeconds:)``).
    private func waitWhileTheDaemonReads(
        daemonPort: Int, stallSeconds: Double, deadlineSeconds: Double, what: () -> String,
        step: (_ unread: Int?) -> Step
    ) -> String? {
        let mine = localPort
        let start = Date()
        var lastUnread: Int? = nil
        var lastChange = start
        while true {
            let unread = loopbackTCPUnread(localPort: daemonPort, remotePort: mine)
            switch step(unread) {
            case .done: return nil
            case .failed(let why): return "\(why); \(what())"
            case .waiting: break
            }
            let now = Date()
            if unread != lastUnread || unread == 0 {
                lastUnread = unread
                lastChange = now
            }
            if now.timeIntervalSince(lastChange) > stallSeconds {
                let held = unread.map(String.init) ?? "?"
                return "the daemon left \(held) bytes unread for \(Int(stallSeconds)) s; \(what())"
            }
            if now.timeIntervalSince(start) > deadlineSeconds {
                return "not done within \(Int(deadlineSeconds)) s (the daemon reading: TCP's wait); \(what())"
            }
        }
    }

    @discardableResult
    func sendText(_ text: String) -> Int32 { send(opcode: 1, payload: Array(text.utf8)) }

    /// The next frame; nil at EOF; throws after `timeoutSeconds` without one.
    func readFrame(timeoutSeconds: Double = 10) throws -> Frame? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            if let (frame, used) = Self.parse(pending) {
                pending.removeFirst(used)
                return frame
            }
            guard try fill(timeoutSeconds: max(0.001, deadline.timeIntervalSinceNow)) else { return nil }
        }
    }

    /// Text frames until `predicate` holds for one (returned), skipping the rest; nil at EOF.
    /// Throws when none has within `timeoutSeconds` in all: a stream that goes on but never
    /// holds what is looked for fails the test instead of reading forever.
    func readText(timeoutSeconds: Double = 10, until predicate: (String) -> Bool = { _ in true }) throws -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while let frame = try readFrame(timeoutSeconds: max(0.001, deadline.timeIntervalSinceNow)) {
            if case .text(let t) = frame, predicate(t) { return t }
            if case .close = frame { return nil }
            if Date() >= deadline { throw HarnessError("no matching text frame within \(timeoutSeconds) s") }
        }
        return nil
    }

    /// Every frame until the connection ends. Throws when it has not ended within
    /// `timeoutSeconds` in all (a connection that should close but streams on).
    func readToEnd(timeoutSeconds: Double = 10) throws -> [Frame] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var frames: [Frame] = []
        while let f = try readFrame(timeoutSeconds: max(0.001, deadline.timeIntervalSinceNow)) {
            frames.append(f)
            if Date() >= deadline {
                throw HarnessError("the connection did not end within \(timeoutSeconds) s; \(frames.count) frames")
            }
        }
        return frames
    }

    private func fill(timeoutSeconds: Double) throws -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let rc = poll(&p, 1, Int32(max(1, timeoutSeconds * 1000)))
        if rc == 0 { throw HarnessError("timed out waiting for the daemon") }
        if rc < 0 { if errno == EINTR { return true }; throw HarnessError("poll: \(errno)") }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == ECONNRESET { return false }; throw HarnessError("read: \(String(cString: strerror(errno)))")
        }
        if n == 0 { return false }
        pending += chunk[..<n]
        return true
    }

    /// A server frame (unmasked) at the start of `bytes`, and its length; nil if incomplete.
    private static func parse(_ bytes: [UInt8]) -> (Frame, Int)? {
        guard bytes.count >= 2 else { return nil }
        let opcode = bytes[0] & 0x0f
        var length = Int(bytes[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        let payload = Array(bytes[offset..<(offset + length)])
        let frame: Frame
        switch opcode {
        case 1: frame = .text(String(decoding: payload, as: UTF8.self))
        case 2: frame = .binary(payload)
        case 8: frame = .close(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
        default: frame = .other(opcode: opcode)
        }
        return (frame, offset + length)
    }
}

/// The bytes received but not yet read by the socket on 127.0.0.1 bound to `localPort` and
/// connected to `remotePort`, from /proc/net/tcp (any process's socket in this network namespace);
/// nil if there is no such connection.
func loopbackTCPUnread(localPort: Int, remotePort: Int) -> Int? {
    // Read to the end by hand: the file says its size is 0, and a table of many connections is
    // longer than one read.
    let fd = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[..<n]
    }
    let table = String(decoding: bytes, as: UTF8.self)
    let local = String(format: "0100007F:%04X", localPort)
    let remote = String(format: "0100007F:%04X", remotePort)
    for line in table.split(separator: "\n").dropFirst() {
        // sl local_address rem_address st tx_queue:rx_queue …
        let fields = line.split(separator: " ")
        guard fields.count > 4, fields[1] == local, fields[2] == remote else { continue }
        // tx_queue:rx_queue, in hex.
        let queues = fields[4].split(separator: ":")
        guard queues.count == 2 else { return nil }
        return Int(queues[1], radix: 16)
    }
    return nil
}

/// A TCP socket connected to 127.0.0.1:`port`; `receiveBufferBytes` sets SO_RCVBUF before the
/// connect (the window is agreed then). A send blocked for `sendTimeoutSeconds` fails with EAGAIN:
/// a daemon that stops reading fails the test that writes to it, never hangs the run (a blocked
/// send otherwise waits for TCP's own timeout, a quarter of an hour).
func connectLoopback(port: Int, receiveBufferBytes: Int32? = nil, sendTimeoutSeconds: Int = 30) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
    var timeout = timeval(tv_sec: sendTimeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    if var size = receiveBufferBytes {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    try socketCall(fd, &address, "connect 127.0.0.1:\(port)", connect)
    return fd
}

/// `call` (bind, connect) on `fd` with `address` (a sockaddr_in, sockaddr_un…); on failure
/// closes `fd` and throws "`what`: the errno's text".
func socketCall<Address>(
    _ fd: Int32, _ address: inout Address, _ what: String,
    _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
) throws {
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
    }
    guard rc == 0 else {
        let e = errno
        close(fd)
        throw HarnessError("\(what): \(String(cString: strerror(e)))")
    }
}

/// A TCP connection that sends nothing (no handshake), to see when the daemon closes it.
final class SilentConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = try connectLoopback(port: port)
    }

    deinit { close(fd) }

    /// Whether the peer closed (EOF or a reset) within the time; false if it is still open.
    func closedByPeer(withinSeconds seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            let rc = poll(&p, 1, left)
            if rc < 0 && errno == EINTR { continue }
            if rc <= 0 { return false }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n <= 0 { return true }
            if Date() >= deadline { return false }
        }
    }
}

/// Sends `request` (a whole HTTP request head) to 127.0.0.1:`port` and returns the response's
/// head and whether the server closed the connection after it (within 2 s).
func rawHTTPExchange(port: Int, request: String) throws -> (head: String, closed: Bool) {
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var closed = false
    let deadline = Date().addingTimeInterval(2)
    while Date() < deadline {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 100) == 1 else { continue }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { closed = true; break }
        received += chunk[..<n]
    }
    let text = String(decoding: received, as: UTF8.self)
    return (text.components(separatedBy: "\r\n\r\n").first ?? text, closed)
}
