import Foundation
import HandyActions
import HandyInput
import HandyProtocol
import Testing

/// The bindings file: what a good one gives, and one clear error (file, line, key) for each way a
/// file can be bad.
@Suite struct ConfigurationTests {
    static let example = """
        # three-finger swipe down: the admin menu
        [[binding]]
        gesture = "swipe"
        fingers = 3
        direction = "down"
        run = ["/usr/local/bin/admin-menu", "--at", "{x},{y}"]

        # in from the left edge: back
        [[binding]]
        gesture = "swipe"
        edge = "left"
        keys = "alt+left"

        [[binding]]
        gesture = "pinch"
        hand = "right"
        device = "EP0430M09"
        run = [
            "zoom-popover",
            "--side={clearSide}",
        ]

        [[binding]]
        gesture = "long-press"
        phase = "ended"
        run = "logger long press on $HANDYD_DEVICE"
        shell = true

        [[binding]]
        gesture = "tap"
        taps = 2
        fingers = 2
        keys = "KEY_LEFTCTRL+KEY_F1"
        """

    @Test func aGoodFileGivesItsBindingsInOrder() throws {
        let c = try ActionsConfiguration.parse(Self.example, path: "actions.toml")
        #expect(c.bindings.map(\.index) == [1, 2, 3, 4, 5])
        #expect(c.bindings.map(\.line) == [2, 9, 14, 23, 29])
        #expect(c.bindings[0].match == GestureMatch(gesture: .swipe, phase: .recognized, fingers: 3, direction: .down))
        guard case .run(let argv) = c.bindings[0].action else { Issue.record("not run"); return }
        #expect(argv.map(\.source) == ["/usr/local/bin/admin-menu", "--at", "{x},{y}"])
        #expect(c.bindings[1].match == GestureMatch(gesture: .swipe, edge: .left))
        #expect(c.bindings[1].action == .keys(try KeyChord(parsing: "alt+left")))
        #expect(c.bindings[2].match == GestureMatch(gesture: .pinch, phase: .began, hand: .right, device: "EP0430M09"))
        #expect(c.bindings[3].match?.phase == .ended)
        #expect(c.bindings[3].action == .shell("logger long press on $HANDYD_DEVICE"))
        #expect(c.bindings[4].match == GestureMatch(gesture: .tap, fingers: 2, taps: 2))
        #expect(c.keyCodes == [56, 105, 29, 59])  // KEY_LEFTALT, KEY_LEFT, KEY_LEFTCTRL, KEY_F1
    }

    @Test func anEmptyFileHasNoBindings() throws {
        #expect(try ActionsConfiguration.parse("# nothing yet\n", path: "a.toml").bindings.isEmpty)
    }

    struct BadFile: Sendable, CustomTestStringConvertible {
        var text: String
        var line: Int?
        var key: String?
        /// Part of the message that must be there.
        var says: String
        var testDescription: String { says }
    }

    static let good = "[[binding]]\ngesture = \"tap\"\nrun = [\"true\"]\n\n"

