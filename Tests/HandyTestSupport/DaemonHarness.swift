import Foundation
import HandyProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The package root, found from this file's path (no resource bundles).
package let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

package func fixture(_ relative: String) -> String {
    packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative).path
}

/// The `handyd` built next to the tests (`.build/debug/handyd`), or `$HANDYD_BINARY`.
package let handydBinary: String = {
    if let path = ProcessInfo.processInfo.environment["HANDYD_BINARY"] { return path }
    // The test bundle sits in the same build folder as the executables.
    let bundleDir = Bundle.main.bundleURL
    for dir in [bundleDir, bundleDir.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
        let candidate = dir.appendingPathComponent("handyd").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return packageRoot.appendingPathComponent(".build/debug/handyd").path
}()

package struct HarnessError: Error, CustomStringConvertible {
    package var description: String
    package init(_ d: String) { description = d }
}

/// A real `handyd` process on a temporary socket.
package final class DaemonProcess: @unchecked Sendable {
    package let process = Process()
    package let directory: URL
    package let socketPath: String
    package let logPath: String

    /// - Parameter socketPath: where to listen; by default in a new temporary directory (a test
    ///   that restarts the daemon gives the first one's path to the second).
    /// - Parameter launcher: a command that execs handyd (e.g. `prlimit … --`), so the process is
    ///   still handyd's; empty: handyd itself.
    /// - Parameter environment: set in handyd's environment beside the test's own.
    package init(
        arguments: [String], socketPath requestedSocketPath: String? = nil, launcher: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.socketPath = requestedSocketPath ?? directory.appendingPathComponent("run/handyd.sock").path
        logPath = directory.appendingPathComponent("handyd.log").path
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw HarnessError("cannot create the daemon's log \(logPath)")
        }
        let command = launcher + [handydBinary, "--socket", socketPath, "--log-level", "debug"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Ready once the daemon says it listens: the socket file exists from bind(2) on, and a
        // connect between bind and listen is refused (a CI run under load hit that window).
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if process.isRunning == false { throw HarnessError("handyd exited early:\n\(log)") }
            // A replay's device is announced before the socket listens, so hello lists it.
            let text = log
            if FileManager.default.fileExists(atPath: socketPath), text.contains("listening"),
                !arguments.contains("--replay") || text.contains("device added")
            {
                return
            }
            usleep(20_000)
        }
        throw HarnessError("handyd did not create \(socketPath):\n\(log)")
    }

    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// For a failure message: whether the daemon still runs (a sanitizer report stops it), whether
    /// it dropped a client as too slow, and the end of its log.
    package var stateForFailure: String {
        let log = self.log
        return "daemon \(process.isRunning ? "running" : "exited with \(process.terminationStatus)"), "
            + "sanitizer report: \(log.contains("Sanitizer") ? "yes" : "no"), "
            + "slow-client drops logged: \(log.components(separatedBy: "client too slow").count - 1); log ends:\n"
            + String(log.suffix(3000))
    }

    package func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits for the process to exit; nil on timeout.
    package func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A blocking connection to the Unix socket at `path` (close-on-exec); throws with the errno.
///
/// `busyRetrySeconds` > 0: a refusal because the listen backlog is full is retried until then.
/// Linux blocks a blocking connect while the backlog is full, but not every kernel does: on the
/// machine a CI run used, the 1,000-connection storm got ECONNREFUSED while the daemon listened
/// throughout (its bystanders carried on). A daemon that really stopped listening still fails,
/// only `busyRetrySeconds` later.
package func connectUnixSocket(_ path: String, busyRetrySeconds: Double = 0) throws -> Int32 {
    let deadline = Date().addingTimeInterval(busyRetrySeconds)
    while true {
        do {
            return try connectUnixSocketOnce(path)
        } catch is ConnectRefusal where Date() < deadline {
            usleep(5_000)
        }
    }
}

/// A connect(2) refused with ECONNREFUSED or EAGAIN (full backlog, or nobody listening).
package struct ConnectRefusal: Error, CustomStringConvertible {
    package let description: String
}

private func connectUnixSocketOnce(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        close(fd)
        throw HarnessError("path too long")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard rc == 0 else {
        let e = errno
        close(fd)
        let message = "connect \(path): \(String(cString: strerror(e)))"
        if e == ECONNREFUSED || e == EAGAIN { throw ConnectRefusal(description: message) }
        throw HarnessError(message)
    }
    return fd
}

/// A plain blocking Unix-socket client reading JSON lines, every read with a timeout.
package final class LineClient {
    package let fd: Int32
    private var buffer: [UInt8] = []
    package private(set) var reachedEOF = false

    /// `busyRetrySeconds`: as ``connectUnixSocket(_:busyRetrySeconds:)``.
    package init(socketPath: String, busyRetrySeconds: Double = 0) throws {
        fd = try connectUnixSocket(socketPath, busyRetrySeconds: busyRetrySeconds)
    }

    deinit { close(fd) }

    package func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw HarnessError("write: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Bytes before `start` in `buffer` are consumed; compacted now and then, not per line.
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    /// The next line, or nil at EOF. Throws on timeout.
    package func readLine(timeoutSeconds: Double = 10) throws -> String? {
        var ignored: UInt64 = 0
        return try readLine(countingAndSkipping: [], count: &ignored, timeoutSeconds: timeoutSeconds)
    }

    /// Asks for `status` and reads up to its reply, counting (and skipping) the lines that start
    /// with `prefix` on the way, as ``readLine(countingAndSkipping:count:timeoutSeconds:)`` does;
    /// nil at EOF. The reply's counts then describe what was read before it.
    package func requestStatus(countingAndSkipping prefix: [UInt8], count: inout UInt64) throws -> StatusMessage? {
        try send(#"{"type":"status"}"# + "\n")
        while true {
            guard let line = try readLine(countingAndSkipping: prefix, count: &count) else { return nil }
            if case .status(let s) = try JSONLines.decodeServerMessage(Array(line.utf8)) { return s }
        }
    }

    /// The next line not starting with `prefix` (nil at EOF); lines starting with it are only
    /// counted, never decoded, so a debug-built test keeps up with a fast daemon.
    package func readLine(countingAndSkipping prefix: [UInt8], count: inout UInt64, timeoutSeconds: Double = 10) throws
        -> String?
    {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            while let newline = nextNewline() {
                let isCounted =
                    !prefix.isEmpty && newline - start >= prefix.count
                    && buffer.withUnsafeBufferPointer {
                        memcmp($0.baseAddress! + start, prefix, prefix.count) == 0
                    }
                let lineStart = start
                start = newline + 1
                if isCounted { count += 1; continue }
                let line = String(decoding: buffer[lineStart..<newline], as: UTF8.self)
                compact()
                return line
            }
            compact()
            if reachedEOF { return nil }
            let remainingMs = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard remainingMs > 0 else { throw HarnessError("timed out waiting for a line") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let rc = poll(&p, 1, remainingMs)
            if rc == 0 { throw HarnessError("timed out waiting for a line") }
            if rc < 0 { if errno == EINTR { continue }; throw HarnessError("poll: \(errno)") }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == ECONNRESET { reachedEOF = true; continue }
                throw HarnessError("read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { reachedEOF = true } else { buffer.append(contentsOf: chunk[..<n]) }
        }
    }

    private func nextNewline() -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { b -> Int? in
            guard let hit = memchr(b.baseAddress! + start, Int32(UInt8(ascii: "\n")), b.count - start) else {
                return nil
            }
            return UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - b.baseAddress!
        }
    }

    private func compact() {
        if start > 1 << 16 || start == buffer.count {
            buffer.removeSubrange(..<start)
            start = 0
        }
    }

    /// The next message, nil at EOF.
    package func readMessage(timeoutSeconds: Double = 10) throws -> ServerMessage? {
        guard let line = try readLine(timeoutSeconds: timeoutSeconds) else { return nil }
        return try JSONLines.decodeServerMessage(Array(line.utf8))
    }

    /// Reads until EOF; returns the messages seen on the way. Throws when EOF has not come
    /// within `timeoutSeconds` in all (a connection that should close but streams on).
    package func readToEOF(timeoutSeconds: Double = 10) throws -> [ServerMessage] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var seen: [ServerMessage] = []
        while let m = try readMessage(timeoutSeconds: max(0.001, deadline.timeIntervalSinceNow)) {
            seen.append(m)
            if Date() >= deadline { throw HarnessError("no EOF within \(timeoutSeconds) s; \(seen.count) messages") }
        }
        return seen
    }
}

/// Runs handyd with `arguments` (and an unused socket path) and expects the usage error, exit
/// status 64, before it listens.
package func expectUsageError(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: handydBinary)
    p.arguments = ["--socket", "/tmp/handyd-unused-\(UUID().uuidString.prefix(6)).sock"] + arguments
    let status = try runToCompletion(p).status
    #expect(status == 64, "\(arguments): status \(status)", sourceLocation: sourceLocation)
}
