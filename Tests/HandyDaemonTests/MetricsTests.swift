import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--metrics` and `--metrics-textfile` through the real daemon, a real HTTP client (curl) and
/// Debian's promtool (docs/FLEET.md).
@Suite struct MetricsTests {
    static let recording = fixture("health/stuck-contact-pinch.evemu")

    /// An HTTP GET with a deadline: (status, body).
    static func get(_ url: String, method: String = "GET") throws -> (status: Int, body: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-s", "-m", "5", "-X", method, "-w", "\n%{http_code}", url]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.lastIndex(of: "\n"), let status = Int(text[text.index(after: split)...]) else {
            throw HarnessError("curl \(url): \(text)")
        }
        return (status, String(text[..<split]))
    }

    /// The value of one series line (`name{labels} value`), nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    static func waitUntil(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    /// The recording's counts, scraped once it has played: its 405 changed frames (replay
    /// --summary's changedFrames), one stuck contact, the right-hand pinch; promtool accepts the text.
    @Test func theEndpointServesTheRecordingsCounts() throws {
        let port = try freeLoopbackPort()
        let daemon = try DaemonProcess(arguments: ["--replay", Self.recording, "--speed", "8", "--metrics", "\(port)"])
        let url = "http://127.0.0.1:\(port)/metrics"
        let device = #"{device="replay:stuck-contact-pinch"}"#
        var body = ""
        let played = try Self.waitUntil(seconds: 30) {
            guard let r = try? Self.get(url), r.status == 200 else { return false }
            body = r.body
            return Self.value(body, "handyd_device_frames_total" + device) == 405
        }
        #expect(played, "\(body)\n\(daemon.stateForFailure)")
        #expect(Self.value(body, "handyd_device_stuck_contacts_total" + device) == 1)
        #expect(Self.value(body, "handyd_device_stuck_contacts" + device) == 0)
        #expect(
            Self.value(
                body, #"handyd_gestures_total{device="replay:stuck-contact-pinch",gesture="pinch",hand="right"}"#) == 1)
        #expect(Self.value(body, "handyd_device_readable" + device) == 1)
        #expect(Self.value(body, "handyd_device_losses_total" + device) == 0)
        #expect(Self.value(body, "handyd_device_seconds_since_last_touch" + device) != nil)
        #expect(Self.value(body, #"handyd_build_info{version="\#(handydVersion)"}"#) == 1)
        #expect((Self.value(body, "handyd_frame_to_socket_seconds_count") ?? 0) > 0)
        #expect(try Self.get("http://127.0.0.1:\(port)/other").status == 404)
        #expect(try Self.get(url, method: "POST").status == 405)
        try Self.expectPromtoolAccepts(body)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
    }

    /// The textfile: written atomically while the daemon runs and once more at exit, the same
    /// series; a directory that cannot be written is a warning, and the daemon serves on.
    @Test func theTextfileIsWrittenAndAnUnwritableOneIsAWarning() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-metrics-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("handyd.prom").path
        let daemon = try DaemonProcess(arguments: [
            "--replay", Self.recording, "--speed", "8", "--metrics-textfile", path,
        ])
        #expect(
            Self.waitUntil(seconds: 15) { FileManager.default.fileExists(atPath: path) }, "\(daemon.stateForFailure)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(Self.value(text, #"handyd_device_frames_total{device="replay:stuck-contact-pinch"}"#) != nil, "\(text)")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        try Self.expectPromtoolAccepts(text)

        let unwritable = directory.appendingPathComponent("missing/handyd.prom").path
        let client = try DaemonProcess(arguments: [
            "--replay", Self.recording, "--speed", "8", "--metrics-textfile", unwritable,
        ])
        #expect(
            Self.waitUntil(seconds: 15) { client.log.contains("cannot write the metrics textfile") }, "\(client.log)")
        let connection = try LineClient(socketPath: client.socketPath)
        guard case .hello? = try connection.readMessage() else {
            Issue.record("no hello: \(client.stateForFailure)"); return
        }
        client.signal(SIGTERM)
        #expect(client.waitForExit(timeoutSeconds: 10) == 0)
        #expect(
            client.log.components(separatedBy: "cannot write the metrics textfile").count == 2,
            "said once, not every period")
    }

    @Test func badOptionsAreUsageErrors() throws {
        try expectUsageError(["--metrics", "70000"])
        try expectUsageError(["--metrics", "host:"])
        try expectUsageError(["--metrics-textfile", "/tmp/"])
    }

    /// Debian's promtool (package prometheus; scripts/install-deps.sh installs it) accepts the text.
    static func expectPromtoolAccepts(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else {
            #expect(
                ProcessInfo.processInfo.environment["CI"] == nil, "promtool missing in CI",
                sourceLocation: sourceLocation)
            return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        p.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = output
        try p.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(
            p.terminationStatus == 0 && said.isEmpty, "promtool check metrics: \(said)", sourceLocation: sourceLocation)
    }
}
