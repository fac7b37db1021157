/// A node of the YAML subset `libinput record` writes, with the line it started on.
indirect enum YAMLNode {
    case scalar(String, line: Int)
    case sequence([YAMLNode], line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)
    /// `key:` with nothing under it.
    case null(line: Int)

    var line: Int {
        switch self {
        case .scalar(_, let l), .sequence(_, let l), .mapping(_, let l), .null(let l): return l
        }
    }

    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries, _) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    var kindName: String {
        switch self {
        case .scalar: return "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .null: return "nothing"
        }
    }
}

/// Parser for the block-style YAML subset of `libinput record` files: block mappings and sequences
/// (including the compact `key:\n- item` form), plain and quoted scalars, and one-line flow
/// collections (`[1, 2]`, `{a: 1}`). Anchors, tags, multi-line scalars and multiple documents are
/// not part of what libinput writes and are reported as errors rather than guessed at.
///
/// Hand-written rather than a YAML library so the readers stay dependency-free and every error can
/// name its line.
struct MiniYAML {
    private struct Line {
        var indent: Int
        var content: Substring
        var number: Int
    }

    private var lines: [Line] = []
    private var pos = 0
    private var depth = 0
    private let file: String

    /// Deepest nesting accepted (libinput record uses 6): bounds the recursion, so a garbage file of
    /// "- - - - ..." or "[[[[..." gives an error instead of exhausting the stack.
    static let maximumDepth = 64

    static func parse(_ numbered: [NumberedLine], file: String) throws(RecordingError) -> YAMLNode {
        var parser = MiniYAML(file: file)
        try parser.load(numbered)
        return try parser.document()
    }

    private init(file: String) { self.file = file }

    private func error(_ line: Int, _ message: String) -> RecordingError {
        RecordingError(.malformed, file: file, line: line, message)
    }

    private mutating func load(_ numbered: [NumberedLine]) throws(RecordingError) {
        for l in numbered {
            let text = try stripYAMLComment(l.text, line: l.number)
            var indent = 0
            for c in text {
                if c == " " {
                    indent += 1
                } else if c == "\t" {
                    throw error(l.number, "tab in indentation (YAML indents with spaces)")
                } else {
                    break
                }
            }
            var content = text.dropFirst(indent)
            while let last = content.last, last == " " || last == "\t" { content = content.dropLast() }
            if content.isEmpty { continue }
            if indent == 0 && (content == "---" || content == "...") { continue }
            lines.append(Line(indent: indent, content: content, number: l.number))
        }
    }

    private mutating func document() throws(RecordingError) -> YAMLNode {
        guard let first = lines.first else {
            throw RecordingError(.malformed, file: file, "empty file: no YAML content")
        }
        let root = try block(indent: first.indent)
        if pos < lines.count {
            throw error(lines[pos].number, "unexpected indentation at \(quoted(lines[pos].content))")
        }
        return root
    }

    private static func isSequenceItem(_ s: Substring) -> Bool { s == "-" || s.hasPrefix("- ") }