    static let badFiles: [BadFile] = [
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nfingers = \n", line: 7, key: nil, says: "not valid TOML"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swype\"\nrun = [\"true\"]\n", line: 6, key: "gesture",
            says: "binding 2: gesture = \"swype\": expected one of pinch, rotate, pan, tap, long-press, swipe"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nfingerz = 3\nrun = [\"true\"]\n", line: 7, key: "fingerz",
            says: "binding 2: unknown key \"fingerz\"; a binding has gesture, phase, fingers"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nfingers = \"3\"\nrun = [\"true\"]\n", line: 7,
            key: "fingers",
            says: "binding 2: fingers = \"3\": expected a whole number 1 … 10"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nfingers = 11\nrun = [\"true\"]\n", line: 7, key: "fingers",
            says: "fingers = 11: expected a whole number 1 … 10"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"pinch\"\ndirection = \"up\"\nrun = [\"true\"]\n", line: 7,
            key: "direction",
            says: "only swipe and touch-swipe events have a direction"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nedge = \"middle\"\nrun = [\"true\"]\n", line: 7,
            key: "edge",
            says: "edge = \"middle\": expected one of left, right, top, bottom"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"tap\"\nhand = \"middle\"\nrun = [\"true\"]\n", line: 7, key: "hand",
            says: "hand = \"middle\": expected one of left, right, unknown"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"pan\"\nphase = \"changed\"\nrun = [\"true\"]\n", line: 7,
            key: "phase",
            says: "a pan binding fires on began, ended, cancelled (changed comes every frame)"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nphase = \"began\"\nrun = [\"true\"]\n", line: 7,
            key: "phase",
            says: "a swipe binding fires on recognized"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nrun = \"touch /tmp/x\"\n", line: 7, key: "run",
            says: "a string needs shell = true"),
        BadFile(text: good + "[[binding]]\ngesture = \"swipe\"\nrun = []\n", line: 7, key: "run", says: "no program"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nrun = [\"echo\", 3]\n", line: 7, key: "run",
            says: "run[1] is not a string"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nrun = [\"echo\", \"{bogus}\"]\n", line: 7, key: "run",
            says: "run[1]: unknown placeholder {bogus}; the placeholders are {gesture}"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nrun = [\"true\"]\nkeys = \"ctrl+c\"\n", line: 8,
            key: "keys",
            says: "binding 2: both run and keys; a binding does one thing"),
        BadFile(text: good + "[[binding]]\ngesture = \"swipe\"\n", line: 5, key: nil, says: "binding 2: no action"),
        BadFile(
            text: good + "[[binding]]\nfingers = 3\nrun = [\"true\"]\n", line: 5, key: "gesture",
            says: "binding 2: no gesture"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nkeys = \"ctrl+foo\"\n", line: 7, key: "keys",
            says: "unknown key \"foo\" in \"ctrl+foo\""),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nkeys = \"ctrl++a\"\n", line: 7, key: "keys",
            says: "is not a chord"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nshell = \"yes\"\nrun = [\"true\"]\n", line: 7, key: "shell",
            says: "shell = \"yes\": expected true or false"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\nshell = true\nkeys = \"esc\"\n", line: 7, key: "shell",
            says: "shell goes with run"),
        BadFile(
            text: "socket = \"/tmp/x\"\n" + good, line: 1, key: "socket",
            says: "unknown key \"socket\"; the file holds [[binding]] tables only"),
        BadFile(
            text: "[binding]\ngesture = \"tap\"\nrun = [\"true\"]\n", line: 1, key: "binding", says: "write [[binding]]"
        ),
        BadFile(
            text: good + "[[binding]]\ngesture = \"touch-pan\"\nfingers = 1\nrun = [\"true\"]\n", line: 7,
            key: "fingers",
            says: "touch-pan events have no fingers"),
        BadFile(
            text: good + "[[binding]]\ngesture = \"swipe\"\ntaps = 2\nrun = [\"true\"]\n", line: 7, key: "taps",
            says: "only tap and touch-tap events count taps"),
        // Multi-line values before the bad key do not throw the line off.
        BadFile(
            text: """
                [[binding]]
                gesture = "swipe"
                run = [
                    "notify-send",
                    "--hint=int:x:1",
                    \"\"\"a
                gesture = "not a key"
                [[binding]]
                \"\"\",
                ]

                [[binding]]
                gesture = "swipe"
                direction = "sideways"
                run = ["true"]
                """, line: 14, key: "direction",
            says: "binding 2: direction = \"sideways\": expected one of up, down, left, right"),
    ]

    @Test(arguments: badFiles)
    func aBadFileGivesOneErrorNamingTheLineAndKey(_ bad: BadFile) {
        do {
            let c = try ActionsConfiguration.parse(bad.text, path: "/etc/handyd/actions.toml")
            Issue.record("accepted: \(c)")
        } catch {
            #expect(error.line == bad.line, "\(error)")
            #expect(error.key == bad.key, "\(error)")
            #expect(error.message.contains(bad.says), "\(error)")
            #expect(
                error.description.hasPrefix("/etc/handyd/actions.toml:\(bad.line.map(String.init) ?? "?"): "),
                "\(error)")
        }
    }

    @Test func theFirstProblemInTheFileIsTheOneReported() {
        // Two problems: binding 1's line 3 comes before binding 2's.
        let text = "[[binding]]\ngesture = \"tap\"\nfingers = 0\nrun = [\"true\"]\n[[binding]]\ngesture = \"nope\"\n"
        #expect(
            throws: ActionsConfigurationError(
                path: "a.toml", line: 3, key: "fingers",
                message: "binding 1: fingers = 0: expected a whole number 1 … 10")
        ) {
            try ActionsConfiguration.parse(text, path: "a.toml")
        }
    }

    @Test func aMissingFileSaysSo() {
        do {
            _ = try ActionsConfiguration.load(path: "/nonexistent/actions.toml")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.line == nil)
            #expect(error.description.hasPrefix("/nonexistent/actions.toml: cannot read"), "\(error)")
        }
    }

