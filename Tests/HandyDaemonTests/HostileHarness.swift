import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Support for HostileClientTests and AccessTests: raw sockets that may misbehave, the daemon's
// resources read from /proc, and well-behaved subscribers ("bystanders") that read concurrently
// and must receive exactly what the recording contains while a hostile client does its worst.

/// A Unix-socket connection with no framing at all, for clients that break the protocol.
final class RawSocket: @unchecked Sendable {
    /// Reads its lines (every read with a deadline); owns and closes the descriptor.
    private let lines: LineClient
    var fd: Int32 { lines.fd }

    /// Connects (blocking); throws with the errno on failure. Storms of connections meet a full
    /// listen backlog, which some kernels refuse at once instead of blocking: retried for 10 s.
    init(socketPath: String) throws {
        lines = try LineClient(socketPath: socketPath, busyRetrySeconds: 10)
    }

    /// Writes all of `bytes` unless the daemon closes first; returns the bytes written and the
    /// errno that stopped it (EPIPE/ECONNRESET once the daemon hung up), 0 when all went.
    /// MSG_NOSIGNAL: a closed peer must not SIGPIPE the test runner.
    @discardableResult
    func send(_ bytes: [UInt8]) -> (sent: Int, errno: Int32) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return (sent, errno)
            }
            sent += n
        }
        return (sent, 0)
    }

    @discardableResult
    func send(_ text: String) -> (sent: Int, errno: Int32) { send(Array(text.utf8)) }

    /// The next line (nil at EOF); throws after `timeoutSeconds` without one.
    func readLine(timeoutSeconds: Double = 10) throws -> String? {
        try lines.readLine(timeoutSeconds: timeoutSeconds)
    }

    /// Every line until EOF; throws when EOF has not come within `timeoutSeconds` in all (silence
    /// or a stream that goes on).
    func readLinesToEOF(timeoutSeconds: Double = 10) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var read: [String] = []
        while let line = try lines.readLine(timeoutSeconds: max(0.001, deadline.timeIntervalSinceNow)) {
            read.append(line)
            if Date() >= deadline { throw HarnessError("no EOF after \(timeoutSeconds) s; got \(read.count) lines") }
        }
        return read
    }
}

/// The daemon process's resident set and open descriptors, from /proc.
struct ProcessResources: CustomStringConvertible {
    var residentKiB: Int
    var openFileDescriptors: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw HarnessError("no VmRSS in /proc/\(pid)/status") }
        residentKiB = kib
        openFileDescriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    var description: String { "VmRSS \(residentKiB) KiB, \(openFileDescriptors) fds" }
}

extension DaemonProcess {
    var resources: ProcessResources {
        get throws { try ProcessResources(pid: process.processIdentifier) }
    }

    /// Polls until the daemon's open descriptors come back to `count` (closes are asynchronous).
    func waitForFileDescriptors(_ count: Int, timeoutSeconds: Double = 10) throws -> Int {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var now = try resources.openFileDescriptors
        while now != count && Date() < deadline {
            usleep(20_000)
            now = try resources.openFileDescriptors
        }
        return now
    }
}

/// Runs every body on its own thread (readers must read at the same time, or one that waits its
/// turn would be dropped as too slow) and returns their results in order.
func concurrently<T>(_ bodies: [() throws -> T]) -> [Result<T, any Error>] {
    nonisolated(unsafe) var results = [Result<T, any Error>?](repeating: nil, count: bodies.count)
    let group = DispatchGroup()
    let lock = NSLock()
    for (index, body) in bodies.enumerated() {
        nonisolated(unsafe) let work = body
        group.enter()
        let thread = Thread {
            let result = Result { try work() }
            lock.withLock { results[index] = result }
            group.leave()
        }
        thread.start()
    }
    group.wait()
    return results.map { $0! }
}

/// What a bystander received: touch frames exactly, gestures as (kind, phase).
struct BystanderLog: Equatable {
    var touches: [TouchesMessage] = []
    var gestures: [ExpectedOutput.GestureKey] = []
    var other: [String] = []
}

/// A well-behaved subscriber: hello read, subscribed to touches and every gesture.
final class Bystander: @unchecked Sendable {
    let client: LineClient

    init(socketPath: String) throws {
        client = try LineClient(socketPath: socketPath)
        guard case .hello? = try client.readMessage() else { throw HarnessError("bystander got no hello") }
    }

