/// Splits a byte stream into `\n`-terminated lines with a length limit, for both ends of the
/// protocol. Pure Swift so the daemon (NIO) and any other reader share one framing rule.
///
/// A line longer than ``JSONLines/maximumLineLength`` is an error as soon as that many bytes have
/// arrived without a newline: the reader does not buffer an unbounded line first.
public struct LineSplitter: Sendable {
    /// Bytes received after the last complete line.
    public private(set) var pending: [UInt8] = []
    public let maximumLineLength: Int

    public init(maximumLineLength: Int = JSONLines.maximumLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    /// Appends `bytes` and returns every line they complete (without `\n`; a trailing `\r` is
    /// dropped too, so `socat`/telnet users with CRLF are understood).
    /// - Throws: ``ProtocolError/Code/lineTooLong`` when a line exceeds the limit; the splitter
    ///   must not be used afterwards (the connection is closed).
    public mutating func append(_ bytes: some Sequence<UInt8>) throws(ProtocolError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
                // The limit excludes the line end, CRLF's `\r` included: it may be one byte past it.
                if pending.count > maximumLineLength,
                    pending.count > maximumLineLength + 1 || byte != UInt8(ascii: "\r")
                {
                    throw ProtocolError(.lineTooLong, "line longer than \(maximumLineLength) bytes")
                }
            }
        }
        return lines
    }
}
