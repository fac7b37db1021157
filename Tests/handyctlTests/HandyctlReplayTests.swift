import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

/// Runs the built `handyctl` binary as a process, as a user would.
@Suite("handyctl replay (the built binary)")
struct HandyctlReplayTests {
    private func touchesMessages(_ run: HandyctlProcess.Run) throws -> [TouchesMessage] {
        try run.lines.compactMap { line in
            if case .touches(let m) = try JSONLines.decodeServerMessage(line) { return m }
            return nil
        }
    }

    @Test("inject refuses a --hold or --start-delay beyond a year with a usage error, before any device")
    func injectRefusesHugeWaits() throws {
        let path = FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")
        for arguments in [["--hold", "1e19"], ["--start-delay", "1e19"], ["--hold", "31536001"]] {
            let run = try HandyctlProcess.run(["inject"] + arguments + [path])
            // 64: swift-argument-parser's usage error (a trap would end the process by a signal).
            #expect(run.status == 64, "\(arguments): status \(run.status), \(run.stderr)")
            #expect(run.stderr.contains("from 0 to 31536000"), "\(arguments): \(run.stderr)")
        }
    }

    @Test("--touches on the Wacom ISDv4 two-finger tap: two frames, two touches, valid protocol lines")
    func twoFingerTap() throws {
        let path = FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")
        let run = try HandyctlProcess.run(["replay", "--touches", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let messages = try touchesMessages(run)
        // Every line is a protocol message.
        #expect(
            messages.count == run.lines.count
                - run.lines.filter { $0.starts(with: Array("{\"type\":\"gesture\"".utf8)) }.count)
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
        let path = FixturePaths.path(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events")
        let run = try HandyctlProcess.run(["replay", "--summary", path])
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
    @Test(
        "--summary counts touches as the recordings hold them",
        arguments: [
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
        let run = try HandyctlProcess.run(["replay", "--summary", FixturePaths.path(file)])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        if let touches { #expect(object["touches"] as? Int == touches) }
        #expect(object["mostAtOnce"] as? Int == mostAtOnce)
        #expect((object["frames"] as? Int ?? 0) > 0)
    }

    @Test("the evemu and libinput-record forms of one gesture print the same touches")
    func sameTouchesFromBothFormats() throws {
        let evemu = try touchesMessages(
            try HandyctlProcess.run([
                "replay", "--touches",
                FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events"),
            ]))
        let yaml = try touchesMessages(
            try HandyctlProcess.run([
                "replay", "--touches",
                FixturePaths.path("libinput-record/wacom-isdv4-double-center-scroll.yml"),
            ]))
        #expect(!evemu.isEmpty)
        // Times (and so velocities) differ; ids, phases and positions may not.
        func shape(_ m: [TouchesMessage]) -> [[String]] {
            m.map { $0.touches.map { "\($0.id) \($0.phase) \($0.x) \($0.y) \($0.xMm) \($0.yMm)" } }
        }
        #expect(shape(evemu) == shape(yaml))
    }

    @Test("--summary touch durations: SYN_REPORT of the lift minus SYN_REPORT of the touch-down")
    func durations() throws {
        let run = try HandyctlProcess.run([
            "replay", "--summary",
            FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"),
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        let lives = try #require(object["touchDurations"] as? [[String: Any]])
        // SYN_REPORTs at 1330496004.684655 and 1330496004.716634: 31.979 ms.
        #expect(lives.map { $0["durationMs"] as? Double } == [31.979, 31.979])
        #expect(lives.map { $0["end"] as? String } == ["ended", "ended"])
        #expect(object["device"] as? String == "replay:Wacom ISDv4 E6 Finger.2fg-tap")
    }

    @Test("default output is gesture lines only; with --touches, touches and gestures in time order")
    func lineKinds() throws {
        let demo = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let gestures = try HandyctlProcess.run(["replay", demo])
        #expect(gestures.status == 0, "\(gestures.stderr)")
        var times: [Double] = []
        for line in gestures.lines {
            guard case .gesture(let g) = try JSONLines.decodeServerMessage(line) else {
                Issue.record("not a gesture line: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            #expect(g.device == "replay:demo")
            times.append(g.time)
        }
        #expect(times == times.sorted())

        let both = try HandyctlProcess.run(["replay", "--touches", demo])
        var allTimes: [Double] = []
        var touchLines = 0
        for line in both.lines {
            switch try JSONLines.decodeServerMessage(line) {
            case .touches(let m): touchLines += 1; allTimes.append(m.time)
            case .gesture(let g): allTimes.append(g.time)
            default: Issue.record("unexpected line \(String(decoding: line, as: UTF8.self))")
            }
        }
        #expect(touchLines > 0)
        #expect(allTimes == allTimes.sorted())
        // The gesture lines are the same with or without --touches.
        #expect(both.lines.count - touchLines == gestures.lines.count)
    }

    @Test("replay is deterministic")
    func deterministic() throws {
        let path = FixturePaths.path("whot-evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events")
        let a = try HandyctlProcess.run(["replay", "--touches", path])
        let b = try HandyctlProcess.run(["replay", "--touches", path])
        #expect(a.status == 0)
        #expect(!a.stdout.isEmpty)
        #expect(a.stdout == b.stdout)
    }

    @Test("a truncated or garbage file: exit status 1 and one line on stderr naming file and line")
    func badFiles() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = try Data(
            contentsOf: URL(
                fileURLWithPath: FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")))
        let cut = folder.appendingPathComponent("Wacom ISDv4 E6 Finger.cut.events")
        try full.prefix(300).write(to: cut)
        let run = try HandyctlProcess.run(["replay", "--touches", cut.path])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "handyctl replay: \(cut.path):9: file ends in the middle of a line (truncated?): \"E: 1330496004.684643 0003 \"\n"
        )

        let garbage = folder.appendingPathComponent("garbage.evemu")
        try Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 0x80) }).write(to: garbage)
        let g = try HandyctlProcess.run(["replay", garbage.path])
        #expect(g.status == 1)
        #expect(g.stderr.hasPrefix("handyctl replay: \(garbage.path):1: "))
        #expect(g.stderr.filter { $0 == "\n" }.count == 1)

        let missing = try HandyctlProcess.run(["replay", folder.appendingPathComponent("none.events").path])
        #expect(missing.status == 1)
    }
}

/// `handyctl replay --device-property`: a setting tried on a recording, as udev would give it to a
/// live device (issue 13).
@Suite("handyctl replay --device-property (the built binary)")
struct HandyctlReplayDevicePropertyTests {
    static let fastTaps = FixturePaths.path(
        "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events")

    static func gestures(_ run: HandyctlProcess.Run) throws -> [GestureEvent] {
        try run.lines.compactMap { line in
            if case .gesture(let g) = try JSONLines.decodeServerMessage(line) { return g }
            return nil
        }
    }

    @Test("a shorter tap timeout: only the touches shorter than it are taps")
    func tapTimeoutChangesWhatIsRecognised() throws {
        // What the recording holds: nine one-finger taps; --summary gives each touch's duration
        // (82-96 ms, and two of 110 ms).
        let summary = try HandyctlProcess.run(["replay", "--summary", Self.fastTaps])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.stdout)) as? [String: Any])
        let durationsMs = try #require(object["touchDurations"] as? [[String: Any]]).compactMap {
            $0["durationMs"] as? Double
        }
        #expect(durationsMs.count == 9)
        let timeoutMs = 100.0
        // The timeout splits the touches with a margin, so frame timing cannot tip one either way.
        #expect(durationsMs.allSatisfy { Swift.abs($0 - timeoutMs) > 4 })
        let expectedTaps = durationsMs.filter { $0 < timeoutMs }.count
        #expect(expectedTaps > 0 && expectedTaps < durationsMs.count)

        let plain = try HandyctlProcess.run(["replay", Self.fastTaps])
        #expect(try Self.gestures(plain).filter { $0.gesture == .tap }.count == durationsMs.count)

        let shorter = try HandyctlProcess.run([
            "replay", "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=\(Int(timeoutMs))", Self.fastTaps,
        ])
        #expect(shorter.status == 0 && shorter.stderr.isEmpty, "\(shorter.stderr)")
        let gestures = try Self.gestures(shorter)
        #expect(gestures.filter { $0.gesture == .tap }.count == expectedTaps)
        #expect(gestures.filter { $0.gesture == .touchTap }.count == expectedTaps)
    }

    @Test("a bad property: the problem on stderr, the default used (the same output as without it)")
    func badPropertyIsReportedAndTheDefaultUsed() throws {
        let plain = try HandyctlProcess.run(["replay", Self.fastTaps])
        let bad = try HandyctlProcess.run([
            "replay", "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=1e300",
            "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT=100", Self.fastTaps,
        ])
        #expect(bad.status == 0)
        #expect(
            bad.stderr == """
                handyctl replay: HANDYD_THRESHOLD_TAP_TIMEOUT="100": unknown threshold name (the names are in docs/GESTURES.md)
                handyctl replay: HANDYD_THRESHOLD_TAP_TIMEOUT_MS="1e300": out of range, accepted 1 … 60000 ms; using 180 ms

                """)
        #expect(bad.stdout == plain.stdout)
    }

    @Test("HANDYD_HOVER: 0 is taken, the touches the same; a bad value is a problem on stderr")
    func hoverPropertyIsReadAndABadValueReported() throws {
        let plain = try HandyctlProcess.run(["replay", "--touches", Self.fastTaps])
        let off = try HandyctlProcess.run(["replay", "--touches", "--device-property", "HANDYD_HOVER=0", Self.fastTaps])
        #expect(off.status == 0 && off.stderr.isEmpty, "\(off.stderr)")
        #expect(off.stdout == plain.stdout && !plain.stdout.isEmpty)
        let bad = try HandyctlProcess.run(["replay", "--device-property", "HANDYD_HOVER=off", Self.fastTaps])
        #expect(bad.status == 0)
        #expect(
            bad.stderr
                == "handyctl replay: HANDYD_HOVER=\"off\": expected 1, true, yes, 0, false or no (any case); using 1\n")
    }

