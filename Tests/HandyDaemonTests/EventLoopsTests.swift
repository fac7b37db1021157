import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handyd --event-loops N`: the clients spread over N event loops, each with its own broadcaster
/// (docs/PERFORMANCE.md section 2). What every client receives with several loops is checked by
/// DaemonTests and CompactFormTests, which run with one loop and with several.
@Suite(.serialized)
struct EventLoopsTests {
    /// The daemon's NIO event-loop threads: (policy, real-time priority) of each, from
    /// /proc/PID/task/TID/stat (fields 41 and 40; SCHED_RR is 2).
    static func eventLoopThreads(of pid: Int32) throws -> [(policy: Int, priority: Int)] {
        var threads: [(policy: Int, priority: Int)] = []
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let name = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
            guard name.hasPrefix("NIO-ELT-") else { continue }
            let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8)
            let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
            threads.append((Int(fields[41 - 3]) ?? -1, Int(fields[40 - 3]) ?? -1))
        }
        return threads
    }

    @Test func aCountOutsideTheRangeIsAUsageError() throws {
        for value in ["0", "17", "-1", "x"] { try expectUsageError(["--event-loops", value]) }
    }

    /// N loops are N threads, and each inherits the daemon's scheduling (`--realtime-priority`
    /// is entered before any thread starts).
    @Test func everyLoopIsAThreadUnderTheDaemonsScheduling() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(14), &limit)  // RLIMIT_RTPRIO
        let allowed = geteuid() == 0 || limit.rlim_cur >= 7
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(twoFingerFixture), "--loop", "--event-loops", "3",
            "--realtime-priority", "7",
        ])
        try RealtimeSchedulingTests.expectServes(daemon)
        let loops = try Self.eventLoopThreads(of: daemon.process.processIdentifier)
        #expect(loops.count == 3, "\(loops)")
        if allowed {
            #expect(loops.allSatisfy { $0.policy == 2 && $0.priority == 7 }, "\(loops)")
        } else {
            #expect(loops.allSatisfy { $0.policy == 0 }, "\(loops)")
        }
    }

    /// A web client and a Unix-socket client on different loops both get every gesture; the
    /// replay waits for both, counted over the loops.
    @Test func aWebAndAUnixClientOnDifferentLoopsGetEveryGesture() throws {
        let port = try freeLoopbackPort()
        let recording = hostileRecording
        let expected = try ExpectedOutput(recordingPath: recording)
        #expect(expected.gestures.count >= 20, "the recording's gestures: \(expected.gestures.count)")
        let daemon = try DaemonProcess(
            arguments: ["--replay", recording, "--speed", "4", "--wait-clients", "2", "--event-loops", "2"]
                + HostileClientTests.WebSocketTests.arguments(port: port))
        // NIO places each accepted client, and each listener as it binds, on the group's next loop.
        // The harness returns once the Unix socket listens; a Unix client accepted before the
        // WebSocket listener binds puts that bind between the two clients, and both land on loop 0
        // (CI of 0b00d2d, under load). So both listen first, as a kiosk's clients find them.
        let listening = Date().addingTimeInterval(20)
        while !daemon.log.contains("listening for WebSocket clients"), Date() < listening { usleep(20_000) }
        let unix = try LineClient(socketPath: daemon.socketPath)
        guard case .hello? = try unix.readMessage() else { Issue.record("no hello on the Unix socket"); return }
        let web = try HostileClientTests.WebSocketTests.connect(port: port)
        guard let helloText = try web.readText(), case .hello = try HostileClientTests.WebSocketTests.decode(helloText)
        else {
            Issue.record("no hello frame"); return
        }
        try unix.send(#"{"type":"subscribe"}"# + "\n")
        web.sendText(#"{"type":"subscribe"}"#)

        var unixGestures: [ExpectedOutput.GestureKey] = []
        while unixGestures.count < expected.gestures.count, let message = try unix.readMessage(timeoutSeconds: 30) {
            if case .gesture(let g) = message { unixGestures.append(.init(gesture: g.gesture, phase: g.phase)) }
        }
        var webGestures: [ExpectedOutput.GestureKey] = []
        while webGestures.count < expected.gestures.count, let text = try web.readText(timeoutSeconds: 30) {
            if case .gesture(let g) = try HostileClientTests.WebSocketTests.decode(text) {
                webGestures.append(.init(gesture: g.gesture, phase: g.phase))
            }
        }
        #expect(unixGestures == expected.gestures, "\(daemon.stateForFailure)")
        #expect(webGestures == expected.gestures, "\(daemon.stateForFailure)")
        #expect(eventLoopsServingClients(daemon.log) == [0, 1], "\(daemon.stateForFailure)")
    }
}

/// Options that could never work are refused before anything starts.
@Suite struct DaemonUsageTests {
    @Test func waitClientsBeyondMaxClientsOrBelowZeroAndAnEmptySocketAreUsageErrors() throws {
        // A replay waiting for more clients than may connect would never start.
        try expectUsageError(["--replay", hostileRecording, "--wait-clients", "65"])
        try expectUsageError(["--replay", hostileRecording, "--wait-clients", "3", "--max-clients", "2"])
        try expectUsageError(["--replay", hostileRecording, "--wait-clients=-1"])
        try expectUsageError(["--replay", hostileRecording, "--socket", ""])
    }
}

/// A client sending garbage in a loop (found probing as a hostile client: 60,000 journal lines in
/// 5 s at the default level): the first invalid line is logged at info, the rest at debug; each is
/// still answered.
@Suite struct InvalidMessageLoggingTests {
    @Test func garbageIsLoggedOnceAtInfoAndAlwaysAnswered() throws {
        let daemon = try DaemonProcess(arguments: ["--replay", hostileRecording, "--loop"])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello? = try client.readMessage() else { Issue.record("no hello"); return }
        try client.send(String(repeating: "x\n", count: 200))
        var errors = 0
        while errors < 200, let message = try client.readMessage() {
            if case .error(let e) = message, e.code == "invalid-json" { errors += 1 }
        }
        #expect(errors == 200)
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("invalid client message") }
        #expect(lines.count == 200, "every one at debug or info: \(lines.count)")
        #expect(lines.filter { $0.contains(" info ") }.count == 1, "\(lines.prefix(3))")
    }
}