    func subscribe() throws { try client.send(#"{"type":"subscribe","touches":true}"# + "\n") }

    /// Reads until it has `expected`'s touches and gestures (any order between the two kinds:
    /// timer-driven gestures come from the daemon's clock). Unexpected messages are kept. Lines
    /// are only sorted while reading and decoded afterwards, so this debug-built reader keeps up.
    func read(until expected: ExpectedOutput, timeoutSeconds: Double = 30) throws -> BystanderLog {
        var log = BystanderLog()
        var touchLines: [String] = [], gestureLines: [String] = []
        while touchLines.count < expected.touches.count || gestureLines.count < expected.gestures.count {
            guard let line = try client.readLine(timeoutSeconds: timeoutSeconds) else {
                log.other.append("EOF")
                break
            }
            if line.hasPrefix(#"{"type":"touches""#) {
                touchLines.append(line)
            } else if line.hasPrefix(#"{"type":"gesture""#) {
                gestureLines.append(line)
            } else {
                log.other.append(String(line.prefix(200)))
            }
        }
        for line in touchLines {
            guard case .touches(let t) = try JSONLines.decodeServerMessage(Array(line.utf8)) else { continue }
            log.touches.append(t)
        }
        for line in gestureLines {
            guard case .gesture(let g) = try JSONLines.decodeServerMessage(Array(line.utf8)) else { continue }
            log.gestures.append(.init(gesture: g.gesture, phase: g.phase))
        }
        return log
    }

    /// Sends `status` and returns the reply, failing on anything else in between.
    func status() throws -> StatusMessage {
        try client.send(#"{"type":"status"}"# + "\n")
        guard let m = try client.readMessage() else { throw HarnessError("bystander disconnected") }
        guard case .status(let s) = m else { throw HarnessError("expected status, got \(m.typeName)") }
        return s
    }
}

/// What one hostile-client run measured.
struct HostileOutcome {
    var expected: ExpectedOutput
    var logs: [BystanderLog]
    /// From a bystander after the replay.
    var status: StatusMessage
    /// With only the bystanders connected, before the hostile client started.
    var before: ProcessResources
    /// After the hostile client finished and its connections were closed.
    var after: ProcessResources
    /// Descriptors once the daemon has processed every close (compare with `before`).
    var settledFileDescriptors: Int

    var residentGrowthKiB: Int { after.residentKiB - before.residentKiB }

    /// Every bystander got every frame and every gesture the recording makes, and nothing else.
    func expectEveryBystanderGotEverything(sourceLocation: SourceLocation = #_sourceLocation) {
        // The expected output comes from the pipeline the daemon runs: it must hold something, or
        // a pipeline that made nothing would pass everything below.
        #expect(
            expected.touches.count >= 100 && expected.gestures.count >= 20,
            "expected \(expected.touches.count) frames, \(expected.gestures.count) gestures",
            sourceLocation: sourceLocation)
        for (i, log) in logs.enumerated() {
            // Booleans, not the arrays: a failure prints counts, not megabytes.
            let sameTouches = log.touches == expected.touches, sameGestures = log.gestures == expected.gestures
            #expect(
                sameTouches, "bystander \(i): \(log.touches.count)/\(expected.touches.count) frames",
                sourceLocation: sourceLocation)
            #expect(
                sameGestures, "bystander \(i): \(log.gestures.count)/\(expected.gestures.count) gestures",
                sourceLocation: sourceLocation)
            #expect(log.other.isEmpty, "bystander \(i) also got \(log.other)", sourceLocation: sourceLocation)
        }
        #expect(status.frames == UInt64(expected.touches.count), sourceLocation: sourceLocation)
        #expect(status.events == UInt64(expected.gestures.count), sourceLocation: sourceLocation)
    }
}

/// The recording every hostile case runs under: the bundled demo (350 frames, 10.9 s, pinches,
/// rotations, taps, a drag, a swipe, a long press).
let hostileRecording = packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path

/// Starts the real daemon replaying `recording` at `speed`, connects `bystanderCount` subscribers,
/// subscribes them and runs `hostile` on its own thread while they read. The replay starts once the
/// bystanders and `hostileSubscribers` more clients have subscribed.
/// `hostile` returns once its misbehaviour is over; the connections it opened must be closed (or
/// handed back) by then. `afterwards` runs with the daemon still up, before resources are read.
func runWithBystanders(
    recording: String = hostileRecording, speed: Double = 4, bystanderCount: Int = 3,
    extraArguments: [String] = [], hostileSubscribers: Int = 0,
    hostile: @escaping @Sendable (DaemonProcess) throws -> Void,
    afterwards: (DaemonProcess, [Bystander]) throws -> Void = { _, _ in }
) throws -> HostileOutcome {
    // A write to a connection the daemon closed must fail with EPIPE, not kill the test runner.
    signal(SIGPIPE, SIG_IGN)
    let expected = try ExpectedOutput(recordingPath: recording)
    let daemon = try DaemonProcess(
        arguments: [
            "--replay", recording, "--speed", "\(speed)",
            "--wait-clients", "\(bystanderCount + hostileSubscribers)",
        ] + extraArguments)
    let bystanders = try (0..<bystanderCount).map { _ in try Bystander(socketPath: daemon.socketPath) }
    let before = try daemon.resources
    for b in bystanders { try b.subscribe() }

    let readers: [() throws -> BystanderLog] = bystanders.map { b in { try b.read(until: expected) } }
    let hostileRun: () throws -> BystanderLog = {
        try hostile(daemon); return BystanderLog()
    }
    let results = concurrently([hostileRun] + readers)
    _ = try results[0].get()  // rethrows the hostile run's error; its log is empty
    let logs = try results.dropFirst().map { try $0.get() }
    // A lost bystander makes every later step fail with EPIPE; say why it was lost instead.
    if let lost = logs.firstIndex(where: { $0.other.contains("EOF") }) {
        throw HarnessError(
            "bystander \(lost) was disconnected after \(logs[lost].touches.count) frames "
                + "(last lines: \(logs[lost].other.suffix(3))); \(daemon.stateForFailure)")
    }
    try afterwards(daemon, bystanders)
    let status: StatusMessage
    do { status = try bystanders[0].status() } catch {
        throw HarnessError("status after the run: \(error); \(daemon.stateForFailure)")
    }
    let after = try daemon.resources
    let settled = try daemon.waitForFileDescriptors(before.openFileDescriptors)
    print(
        "hostile run \(Test.current?.name ?? "?"): \((recording as NSString).lastPathComponent), \(before) -> \(after), "
            + "growth \(after.residentKiB - before.residentKiB) KiB, fds settled at \(settled); "
            + "drops \(status.drops), clients \(status.clients), frames \(status.frames), events \(status.events)")
    #expect(daemon.process.isRunning, "the daemon survived")
    #expect(!daemon.log.contains("handyd bug"))
    return HostileOutcome(
        expected: expected, logs: logs, status: status, before: before, after: after,
        settledFileDescriptors: settled)
}
