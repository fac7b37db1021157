import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import HandyClient
import HandyProtocol

/// `handyctl monitor`: prints what the daemon publishes, live, until interrupted.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print gestures (and optionally touches) from handyd as they happen.",
        discussion: """
            Human-readable lines by default, e.g.
              12.345 pinch began scale=1.00 hand=right(0.82) clearSide=left fingers=2 device=event5
            With --json, the daemon's JSON lines unchanged in content. Reconnects when the daemon restarts.

            Examples:
              handyctl monitor
              handyctl monitor --gestures pinch,rotate
              handyctl monitor --json --touches --socket /tmp/handyd.sock
            """)

    @Option(help: "handyd's socket.")
    var socket: String = HandyClient.defaultSocketPath

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Only these gestures, comma-separated (e.g. pinch,rotate).", valueName: "NAMES"))
    var gestures: String?

    @Option(help: ArgumentHelp("Only these device ids, comma-separated.", valueName: "IDS"))
    var devices: String?

    @Flag(help: "Also print touch frames.")
    var touches = false

    func run() async throws {
        let request = SubscribeRequest(
            gestures: gestures.map(Self.list), devices: devices.map(Self.list), touches: touches)
        let client = HandyClient(socketPath: socket, subscription: request)
        for try await message in client.messages() {
            if json {
                print(String(decoding: JSONLines.encode(message).dropLast(), as: UTF8.self))
            } else {
                print(message.humanReadableLine)
            }
            // One line at a time even into a pipe (`handyctl monitor | grep pinch`).
            fflush(nil)
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
