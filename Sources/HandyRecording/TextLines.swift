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
    var lines: [NumberedLine] = []
    try forEachTextLine(bytes, file: file) { lines.append($0) }
    return lines
}

/// Calls `body` with each line of a recording, in order, checked as ``textLines(_:file:)`` checks
/// them (UTF-8, no NUL, a newline at the end) before the first call.
///
/// Each line is decoded on its own and dropped after `body` returns, so reading a recording holds
/// one line at a time beside the file's bytes: when every line of a 12,000-frame recording was kept
/// as its own `String` until the end, a replaying daemon held 12 MB of freed heap for good
/// (docs/PERFORMANCE.md, memory).
func forEachTextLine(
    _ bytes: [UInt8], file: String,
    _ body: (NumberedLine) throws(RecordingError) -> Void
) throws(RecordingError) {
    // Validated in place: `String(validating:)` would build a second copy of the whole file only
    // to drop it (a 2.3 MB recording raised a replaying daemon's peak RSS by that much).
    guard (try? UTF8Span(validating: bytes.span)) != nil else {
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
    if bytes.isEmpty { return }
    let newline = UInt8(ascii: "\n")
    // Split the bytes, not the String: Swift makes "\r\n" one Character, so a CRLF file would not split on "\n".
    func line(_ start: Int, _ end: Int) -> Substring {
        var slice = bytes[start..<end]
        if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
        return Substring(String(decoding: slice, as: UTF8.self))
    }
    if bytes.last != newline {
        let count = bytes.reduce(0) { $0 + ($1 == newline ? 1 : 0) } + 1
        let start = bytes.lastIndex(of: newline).map { $0 + 1 } ?? 0
        throw RecordingError(
            .truncated, file: file, line: count,
            "file ends in the middle of a line (truncated?): \(quoted(line(start, bytes.count)))")
    }
    if let nul = bytes.firstIndex(of: 0) {
        let number = bytes[..<nul].reduce(1) { $0 + ($1 == newline ? 1 : 0) }
        throw RecordingError(.notText, file: file, line: number, "NUL byte in a text line (a binary or garbage file?)")
    }
    var number = 0
    var start = 0
    while start < bytes.count {
        number += 1
        let end = bytes[start...].firstIndex(of: newline) ?? bytes.count
        try body(NumberedLine(number: number, text: line(start, end)))
        start = end + 1
    }
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
