import Foundation
import HandyProtocol
import Testing

/// Runs the built `handyctl` binary as a process, as a user would.
@Suite("handyctl replay (the built binary)")
struct HandyctlReplayTests {
    struct Run {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var lines: [ArraySlice<UInt8>] { stdout.split(separator: UInt8(ascii: "\n")) }
    }

    /// `handyctl` sits beside the test bundle in the build folder (`.build/<triple>/debug/`).
    static func handyctlPath() throws -> String {
        var folders: [URL] = []
        if let exe = Bundle.main.executableURL { folders.append(exe.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        if let arg0 = CommandLine.arguments.first { folders.append(URL(fileURLWithPath: arg0).deletingLastPathComponent()) }
        folders.append(FixturePaths.packageRoot.appendingPathComponent(".build/debug"))
        for folder in folders {
            let candidate = folder.appendingPathComponent("handyctl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw HandyctlNotBuilt(searched: folders.map(\.path))
    }

    struct HandyctlNotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "handyctl binary not found (build it: swift build --product handyctl); looked in \(searched)" }
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try handyctlPath())
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a full pipe cannot block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: [UInt8](stdout), stderr: String(decoding: stderr, as: UTF8.self))
    }

    private func touchesMessages(_ run: Run) throws -> [TouchesMessage] {
        try run.lines.compactMap { line in
            if case .touches(let m) = try JSONLines.decodeServerMessage(line) { return m }
            return nil
        }
    }

    @Test("--touches on the Wacom ISDv4 two-finger tap: two frames, two touches, valid protocol lines")
    func twoFingerTap() throws {
        let path = FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")
        let run = try Self.run(["replay", "--touches", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let messages = try touchesMessages(run)
        // Every line is a protocol message.
        #expect(messages.count == run.lines.count - run.lines.filter { $0.starts(with: Array("{\"type\":\"gesture\"".utf8)) }.count)
        // The recording has two SYN_REPORTs: both fingers down together, both up together.
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { $0.device == "replay:Wacom ISDv4 E6 Finger.2fg-tap" })
        #expect(messages.first?.touches.map(\.phase) == ["began", "began"])
        #expect(messages.last?.touches.map(\.phase) == ["ended", "ended"])
        #expect(Set(messages.first?.touches.map(\.id) ?? []) == [0, 1])
        #expect(messages.first?.time == 1330496004.684655)
    }

    @Test("--summary prints one JSON object with counts")
    func summary() throws {
        let path = FixturePaths.path("whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events")
        let run = try Self.run(["replay", "--summary", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        #expect(object["events"] as? Int == 84)
        // 18 SYN_REPORTs in the file, 9 tracking ids, one finger at a time.
        #expect(object["frames"] as? Int == 18)
        #expect(object["touches"] as? Int == 9)
        #expect(object["mostAtOnce"] as? Int == 1)
        #expect((object["touchDurations"] as? [Any])?.count == 9)
        #expect((object["tracker"] as? [String: Any])?["events"] as? Int == 84)
    }

    /// Touches and most-at-once counted in the files: ABS_MT_TRACKING_ID ≥ 0 events, and the most
    /// slots holding a tracking id at one time (protocol A: most SYN_MT_REPORTs in one frame).
    @Test("--summary counts touches as the recordings hold them", arguments: [
        ("whot-evemu-devices/tablets/Wacom DTH2242 Finger.events", 66, 10),
        ("whot-evemu-devices/tablets/dell_canvas_touch.evemu", 12, 5),
        ("xorg-integration-tests/tablets/n4.events", 12, 4),
        ("whot-evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", 4, 4),
        ("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-tap-center.events", 2, 1),
        ("aosp-frameworks-base/google_pixel_tablet_touchscreen.evemu", 1, 1),
        ("libinput-record/atmel-2-fingers-touch-release.yml", 2, 2),
        ("whot-evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events", nil, 2),
        ("whot-evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", nil, 1),
    ] as [(String, Int?, Int)])
    func summaryCounts(_ file: String, _ touches: Int?, _ mostAtOnce: Int) throws {
        let run = try Self.run(["replay", "--summary", FixturePaths.path(file)])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        if let touches { #expect(object["touches"] as? Int == touches) }
        #expect(object["mostAtOnce"] as? Int == mostAtOnce)
        #expect((object["frames"] as? Int ?? 0) > 0)
    }

    @Test("the evemu and libinput-record forms of one gesture print the same touches")
    func sameTouchesFromBothFormats() throws {
        let evemu = try touchesMessages(try Self.run(["replay", "--touches",
            FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events")]))
        let yaml = try touchesMessages(try Self.run(["replay", "--touches",
            FixturePaths.path("libinput-record/wacom-isdv4-double-center-scroll.yml")]))
        #expect(!evemu.isEmpty)
        // Times (and so velocities) differ; ids, phases and positions may not.
        func shape(_ m: [TouchesMessage]) -> [[String]] {
            m.map { $0.touches.map { "\($0.id) \($0.phase) \($0.x) \($0.y) \($0.xMm) \($0.yMm)" } }
        }
        #expect(shape(evemu) == shape(yaml))
    }

    @Test("replay is deterministic")
    func deterministic() throws {
        let path = FixturePaths.path("whot-evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events")
        let a = try Self.run(["replay", "--touches", path])
        let b = try Self.run(["replay", "--touches", path])
        #expect(a.status == 0)
        #expect(!a.stdout.isEmpty)
        #expect(a.stdout == b.stdout)
    }

    @Test("a truncated or garbage file: exit status 1 and one line on stderr naming file and line")
    func badFiles() throws {
        let folder = try FixturePaths.temporaryFolder()
        let full = try Data(contentsOf: URL(fileURLWithPath: FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")))
        let cut = folder.appendingPathComponent("Wacom ISDv4 E6 Finger.cut.events")
        try full.prefix(300).write(to: cut)
        let run = try Self.run(["replay", "--touches", cut.path])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "handyctl replay: \(cut.path):9: file ends in the middle of a line (truncated?): \"E: 1330496004.684643 0003 \"\n")

        let garbage = folder.appendingPathComponent("garbage.evemu")
        try Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 0x80) }).write(to: garbage)
        let g = try Self.run(["replay", garbage.path])
        #expect(g.status == 1)
        #expect(g.stderr.hasPrefix("handyctl replay: \(garbage.path):1: "))
        #expect(g.stderr.filter { $0 == "\n" }.count == 1)

        let missing = try Self.run(["replay", folder.appendingPathComponent("none.events").path])
        #expect(missing.status == 1)
    }
}
