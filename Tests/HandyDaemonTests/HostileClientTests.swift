import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How much the daemon's VmRSS may grow over one hostile run (replay included). The baseline run
/// (no hostile client) grows 0.6 MiB (demo) to 4.9 MiB (busy recording); a hostile client whose
/// bytes the daemon kept would show as tens of MiB.
///
/// Under a sanitizer (`scripts/sanitize.sh` sets `HANDYD_SANITIZER`) the daemon's RSS also holds
/// the sanitizer's shadow memory, which grows with every page touched: the baseline alone grew
/// 16.7 MiB under ThreadSanitizer, so there the bound is 4× wider. AddressSanitizer keeps freed
/// memory in its quarantine (256 MB by default) on purpose: a subscribe flood grew 428 MB there, all
/// of it freed memory, so under ASan RSS is not judged (ASan itself judges the memory). The
/// unsanitized run keeps 16 MiB.
let residentGrowthBoundKiB: Int = {
    switch ProcessInfo.processInfo.environment["HANDYD_SANITIZER"] {
    case nil: 16 * 1024
    case "address": Int.max
    default: 64 * 1024
    }
}()

/// Each case runs the real handyd replaying the demo recording to three well-behaved subscribers
/// while one hostile client misbehaves. For every case: only that client is affected, each
/// bystander receives every frame and gesture of the recording, the daemon's memory stays within
/// ``residentGrowthBoundKiB`` and its descriptors come back to where they were.
@Suite(.serialized)
struct HostileClientTests {
    /// The same run with no hostile client: what "normal" growth is, for both recordings used.
    ///
    /// Its bystanders get a 4 MiB slow-client bound, more than the busy recording's 3.9 MB of lines,
    /// so none can be dropped: this run measures growth, and the bound is what
    /// ``aClientThatNeverReads()`` tests. With the default 1 MiB, a debug-built (and, in the sanitizer
    /// run, instrumented) bystander was dropped as too slow on a loaded 2-core machine, at the start
    /// of the run when every suite starts at once.
    @Test(arguments: [hostileRecording, fixture(busyFixture)])
    func baselineWithoutAHostileClient(recording: String) throws {
        let outcome = try runWithBystanders(
            recording: recording, extraArguments: ["--client-queue-bytes", "\(4 << 20)"],
            hostile: { _ in })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    @Test func aMebibyteLineWithoutNewlineClosesOnlyThatClient() throws {
        let outcome = try runWithBystanders(hostile: { daemon in
            let offender = try RawSocket(socketPath: daemon.socketPath)
            // The daemon stops handling its bytes at the 64 KiB limit and hangs up once its error
            // is written; until then the socket may still drain some (all, on a loaded machine),
            // so the send ends in EPIPE/ECONNRESET or completes.
            let (sent, error) = offender.send([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20))
            #expect(sent == 1 << 20 || error == EPIPE || error == ECONNRESET, "sent \(sent), errno \(error)")
            let lines = try offender.readLinesToEOF()
            // hello, the gestures of its default subscription, then the error.
            let words = lines.filter { !$0.hasPrefix(#"{"type":"gesture""#) }
            #expect(words.count == 2, "\(words.map { $0.prefix(80) })")
            #expect(words.first?.hasPrefix(#"{"type":"hello""#) == true)
            #expect(words.last?.contains(#""code":"line-too-long""#) == true)
        })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// Bad lines of one kind each get an error in order; the client stays connected with its
    /// subscription untouched (the default: gestures, no touches).
    @Test(arguments: BadLines.allCases)
    func badLinesGetErrorsAndTheClientStays(_ kind: BadLines) throws {
        let outcome = try runWithBystanders(hostile: { daemon in
            let client = try RawSocket(socketPath: daemon.socketPath)
            guard try client.readLine()?.hasPrefix(#"{"type":"hello""#) == true else { throw HarnessError("no hello") }
            for line in kind.lines { client.send(line + [UInt8(ascii: "\n")]) }
            client.send(#"{"type":"status"}"# + "\n")
            var codes: [String] = []
            var touches = 0
            while let line = try client.readLine() {
                if line.hasPrefix(#"{"type":"status""#) { break }
                if line.hasPrefix(#"{"type":"touches""#) { touches += 1 }
                guard line.hasPrefix(#"{"type":"error""#) else { continue }
                let message = try JSONLines.decodeServerMessage(Array(line.utf8))
                if case .error(let e) = message { codes.append(e.code) }
            }
            #expect(codes == kind.expectedCodes)
            #expect(touches == 0, "no bad line turned touches on")
        })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// 20,000 subscribe requests in one burst (0.8 MB), then a status request: the flooder gets
    /// its reply after the flood, with no error and the last filter in force.
    @Test func aFloodOfSubscribeRequests() throws {
        // Kept to what the debug daemon handles in a few seconds, so the other suites running
        // beside this one are not starved (100,000 cost it 16–35 s under load).
        let floodCount = 20_000
        let outcome = try runWithBystanders(hostile: { daemon in
            let client = try RawSocket(socketPath: daemon.socketPath)
            _ = try client.readLine()
            let variants = [
                #"{"type":"subscribe","gestures":["pinch","rotate"]}"#,
                #"{"type":"subscribe","devices":["event7","replay:demo"],"touches":false}"#,
                #"{"type":"subscribe","gestures":[],"devices":[]}"#,
                #"{"type":"subscribe","gestures":["no-such-gesture"]}"#,
            ]
            var flood: [UInt8] = []
            for i in 0..<floodCount { flood += Array((variants[i % variants.count] + "\n").utf8) }
            // Last word: nothing at all, so whatever arrives after the status reply is a bug.
            flood += Array(
                (#"{"type":"subscribe","gestures":[],"touches":false}"# + "\n" + #"{"type":"status"}"# + "\n").utf8)
            let started = Date()
            let (sent, error) = client.send(flood)
            #expect(sent == flood.count && error == 0)
            var errors = 0
            while let line = try client.readLine(timeoutSeconds: 60) {
                if line.hasPrefix(#"{"type":"error""#) { errors += 1 }
                if line.hasPrefix(#"{"type":"status""#) { break }
            }
            print("subscribe flood: \(floodCount) requests handled in \(Date().timeIntervalSince(started)) s")
            #expect(errors == 0)
        })
        outcome.expectEveryBystanderGotEverything()
        // The flooder got its status reply after the flood, so it was still connected; it left
        // when its socket was closed at the end of the closure.
        #expect(outcome.status.clients == 3)
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
    }

    /// 1,000 connections opened and closed as fast as four threads can, in five manners: closed at
    /// once, after reading hello, after half a request, after subscribing to touches, and reset
    /// (SO_LINGER 0).
    @Test func connectDisconnectStorms() throws {
        let perThread = 250
        let outcome = try runWithBystanders(hostile: { daemon in
            let path = daemon.socketPath
            let storms: [() throws -> Int] = (0..<4).map { thread in
                {
                    var connected = 0
                    for i in 0..<perThread {
                        let s = try RawSocket(socketPath: path)
                        connected += 1
                        switch (i + thread) % 5 {
                        case 0: break
                        case 1: _ = try s.readLine()
                        case 2: s.send(#"{"type":"subscr"#)
                        case 3: s.send(#"{"type":"subscribe","touches":true}"# + "\n")
                        default:
                            var linger = linger(l_onoff: 1, l_linger: 0)
                            setsockopt(s.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                        }
                    }
                    return connected
                }
            }
            let counts = try concurrently(storms).map { try $0.get() }
            #expect(counts.reduce(0, +) == 4 * perThread)
        })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// 1,000 connections held open at once against the default --max-clients 64: the first 61
    /// (beside the 3 bystanders) get hello, every other one exactly one `too-many-clients` error
    /// and EOF. The daemon never holds more descriptors than its clients need.
    @Test func aThousandSimultaneousConnections() throws {
        let total = 1000
        nonisolated(unsafe) var peakFileDescriptors = 0
        let outcome = try runWithBystanders(
            hostile: { daemon in
                let path = daemon.socketPath
                let sampling = ManagedAtomicFlag()
                // Joined before the peak is read (ThreadSanitizer reported the sampler's last write
                // racing with that read when the thread was only told to stop).
                let samplerDone = DispatchSemaphore(value: 0)
                let sampler = Thread {
                    while !sampling.isSet {
                        if let r = try? daemon.resources {
                            peakFileDescriptors = max(peakFileDescriptors, r.openFileDescriptors)
                        }
                        usleep(2_000)
                    }
                    samplerDone.signal()
                }
                sampler.start()
                defer { sampling.set(); samplerDone.wait() }
                let opened = concurrently(
                    (0..<4).map { _ in { try (0..<total / 4).map { _ in try RawSocket(socketPath: path) } } })
                let sockets = try opened.flatMap { try $0.get() }
                #expect(sockets.count == total)
                var accepted: [RawSocket] = []
                var refused = 0
                for s in sockets {
                    guard let first = try s.readLine() else { Issue.record("EOF without a word"); continue }
                    if first.hasPrefix(#"{"type":"hello""#) { accepted.append(s); continue }
                    #expect(first.contains(#""code":"too-many-clients""#))
                    #expect(try s.readLinesToEOF().isEmpty, "nothing after the refusal")
                    refused += 1
                }
                #expect(accepted.count == 64 - 3)
                #expect(refused == total - (64 - 3))
                // The daemon is not wedged: with the hostile clients gone there is room again.
            },
            afterwards: { daemon, _ in
                let late = try LineClient(socketPath: daemon.socketPath)
                if case .hello? = try late.readMessage() {} else { Issue.record("no hello after the storm") }
            })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.clients == 3)
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
        // The 61 accepted ones, plus the few being refused at that instant (NIO accepts a handful
        // per wake-up, each closed once its error is written): nowhere near 1,000.
        print("1000 connections: peak \(peakFileDescriptors) fds, before \(outcome.before.openFileDescriptors)")
        #expect(
            peakFileDescriptors <= outcome.before.openFileDescriptors + 61 + 16,
            "refused connections are closed, not kept")
        // The sampler did see the 61 accepted ones (a sampler that never read would pass the bound).
        #expect(peakFileDescriptors >= outcome.before.openFileDescriptors + 61)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
    }

    /// The daemon's own descriptor limit below what --max-clients allows (a misconfigured
    /// LimitNOFILE): 100 connections arrive when only 10 more descriptors are left. accept(2) fails
    /// with EMFILE; NIO backs off instead of spinning, the clients already connected carry on,
    /// and once descriptors are free again new clients are served.
    /// prlimit (util-linux, installed by scripts/install-deps.sh) missing is a failure, not a skip.
    @Test func descriptorExhaustion() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "/usr/bin/prlimit (util-linux) is needed")
        nonisolated(unsafe) var accepted = 0
        let outcome = try runWithBystanders(
            hostile: { daemon in
                let pid = daemon.process.processIdentifier
                let limit = try daemon.resources.openFileDescriptors + 10
                let prlimit = Process()
                prlimit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
                prlimit.arguments = ["--pid", "\(pid)", "--nofile=\(limit):\(limit)"]
                #expect(try runToCompletion(prlimit).status == 0)
                // Non-blocking: once the listen backlog is full too, connect fails with EAGAIN
                // rather than waiting for a daemon that cannot accept.
                var sockets: [Int32] = []
                defer { for fd in sockets { close(fd) } }
                for _ in 0..<100 {
                    let fd = socket(
                        AF_UNIX,
                        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                    var address = sockaddr_un()
                    address.sun_family = sa_family_t(AF_UNIX)
                    let bytes = Array(daemon.socketPath.utf8)
                    withUnsafeMutableBytes(of: &address.sun_path) { raw in
                        raw.copyBytes(from: bytes); raw[bytes.count] = 0
                    }
                    let rc = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                        }
                    }
                    if rc == 0 { sockets.append(fd) } else { close(fd) }
                }
                usleep(2_000_000)
                for fd in sockets {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&p, 1, 0) == 1 { accepted += 1 }
                }
                #expect(daemon.process.isRunning)
            },
            afterwards: { daemon, _ in
                // Descriptors are free again: a new client is served (NIO retries accept after its
                // back-off).
                let late = try LineClient(socketPath: daemon.socketPath)
                if case .hello? = try late.readMessage(timeoutSeconds: 10) {
                } else {
                    Issue.record("no hello after the exhaustion")
                }
            })
        outcome.expectEveryBystanderGotEverything()
        print("descriptor exhaustion: \(accepted) of 100 served with 10 descriptors to spare")
        // Some were served, not all that --max-clients would allow: the others waited in the
        // backlog or were told EAGAIN. (Usually exactly 10; the count of open descriptors read
        // when the limit is set can be a few off while connections come and go.)
        #expect(accepted >= 1 && accepted < 64 - 3)
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// A subscriber to touches that never reads is disconnected once its backlog passes
    /// --client-queue-bytes; the bystanders miss nothing.
    @Test func aClientThatNeverReads() throws {
        let outcome = try runWithBystanders(
            // The busy recording: 3.9 MB of lines, past the bound plus what the socket itself holds.
            recording: fixture(busyFixture), speed: NeverReadingRun.speed, extraArguments: NeverReadingRun.arguments,
            hostile: { daemon in
                let sleeper = try RawSocket(socketPath: daemon.socketPath)
                sleeper.send(#"{"type":"subscribe","touches":true}"# + "\n")
                // Never reads while the replay runs (24 s at speed 1), then finds what is left.
                let deadline = Date().addingTimeInterval(30 / NeverReadingRun.speed)
                while Date() < deadline {
                    usleep(100_000)
                    if daemon.log.contains("client too slow") { break }
                }
                // Disconnected: EOF after part of the stream. Its `client-too-slow` line waits
                // behind the backlog it never read, and the daemon closes after a 2 s grace
                // whether or not it was taken, so it may be missing.
                let lines = try sleeper.readLinesToEOF()
                let errors = lines.filter { $0.hasPrefix(#"{"type":"error""#) }
                #expect(
                    errors.allSatisfy { $0.contains(#""code":"client-too-slow""#) } && errors.count <= 1, "\(errors)")
                #expect(lines.filter { $0.hasPrefix(#"{"type":"touches""#) }.count < 1930)
            })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.drops == 1)
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// A client that asks for status over and over and never reads the replies, while no events
    /// flow (the replay is over): its replies must not pile up in the daemon without bound.
    @Test func aStatusFloodThatIsNeverRead() throws {
        let outcome = try runWithBystanders(
            hostile: { _ in },
            afterwards: { daemon, _ in
                let flooder = try RawSocket(socketPath: daemon.socketPath)
                // 200,000 requests (3.6 MB) asking for ~26 MB of replies.
                let flood =
                    [UInt8](repeating: 0, count: 0)
                    + Array(String(repeating: #"{"type":"status"}"# + "\n", count: 200_000).utf8)
                let (_, error) = flooder.send(flood)
                // Disconnected (EOF). The error line waits behind the unread replies and may be
                // lost to the 2 s grace, as for any slow client.
                let lines = try flooder.readLinesToEOF(timeoutSeconds: 30)
                #expect(error == 0 || error == EPIPE || error == ECONNRESET)
                let replies = lines.filter { $0.hasPrefix(#"{"type":"status""#) }.count
                #expect(replies < 200_000, "dropped before all replies were queued")
                let errors = lines.filter { $0.hasPrefix(#"{"type":"error""#) }
                #expect(
                    errors.allSatisfy { $0.contains(#""code":"client-too-slow""#) } && errors.count <= 1, "\(errors)")
            })
        outcome.expectEveryBystanderGotEverything()
        #expect(outcome.status.drops == 1)
        #expect(outcome.status.clients == 3)
        #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }

    /// A subscriber that shuts down its sending side (`printf '{"type":"subscribe"}' | nc -U`,
    /// socat at the end of its input) has said all it will say, not that it stopped listening:
    /// the daemon takes a last unterminated line as a request and keeps sending.
    @Test func aHalfClosedClientKeepsReceiving() throws {
        nonisolated(unsafe) var halfClosedLog = BystanderLog()
        let outcome = try runWithBystanders(
            hostileSubscribers: 1,
            hostile: { daemon in
                let expected = try ExpectedOutput(recordingPath: hostileRecording)
                let client = try Bystander(socketPath: daemon.socketPath)
                try client.client.send(#"{"type":"subscribe","touches":true}"#)
                shutdown(client.client.fd, Int32(SHUT_WR))
                halfClosedLog = try client.read(until: expected)
                // Its subscription counted for --wait-clients (the replay started) and it got everything.
            })
        outcome.expectEveryBystanderGotEverything()
        let sameTouches = halfClosedLog.touches == outcome.expected.touches
        let sameGestures = halfClosedLog.gestures == outcome.expected.gestures
        #expect(sameTouches, "\(halfClosedLog.touches.count)/\(outcome.expected.touches.count) frames")
        #expect(sameGestures, "\(halfClosedLog.gestures.count)/\(outcome.expected.gestures.count) gestures")
        #expect(halfClosedLog.other.isEmpty)
        // It has closed fully by now (its LineClient is gone): the daemon noticed.
        #expect(outcome.status.clients == 3)
        #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
    }
}

/// Lines that are not valid requests, by kind, with the error each must get.
enum BadLines: String, CaseIterable, CustomTestStringConvertible {
    case invalidUTF8, invalidJSON, wrongShape

    var testDescription: String { rawValue }

    var cases: [(line: [UInt8], code: String)] {
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        switch self {
        case .invalidUTF8:
            return [
                ([0xFF, 0xFE], "invalid-utf8"),
                (text(#"{"type":"subscribe","gestures":[""#) + [0xC3, 0x28] + text(#""]}"#), "invalid-utf8"),
                (text(#"{"type":"st"#) + [0xC0, 0xAF] + text(#"atus"}"#), "invalid-utf8"),  // overlong "/"
                (text(#"{"type":"status","x":""#) + [0xED, 0xA0, 0x80] + text(#""}"#), "invalid-utf8"),  // a surrogate
                (text(#"{"type":"status"}"#) + [0xF8], "invalid-utf8"),
            ]
        case .invalidJSON:
            return [
                (text("{"), "invalid-json"),
                (text(#"{"type":"subscribe""#), "invalid-json"),
                (text(#"{'type':'status'}"#), "invalid-json"),
                (text(#"{"type":"status"}}"#), "invalid-json"),
                (text(#"{"type":"subscribe","touches":tru}"#), "invalid-json"),
                (text(#"{"type":"status"}"#) + [0], "invalid-json"),
                (text(String(repeating: "[", count: 60_000)), "invalid-json"),  // nesting within 64 KiB
                (text(String(repeating: #"{"a":"#, count: 10_000)), "invalid-json"),
                (text("garbage"), "invalid-json"),
            ]
        case .wrongShape:
            return [
                (text("[]"), "invalid-message"),
                (text("42"), "invalid-message"),
                (text(#""subscribe""#), "invalid-message"),
                (text("{}"), "invalid-message"),
                (text(#"{"type":42}"#), "invalid-message"),
                (text(#"{"type":"reboot"}"#), "unknown-type"),
                (text(#"{"type":"SUBSCRIBE"}"#), "unknown-type"),
                (text(#"{"type":"subscribe","gestures":"pinch"}"#), "invalid-message"),
                (text(#"{"type":"subscribe","touches":"yes"}"#), "invalid-message"),
                (text(#"{"type":"subscribe","touches":true,"devices":[1,2]}"#), "invalid-message"),
                (text(#"{"type":"subscribe","touches":true,"gestures":[null]}"#), "invalid-message"),
                (text(#"{"type":"subscribe","touches":1e999}"#), "invalid-message"),
            ]
        }
    }

    var lines: [[UInt8]] { cases.map(\.line) }
    var expectedCodes: [String] { cases.map(\.code) }
}

/// A flag one thread sets and another polls.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// The runs with a subscriber that never reads: the busy recording, whose 3.9 MB of lines per
/// touch subscriber (about 2.5 MB of it within 3 s of its 24 s) pass the bound, and bystanders that
/// must keep up with the same stream.
///
/// The bound is 2 MiB, not the default 1 MiB, and the replay runs at 2× (1× under a sanitizer), not
/// 4×: at 2× with 1 MiB, a loaded 2-core machine running the instrumented suite dropped all three
/// debug-built bystanders with the sleeper (1.3 MB unread 8 s in). The sleeper still passes 2 MiB
/// in that burst, long before the end, as the tests check.
enum NeverReadingRun {
    static let speed: Double = ProcessInfo.processInfo.environment["HANDYD_SANITIZER"] == nil ? 2 : 1
    static let arguments = ["--client-queue-bytes", "\(2 << 20)"]
}