    /// Each way a file cannot be read gives the system's reason or the bound in words: no such
    /// file, a directory, an endless device, more than 1 MiB, bytes that are not UTF-8.
    @Test func unreadableFilesSayWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handyd-actions-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = folder + "/big.toml", binary = folder + "/binary.toml", exact = folder + "/exact.toml"
        try Data(repeating: 0x23, count: (1 << 20) + 1).write(to: URL(fileURLWithPath: big))  // '#' × 1 MiB + 1
        try Data([0x23, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: binary))
        try Data(repeating: 0x23, count: 1 << 20).write(to: URL(fileURLWithPath: exact))  // a 1 MiB comment
        func message(_ path: String) -> String? {
            do { _ = try ActionsConfiguration.load(path: path); return nil } catch { return error.description }
        }
        #expect(message(folder + "/none.toml") == folder + "/none.toml: cannot read: No such file or directory")
        #expect(message(folder) == folder + ": cannot read: Is a directory")
        #expect(message("/dev/zero") == "/dev/zero: cannot read: larger than 1 MiB")
        #expect(message(big) == big + ": cannot read: larger than 1 MiB")
        #expect(message(binary) == binary + ": cannot read: not UTF-8 text")
        #expect(message(exact) == nil, "a file of exactly 1 MiB is read")
    }
}

@Suite struct HealthBindingTests {
    @Test func aHealthBindingParsesAndMatchesOnlyItsEvent() throws {
        let c = try ActionsConfiguration.parse(
            """
            [[binding]]
            health = "lost"
            device = "event5"
            run = ["/usr/local/bin/usb-reset", "{node}"]
            """, path: "t.toml")
        let b = try #require(c.bindings.first)
        #expect(b.match == nil && b.health == HealthMatch(event: .lost, device: "event5"))
        let info = DeviceInfo(id: "panel@usb", name: "Panel", node: "event5")
        #expect(
            c.bindings(matching: DeviceMessage(event: .lost, device: info, health: DeviceHealth(losses: 1))).count == 1)
        #expect(c.bindings(matching: DeviceMessage(event: .back, device: info, health: DeviceHealth())).isEmpty)
        #expect(
            c.bindings(
                matching: DeviceMessage(
                    event: .lost, device: DeviceInfo(id: "other", name: "Other"), health: DeviceHealth())
            ).isEmpty)
        guard case .run(let argv) = b.action else { Issue.record("not run: \(b.action)"); return }
        #expect(
            argv.map { $0.expand(for: DeviceMessage(event: .lost, device: info, health: DeviceHealth())) }
                == ["/usr/local/bin/usb-reset", "event5"])
    }

    @Test func aHealthBindingRefusesGestureKeysAndUnknownEvents() {
        for (text, message) in [
            (
                "health = \"stuck\"\nfingers = 2\nrun = [\"x\"]",
                "a health binding matches the event and the device only"
            ),
            ("health = \"added\"\nrun = [\"x\"]", "expected one of stuck, unstuck, lost, back, flood, dropped"),
            ("health = \"stuck\"\ngesture = \"tap\"\nrun = [\"x\"]", "both gesture and health"),
        ] {
            do {
                _ = try ActionsConfiguration.parse("[[binding]]\n" + text, path: "t.toml")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.message.contains(message), "\(text): \(error.message)")
            }
        }
    }
}
