import Foundation
import HandyDaemon
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The WebSocket endpoint (`handyd --websocket`) against the real daemon over real TCP: the same
/// protocol as the Unix socket, the Origin list, no raw touches unless `--websocket-touches`, and
/// the hostile-client cases run against the Unix socket (HostileClientTests), here against the
/// WebSocket: bystanders on the Unix socket must receive everything while a web client misbehaves.
/// Nested in HostileClientTests, whose `.serialized` covers it: these runs load the machine like
/// the hostile ones do, and run beside them the bystanders of either could fall behind.
extension HostileClientTests {
    @Suite struct WebSocketTests {
        static let origin = "http://127.0.0.1:8080"

        static func arguments(port: Int, touches: Bool = false) -> [String] {
            ["--websocket", "127.0.0.1:\(port)", "--websocket-origin", origin]
                + (touches ? ["--websocket-touches"] : [])
        }

        /// Connects once the endpoint listens (it binds after the initial scan).
        static func connect(
            port: Int, origin: String? = WebSocketTests.origin, upgrade: Bool = true,
            receiveBufferBytes: Int32? = nil
        ) throws -> WebSocketTestClient {
            let deadline = Date().addingTimeInterval(20)
            while true {
                do {
                    return try WebSocketTestClient(
                        port: port, origin: origin, upgrade: upgrade, receiveBufferBytes: receiveBufferBytes)
                } catch {
                    if Date() > deadline { throw error }
                    usleep(50_000)
                }
            }
        }

        static func decode(_ text: String) throws -> ServerMessage {
            try JSONLines.decodeServerMessage(Array(text.utf8))
        }

