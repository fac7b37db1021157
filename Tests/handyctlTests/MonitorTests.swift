import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

@testable import handyctl

#if canImport(Glibc)
import Glibc
#endif

/// `handyctl monitor`'s live screen: the pure ``MonitorScreen`` fed by a real daemon, and the
/// command itself as a process, into a pipe and into a pseudo-terminal.
@Suite(.serialized)
struct MonitorTests {
    static let demo = packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
    static var handyctl: String { handyctlBinary }

    /// Every message of the demo replay, as a subscriber with touches receives it.
    static func demoMessages(extraClients: Int = 0, whileConnected: (DaemonProcess) throws -> Void = { _ in }) throws
        -> (messages: [ServerMessage], daemon: DaemonProcess)
    {
        let expected = try ExpectedOutput(recordingPath: demo)
        let daemon = try DaemonProcess(arguments: [
            "--replay", demo, "--wait-clients", "\(1 + extraClients)", "--speed", "8",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        try whileConnected(daemon)
        var messages: [ServerMessage] = []
        var items = 0
        while items < expected.sequence.count {
            guard let m = try client.readMessage(timeoutSeconds: 30) else { break }
            messages.append(m)
            if m.expectedItem != nil { items += 1 }
        }
        #expect(items == expected.sequence.count)
        return (messages, daemon)
    }

    @Test func screenShowsTouchesDownAndTheHandOfTheLatestPinch() throws {
        let (messages, _) = try Self.demoMessages()
        var screen = MonitorScreen()
        var lastPinchHand: Hand?
        var framesWithTouches = 0
        var pinchesSeen = Set<Hand>()
        for m in messages {
            screen.apply(m)
            let text = screen.render(colour: false)
            if case .touches(let t) = m {
                let down = t.touches.filter { $0.phase != "ended" && $0.phase != "cancelled" }
                // One row per touch down now, with its id; the device line counts them.
                let rows = text.split(separator: "\n").filter { $0.hasPrefix("      #") }
                #expect(rows.count == down.count, "\(text)")
                for touch in down { #expect(rows.contains { $0.hasPrefix("      #\(touch.id) ") }) }
                if !down.isEmpty {
                    framesWithTouches += 1
                    #expect(text.contains("\(down.count) down"))
                }
            }
            if case .gesture(let g) = m, g.gesture == .pinch, let hand = g.hand {
                lastPinchHand = hand
                pinchesSeen.insert(hand)
            }
            if let hand = lastPinchHand {
                let line = text.split(separator: "\n").first { $0.contains("last pinch:") } ?? ""
                #expect(line.contains("\(hand.rawValue.uppercased()) hand"), "\(line)")
                #expect(line.contains("clear side:  \(hand.clearSide.rawValue.uppercased()) "), "\(line)")
            }
        }
        #expect(framesWithTouches > 100)
        // The demo pinches with each hand once.
        #expect(pinchesSeen == [.left, .right])
        // One row per gesture instance: the latest event of each, ended or cancelled at the end.
        let gestureIDs = Set(
            messages.compactMap { m -> UInt64? in if case .gesture(let g) = m { return g.id } else { return nil } })
        #expect(screen.gestures.count == min(gestureIDs.count, screen.maximumGestures))
        #expect(screen.gestures.allSatisfy { [.ended, .cancelled, .recognized].contains($0.phase) })
        #expect(screen.touches.isEmpty)
    }

    /// Hovering fingers (issue 55, item 6): listed under their device apart from the touches
    /// (`~id hover`), counted apart, gone when a message comes without them.
    @Test func screenShowsHoveringFingersApartFromTouches() {
        var screen = MonitorScreen()
        screen.apply(
            .hello(HelloMessage(version: "t", devices: [DeviceInfo(id: "pad", name: "Pad", hover: true)])))
        let touch = WireTouch(id: 0, phase: "began", tool: "finger", x: 0.2, y: 0.4, xMm: 20, yMm: 24)
        let above = [
            WireHover(
                id: 0, phase: "landed", x: 0.2, y: 0.4, xMm: 20, yMm: 24, distance: 1, distanceNormalized: 1, touch: 0),
            WireHover(id: 1, phase: "hovering", x: 0.75, y: 0.6, xMm: 75, yMm: 36, distance: 1, distanceNormalized: 1),
        ]
        screen.apply(.touches(TouchesMessage(time: 1, device: "pad", touches: [touch], hovers: above)))
        let text = screen.render(colour: false)
        let lines = text.split(separator: "\n")
        #expect(text.contains("1 down") && text.contains("1 hovering"), "\(text)")
        #expect(lines.filter { $0.hasPrefix("      #") }.count == 1)
        // The landed one is a touch now: only the one still above the glass is listed.
        #expect(lines.filter { $0.hasPrefix("      ~") } == ["      ~1 hover    75.0,  36.0 mm  distance 1 (1.00)"])
        #expect(screen.render(colour: true).contains("\u{1B}[36m"))
        screen.apply(.touches(TouchesMessage(time: 2, device: "pad", touches: [])))
        #expect(!screen.render(colour: false).contains("hover"))
    }

    @Test func screenFitsTheTerminalAndColoursOnlyWhenAsked() throws {
        let (messages, _) = try Self.demoMessages()
        var screen = MonitorScreen()
        for m in messages { screen.apply(m) }
        let small = screen.lines(rows: 16)
        #expect(small.count <= 16)
        #expect(small.contains { $0.plain.contains("more") })
        let cut = screen.render(columns: 50, rows: 16, colour: false)
        #expect(cut.split(separator: "\n").allSatisfy { $0.unicodeScalars.count <= 50 })
        #expect(!cut.contains("\u{1B}"))
        let coloured = screen.render(columns: 50, rows: 16, colour: true, inPlace: true)
        #expect(coloured.hasPrefix("\u{1B}[H"))
        // Escapes take no columns: cut by what is visible, every SGR closed.
        for line in coloured.split(separator: "\n") {
            let visible = line.replacingOccurrences(
                of: #"\u{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
            #expect(visible.unicodeScalars.count <= 50)
            let opened = line.matches(of: /\x1B\[[0-9;]*[1-9][0-9;]*m/).count
            #expect(opened == line.matches(of: /\x1B\[0m/).count, "\(line)")
        }
        // The latest pinch's hand in its colour (right orange 208, left blue 33), reversed.
        let hand = try #require(screen.lastPinch?.hand)
        #expect(coloured.contains("\u{1B}[1;7;38;5;\(hand == .right ? 208 : 33)m \(hand.rawValue.uppercased()) hand"))
    }

    /// Waits (at most 20 s) until the file at `path` has stopped growing for a second: the monitor
    /// has caught up with the finished replay. A reader still behind when the daemon stops loses
    /// what the 2 s grace does not cover (docs/RELIABILITY.md), and a loaded CI machine once left
    /// the monitor that far behind.
    static func waitUntilQuiet(_ path: String) {
        var size: UInt64 = 0
        var stableSince = Date()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let now = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0
            if now != size {
                size = now; stableSince = Date()
            } else if Date().timeIntervalSince(stableSince) > 1 {
                return
            }
            usleep(50_000)
        }
    }

    /// The command as a process into a pipe: one screen per redraw, the last one the final state.
    @Test func monitorCommandDrawsScreensUntilTheDaemonStops() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "monitor-\(UUID().uuidString.prefix(8)).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let monitor = Process()
        let (messages, daemon) = try Self.demoMessages(extraClients: 1) { daemon in
            monitor.executableURL = URL(fileURLWithPath: Self.handyctl)
            monitor.arguments = ["monitor", "--socket", daemon.socketPath, "--screen", "--colour", "never", "--once"]
            monitor.standardOutput = try FileHandle(forWritingTo: output)
            try monitor.run()
        }
        Self.waitUntilQuiet(output.path)
        daemon.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while monitor.isRunning && Date() < deadline { usleep(20_000) }
        if monitor.isRunning { monitor.terminate(); Issue.record("monitor did not exit after the daemon stopped") }
        #expect(monitor.terminationStatus == 0)
        let screens = try String(contentsOf: output, encoding: .utf8).components(separatedBy: "\u{0C}\n").filter {
            !$0.isEmpty
        }
        #expect(screens.count >= 3, "redraws: \(screens.count)")
        let last = try #require(screens.last)
        let lastPinch = messages.reversed().lazy.compactMap { m -> GestureEvent? in
            if case .gesture(let g) = m, g.gesture == .pinch, g.hand != nil { return g } else { return nil }
        }.first
        let hand = try #require(lastPinch?.hand)
        #expect(last.contains("last pinch:  \(hand.rawValue.uppercased()) hand"), "\(last)")
        #expect(last.contains("daemon shutting down"))
        #expect(!last.contains("\u{1B}"))
        // The last screen is the one MonitorScreen draws from the same messages.
        var screen = MonitorScreen()
        for m in messages { screen.apply(m) }
        #expect(last.contains(screen.lines().first { $0.plain.contains(" pinch ") }?.plain ?? "no pinch row"))
    }

    /// In a pseudo-terminal (util-linux `script`): the alternate screen, hidden cursor, colours,
    /// and the normal screen restored on exit.
    @Test func monitorInATerminalUsesTheAlternateScreenAndRestoresIt() throws {
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux script (bsdutils) is needed")
        let typescript = FileManager.default.temporaryDirectory.appendingPathComponent(
            "monitor-\(UUID().uuidString.prefix(8)).pty")
        defer { try? FileManager.default.removeItem(at: typescript) }
        let monitor = Process()
        let (_, daemon) = try Self.demoMessages(extraClients: 1) { daemon in
            monitor.executableURL = URL(fileURLWithPath: script)
            monitor.arguments = [
                "-qfec", "stty cols 100 rows 30; \(Self.handyctl) monitor --socket \(daemon.socketPath) --once",
                typescript.path,
            ]
            monitor.environment = ProcessInfo.processInfo.environment.filter { $0.key != "NO_COLOR" }
            monitor.standardInput = FileHandle.nullDevice
            monitor.standardOutput = FileHandle.nullDevice
            try monitor.run()
        }
        Self.waitUntilQuiet(typescript.path)
        daemon.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while monitor.isRunning && Date() < deadline { usleep(20_000) }
        if monitor.isRunning { monitor.terminate(); Issue.record("monitor did not exit") }
        #expect(monitor.terminationStatus == 0)
        let bytes = try String(decoding: Data(contentsOf: typescript), as: UTF8.self)
        let enter = try #require(bytes.range(of: "\u{1B}[?1049h\u{1B}[?25l"))
        let leave = try #require(bytes.range(of: "\u{1B}[?25h\u{1B}[?1049l", options: .backwards))
        #expect(enter.upperBound <= leave.lowerBound)
        #expect(bytes.contains("\u{1B}[1;7;38;5;208m RIGHT hand") || bytes.contains("\u{1B}[1;7;38;5;33m LEFT hand"))
        #expect(bytes.contains("\u{1B}[H"))
    }
}
