import Foundation
import HandyCore
import HandyTestSupport
import Testing

@testable import HandyRecording

/// Bad input gives a `RecordingError` naming file and line, never a crash.
@Suite("recording errors")
struct RecordingErrorTests {
    private let header = """
        N: Test
        I: 0003 0001 0002 0003
        P: 02
        B: 00 0b
        A: 2f 0 1 0 0 0
        A: 35 0 100 0 0 0
        A: 36 0 100 0 0 0
        A: 39 0 65535 0 0 0

        """

    /// A one-device `libinput record` file with these `absinfo` lines and one event (absinfo on
    /// line 7, the event on line 9 + the number of axes).
    private static func libinputRecord(absinfo: [String]) -> String {
        "version: 1\ndevices:\n- evdev:\n    name: \"T\"\n    id: [3, 1, 2, 3]\n    absinfo:\n"
            + absinfo.map { "      \($0)\n" }.joined()
            + "  events:\n  - evdev:\n    - [0, 0, 3, 53, 5]\n"
    }

    /// Parses `text` in memory and returns the error it must raise.
    private func failure(_ text: String, path: String = "bad.evemu") -> RecordingError? {
        do {
            _ = try Recording.parse(Array(text.utf8), path: path)
            return nil
        } catch {
            return error
        }
    }

    private func failure(loading path: String) -> RecordingError? {
        do {
            _ = try Recording.load(path: path)
            return nil
        } catch {
            return error
        }
    }

