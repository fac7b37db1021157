import ArgumentParser
import HandyClient
import HandyProtocol

/// `handyctl devices`: the devices the daemon reads, from its `hello`.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices handyd reads (asks the running daemon).",
        discussion: """
            Prints the devices of the daemon's hello message: id (stable across replugs), name, \
            size in mm, slots, "hover" when it reports fingers above the glass (docs/DEVICES.md), path (the device node, or the recording a replay reads); under a device, "not readable" with the reason and the fix \
            when handyd cannot open it (it does as soon as the permissions change), and each of \
            its settings that did not apply (a udev property out of range, malformed or unknown; \
            the default is used), and its health when something happened (stuck contacts, losses, \
            floods, kernel drops, protocol faults) with the time since its last touch \
            (docs/FLEET.md).

            Examples:
              handyctl devices
              handyctl devices --socket /tmp/handyd.sock
            """)

    @Option(help: "handyd's socket.")
    var socket: String = HandyClient.defaultSocketPath

    @Flag(help: "Print the hello message's device list as JSON lines.")
    var json = false

    func run() async throws {
        let (hello, status) = try await HandyClient(socketPath: socket, reconnect: nil).helloAndStatus()
        if hello.devices.isEmpty && !json { print("no devices") }
        for device in hello.devices {
            let health = status.health?[device.id]
            if json {
                print(
                    String(
                        decoding: JSONLines.encode(
                            .device(DeviceMessage(event: .added, device: device, health: health))
                        ).dropLast(),
                        as: UTF8.self))
                continue
            }
            for line in device.listingLines { print(line) }
            // Only once something happened (a touch, a count): a device never touched has no news.
            if let health, health != DeviceHealth() { print("\t" + health.listingLine) }
        }
    }
}