    @Test("HANDYD_ID names the replayed device in every message, as it names a live one")
    func idPropertyNamesTheDevice() throws {
        let plain = try HandyctlProcess.run(["replay", "--touches", Self.fastTaps])
        let named = try HandyctlProcess.run([
            "replay", "--touches", "--device-property", "HANDYD_ID=front-screen", Self.fastTaps,
        ])
        #expect(named.status == 0 && named.stderr.isEmpty, "\(named.stderr)")
        let plainLines = plain.lines.map { String(decoding: $0, as: UTF8.self) }
        let namedLines = named.lines.map { String(decoding: $0, as: UTF8.self) }
        #expect(!namedLines.isEmpty && namedLines.count == plainLines.count)
        #expect(plainLines.allSatisfy { $0.contains(#""device":"replay:"#) })
        #expect(namedLines.allSatisfy { $0.contains(#""device":"front-screen""#) }, "\(namedLines.prefix(2))")
        // Apart from the id, the same output.
        let renamed = plainLines.map {
            $0.replacingOccurrences(
                of: #""device":"replay:Atmel maXTouch Touchscreen.1-finger-fast-taps""#,
                with: #""device":"front-screen""#)
        }
        #expect(renamed == namedLines)
    }

    @Test("calibration and size properties reach the replayed device")
    func geometryProperties() throws {
        let path = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let plain = try HandyctlProcess.run(["replay", "--touches", path])
        let sized = try HandyctlProcess.run([
            "replay", "--touches", "--device-property", "HANDYD_SIZE_MM=400 240",
            "--device-property", "HANDYD_CALIBRATION_MATRIX=-1 0 1 0 -1 1", path,
        ])
        #expect(sized.status == 0 && sized.stderr.isEmpty, "\(sized.stderr)")
        func firstTouch(_ run: HandyctlProcess.Run) throws -> WireTouch? {
            for line in run.lines {
                if case .touches(let m) = try JSONLines.decodeServerMessage(line) { return m.touches.first }
            }
            return nil
        }
        let a = try #require(try firstTouch(plain)), b = try #require(try firstTouch(sized))
        // The demo screen is 200 × 120 mm; stated as 400 × 240, a position's mm are its
        // normalised position times that, and the 180° calibration mirrors the position.
        #expect(Swift.abs(a.xMm - a.x * 200) < 0.05 && Swift.abs(a.yMm - a.y * 120) < 0.05)
        #expect(Swift.abs(b.xMm - b.x * 400) < 0.05 && Swift.abs(b.yMm - b.y * 240) < 0.05)
        #expect(Swift.abs(b.x - (1 - a.x)) < 1e-4 && Swift.abs(b.y - (1 - a.y)) < 1e-4)
    }

    @Test("--device-property without NAME=VALUE is a usage error")
    func malformedArgument() throws {
        let run = try HandyctlProcess.run([
            "replay", "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS", Self.fastTaps,
        ])
        #expect(run.status == 64)
        #expect(run.stderr.contains("expected NAME=VALUE"))
        #expect(run.stdout.isEmpty)
    }
}
