import ArgumentParser
import HandyClient
import HandyProtocol

/// `handyctl devices`: the devices the daemon reads, from its `hello`.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices handyd reads (asks the running daemon).",
        discussion: """
            Prints the devices of the daemon's hello message: id, name, node, size in mm; \
            under a device, each of its settings that did not apply (a udev property out of \
            range, malformed or unknown; the default is used).

            Examples:
              handyctl devices
              handyctl devices --socket /tmp/handyd.sock
            """)

    @Option(help: "handyd's socket.")
    var socket: String = HandyClient.defaultSocketPath

    @Flag(help: "Print the hello message's device list as JSON lines.")
    var json = false

    func run() async throws {
        let hello = try await HandyClient(socketPath: socket, reconnect: nil).hello()
        if hello.devices.isEmpty && !json { print("no devices") }
        for device in hello.devices {
            if json {
                print(String(decoding: JSONLines.encode(.device(DeviceMessage(event: .added, device: device))).dropLast(), as: UTF8.self))
                continue
            }
            var line = "\(device.id)\t\(device.name)"
            if let w = device.widthMm, let h = device.heightMm { line += "\t\(wholeMm(w))x\(wholeMm(h)) mm" }
            if let slots = device.slots { line += "\t\(slots) slots" }
            if let path = device.path { line += "\t\(path)" }
            print(line)
            for problem in device.problems ?? [] { print("\tproblem: \(problem)") }
        }
    }

    /// Whole millimetres; any number a daemon sends prints (Int(1e300) would trap).
    private func wholeMm(_ mm: Double) -> String {
        let r = mm.rounded()
        return r.magnitude < 1e15 ? String(Int64(r)) : "\(mm)"
    }
}