    private func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test("an evemu file cut in the middle of a line")
    func truncatedEvemu() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: FixturePaths.path(
                        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"))))
        // Byte 300 falls inside "E: 1330496004.684643 0003 0000 1488" (line 9), cutting "1488" off.
        let cut = Array(full.prefix(300))
        let line = cut.filter { $0 == UInt8(ascii: "\n") }.count + 1
        #expect(line == 9)
        let path = try write(cut, "Wacom ISDv4 E6 Finger.cut.events", in: folder)
        let error = try #require(failure(loading: path))
        #expect(error.code == .truncated)
        #expect(error.file == path)
        #expect(error.line == 9)
        #expect(error.description.hasPrefix("\(path):9: file ends in the middle of a line"))

        // Cut inside the header of a single-file recording.
        let dell = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: FixturePaths.path("whot-evemu-devices/tablets/dell_canvas_touch.evemu"))))
        let dellPath = try write(Array(dell.prefix(4000)), "dell.evemu", in: folder)
        #expect(failure(loading: dellPath)?.code == .truncated)
    }

    @Test("a libinput record file cut in the middle of an event row")
    func truncatedYAML() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: FixturePaths.path("libinput-record/wacom-isdv4-2fg-tap.yml"))))
        let text = String(decoding: full, as: UTF8.self)
        // Cut just after "[  0,  36112," of the last row: an unclosed list and no newline.
        let range = try #require(text.range(of: "[  0,  36112,   0,   0"))
        let cut = Array(text[..<range.upperBound].utf8)
        let path = try write(cut, "cut.yml", in: folder)
        let error = try #require(failure(loading: path))
        #expect(error.code == .truncated)
        #expect(error.line == cut.filter { $0 == UInt8(ascii: "\n") }.count + 1)

        // The same cut plus a newline: the unclosed list itself is the error.
        let path2 = try write(cut + [UInt8(ascii: "\n")], "cut2.yml", in: folder)
        let error2 = try #require(failure(loading: path2))
        #expect(error2.code == .malformed)
        #expect(error2.line == error.line)
        #expect(error2.message.contains("unclosed"))
    }

    @Test("garbage and binary files")
    func garbage() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Deterministic pseudo-random bytes.
        var state: UInt32 = 0x1234_5678
        let noise = (0..<4096).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        for name in ["noise.events", "noise.evemu", "noise.yml", "noise.bin"] {
            let error = try #require(failure(loading: try write(noise, name, in: folder)))
            #expect(error.code == .notText, "\(name)")
            #expect(error.line != nil)
        }
        // Valid UTF-8 but with NUL bytes.
        let nul = try #require(failure(header + "E: 1.000000 0000 0000 0\0\0\n"))
        #expect(nul.code == .notText)
        #expect(nul.line == 9)
        // Text that is not a recording.
        let text = try #require(failure("hello world\nthis is not evemu\n"))
        #expect(text.code == .malformed)
        #expect(text.line == 1)
        #expect(
            text.description
                == "bad.evemu:1: expected an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or # comment), got \"hello world\""
        )
    }

    @Test("bad hex and malformed event lines name the line")
    func badEventLines() throws {
        let badHex = try #require(failure(header + "E: 1.000000 00zz 0000 0\n"))
        #expect(badHex.code == .malformed)
        #expect(badHex.line == 9)
        #expect(badHex.description.hasPrefix("bad.evemu:9: expected 'E: <sec>.<usec> <type> <code> <value>'"))
        #expect(badHex.description.contains("\"E: 1.000000 00zz 0000 0\""))

        for (line, what) in [
            ("E: 1.000000 0003 0035", "too few fields"),
            ("E: 1.000000 0003 0035 5 6", "too many fields"),
            ("E: 1.5 0003 0035 5", "usec not 6 digits"),
            ("E: 1 0003 0035 5", "no usec"),
            ("E: -1.000000 0003 0035 5", "negative time"),
            ("E: 1.000000 0003 0035 0x5", "hex value"),
            ("E: 1.000000 0003 0035 five", "word value"),
            ("X: what", "unknown tag"),
            ("A: 35 0 100", "short A: line"),
            ("A: 35 0 100 0 0 0 0", "long A: line"),
            ("I: 0003 0001", "short I: line"),
            ("B: 03 zz", "bad B: byte"),
            ("P: 1ff", "bad P: byte"),
        ] {
            let error = failure(header + line + "\n")
            #expect(error?.code == .malformed, "\(what)")
            #expect(error?.line == 9, "\(what)")
        }
    }

    @Test("numbers that do not fit their field")
    func outOfRange() throws {
        for (line, what) in [
            ("E: 1.000000 0040 0000 0", "type above EV_MAX"),
            ("E: 1.000000 0003 0300 0", "code above KEY_MAX"),
            ("E: 1.000000 ffffffffffffffffffff 0000 0", "huge type"),
            ("E: 1.000000 0003 0035 2147483648", "value above Int32"),
            ("E: 1.000000 0003 0035 -2147483649", "value below Int32"),
            ("E: 1.000000 0003 0035 99999999999999999999999", "huge value"),
            ("E: 99999999999999999999.000000 0003 0035 5", "seconds above Int64"),
            ("E: 9223372036854.775808 0003 0035 5", "microseconds overflow Int64"),
            ("A: 40 0 1 0 0 0", "axis code above ABS_MAX"),
            ("A: 30 5 4 0 0 0", "minimum above maximum"),
            ("A: 30 0 4294967296 0 0 0", "maximum above Int32"),
            ("B: 20 00", "event type above EV_MAX"),
        ] {
            let error = failure(header + line + "\n")
            #expect(error?.code == .outOfRange, "\(what)")
            #expect(error?.line == 9, "\(what)")
            #expect(error?.file == "bad.evemu", "\(what)")
        }
        // Bits set past the last code (a 97th byte of EV_KEY bits) or property 32.
        #expect(failure(header + "B: 01" + String(repeating: " 00", count: 96) + " 01\n")?.code == .outOfRange)
        #expect(failure(header + "P: 00 00 00 00 01\n")?.code == .outOfRange)
    }

    @Test("description lines after events, two devices, no name")
    func structure() throws {
        let late = try #require(failure(header + "E: 1.000000 0000 0000 0\nA: 30 0 4 0 0 0\n"))
        #expect(late.code == .malformed)
        #expect(late.line == 10)
        #expect(late.message.contains("after the events began on line 9"))

        let twice = try #require(failure(header + "N: Second\n"))
        #expect(twice.line == 9)

        let noName = try #require(failure("I: 0003 0001 0002 0003\nA: 35 0 100 0 0 0\n"))
        #expect(noName.code == .malformed)
        #expect(noName.line == nil)
        #expect(noName.description == "bad.evemu: device description has no 'N: <name>' line")
    }

    @Test("events without a description anywhere")
    func missingDescription() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: FixturePaths.path(
                        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"))))
        let path = try write(events, "Lonely Device.tap.events", in: folder)
        // A .desc whose name is not a prefix does not count.
        _ = try write(Array(header.utf8), "Other Device.desc", in: folder)
        let error = try #require(failure(loading: path))
        #expect(error.code == .missingDescription)
        #expect(error.file == path)
        #expect(error.description.contains("--desc"))

        // A named --desc that does not exist.
        do {
            _ = try Recording.load(path: path, descriptionPath: folder.appendingPathComponent("nope.desc").path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.file.hasSuffix("nope.desc"))
        }
        // A --desc that holds only events.
        do {
            _ = try Recording.load(path: path, descriptionPath: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingDescription)
        }
        // In memory there is no lookup.
        #expect(failure("E: 1.000000 0000 0000 0\n")?.code == .missingDescription)
        #expect(failure("")?.code == .missingDescription)
    }

    @Test("a folder, a missing file")
    func unreadable() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(failure(loading: folder.path)?.description == folder.path + ": is a directory, not a recording")
        #expect(
            failure(loading: folder.appendingPathComponent("missing.events").path)?.description
                == folder.appendingPathComponent("missing.events").path + ": no such file")
        // A device node is no recording (and reading it would never end).
        #expect(failure(loading: "/dev/zero")?.description == "/dev/zero: not a regular file")
        // A file nobody may read (root reads everything: then it is read, and is empty).
        let locked = folder.appendingPathComponent("locked.events").path
        #expect(FileManager.default.createFile(atPath: locked, contents: Data(), attributes: [.posixPermissions: 0]))
        if geteuid() != 0 {
            #expect(failure(loading: locked)?.description == locked + ": cannot read: Permission denied")
        } else {
            #expect(failure(loading: locked)?.code == .missingDescription)
        }
    }

    @Test("paths: the folder, the name, the extension and the .desc beside an events file")
    func paths() throws {
        #expect(Recording.splitPath("a/b/c.events") == ("a/b", "c.events"))
        #expect(Recording.splitPath("/c.events") == ("/", "c.events"))
        #expect(Recording.splitPath("c.events") == ("", "c.events"))
        #expect(Recording.splitPath("a/b/") == ("a", "b"))
        #expect(Recording.baseName(of: "x/Atmel maXTouch.1-finger.events") == "Atmel maXTouch.1-finger")
        #expect(Recording.baseName(of: ".hidden") == ".hidden")
        #expect(Recording.pathExtension(of: "x/trace.YML") == "YML")
        #expect(Recording.pathExtension(of: "x.d/trace") == "")
        // The caller's spelling of the folder is kept; a file in the working folder gets a bare name.
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["panel.desc", "panel.tap.events", "panel-other.desc"] {
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data()))
        }
        #expect(
            Recording.findDescription(forEventsAt: folder.path + "/panel.tap.events") == folder.path + "/panel.desc")
        #expect(
            Recording.findDescription(forEventsAt: folder.path + "/./panel.tap.events") == folder.path + "/./panel.desc"
        )
        #expect(Recording.findDescription(forEventsAt: folder.path + "/nothing.events") == nil)
        #expect(Recording.findDescription(forEventsAt: folder.path + "/missing-folder/panel.tap.events") == nil)
    }

    @Test("position axes whose range is empty are refused, by name, in every format")
    func emptyPositionRange() throws {
        let events = "E: 0.000000 0003 0039 5\nE: 0.000000 0000 0000 0\n"
        #expect(failure(header + events) == nil)
        for (from, to, message) in [
            (
                "A: 35 0 100 0 0 0", "A: 35 100 100 0 0 0",
                "ABS_MT_POSITION_X has an empty range (minimum 100, maximum 100)"
            ),
            ("A: 36 0 100 0 0 0", "A: 36 -4 -4 0 0 0", "ABS_MT_POSITION_Y has an empty range (minimum -4, maximum -4)"),
        ] {
            let error = try #require(failure(header.replacingOccurrences(of: from, with: to) + events), "\(to)")
            #expect(error.code == .outOfRange && error.file == "bad.evemu" && error.line == nil)
            #expect(error.message.hasPrefix(message), "\(error)")
        }
        // A minimum above the maximum is the reader's own error, on its line.
        #expect(failure(header.replacingOccurrences(of: "A: 36 0 100", with: "A: 36 50 10") + events)?.line == 7)
        // A single-touch device: its ABS_X/ABS_Y are the position axes.
        let single = "N: T\nI: 0003 0001 0002 0003\nP: 02\nB: 00 0b\nA: 00 0 100 0 0 0\nA: 01 7 7 0 0 0\n"
        #expect(
            failure(single + "E: 0.000000 0000 0000 0\n")?.message.hasPrefix(
                "ABS_Y has an empty range (minimum 7, maximum 7)") == true)
        // libinput record, and a `.desc` given apart (`handyctl replay --desc`).
        let yaml = Self.libinputRecord(absinfo: ["53: [0, 0, 0, 0, 0]", "54: [0, 100, 0, 0, 0]"])
        #expect(
            failure(yaml, path: "bad.yml")?.message.hasPrefix(
                "ABS_MT_POSITION_X has an empty range (minimum 0, maximum 0)") == true)
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let desc = try write(
            Array(header.replacingOccurrences(of: "A: 35 0 100", with: "A: 35 3 3").utf8), "broken.desc", in: folder)
        let eventsPath = try write(Array(events.utf8), "broken.tap.events", in: folder)
        do {
            _ = try Recording.load(path: eventsPath, descriptionPath: desc)
            Issue.record("a broken .desc was taken")
        } catch {
            #expect(error.file == desc && error.code == .outOfRange, "\(error)")
        }
        #expect(failure(loading: eventsPath)?.file == desc)  // the .desc found beside it
    }

    @Test("malformed libinput record YAML")
    func badYAML() throws {
        let good = Self.libinputRecord(absinfo: ["53: [0, 100, 0, 0, 0]"])
        #expect(failure(good, path: "ok.yml") == nil)

        func yamlFailure(_ from: String, _ to: String) -> RecordingError? {
            failure(good.replacingOccurrences(of: from, with: to), path: "bad.yml")
        }
        let version = try #require(yamlFailure("version: 1", "version: 2"))
        #expect(version.code == .unsupported)
        #expect(version.line == 1)

        for (from, to, code, line) in [
            ("[0, 0, 3, 53, 5]", "[0, 0, 3, 53]", RecordingError.Code.malformed, 10),
            ("[0, 0, 3, 53, 5]", "[0, 1000000, 3, 53, 5]", .outOfRange, 10),
            ("[0, 0, 3, 53, 5]", "[0, 0, 32, 53, 5]", .outOfRange, 10),
            ("[0, 0, 3, 53, 5]", "[0, 0, 3, 53, 2147483648]", .outOfRange, 10),
            ("[0, 0, 3, 53, 5]", "[0, 0, 3, 53, 99999999999999999999999]", .outOfRange, 10),
            ("[0, 0, 3, 53, 5]", "[0, 0, 3, 0x35, 5]", .malformed, 10),
            ("[0, 0, 3, 53, 5]", "[0, 0, 3, 53, 5", .malformed, 10),
            ("[0, 100, 0, 0, 0]", "[100, 0, 0, 0, 0]", .outOfRange, 7),
            ("[0, 100, 0, 0, 0]", "[0, 100]", .malformed, 7),
            ("53: [0", "64: [0", .outOfRange, 7),
            ("id: [3, 1, 2, 3]", "id: [3, 1, 2]", .malformed, 5),
            ("id: [3, 1, 2, 3]", "id: [3, 1, 2, 65536]", .outOfRange, 5),
            ("name: \"T\"", "name: \"T", .malformed, 4),
            ("    id:", "\tid:", .malformed, 5),
            ("      53: [0, 100, 0, 0, 0]", "      53: [0, 100, 0, 0, 0]\n       54: [0, 1, 0, 0, 0]", .malformed, 8),
        ] {
            let error = yamlFailure(from, to)
            #expect(error?.code == code, "\(to)")
            #expect(error?.line == line, "\(to)")
            #expect(error?.file == "bad.yml", "\(to)")
        }
        #expect(yamlFailure("devices:", "machines:")?.message.contains("missing 'devices:'") == true)
        #expect(failure("", path: "empty.yml")?.code == .malformed)
        // Deep nesting is an error, not a stack overflow.
        let deepFlow = failure("version: " + String(repeating: "[", count: 100_000) + "\n", path: "deep.yml")
        #expect(deepFlow?.code == .malformed)
        #expect(deepFlow?.line == 1)
        let deepBlock = failure(String(repeating: "- ", count: 100_000) + "x\n", path: "deep.yml")
        #expect(deepBlock?.code == .malformed)
        #expect(deepBlock?.message.contains("nested deeper") == true)
    }
}