    private mutating func block(indent: Int) throws(RecordingError) -> YAMLNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw error(lines[pos].number, "nested deeper than \(Self.maximumDepth) levels")
        }
        if Self.isSequenceItem(lines[pos].content) { return try sequence(indent: indent) }
        if splitKey(lines[pos].content) != nil { return try mapping(indent: indent) }
        // A lone scalar as a block (e.g. a list item on its own line).
        let line = lines[pos]
        pos += 1
        return try inlineValue(line.content, line: line.number)
    }

    private mutating func sequence(indent: Int) throws(RecordingError) -> YAMLNode {
        let startLine = lines[pos].number
        var items: [YAMLNode] = []
        while pos < lines.count, lines[pos].indent == indent, Self.isSequenceItem(lines[pos].content) {
            let line = lines[pos]
            var rest = line.content.dropFirst()
            while rest.first == " " { rest = rest.dropFirst() }
            if rest.isEmpty {
                pos += 1
                if pos < lines.count, lines[pos].indent > indent {
                    items.append(try block(indent: lines[pos].indent))
                } else {
                    items.append(.null(line: line.number))
                }
            } else {
                // "- key: value" opens a mapping whose further keys line up with "key".
                let itemIndent = indent + (line.content.count - rest.count)
                lines[pos] = Line(indent: itemIndent, content: rest, number: line.number)
                items.append(try block(indent: itemIndent))
            }
            try refuseDeeperLine(than: indent)
        }
        return .sequence(items, line: startLine)
    }

    private mutating func mapping(indent: Int) throws(RecordingError) -> YAMLNode {
        let startLine = lines[pos].number
        var entries: [(key: String, value: YAMLNode)] = []
        while pos < lines.count, lines[pos].indent == indent, !Self.isSequenceItem(lines[pos].content) {
            let line = lines[pos]
            guard let (key, valueText) = splitKey(line.content) else {
                throw error(line.number, "expected 'key: value', got \(quoted(line.content))")
            }
            pos += 1
            let value: YAMLNode
            if valueText.isEmpty {
                if pos < lines.count,
                    lines[pos].indent > indent
                        || (lines[pos].indent == indent && Self.isSequenceItem(lines[pos].content))
                {
                    value = try block(indent: lines[pos].indent)
                } else {
                    value = .null(line: line.number)
                }
            } else {
                value = try inlineValue(valueText, line: line.number)
            }
            entries.append((key: key, value: value))
            try refuseDeeperLine(than: indent)
        }
        return .mapping(entries, line: startLine)
    }

    /// After a complete entry the next line may not be indented deeper (a multi-line value).
    private func refuseDeeperLine(than indent: Int) throws(RecordingError) {
        if pos < lines.count, lines[pos].indent > indent {
            throw error(lines[pos].number, "unexpected indentation at \(quoted(lines[pos].content))")
        }
    }

    /// `key: value` or `key:`; nil when the line is not a mapping entry.
    private func splitKey(_ s: Substring) -> (String, Substring)? {
        guard let first = s.first, !"[{\"'&*!|>%@`".contains(first) else { return nil }
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == ":" {
                let next = s.index(after: i)
                if next == s.endIndex || s[next] == " " {
                    let key = s[..<i]
                    var value = s[next...]
                    while value.first == " " { value = value.dropFirst() }
                    return (String(key), value)
                }
            }
            i = s.index(after: i)
        }
        return nil
    }

    private func inlineValue(_ text: Substring, line: Int) throws(RecordingError) -> YAMLNode {
        guard let first = text.first else { return .null(line: line) }
        switch first {
        case "[", "{", "\"", "'":
            var flow = FlowParser(text: text, line: line, file: file)
            let node = try flow.value()
            flow.skipSpaces()
            guard flow.atEnd else {
                throw error(line, "unexpected text after a value: \(quoted(flow.remainder))")
            }
            return node
        case "&", "*", "!", "|", ">":
            throw error(line, "YAML feature not supported in a libinput record file: \(quoted(text))")
        default:
            return .scalar(String(text), line: line)
        }
    }

    /// Removes a `#` comment (at the start or after whitespace, outside quotes).
    private func stripYAMLComment(_ s: Substring, line: Int) throws(RecordingError) -> Substring {
        var quote: Character?
        var previous: Character = " "
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if let q = quote {
                if c == "\\" && q == "\"" {
                    i = s.index(after: i)
                    if i == s.endIndex { break }
                } else if c == q {
                    quote = nil
                }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#" && (previous == " " || previous == "\t") {
                return s[..<i]
            }
            previous = c
            i = s.index(after: i)
        }
        return s
    }
}

/// One-line flow values: `[a, b]`, `{k: v}`, quoted and plain scalars.
private struct FlowParser {
    let text: Substring
    let line: Int
    let file: String
    var i: Substring.Index
    var depth = 0

