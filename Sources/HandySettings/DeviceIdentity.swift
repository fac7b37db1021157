/// A device's id on the wire that survives unplugging and reboots, unlike the kernel's node name
/// (`event5` is whichever number was free when the device appeared).
///
/// Made from what udev knows about where the device is or what it is:
/// - the `HANDYD_ID` property when a rule sets it;
/// - else the name and `ID_PATH` (the physical port, e.g. `pci-0000:00:14.0-usb-0:2:1.0`), so two
///   identical screens on two ports differ and a screen keeps its id on the same port;
/// - else the name and `ID_SERIAL` (a device that reports one, wherever it is plugged);
/// - else the name and "virtual" (uinput devices: udev gives them neither).
///
/// The name is part of it because one port can carry several input devices (a touchscreen and
/// its pen). Pure Swift, so it is tested without udev.
public enum DeviceIdentity {
    /// The id for a device called `name` with these udev properties.
    public static func id(name: String, properties: [String: String]) -> String {
        if let explicit = properties[DeviceConfiguration.idProperty],
            isValidID(explicit, maximumBytes: DeviceConfiguration.idMaximumBytes)
        {
            return explicit
        }
        let place: String
        if let path = properties["ID_PATH"].map(slug), !path.isEmpty {
            place = path
        } else if let serial = properties["ID_SERIAL"].map(slug), !serial.isEmpty, serial != "noserial" {
            place = serial
        } else {
            place = "virtual"
        }
        let label = slug(name).lowercased()
        return "\(label.isEmpty ? "input" : label)@\(place)"
    }

    /// `id` made unique among `taken`: the first device keeps it, later ones get `#2`, `#3`, ….
    /// (Two devices with the same name at the same place: only their order tells them apart.)
    public static func unique(_ id: String, among taken: Set<String>) -> String {
        guard taken.contains(id) else { return id }
        var n = 2
        while taken.contains("\(id)#\(n)") { n += 1 }
        return "\(id)#\(n)"
    }

    /// Whether `text` may be an id as given: non-empty, at most `maximumBytes`, and only characters
    /// that need no quoting in a shell, a URL or a filter list.
    public static func isValidID(_ text: String, maximumBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumBytes && text.utf8.allSatisfy(isIDByte)
    }

    /// Keeps the id characters, turns every run of anything else into one `-`, trims `-` at the ends.
    static func slug(_ text: String) -> String {
        var out: [UInt8] = []
        var pendingDash = false
        for byte in text.utf8 {
            if isIDByte(byte) {
                if pendingDash && !out.isEmpty { out.append(UInt8(ascii: "-")) }
                pendingDash = false
                out.append(byte)
            } else {
                pendingDash = true
            }
        }
        while out.last == UInt8(ascii: "-") { out.removeLast() }
        return String(decoding: out.prefix(96), as: UTF8.self)
    }

    private static func isIDByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
            UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
