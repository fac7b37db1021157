import Foundation
import HandyFiles
import HandyProtocol
import TOMLKit

/// A configuration file `handyctl actions` cannot use: one error, naming the file, the line and the
/// key (`actions.toml:12: binding 2: gesture = "swype": unknown gesture; …`).
public struct ActionsConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// 1-based line, nil when the file could not be read at all.
    public var line: Int?
    /// The key the error is about (`gesture`), nil for a TOML syntax error or an unreadable file.
    public var key: String?
    public var message: String

    public init(path: String, line: Int?, key: String?, message: String) {
        self.path = path; self.line = line; self.key = key; self.message = message
    }

    public var description: String { line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)" }
}

extension ActionsConfiguration {
    /// The keys a `[[binding]]` may have, in the order docs/ACTIONS.md lists them.
    public static let bindingKeys = [
        "gesture", "phase", "fingers", "taps", "direction", "edge", "hand", "health", "device",
        "run", "shell", "keys",
    ]

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(ActionsConfigurationError) -> ActionsConfiguration {
        let text: String
        switch readText(path: path) {
        case .success(let read): text = read
        case .failure(let reason):
            throw ActionsConfigurationError(path: path, line: nil, key: nil, message: "cannot read: \(reason.text)")
        }
        return try parse(text, path: path)
    }

    struct ReadFailure: Error { var text: String }

    /// Largest file read: a bindings file is a few KiB; a path to /dev/zero must not fill memory.
    static let maximumFileBytes = 1 << 20