    init(text: Substring, line: Int, file: String) {
        self.text = text
        self.line = line
        self.file = file
        self.i = text.startIndex
    }

    var atEnd: Bool { i == text.endIndex }
    var remainder: Substring { text[i...] }

    private func error(_ message: String) -> RecordingError {
        RecordingError(.malformed, file: file, line: line, message)
    }

    mutating func skipSpaces() {
        while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) }
    }

    private mutating func expect(_ c: Character) throws(RecordingError) {
        skipSpaces()
        guard i < text.endIndex, text[i] == c else {
            throw error(
                atEnd
                    ? "line ends before '\(c)' (unclosed bracket or quote)" : "expected '\(c)' at \(quoted(remainder))")
        }
        i = text.index(after: i)
    }

    mutating func value() throws(RecordingError) -> YAMLNode {
        skipSpaces()
        guard i < text.endIndex else { throw error("line ends where a value was expected") }
        switch text[i] {
        case "[", "{":
            depth += 1
            guard depth <= MiniYAML.maximumDepth else {
                throw error("nested deeper than \(MiniYAML.maximumDepth) levels")
            }
            defer { depth -= 1 }
            return try collection()
        default:
            return try scalar(stopAt: ",]}")
        }
    }

    private mutating func collection() throws(RecordingError) -> YAMLNode {
        switch text[i] {
        case "[":
            i = text.index(after: i)
            var items: [YAMLNode] = []
            skipSpaces()
            if i < text.endIndex, text[i] == "]" { i = text.index(after: i); return .sequence(items, line: line) }
            while true {
                items.append(try value())
                skipSpaces()
                guard i < text.endIndex else { throw error("line ends inside '[' … ']' (unclosed list)") }
                if text[i] == "," { i = text.index(after: i); continue }
                try expect("]")
                return .sequence(items, line: line)
            }
        case "{":
            i = text.index(after: i)
            var entries: [(key: String, value: YAMLNode)] = []
            skipSpaces()
            if i < text.endIndex, text[i] == "}" { i = text.index(after: i); return .mapping(entries, line: line) }
            while true {
                guard case .scalar(let key, _) = try scalar(stopAt: ":,}") else { throw error("bad key in '{' … '}'") }
                try expect(":")
                entries.append((key: key, value: try value()))
                skipSpaces()
                guard i < text.endIndex else { throw error("line ends inside '{' … '}' (unclosed mapping)") }
                if text[i] == "," { i = text.index(after: i); continue }
                try expect("}")
                return .mapping(entries, line: line)
            }
        default:
            return try scalar(stopAt: ",]}")
        }
    }

    private mutating func scalar(stopAt stops: String) throws(RecordingError) -> YAMLNode {
        skipSpaces()
        guard i < text.endIndex else { throw error("line ends where a value was expected") }
        let q = text[i]
        if q == "\"" || q == "'" {
            i = text.index(after: i)
            var out = ""
            while true {
                guard i < text.endIndex else { throw error("line ends inside a quoted string") }
                let c = text[i]
                i = text.index(after: i)
                if c == q {
                    // '' is an escaped quote inside single quotes.
                    if q == "'", i < text.endIndex, text[i] == "'" {
                        out.append("'"); i = text.index(after: i); continue
                    }
                    return .scalar(out, line: line)
                }
                if c == "\\" && q == "\"" {
                    guard i < text.endIndex else { throw error("line ends inside a quoted string") }
                    let e = text[i]
                    i = text.index(after: i)
                    switch e {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    case "0": out.append("\0")
                    default: out.append(e)
                    }
                    continue
                }
                out.append(c)
            }
        }
        let start = i
        while i < text.endIndex, !stops.contains(text[i]) { i = text.index(after: i) }
        var s = text[start..<i]
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        guard !s.isEmpty else { throw error("empty value at \(quoted(text[start...]))") }
        return .scalar(String(s), line: line)
    }
}
