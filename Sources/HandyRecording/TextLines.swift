/// One line of a text recording with its 1-based number, without the newline.
struct NumberedLine {
    var number: Int
    var text: Substring
}

/// Splits a recording's bytes into lines, refusing what is not a complete text file.
///
/// Every recorder we read (evemu-record, libinput record) ends each line with `\n`, so a last line
/// without one means the file was cut short: reported as truncated rather than parsed, because a
/// cut number ("12" from "1234") would otherwise read as a valid, wrong value.
func textLines(_ bytes: [UInt8], file: String) throws(RecordingError) -> [NumberedLine] {
    guard let text = String(validating: bytes, as: UTF8.self) else {
        // Find the line with the bad byte so the message points somewhere useful.
        var line = 1
        var start = 0
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            if String(validating: bytes[start..<i], as: UTF8.self) == nil { break }
            line += 1
            start = i + 1
        }
        throw RecordingError(.notText, file: file, line: line, "not UTF-8 text (a binary or garbage file?)")
    }
    if text.isEmpty { return [] }
    var lines: [NumberedLine] = []
    var number = 0
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
        number += 1
        var t = raw
        if t.last == "\r" { t = t.dropLast() }
        if t.contains("\0") {
            throw RecordingError(.notText, file: file, line: number, "NUL byte in a text line (a binary or garbage file?)")
        }
        lines.append(NumberedLine(number: number, text: t))
    }
    // split leaves an empty last element after a final "\n"; anything else is a cut-off line.
    if let last = lines.last {
        if last.text.isEmpty {
            lines.removeLast()
        } else {
            throw RecordingError(.truncated, file: file, line: last.number,
                                 "file ends in the middle of a line (truncated?): \(quoted(last.text))")
        }
    }
    return lines
}

extension Substring {
    /// Whitespace-separated fields (spaces and tabs).
    var fields: [Substring] { split(whereSeparator: { $0 == " " || $0 == "\t" }) }

    var trimmed: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
