import Foundation
import HandyActions
import HandyProtocol
import Logging
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Log lines kept in memory, so a test can check what was logged (swift-log's advice for tests).
final class LogRecord: Sendable {
    let lines = Mutex<[(Logger.Level, String)]>([])
    var all: [(Logger.Level, String)] { lines.withLock { $0 } }
    func contains(_ level: Logger.Level, _ text: String) -> Bool {
        all.contains { $0.0 == level && $0.1.contains(text) }
    }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(record: self) }
    }

    struct Handler: LogHandler {
        let record: LogRecord
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            record.lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}

/// A temporary directory, removed at the end.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-actions-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }
    func read(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Waits until `condition` holds (polling), up to `seconds`.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// Real commands (real processes), real reaping, real reloading of a real file.
@Suite struct ServiceTests {
    static func swipeDown(fingers: Int) -> GestureEvent {
        var e = GestureEvent(gesture: .swipe, phase: .recognized, id: 9, time: 4.5, device: "event5")
        e.direction = .down; e.fingers = fingers
        e.centroid = WirePoint(x: 0.5, y: 0.25)
        return e
    }

    @Test func aMatchingEventRunsTheCommandWithItsFields() throws {
        let dir = try TemporaryDirectory()
        try dir.write(
            "actions.toml",
            """
            [[binding]]
            gesture = "swipe"
            fingers = 3
            run = ["sh", "-c", "printf '%s %s' \\"$1\\" \\"$HANDYD_DIRECTION\\" > \(dir.path("marker"))", "sh", "{fingers}@{x},{y}"]
            """)
        let log = LogRecord()
        let service = try ActionsService(configurationPath: dir.path("actions.toml"), logger: log.logger)
        service.handle(.gesture(Self.swipeDown(fingers: 2)))
        service.handle(.gesture(Self.swipeDown(fingers: 3)))
        #expect(eventually { dir.read("marker") == "3@0.5,0.25 down" }, "\(dir.read("marker") ?? "no marker")")
        #expect(
            eventually {
                service.launcher.reap(); return service.launcher.runningCount == 0
            })
        #expect(log.contains(.info, "binding 1 (line 1): started sh -c"))
    }

    @Test func aFailingCommandIsLoggedAndTheOthersStillRun() throws {
        let dir = try TemporaryDirectory()
        try dir.write(
            "actions.toml",
            """
            [[binding]]
            gesture = "swipe"
            run = ["/nonexistent/program", "x"]

            [[binding]]
            gesture = "swipe"
            run = ["sh", "-c", "exit 3"]

            [[binding]]
            gesture = "swipe"
            run = "kill -TERM $$"
            shell = true

            [[binding]]
            gesture = "swipe"
            run = ["touch", "\(dir.path("marker"))"]
            """)
        let log = LogRecord()
        let service = try ActionsService(configurationPath: dir.path("actions.toml"), logger: log.logger)
        service.fire(for: Self.swipeDown(fingers: 1))
        #expect(eventually { FileManager.default.fileExists(atPath: dir.path("marker")) })
        #expect(
            log.contains(.error, "binding 1 (line 1): cannot run /nonexistent/program x: No such file or directory"))
        #expect(
            eventually {
                service.launcher.reap()
                return log.contains(.warning, "binding 2 (line 5): sh -c 'exit 3'")
                    && log.contains(.warning, "exit status 3")
            }, "\(log.all)")
        #expect(
            eventually {
                service.launcher.reap()
                return log.contains(.warning, "binding 3 (line 9): /bin/sh -c 'kill -TERM $$'")
                    && log.contains(.warning, "killed by signal 15")
            }, "\(log.all)")
        #expect(
            eventually {
                service.launcher.reap(); return service.launcher.runningCount == 0
            })
        // And the next event is handled as usual.
        try FileManager.default.removeItem(atPath: dir.path("marker"))
        service.fire(for: Self.swipeDown(fingers: 1))
        #expect(eventually { FileManager.default.fileExists(atPath: dir.path("marker")) })
    }

    @Test func commandsDoNotHoldUpTheEventStream() throws {
        let dir = try TemporaryDirectory()
        try dir.write(
            "actions.toml",
            """
            [[binding]]
            gesture = "swipe"
            run = ["sleep", "30"]
            """)
        let service = try ActionsService(configurationPath: dir.path("actions.toml"), logger: LogRecord().logger)
        // Without a clock: had `fire` waited for its command, the five would have finished (two and
        // a half minutes) and none would still be running here.
        for _ in 0..<5 { service.fire(for: Self.swipeDown(fingers: 1)) }
        #expect(service.launcher.runningCount == 5)
        #expect(service.launcher.reap() == 0)
        for pid in service.launcher.runningProcessIDs { kill(pid, SIGKILL) }
        #expect(
            eventually {
                service.launcher.reap(); return service.launcher.runningCount == 0
            })
    }

    @Test func aChildStartsWithDefaultSignalsAndAnEmptyMask() throws {
        // This process may ignore SIGHUP (handyctl actions does, for reload); its children must not.
        let dir = try TemporaryDirectory()
        try dir.write(
            "actions.toml",
            """
            [[binding]]
            gesture = "swipe"
            run = ["sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status > \(dir.path("signals"))"]
            """)
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        let service = try ActionsService(configurationPath: dir.path("actions.toml"), logger: LogRecord().logger)
        service.fire(for: Self.swipeDown(fingers: 1))
        #expect(eventually { dir.read("signals")?.split(separator: "\n").count == 2 })
        let text = dir.read("signals") ?? ""
        #expect(text.contains("SigBlk:\t0000000000000000"), "\(text)")
        // sh itself may ignore nothing but SIGHUP must not be inherited as ignored (bit 1).
        let ignored =
            text.split(separator: "\n").first { $0.hasPrefix("SigIgn") }.flatMap {
                UInt64($0.split(separator: "\t").last ?? "", radix: 16)
            } ?? 1
        #expect(ignored & 1 == 0, "\(text)")
    }

    @Test func reloadKeepsTheOldConfigurationWhenTheNewOneIsBad() throws {
        let dir = try TemporaryDirectory()
        let good = "[[binding]]\ngesture = \"swipe\"\nrun = [\"true\"]\n"
        try dir.write("actions.toml", good)
        let log = LogRecord()
        let service = try ActionsService(configurationPath: dir.path("actions.toml"), logger: log.logger)
        let before = service.configuration
        try dir.write("actions.toml", good + "\n[[binding]]\ngesture = \"tap\"\ntaps = \"two\"\nrun = [\"true\"]\n")
        #expect(!service.reload())
        #expect(service.configuration == before)
        #expect(
            log.contains(
                .error,
                "actions.toml:7: binding 2: taps = \"two\": expected a whole number 1 … 100; keeping the previous configuration"
            ),
            "\(log.all)")
        try dir.write("actions.toml", good + "\n[[binding]]\ngesture = \"tap\"\ntaps = 2\nrun = [\"true\"]\n")
        #expect(service.reload())
        #expect(service.configuration.bindings.count == 2)
        #expect(log.contains(.info, "reloaded, 2 bindings"))
        // A file that disappears is an error too, and changes nothing.
        try FileManager.default.removeItem(atPath: dir.path("actions.toml"))
        #expect(!service.reload())
        #expect(service.configuration.bindings.count == 2)
    }

    @Test func aBadFileAtStartIsAnError() throws {
        let dir = try TemporaryDirectory()
        try dir.write("actions.toml", "[[binding]]\ngesture = \"swipe\"\nedge = \"middle\"\nrun = [\"true\"]\n")
        #expect(throws: ActionsConfigurationError.self) {
            try ActionsService(configurationPath: dir.path("actions.toml"), logger: LogRecord().logger)
        }
    }

    /// Where the uinput node cannot be opened, a chord fails alone with a clear error and the
    /// other bindings still run. A node that cannot exist, so it runs on every machine (the chord
    /// itself is proven in the guest by actions_guest.py).
    @Test func keysWithoutUinputAreLoggedAndCommandsStillRun() throws {
        let dir = try TemporaryDirectory()
        try dir.write(
            "actions.toml",
            """
            [[binding]]
            gesture = "swipe"
            keys = "ctrl+alt+f1"

            [[binding]]
            gesture = "swipe"
            run = ["touch", "\(dir.path("marker"))"]
            """)
        let log = LogRecord()
        let missing = "/nonexistent-handyd-test/uinput"
        let service = try ActionsService(
            configurationPath: dir.path("actions.toml"), uinputPath: missing, logger: log.logger)
        service.fire(for: Self.swipeDown(fingers: 1))
        #expect(log.contains(.error, "cannot create the virtual keyboard: \(missing)"))
        #expect(log.contains(.error, "binding 1 (line 1): cannot press ctrl+alt+f1: no virtual keyboard"))
        #expect(eventually { FileManager.default.fileExists(atPath: dir.path("marker")) })
    }
}
