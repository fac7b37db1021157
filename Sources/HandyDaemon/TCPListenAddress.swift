/// Where a TCP listener binds: `--websocket` and `--metrics` take the same forms, `PORT` (on
/// 127.0.0.1: loopback unless a host is named), `HOST:PORT` or `[IPv6]:PORT`.
public struct TCPListenAddress: Hashable, Sendable {
    public var host: String
    public var port: Int

    /// What a usage error says the value should be.
    public static let expected = "expected PORT, HOST:PORT or [IPv6]:PORT (port 1 … 65535)"

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Nil when `text` is none of the forms or the port is outside 1 … 65535.
    public init?(_ text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains("[") else { return nil }
        }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        self.init(host: host, port: port)
    }
}
