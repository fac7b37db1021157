/// A recording that cannot be read: names the file, the line (when one is to blame) and what was wrong.
///
/// `description` is the one-line form tools print:
/// `path:12: expected 'E: <sec>.<usec> <type> <code> <value>', got "E: 1.5"`.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is, for callers that react differently (e.g. a missing description).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case unreadable, notText, truncated, malformed, outOfRange, missingDescription, unsupported
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The file could not be opened or read.
        public static let unreadable = Code(.unreadable)
        /// The file is not UTF-8 text (binary or garbage).
        public static let notText = Code(.notText)
        /// The file ends in the middle of a line.
        public static let truncated = Code(.truncated)
        /// A line does not have the expected form.
        public static let malformed = Code(.malformed)
        /// A number does not fit its field (type, code, value, time, axis range).
        public static let outOfRange = Code(.outOfRange)
        /// Events without a device description, and none found beside them.
        public static let missingDescription = Code(.missingDescription)
        /// A format or version this reader does not know.
        public static let unsupported = Code(.unsupported)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    /// The file as the caller named it.
    public var file: String
    /// 1-based line number, nil when the problem is the whole file.
    public var line: Int?
    /// What was wrong, in a few words.
    public var message: String

    public init(_ code: Code, file: String, line: Int? = nil, _ message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// Quotes a piece of input for an error message, cut short so one bad line cannot flood a terminal.
func quoted(_ text: Substring, limit: Int = 60) -> String {
    let cut = text.count > limit ? text.prefix(limit) + "…" : text
    var out = "\""
    for scalar in cut.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20 || scalar.value == 0x7f: out += "\\u{\(String(scalar.value, radix: 16))}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

func quoted(_ text: String, limit: Int = 60) -> String { quoted(text[...], limit: limit) }
