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
    guard String(validating: bytes, as: UTF8.self) != nil else {
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
    if bytes.isEmpty { return [] }
    // Split the bytes, not the String: Swift makes "\r\n" one Character, so a CRLF file would not split on "\n".
    var lines: [NumberedLine] = []
    var number = 0
    var start = 0
    var endsWithNewline = false
    while start < bytes.count {
        number += 1
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        endsWithNewline = end < bytes.count
        var slice = bytes[start..<end]
        if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
        if slice.contains(0) {
            throw RecordingError(.notText, file: file, line: number, "NUL byte in a text line (a binary or garbage file?)")
        }
        lines.append(NumberedLine(number: number, text: Substring(String(decoding: slice, as: UTF8.self))))
        start = end + 1
    }
    if !endsWithNewline, let last = lines.last {
        throw RecordingError(.truncated, file: file, line: last.number,
                             "file ends in the middle of a line (truncated?): \(quoted(last.text))")
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