        @Test func helloSubscribeAndEveryGestureAsTextFrames() throws {
            let port = try freeLoopbackPort()
            let recording = hostileRecording
            let expected = try ExpectedOutput(recordingPath: recording)
            let daemon = try DaemonProcess(
                arguments: ["--replay", recording, "--speed", "4", "--wait-clients", "1"] + Self.arguments(port: port))
            let web = try Self.connect(port: port)
            #expect(web.upgraded, "\(web.status)")
            guard let helloText = try web.readText(), case .hello(let hello) = try Self.decode(helloText) else {
                Issue.record("no hello frame"); return
            }
            #expect(hello.devices.map(\.id) == [expected.deviceID])
            // Touches are refused (the rest of the subscription applies): one error frame, then gestures.
            web.sendText(#"{"type":"subscribe","touches":true}"#)
            var gestures: [ExpectedOutput.GestureKey] = []
            var errors: [String] = []
            var touchFrames = 0
            while gestures.count < expected.gestures.count, let text = try web.readText(timeoutSeconds: 30) {
                switch try Self.decode(text) {
                case .gesture(let g): gestures.append(.init(gesture: g.gesture, phase: g.phase))
                case .error(let e): errors.append(e.code)
                case .touches: touchFrames += 1
                default: break
                }
            }
            #expect(errors == [ServerErrorCode.touchesNotAllowed.rawValue])
            #expect(touchFrames == 0)
            #expect(gestures == expected.gestures, "\(gestures.count)/\(expected.gestures.count) gestures")
            // status over the WebSocket too, counting this client.
            web.sendText(#"{"type":"status"}"#)
            guard let statusText = try web.readText(until: { $0.hasPrefix(#"{"type":"status""#) }),
                case .status(let status) = try Self.decode(statusText)
            else { Issue.record("no status"); return }
            #expect(status.clients == 1 && status.events == UInt64(expected.gestures.count))
            #expect(daemon.log.contains("client.address"), "a TCP client is logged by its address")
        }

        @Test func withTheFlagTouchesArriveExactlyAsOnTheUnixSocket() throws {
            let port = try freeLoopbackPort()
            let expected = try ExpectedOutput(recordingPath: fixture(twoFingerFixture))
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--wait-clients", "1"]
                    + Self.arguments(port: port, touches: true))
            defer { withExtendedLifetime(daemon) {} }
            let web = try Self.connect(port: port)
            _ = try web.readText()
            web.sendText(#"{"type":"subscribe","touches":true,"gestures":[]}"#)
            var touches: [TouchesMessage] = []
            while touches.count < expected.touches.count, let text = try web.readText(timeoutSeconds: 30) {
                if case .touches(let t) = try Self.decode(text) { touches.append(t) }
                if case .error(let e) = try Self.decode(text) { Issue.record("error \(e.code)") }
            }
            #expect(touches == expected.touches)
        }

        /// Only the listed Origins may connect; a request without Origin (not a browser) may; a plain
        /// HTTP request is told this is a WebSocket endpoint (426).
        @Test func theOriginListDecides() throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--loop"] + Self.arguments(port: port))
            defer { withExtendedLifetime(daemon) {} }
            let allowed = try Self.connect(port: port)
            #expect(allowed.upgraded)
            #expect(try allowed.readText()?.hasPrefix(#"{"type":"hello""#) == true)
            for origin in ["http://evil.example", "http://127.0.0.1:8081", "https://127.0.0.1:8080", "null"] {
                let refused = try Self.connect(port: port, origin: origin)
                #expect(refused.status.contains(" 403 "), "\(origin): \(refused.status)")
                #expect(try refused.readToEnd().isEmpty, "\(origin): nothing after the 403 but the close")
            }
            let script = try Self.connect(port: port, origin: nil)
            #expect(script.upgraded, "no Origin: \(script.status)")
            let plain = try Self.connect(port: port, origin: nil, upgrade: false)
            #expect(plain.status.contains(" 426 "), "\(plain.status)")
        }

        // MARK: hostile clients, bystanders on the Unix socket

        /// Garbage: a binary frame closes that client (1003); invalid JSON and an unknown type get an
        /// error frame and the connection stays; the bystanders miss nothing.
        @Test func garbageFramesCloseOrAnswerOnlyThatClient() throws {
            let port = try freeLoopbackPort()
            let outcome = try runWithBystanders(
                extraArguments: Self.arguments(port: port),
                hostile: { _ in
                    let chatty = try Self.connect(port: port)
                    _ = try chatty.readText()
                    chatty.sendText("not json")
                    chatty.sendText(#"{"type":"dance"}"#)
                    chatty.sendText("")
                    var codes: [String] = []
                    while codes.count < 2, let text = try chatty.readText(until: { $0.hasPrefix(#"{"type":"error""#) })
                    {
                        if case .error(let e) = try Self.decode(text) { codes.append(e.code) }
                    }
                    #expect(codes == ["invalid-json", "unknown-type"], "\(codes)")
                    chatty.sendText(#"{"type":"status"}"#)
                    #expect(
                        try chatty.readText(until: { $0.hasPrefix(#"{"type":"status""#) }) != nil,
                        "still served after garbage")

                    let binary = try Self.connect(port: port)
                    _ = try binary.readText()
                    binary.send(opcode: 2, payload: [0, 1, 2, 3])
                    let frames = try binary.readToEnd()
                    #expect(frames.last == .close(code: 1003), "\(frames.suffix(2))")
                })
            outcome.expectEveryBystanderGotEverything()
            #expect(outcome.status.clients == 3)
            #expect(outcome.settledFileDescriptors == outcome.before.openFileDescriptors)
        }

        /// RFC 6455's refusals, each on its own connection: an unmasked frame, RSV bits, a reserved
        /// opcode and malformed closes are protocol errors (1002), text or a close reason that is not
        /// UTF-8 is 1007; a close with a good code is answered 1000; nothing follows a close frame.
        @Test(arguments: [
            ("unmasked", 1002), ("rsv1", 1002), ("rsv3", 1002), ("opcode 3", 1002), ("opcode 11", 1002),
            ("close 999", 1002), ("close 1005", 1002), ("close 5000", 1002), ("close one byte", 1002),
            ("close bad reason", 1007), ("text not UTF-8", 1007), ("close 1000", 1000), ("close 4000", 1000),
        ])
        func brokenFramesGetTheCloseCodeTheRFCNames(_ broken: String, _ code: Int) throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--loop"] + Self.arguments(port: port))
            let client = try Self.connect(port: port)
            _ = try client.readText()
            let status = Array(#"{"type":"status"}"#.utf8)
            func close(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
                [UInt8(code >> 8), UInt8(code & 0xff)] + reason
            }
            switch broken {
            case "unmasked": client.send(opcode: 1, payload: status, masked: false)
            case "rsv1": client.send(opcode: 1, payload: status, rsv: 4)
            case "rsv3": client.send(opcode: 1, payload: status, rsv: 1)
            case "opcode 3": client.send(opcode: 3, payload: status)
            case "opcode 11": client.send(opcode: 11, payload: [])
            case "close 999": client.send(opcode: 8, payload: close(999))
            case "close 1005": client.send(opcode: 8, payload: close(1005))
            case "close 5000": client.send(opcode: 8, payload: close(5000))
            case "close one byte": client.send(opcode: 8, payload: [3])
            case "close bad reason": client.send(opcode: 8, payload: close(1000, [0xff, 0xfe]))
            case "text not UTF-8": client.send(opcode: 1, payload: [0x7b, 0xc3, 0x28, 0x7d])
            case "close 1000": client.send(opcode: 8, payload: close(1000))
            default: client.send(opcode: 8, payload: close(4000, Array("bye".utf8)))
            }
            let frames = try client.readToEnd()
            let closeAt = try #require(
                frames.firstIndex {
                    if case .close = $0 { return true }; return false
                }, "\(broken): no close in \(frames.suffix(3))")
            #expect(frames[closeAt] == .close(code: UInt16(code)), "\(broken): \(frames[closeAt])")
            #expect(
                closeAt == frames.count - 1, "\(broken): frames after the close: \(frames[(closeAt + 1)...].prefix(3))")
            #expect(daemon.process.isRunning)
        }

        /// Legal forms that were refused or misread: empty fragments, many small fragments, a request
        /// whose JSON spans lines (JSON.stringify with indentation); two documents in one frame are
        /// one bad message, not two requests.
        @Test func fragmentsAndLinesInsideOneMessage() throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--loop"] + Self.arguments(port: port))
            let client = try Self.connect(port: port)
            _ = try client.readText()
            func statusReply() throws -> Bool {
                try client.readText(until: { $0.hasPrefix(#"{"type":"status""#) || $0.hasPrefix(#"{"type":"error""#) })?
                    .hasPrefix(#"{"type":"status""#) == true
            }
            // An empty first fragment, then the message.
            client.send(opcode: 1, payload: [], fin: false)
            client.send(opcode: 0, payload: Array(#"{"type":"status"}"#.utf8))
            #expect(try statusReply(), "empty first fragment")
            // 100 fragments of one byte or none (RFC 6455 sets no minimum).
            let text = Array(#"{"type":"status"}"#.utf8)
            client.send(opcode: 1, payload: [text[0]], fin: false)
            for i in 1..<100 { client.send(opcode: 0, payload: i < text.count ? [text[i]] : [], fin: false) }
            client.send(opcode: 0, payload: [])
            #expect(try statusReply(), "100 fragments")
            // Indented JSON: one request.
            client.sendText("{\n  \"type\": \"status\"\r\n}")
            #expect(try statusReply(), "JSON over lines")
            // Two documents in one message: one error, and the next reply is to the next request.
            client.sendText("{\"type\":\"status\"}\n{\"type\":\"status\"}")
            #expect(try !statusReply(), "two documents in one message were answered as a request")
            client.sendText(#"{"type":"status"}"#)
            #expect(try statusReply())
            #expect(daemon.process.isRunning)
        }

        /// The handshake: a malformed upgrade is 400, a plain request 426 naming version 13, and a
        /// request the HTTP parser cannot read is closed at once (not held for the 5 s timeout).
        @Test func malformedHandshakesAreRefusedAndClosed() throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--loop"] + Self.arguments(port: port))
            _ = try Self.connect(port: port)  // listening
            let upgrade =
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nOrigin: \(Self.origin)\r\n"
            let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            for (request, status) in [
                ("POST / HTTP/1.1\r\nHost: x\r\n" + upgrade + key + "Content-Length: 0\r\n\r\n", "400"),
                ("GET / HTTP/1.1\r\n" + upgrade + key + "\r\n", "400"),
                ("GET / HTTP/1.1\r\nHost: x\r\n" + upgrade + "Sec-WebSocket-Key: x\r\n\r\n", "400"),
                ("GET / HTTP/1.1\r\nHost: x\r\n" + upgrade + key + "\r\n", "101"),
                ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "426"),
            ] {
                let (head, closed) = try rawHTTPExchange(port: port, request: request)
                #expect(head.hasPrefix("HTTP/1.1 \(status) "), "\(request.prefix(40)): \(head)")
                if status == "426" { #expect(head.contains("Sec-WebSocket-Version: 13"), "\(head)") }
                if status != "101" { #expect(closed, "\(request.prefix(40)): left open") }
            }
            let (garbage, closed) = try rawHTTPExchange(port: port, request: "\u{1}\u{2} nonsense\r\n\r\n")
            #expect(garbage.hasPrefix("HTTP/1.1 400"), "\(garbage)")
            #expect(closed, "a request the parser cannot read holds its place until the timeout")
            #expect(daemon.process.isRunning)
        }

        /// A message over the line limit (64 KiB), whole or in fragments: closed with 1009 (too big),
        /// nothing buffered beyond the limit, the others carry on.
        @Test func aFrameOverTheLimitClosesOnlyThatClient() throws {
            let port = try freeLoopbackPort()
            let outcome = try runWithBystanders(
                extraArguments: Self.arguments(port: port),
                hostile: { _ in
                    let big = try Self.connect(port: port)
                    _ = try big.readText()
                    big.send(
                        opcode: 1,
                        payload: [UInt8](repeating: UInt8(ascii: "x"), count: JSONLines.maximumLineLength + 1))
                    #expect(try big.readToEnd().last == .close(code: 1009))
                    let fragments = try Self.connect(port: port)
                    _ = try fragments.readText()
                    let piece = [UInt8](repeating: UInt8(ascii: "y"), count: 16 * 1024)
                    fragments.send(opcode: 1, payload: piece, fin: false)
                    for _ in 0..<5 { fragments.send(opcode: 0, payload: piece, fin: false) }
                    let frames = try fragments.readToEnd()
                    #expect(frames.last == .close(code: 1009), "\(frames.suffix(2))")
                    // Fragments out of order (a continuation with no message begun): 1002, protocol error.
                    let stray = try Self.connect(port: port)
                    _ = try stray.readText()
                    stray.send(opcode: 0, payload: piece, fin: true)
                    let strayFrames = try stray.readToEnd()
                    #expect(strayFrames.last == .close(code: 1002), "\(strayFrames.suffix(2))")
                })
            outcome.expectEveryBystanderGotEverything()
            #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        }

        /// Connections that never start their handshake: at most ``WebSocketListener/maximumHandshakes``
        /// wait (more are closed at once), each at most ``WebSocketListener/handshakeTimeout``; then a
        /// browser connects again, and the Unix socket served throughout.
        @Test func halfOpenConnectionsAreBoundedAndTimedOut() throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--wait-clients", "1"] + Self.arguments(port: port))
            defer { withExtendedLifetime(daemon) {} }
            _ = try Self.connect(port: port)  // listening (it binds after the initial scan)
            usleep(200_000)  // that client's close is seen
            let waiting = try (0..<WebSocketListener.maximumHandshakes).map { _ in try SilentConnection(port: port) }
            let oneTooMany = try SilentConnection(port: port)
            #expect(oneTooMany.closedByPeer(withinSeconds: 3), "a connection beyond the limit stayed open")
            #expect(
                waiting.allSatisfy { !$0.closedByPeer(withinSeconds: 0.1) }, "a waiting connection was closed early")
            let unix = try LineClient(socketPath: daemon.socketPath)
            #expect(try unix.readLine()?.contains(#""type":"hello""#) == true, "the Unix socket must be served")
            // The timeout closes the waiting ones; then a browser is served again.
            #expect(
                waiting.allSatisfy { $0.closedByPeer(withinSeconds: 10) },
                "a connection without a handshake stayed open")
            let browser = try Self.connect(port: port)
            #expect(try browser.readText()?.contains(#""type":"hello""#) == true)
            #expect(
                daemon.log.contains("handshakes already waiting") && daemon.log.contains("no handshake within"),
                "\(daemon.stateForFailure)")
        }

        /// A client that pings without end and never reads, on an idle daemon (no batch is published,
        /// and batches are where the slow-client bound is checked): the pongs stop once the bound is
        /// queued for it, so the daemon keeps a bounded amount, and what it kept is all it sends.
        @Test func aPingFloodThatNeverReadsIsNotQueued() throws {
            let port = try freeLoopbackPort()
            // The replay waits for a subscriber that never comes: nothing else flows.
            let daemon = try DaemonProcess(
                arguments: ["--replay", fixture(twoFingerFixture), "--wait-clients", "1"] + Self.arguments(port: port))
            defer { withExtendedLifetime(daemon) {} }
            let flooder = try Self.connect(port: port, receiveBufferBytes: 4096)
            _ = try flooder.readText()
            let before = try daemon.resources
            let pings = 60_000
            let payload = [UInt8](repeating: UInt8(ascii: "p"), count: 125)
            let flood = (0..<pings).flatMap { _ in WebSocketTestClient.frame(opcode: 9, payload: payload) }
            // Judged by what the daemon reads, not by how fast TCP carries it (the harness says why).
            let stopped =
                flooder.sendWhileTheDaemonReads(flood, daemonPort: port)
                ?? flooder.waitUntilTheDaemonRead(daemonPort: port)
            if let stopped {
                // Say whether the daemon still serves at all (a wedged event loop) or only stopped
                // reading this client.
                let unix = try? LineClient(socketPath: daemon.socketPath)
                let hello = (try? unix?.readLine(timeoutSeconds: 5)) ?? nil
                let serving =
                    hello?.contains(#""type":"hello""#) == true ? "still says hello" : "gives no hello within 5 s"
                Issue.record("\(stopped); the Unix socket \(serving); \(daemon.stateForFailure)")
                return
            }
            // Every ping is read by the daemon now.
            let after = try daemon.resources
            // Then it reads everything it was sent, until nothing more comes for 3 s.
            var pongs = 0
            do {
                while let frame = try flooder.readFrame(timeoutSeconds: 3) {
                    if case .other(opcode: 10) = frame { pongs += 1 }
                }
            } catch {}  // the timeout: all read
            // Unbounded, every ping was answered: 60,000 pongs, ~8 MB kept in the daemon. Bounded: the
            // 1 MiB slow-client bound and the sockets' buffers, ~9,000 pongs of 127 bytes.
            #expect(pongs > 0 && pongs < 12_000, "\(pongs) pongs for \(pings) pings")
            #expect(after.residentKiB - before.residentKiB < residentGrowthBoundKiB, "\(before) -> \(after)")
            #expect(daemon.process.isRunning, "\(daemon.stateForFailure)")
        }

        /// A web client subscribed to touches that never reads is dropped at the same bound as a Unix
        /// socket client; the bystanders miss nothing.
        @Test func aWebClientThatNeverReads() throws {
            let port = try freeLoopbackPort()
            let outcome = try runWithBystanders(
                recording: fixture(busyFixture), speed: NeverReadingRun.speed,
                extraArguments: Self.arguments(port: port, touches: true) + NeverReadingRun.arguments,
                hostileSubscribers: 1,
                hostile: { daemon in
                    let sleeper = try Self.connect(port: port, receiveBufferBytes: 4096)
                    sleeper.sendText(#"{"type":"subscribe","touches":true}"#)
                    let deadline = Date().addingTimeInterval(30 / NeverReadingRun.speed)
                    while Date() < deadline {
                        usleep(100_000)
                        if daemon.log.contains("client too slow") { break }
                    }
                    let frames = try sleeper.readToEnd()
                    let touchFrames = frames.filter {
                        if case .text(let t) = $0 { t.hasPrefix(#"{"type":"touches""#) } else { false }
                    }
                    #expect(touchFrames.count < 1930, "disconnected before the end: \(touchFrames.count) touch frames")
                })
            outcome.expectEveryBystanderGotEverything()
            #expect(outcome.status.drops == 1)
            #expect(outcome.status.clients == 3)
        }

        /// 1,000 WebSocket connections at once: beside the 3 bystanders (on the Unix socket), 16 get
        /// hello (`--websocket-max-clients`' default; before it, 61: every place but the bystanders'),
        /// every other one a `too-many-clients` error frame and the close; the daemon keeps serving.
        @Test func aThousandWebSocketConnections() throws {
            let port = try freeLoopbackPort()
            let outcome = try runWithBystanders(
                extraArguments: Self.arguments(port: port),
                hostile: { _ in
                    let opened = concurrently(
                        (0..<4).map { _ in { try (0..<250).map { _ in try Self.connect(port: port) } } })
                    let clients = try opened.flatMap { try $0.get() }
                    var accepted: [WebSocketTestClient] = []
                    var refused = 0
                    for c in clients {
                        guard c.upgraded, let first = try c.readText() else {
                            Issue.record("no first frame: \(c.status)"); continue
                        }
                        if first.hasPrefix(#"{"type":"hello""#) { accepted.append(c); continue }
                        #expect(
                            first.contains(#""code":"too-many-clients""#)
                                && first.contains("at most 16 WebSocket clients"), "\(first)")
                        refused += 1
                    }
                    #expect(accepted.count == WebSocketOptions.defaultMaximumClients)
                    #expect(refused == 1000 - WebSocketOptions.defaultMaximumClients)
                },
                afterwards: { _, _ in
                    let late = try Self.connect(port: port)
                    #expect(try late.readText()?.hasPrefix(#"{"type":"hello""#) == true, "served again after the storm")
                })
            outcome.expectEveryBystanderGotEverything()
            #expect(outcome.status.clients == 3)
            #expect(outcome.residentGrowthKiB < residentGrowthBoundKiB, "\(outcome.before) -> \(outcome.after)")
        }

        /// The WebSocket port already taken: handyd names the port and the cause and exits non-zero,
        /// and its Unix socket, listening just before, is stopped (clients that connected in between
        /// get `shutdown`) and its file gone, not in the way of the next start.
        @Test func aTakenPortEndsTheStartAndLeavesNoSocket() throws {
            let taken = try listeningLoopbackSocket()
            defer { close(taken.fd) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "handyd-test-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let socketPath = directory.appendingPathComponent("run/handyd.sock").path
            let logPath = directory.appendingPathComponent("handyd.log").path
            #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: handydBinary)
            process.arguments =
                ["--socket", socketPath, "--log-level", "debug", "--replay", fixture(twoFingerFixture)]
                + Self.arguments(port: taken.port)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            #expect(
                process.terminationReason == .exit && process.terminationStatus != 0,
                "handyd: \(process.terminationStatus)\n\(log)")
            #expect(
                log.contains("\(taken.port)") && log.contains("in use"),
                "the error must name the port and the cause:\n\(log)")
            #expect(log.contains("listening"), "the Unix socket was to be listening first:\n\(log)")
            #expect(!FileManager.default.fileExists(atPath: socketPath), "\(socketPath) left behind")
        }

        @Test func badCommandLinesAreUsageErrors() throws {
            for args in [
                ["--websocket", "99999"], ["--websocket", "host:"], ["--websocket-origin", "http://a"],
                ["--websocket", "7345", "--websocket-origin", "127.0.0.1:8080"],
                ["--websocket-max-clients", "2"], ["--websocket", "7345", "--websocket-max-clients", "0"],
                ["--websocket", "7345", "--max-clients", "4", "--websocket-max-clients", "5"],
            ] {
                try expectUsageError(args)
            }
        }

        /// Whoever can reach the port (any local user, on loopback) cannot take the places of the Unix
        /// socket's clients: web clients are served up to `--websocket-max-clients` within
        /// `--max-clients`. Before, they shared `--max-clients` whole: two web clients more here took
        /// both of the Unix socket's places.
        @Test func webClientsCannotTakeTheUnixSocketsPlaces() throws {
            let port = try freeLoopbackPort()
            let daemon = try DaemonProcess(
                arguments: [
                    "--replay", fixture(twoFingerFixture), "--max-clients", "4",
                    "--websocket-max-clients", "2",
                ] + Self.arguments(port: port))
            var web: [WebSocketTestClient] = []
            for _ in 0..<2 {
                let w = try Self.connect(port: port)
                guard let text = try w.readText(), case .hello = try Self.decode(text) else {
                    Issue.record("web client got no hello"); return
                }
                web.append(w)
            }
            // A third web client is refused, by the web limit, and closed.
            let third = try Self.connect(port: port)
            #expect(third.upgraded, "\(third.status)")
            guard let refusal = try third.readText(), case .error(let e) = try Self.decode(refusal) else {
                Issue.record("the third web client was not refused"); return
            }
            #expect(e.code == "too-many-clients")
            #expect(e.message == "handyd serves at most 2 WebSocket clients", "\(e.message)")
            #expect(try third.readText() == nil, "closed after the refusal")
            // The Unix socket keeps its two places; a fifth client meets --max-clients.
            let a = try LineClient(socketPath: daemon.socketPath), b = try LineClient(socketPath: daemon.socketPath)
            if case .hello? = try a.readMessage() {} else { Issue.record("the Unix socket's first place was taken") }
            if case .hello? = try b.readMessage() {} else { Issue.record("the Unix socket's second place was taken") }
            let c = try LineClient(socketPath: daemon.socketPath)
            let refused = try c.readToEOF()
            if case .error(let e)? = refused.first {
                #expect(e.code == "too-many-clients" && e.message == "handyd serves at most 4 clients", "\(e)")
            } else {
                Issue.record("no refusal at --max-clients: \(refused)")
            }
            // A web client that leaves gives its place to another web client.
            web.removeLast()
            // Polled: the daemon frees the place once it sees the close.
            let deadline = Date().addingTimeInterval(10)
            var greeted = false
            while !greeted && Date() < deadline {
                let again = try Self.connect(port: port)
                if let text = try again.readText(), case .hello = try Self.decode(text) {
                    greeted = true
                } else {
                    usleep(20_000)
                }
            }
            #expect(greeted, "no hello after a web client left")
            _ = (web, a, b)
        }
    }
}
