import Foundation
import HandyCore
import HandyRecording
import HandySynthetic
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handyctl actions` as a process against the real `handyd` replaying a recording on a real
/// socket: bound commands run (marker files), others do not, a restarted daemon is reconnected to,
/// SIGHUP reloads the file and a bad new file keeps the old one.
@Suite(.serialized)
struct ActionsTests {
    static var handyctl: String { handyctlBinary }

    /// 200 × 120 mm: a three-finger swipe down in the middle (0.0 s), a one-finger swipe in from the
    /// left edge (1.0 s), a one-finger left swipe in the middle, no edge (2.0 s).
    static func swipesRecording(in directory: URL) throws -> String {
        let screen = SyntheticTouchscreen.fullFeatured()
        var paths = (0..<3).map { i in
            FingerPath.line(
                fromMm: (x: 80 + 20 * Double(i), y: 30), toMm: (x: 80 + 20 * Double(i), y: 70), startSeconds: 0,
                durationSeconds: 0.2)
        }
        paths.append(.line(fromMm: (x: 4, y: 60), toMm: (x: 44, y: 60), startSeconds: 1, durationSeconds: 0.2))
        paths.append(.line(fromMm: (x: 120, y: 60), toMm: (x: 80, y: 60), startSeconds: 2, durationSeconds: 0.2))
        let text = EvemuWriter.recording(
            description: screen.description, events: SyntheticStream(device: screen).events(paths),
            comment: "handyd ActionsTests: three-finger swipe down, left-edge swipe, plain left swipe")
        let path = directory.appendingPathComponent("swipes.evemu").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `handyctl actions` in the background, its log in a file.
    final class ActionsProcess {
        let process = Process()
        let logPath: String
        init(config: String, socket: String, directory: URL) throws {
            logPath = directory.appendingPathComponent("actions.log").path
            guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
                throw HarnessError("cannot create the actions log \(logPath)")
            }
            process.executableURL = URL(fileURLWithPath: ActionsTests.handyctl)
            process.arguments = ["actions", "--socket", socket, "--log-level", "debug", config]
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }
        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        func waitFor(_ text: String, seconds: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if log.contains(text) { return true }
                usleep(20_000)
            }
            return false
        }
        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
    }

    static func waitForFile(_ path: String, seconds: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), !text.isEmpty { return text }
            usleep(20_000)
        }
        return nil
    }

    @Test func boundCommandsRunAcrossADaemonRestartAndAReload() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-actions-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let recording = try Self.swipesRecording(in: dir)
        let socket = file("handyd.sock")
        let config = file("actions.toml")
        try """
        [[binding]]
        gesture = "swipe"
        fingers = 3
        direction = "down"
        run = ["sh", "-c", "echo \\"$0 {fingers} {direction} $HANDYD_DEVICE\\" >> \(file("three-down"))", "first"]

        [[binding]]
        gesture = "swipe"
        edge = "left"
        run = ["sh", "-c", "echo {direction} {edge} >> \(file("left-edge"))"]

        [[binding]]
        gesture = "swipe"
        edge = "right"
        run = ["touch", "\(file("right-edge"))"]

        [[binding]]
        gesture = "swipe"
        fingers = 1
        direction = "left"
        run = ["sh", "-c", "echo {edge}. >> \(file("plain-left"))"]
        """.write(toFile: config, atomically: true, encoding: .utf8)

        // First daemon: the replay starts once handyctl actions has subscribed.
        var daemon: DaemonProcess? = try DaemonProcess(
            arguments: ["--replay", recording, "--wait-clients", "1", "--speed", "2"],
            socketPath: socket)
        let actions = try ActionsProcess(config: config, socket: socket, directory: dir)
        #expect(Self.waitForFile(file("three-down")) == "first 3 down replay:swipes\n", "\(actions.log)")
        #expect(Self.waitForFile(file("left-edge")) == "right left\n", "\(actions.log)")
        // The middle left swipe has no edge: an empty {edge}.
        #expect(Self.waitForFile(file("plain-left")) == ".\n", "\(actions.log)")
        #expect(!FileManager.default.fileExists(atPath: file("right-edge")))
        #expect(actions.log.contains("binding 1 (line 1): started sh -c"))

        // A bad new file is logged with its line, and the old bindings stay.
        try "[[binding]]\ngesture = \"swipe\"\nedge = \"middle\"\nrun = [\"true\"]\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        kill(actions.process.processIdentifier, SIGHUP)
        #expect(
            actions.waitFor(
                "actions.toml:3: binding 1: edge = \"middle\": expected one of left, right, top, bottom; keeping the previous configuration"
            ),
            "\(actions.log)")
        // A good one replaces them.
        try """
        [[binding]]
        gesture = "swipe"
        fingers = 3
        run = ["sh", "-c", "echo second >> \(file("three-down"))"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        kill(actions.process.processIdentifier, SIGHUP)
        #expect(actions.waitFor("reloaded, 1 bindings"), "\(actions.log)")

        // handyd restarts: handyctl actions reconnects and subscribes, which starts the new replay.
        daemon?.signal(SIGTERM)
        #expect(daemon?.waitForExit(timeoutSeconds: 10) == 0)
        daemon = nil
        let second = try DaemonProcess(
            arguments: ["--replay", recording, "--wait-clients", "1", "--speed", "2"], socketPath: socket)
        let deadline = Date().addingTimeInterval(20)
        var lines: [String] = []
        while Date() < deadline {
            lines = ((try? String(contentsOfFile: file("three-down"), encoding: .utf8)) ?? "").split(separator: "\n")
                .map(String.init)
            if lines.count >= 2 { break }
            usleep(20_000)
        }
        #expect(lines == ["first 3 down replay:swipes", "second"], "\(actions.log)\n\(second.log)")
        // The old edge binding is gone with the old file.
        usleep(300_000)
        #expect(try String(contentsOfFile: file("left-edge"), encoding: .utf8) == "right left\n")
        #expect(actions.log.components(separatedBy: "connected to").count - 1 == 2, "\(actions.log)")

        // SIGTERM stops it cleanly.
        kill(actions.process.processIdentifier, SIGTERM)
        let stopBy = Date().addingTimeInterval(10)
        while actions.process.isRunning && Date() < stopBy { usleep(10_000) }
        #expect(!actions.process.isRunning)
        #expect(actions.process.terminationStatus == 0)
        #expect(!second.log.contains("handyd bug"))
    }

    /// A health binding (docs/FLEET.md): the stuck contact of the issue's recording runs the bound
    /// command with the device, the touch and the event, as placeholders and in the environment;
    /// a binding on `lost` does not fire (nothing was lost).
    @Test func aHealthBindingRunsOnAStuckContact() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-actions-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let config = file("actions.toml")
        try """
        [[binding]]
        health = "stuck"
        run = ["sh", "-c", "echo \\"$0 {device} {touch} $HANDYD_HEALTH\\" >> \(file("stuck"))", "health"]

        [[binding]]
        health = "lost"
        run = ["touch", "\(file("lost"))"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture("health/stuck-contact-pinch.evemu"), "--speed", "8",
            "--wait-clients", "1",
        ])
        let actions = try ActionsProcess(config: config, socket: daemon.socketPath, directory: dir)
        let line = Self.waitForFile(file("stuck"), seconds: 30)
        #expect(line == "health replay:stuck-contact-pinch 0 stuck\n", "\(actions.log)\n\(daemon.stateForFailure)")
        #expect(!FileManager.default.fileExists(atPath: file("lost")))
    }

    @Test func aBadFileAtStartIsOneErrorWithItsLineAndExitStatus78() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-actions-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("actions.toml").path
        try
            "[[binding]]\ngesture = \"swipe\"\nrun = [\"true\"]\n\n[[binding]]\ngesture = \"pinch\"\nhand = \"middle\"\nkeys = \"ctrl+c\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        for check in [true, false] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.handyctl)
            process.arguments = ["actions"] + (check ? ["--check"] : ["--socket", "/nonexistent.sock"]) + [config]
            let run = try runToCompletion(process)
            let text = run.stderrText
            #expect(run.status == 78)
            #expect(
                text
                    == "handyctl actions: \(config):7: binding 2: hand = \"middle\": expected one of left, right, unknown\n"
            )
        }
    }
}