    /// The file's text, or why not in words (strerror's, not a Foundation error's dump).
    static func readText(path: String) -> Result<String, ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(text: POSIXFile.reason(errno))) }
        defer { close(fd) }
        let bytes: [UInt8]
        switch POSIXFile.readAll(fd, maximumBytes: maximumFileBytes) {
        case .success(let read): bytes = read
        case .failure(.system(let code)): return .failure(ReadFailure(text: POSIXFile.reason(code)))
        case .failure(.tooLarge): return .failure(ReadFailure(text: "larger than \(maximumFileBytes >> 20) MiB"))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ReadFailure(text: "not UTF-8 text"))
        }
        return .success(text)
    }

    /// Parses TOML `text` (TOMLKit, i.e. toml++) and checks every binding. `path` only names the
    /// file in errors. One problem is thrown and nothing of a bad file is used: a top-level key
    /// other than `binding` first, then binding by binding in file order — in each, an unknown key
    /// (the first in the file), then its keys in a fixed order (gesture, phase, which keys the
    /// gesture has, their values, then the action; docs/ACTIONS.md "Errors").
    public static func parse(_ text: String, path: String) throws(ActionsConfigurationError) -> ActionsConfiguration {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ActionsConfigurationError(
                path: path, line: e.source.begin.line, key: nil,
                message: "column \(e.source.begin.column): not valid TOML: \(e.description)")
        } catch {
            throw ActionsConfigurationError(path: path, line: nil, key: nil, message: "not valid TOML: \(error)")
        }
        let lines = TOMLKeyLines(text)
        func fail(_ line: Int?, _ key: String?, _ message: String) -> ActionsConfigurationError {
            ActionsConfigurationError(path: path, line: line, key: key, message: message)
        }

        for key in table.keys.sorted(by: { (lines.topLevel[$0] ?? .max, $0) < (lines.topLevel[$1] ?? .max, $1) })
        where key != "binding" {
            throw fail(lines.topLevel[key], key, "unknown key \"\(key)\"; the file holds [[binding]] tables only")
        }
        guard let value = table["binding"] else { return ActionsConfiguration(bindings: []) }
        guard let array = value.array, array.allSatisfy({ $0.table != nil }) else {
            throw fail(
                lines.topLevel["binding"], "binding",
                "binding must be [[binding]] tables (an array of tables), not \(describeType(value))")
        }
        var bindings: [GestureBinding] = []
        for (offset, element) in array.enumerated() {
            let index = offset + 1
            let keyLines = offset < lines.bindings.count ? lines.bindings[offset] : nil
            let headerLine = keyLines?.header ?? lines.topLevel["binding"]
            bindings.append(
                try parseBinding(
                    element.table!, index: index, headerLine: headerLine,
                    keyLines: keyLines?.keys ?? [:], fail: fail))
        }
        return ActionsConfiguration(bindings: bindings)
    }

    private static func parseBinding(
        _ t: TOMLTable, index: Int, headerLine: Int?, keyLines: [String: Int],
        fail: (Int?, String?, String) -> ActionsConfigurationError
    ) throws(ActionsConfigurationError) -> GestureBinding {
        let name = "binding \(index)"
        func line(_ key: String) -> Int? { keyLines[key] ?? headerLine }
        func problem(_ key: String, _ what: String) -> ActionsConfigurationError {
            fail(line(key), key, "\(name): \(key) = \(render(t[key])): \(what)")
        }
        // Keys in file order, so the first problem reported is the first in the file.
        for key in t.keys.sorted(by: { (keyLines[$0] ?? .max, $0) < (keyLines[$1] ?? .max, $1) })
        where !bindingKeys.contains(key) {
            throw fail(
                line(key), key,
                "\(name): unknown key \"\(key)\"; a binding has "
                    + bindingKeys.joined(separator: ", "))
        }

        func string(_ key: String) throws(ActionsConfigurationError) -> String? {
            guard let v = t[key] else { return nil }
            guard let s = v.string else { throw problem(key, "expected a string") }
            return s
        }
        func named<T: RawRepresentable>(_ key: String, _ type: T.Type, _ choices: [T]) throws(ActionsConfigurationError)
            -> T?
        where T.RawValue == String {
            guard let s = try string(key) else { return nil }
            guard let v = T(rawValue: s), choices.contains(where: { $0.rawValue == v.rawValue }) else {
                throw problem(key, "expected one of " + choices.map(\.rawValue).joined(separator: ", "))
            }
            return v
        }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ActionsConfigurationError) -> Int? {
            guard let v = t[key] else { return nil }
            guard let n = v.int, range.contains(n) else {
                throw problem(key, "expected a whole number \(range.lowerBound) … \(range.upperBound)")
            }
            return n
        }
        func allowed(_ key: String, _ ok: Bool, _ why: String) throws(ActionsConfigurationError) {
            if t[key] != nil && !ok { throw problem(key, why) }
        }

        var healthMatch: HealthMatch?
        var gestureMatch: GestureMatch?
        if t["health"] != nil {
            if t["gesture"] != nil {
                let second = (keyLines["gesture"] ?? 0) > (keyLines["health"] ?? 0) ? "gesture" : "health"
                throw fail(
                    line(second), second, "\(name): both gesture and health; a binding names one (write two bindings)")
            }
            for key in ["phase", "fingers", "taps", "direction", "edge", "hand"] {
                try allowed(key, false, "a health binding matches the event and the device only")
            }
            healthMatch = HealthMatch(
                event: try named("health", DeviceMessage.Event.self, HealthMatch.events)!, device: try string("device"))
        } else {
            gestureMatch = try parseGestureMatch()
        }
        func parseGestureMatch() throws(ActionsConfigurationError) -> GestureMatch {
            guard t["gesture"] != nil else {
                throw fail(
                    headerLine, "gesture",
                    "\(name): no gesture; every binding names one (gesture = \"swipe\"; the gestures are "
                        + GestureKind.allCases.map(\.rawValue).joined(separator: ", ")
                        + "), or a device-health event (health = \"lost\"; "
                        + HealthMatch.events.map(\.rawValue).joined(separator: ", ") + ")")
            }
            let gesture = try named("gesture", GestureKind.self, GestureKind.allCases)!
            let g = gesture.rawValue
            let phaseText = try string("phase")
            var phase: GesturePhase?
            if let phaseText {
                guard let p = GesturePhase(rawValue: phaseText), gesture.bindablePhases.contains(p) else {
                    let why = phaseText == GesturePhase.changed.rawValue ? " (changed comes every frame)" : ""
                    throw problem(
                        "phase",
                        "a \(g) binding fires on " + gesture.bindablePhases.map(\.rawValue).joined(separator: ", ")
                            + why)
                }
                phase = p
            }
            try allowed("fingers", gesture.hasFingers, "\(g) events have no fingers (one touch each)")
            try allowed("taps", gesture.hasTaps, "only tap and touch-tap events count taps")
            try allowed("direction", gesture.hasDirection, "only swipe and touch-swipe events have a direction")
            try allowed("edge", gesture.hasEdge, "only swipe events have an edge")
            let match = GestureMatch(
                gesture: gesture, phase: phase,
                fingers: try integer("fingers", 1...10), taps: try integer("taps", 1...100),
                direction: try named("direction", SwipeDirection.self, [.up, .down, .left, .right]),
                edge: try named("edge", DisplayEdge.self, DisplayEdge.allCases),
                hand: try named("hand", Hand.self, [.left, .right, .unknown]),
                device: try string("device"))
            return match
        }

        // The action: exactly one of run and keys.
        let run = t["run"], keys = t["keys"]
        if run != nil && keys != nil {
            let second = (keyLines["run"] ?? 0) > (keyLines["keys"] ?? 0) ? "run" : "keys"
            throw fail(
                line(second), second, "\(name): both run and keys; a binding does one thing (write two bindings)")
        }
        var shell = false
        if let v = t["shell"] {
            guard let b = v.bool else { throw problem("shell", "expected true or false") }
            guard run != nil else { throw problem("shell", "shell goes with run") }
            shell = b
        }
        let action: GestureAction
        if let run {
            if shell {
                guard let script = run.string, !script.isEmpty else {
                    throw problem("run", "with shell = true, run is one string for /bin/sh -c")
                }
                action = .shell(script)
            } else {
                guard let items = run.array else {
                    let hint = run.string != nil ? "; a string needs shell = true (it runs with /bin/sh -c)" : ""
                    throw problem(
                        "run",
                        "expected the program and its arguments, e.g. [\"systemctl\", \"restart\", \"kiosk\"]" + hint)
                }
                var argv: [ArgumentTemplate] = []
                for (i, item) in items.enumerated() {
                    guard let s = item.string else { throw problem("run", "run[\(i)] is not a string") }
                    do {
                        argv.append(try ArgumentTemplate(parsing: s))
                    } catch {
                        throw problem("run", "run[\(i)]: \(error.message)")
                    }
                }
                guard let program = argv.first, !program.source.isEmpty else {
                    throw problem("run", "no program: run[0] names it")
                }
                action = .run(argv)
            }
        } else if keys != nil {
            guard let text = try string("keys") else { preconditionFailure("keys present") }
            do {
                action = .keys(try KeyChord(parsing: text))
            } catch {
                throw problem("keys", error.message)
            }
        } else {
            throw fail(
                headerLine, nil, "\(name): no action; give run = [\"program\", \"argument\"] or keys = \"ctrl+alt+f1\"")
        }
        if let healthMatch {
            return GestureBinding(index: index, line: headerLine, health: healthMatch, action: action)
        }
        return GestureBinding(index: index, line: headerLine, match: gestureMatch!, action: action)
    }

    /// A value as the file has it, for error messages.
    static func render(_ v: (any TOMLValueConvertible)?) -> String {
        guard let v else { return "(nothing)" }
        if let s = v.string { return "\"\(s)\"" }
        if let a = v.array { return "[" + a.map { render($0) }.joined(separator: ", ") + "]" }
        if v.table != nil { return "a table" }
        return v.debugDescription
    }

    static func describeType(_ v: any TOMLValueConvertible) -> String {
        if v.table != nil { return "one [binding] table (write [[binding]])" }
        return "\(v.type)"
    }
}

/// The lines of the keys in a TOML text, for error messages only: TOMLKit gives positions for
/// syntax errors but not for values. The values themselves always come from TOMLKit; this runs on
/// a text it accepted, so every key and table header starts a line outside multi-line strings.
/// Keys it cannot place (inline tables) fall back to their table's line.
struct TOMLKeyLines {
    struct Table {
        var header: Int
        var keys: [String: Int] = [:]
    }
    /// Top-level keys and table names, first occurrence.
    var topLevel: [String: Int] = [:]
    /// One entry per `[[binding]]` header, in order.
    var bindings: [Table] = []

    init(_ text: String) {
        enum Section { case top, binding, other }
        var section = Section.top
        var openString: String?  // the delimiter of a multi-line string we are inside
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = i + 1
            let line = String(raw).trimmed(of: " \t\r")
            if let delimiter = openString {
                if Self.count(delimiter, in: line) % 2 == 1 { openString = nil }
                continue
            }
            if line.hasPrefix("[[") {
                let name = Self.keyName(line.dropFirst(2).prefix { $0 != "]" })
                if topLevel[name] == nil { topLevel[name] = lineNumber }
                if name == "binding" {
                    bindings.append(Table(header: lineNumber))
                    section = .binding
                } else {
                    section = .other
                }
                continue
            }
            if line.hasPrefix("[") {
                let name = Self.keyName(line.dropFirst().prefix { $0 != "]" })
                if topLevel[name] == nil { topLevel[name] = lineNumber }
                section = .other
                continue
            }
            var value = line
            if let equals = line.firstIndex(of: "="), let key = Self.bareOrQuotedKey(line[..<equals]) {
                switch section {
                case .top: if topLevel[key] == nil { topLevel[key] = lineNumber }
                case .binding:
                    if bindings[bindings.count - 1].keys[key] == nil {
                        bindings[bindings.count - 1].keys[key] = lineNumber
                    }
                case .other: break
                }
                value = String(line[line.index(after: equals)...])
            }
            // A multi-line string may open on a key line or on a line of a multi-line array.
            for delimiter in ["\"\"\"", "'''"] where Self.count(delimiter, in: value) % 2 == 1 {
                openString = delimiter
                break
            }
        }
    }

    /// The first part of a (possibly dotted, possibly quoted) key; nil when the text before `=` is
    /// no key (a line inside a multi-line array such as `"--opt=1",`).
    static func bareOrQuotedKey(_ s: Substring) -> String? {
        let k = String(s).trimmed(of: " \t")
        let first = k.split(separator: ".", maxSplits: 1).first.map { String($0).trimmed(of: " \t") } ?? k
        if first.count >= 2, let q = first.first, q == "\"" || q == "'", first.last == q {
            return String(first.dropFirst().dropLast())
        }
        let bare = first.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }
        return bare && !first.isEmpty ? first : nil
    }

    static func keyName(_ s: Substring) -> String {
        let k = String(s).trimmed(of: " \t")
        if k.count >= 2, let q = k.first, q == "\"" || q == "'", k.last == q { return String(k.dropFirst().dropLast()) }
        return k
    }

    static func count(_ needle: String, in s: String) -> Int {
        s.components(separatedBy: needle).count - 1
    }
}
