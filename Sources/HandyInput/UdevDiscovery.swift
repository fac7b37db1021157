import CLibudev
import HandySettings

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One evdev node udev knows about, with its properties and the configuration they give.
public struct DiscoveredDevice: Sendable, Equatable {
    /// "event5"
    public var sysname: String
    /// "/dev/input/event5"
    public var devnode: String
    /// "/sys/devices/…/input/input12/event5"
    public var syspath: String
    /// The device's name as the kernel has it (the parent input device's `name` attribute), known
    /// without opening the node: a device handyd may not read still has its name.
    public var name: String
    /// Every udev property (ID_INPUT_TOUCHSCREEN, HANDYD_*, …).
    public var properties: [String: String]
    /// Parsed from ``properties``.
    public var configuration: DeviceConfiguration

    public init(sysname: String, devnode: String, syspath: String, name: String = "", properties: [String: String]) {
        self.sysname = sysname
        self.devnode = devnode
        self.syspath = syspath
        self.name = name
        self.properties = properties
        self.configuration = DeviceConfiguration(properties: properties)
    }

    /// ID_INPUT_TOUCHSCREEN=1 (udev's input_id builtin) or HANDYD_DEVICE=1 (our rule).
    public var isHandydCandidate: Bool {
        properties["ID_INPUT_TOUCHSCREEN"] == "1" || properties[DeviceConfiguration.deviceProperty] == "1"
    }
    /// The id on the wire, the same after a replug or a reboot (``DeviceIdentity``).
    public var stableID: String { DeviceIdentity.id(name: name, properties: properties) }

    /// HANDYD_IGNORE=1: a candidate the kiosk told handyd to leave alone.
    public var isIgnored: Bool { configuration.ignore }
}

/// A hotplug notification from the udev monitor.
public struct UdevEvent: Sendable, Equatable {
    public enum Action: String, Sendable {
        case added = "add"
        case removed = "remove"
        /// Properties changed (e.g. `udevadm trigger` after a rule edit): re-read the configuration.
        case changed = "change"
    }
    public var action: Action
    public var device: DiscoveredDevice
}

/// Finds touchscreens through libudev and watches for hotplug.
///
/// Not `Sendable`: a libudev context belongs to one thread (the daemon's input thread).
public final class UdevDiscovery {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// The monitor's socket overflowed (ENOBUFS) since ``takeEventsLost()`` was last asked.
    private var eventsLost = false

    /// Creates a udev context and a monitor on the "udev" netlink group (events after rules ran),
    /// filtered to the input subsystem. Start listening before enumerating so no device slips
    /// between the two. `receiveBufferBytes`: the monitor socket's buffer, when given (forced:
    /// needs CAP_NET_ADMIN, refused silently otherwise; the tests make it small to overflow it).
    public init(receiveBufferBytes: Int32? = nil) throws(InputError) {
        guard let udev = udev_new() else { throw InputError(path: "udev", errno: Glibc.errno, what: "udev_new") }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            let e = Glibc.errno
            udev_unref(udev)
            throw InputError(path: "udev", errno: e == 0 ? nil : e, what: "udev_monitor_new_from_netlink")
        }
        var rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        if rc >= 0, let receiveBufferBytes { _ = udev_monitor_set_receive_buffer_size(monitor, receiveBufferBytes) }
        if rc >= 0 { rc = udev_monitor_enable_receiving(monitor) }
        guard rc >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw InputError(path: "udev", errno: -rc, what: "udev monitor setup")
        }
        self.udev = udev
        self.monitor = monitor
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Poll this for POLLIN, then call ``receive()`` until it returns nil. Non-blocking.
    public var monitorFileDescriptor: CInt { udev_monitor_get_fd(monitor) }

    /// Every initialised evdev node that is a touchscreen (ID_INPUT_TOUCHSCREEN=1) or tagged by
    /// our rule (HANDYD_DEVICE=1), sorted by sysname. HANDYD_IGNORE=1 devices are left out
    /// unless `includingIgnored`. Devices udev has not processed yet are skipped: their "add"
    /// arrives on the monitor.
    public func enumerateTouchscreens(includingIgnored: Bool = false) -> [DiscoveredDevice] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        udev_enumerate_add_match_subsystem(e, "input")
        udev_enumerate_add_match_sysname(e, "event*")
        udev_enumerate_scan_devices(e)
        var found: [DiscoveredDevice] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let current = entry {
            defer { entry = udev_list_entry_get_next(current) }
            guard let syspath = udev_list_entry_get_name(current),
                let dev = udev_device_new_from_syspath(udev, syspath)
            else { continue }
            defer { udev_device_unref(dev) }
            guard udev_device_get_is_initialized(dev) != 0, let d = Self.discovered(dev) else { continue }
            guard d.isHandydCandidate, includingIgnored || !d.isIgnored else { continue }
            found.append(d)
        }
        return found.sorted { Self.eventNumber($0.sysname) < Self.eventNumber($1.sysname) }
    }

    /// The next pending monitor event for an evdev node, or nil when none is pending.
    ///
    /// "add" and "change" are delivered for candidates only (ignored ones included: check
    /// ``DiscoveredDevice/isIgnored``); "remove" for every event node, since the properties of a
    /// removed device may be incomplete and the caller knows which nodes it has open.
    public func receive() -> UdevEvent? {
        while true {
            Glibc.errno = 0
            guard let dev = udev_monitor_receive_device(monitor) else {
                // The kernel dropped messages the socket had no room for: which devices came or
                // went is unknown until the caller looks again (``takeEventsLost()``).
                if Glibc.errno == ENOBUFS { eventsLost = true }
                return nil
            }
            defer { udev_device_unref(dev) }
            guard let actionC = udev_device_get_action(dev),
                let action = UdevEvent.Action(rawValue: String(cString: actionC)),
                let d = Self.discovered(dev)
            else { continue }
            if action != .removed && !d.isHandydCandidate { continue }
            return UdevEvent(action: action, device: d)
        }
    }

    /// Whether udev events were lost (the monitor's buffer overflowed) since the last call: then
    /// enumerate again to learn what is plugged in now. Clears the flag.
    public func takeEventsLost() -> Bool {
        defer { eventsLost = false }
        return eventsLost
    }

    /// Looks one device up by node ("/dev/input/event5"), e.g. to re-read properties.
    public func device(devnode: String) -> DiscoveredDevice? {
        guard let slash = devnode.lastIndex(of: "/") else { return nil }
        let sysname = String(devnode[devnode.index(after: slash)...])
        guard let dev = udev_device_new_from_subsystem_sysname(udev, "input", sysname) else { return nil }
        defer { udev_device_unref(dev) }
        return Self.discovered(dev)
    }

    /// nil unless the device is an evdev node ("event*") with a devnode.
    private static func discovered(_ dev: OpaquePointer) -> DiscoveredDevice? {
        guard let sysnameC = udev_device_get_sysname(dev) else { return nil }
        let sysname = String(cString: sysnameC)
        guard sysname.hasPrefix("event"), let nodeC = udev_device_get_devnode(dev) else { return nil }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(dev)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                properties[String(cString: name)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        let syspath = udev_device_get_syspath(dev).map { String(cString: $0) } ?? ""
        // eventN's parent is inputN, which holds the name (NAME="…" in its properties, quoted).
        var name = ""
        if let parent = udev_device_get_parent_with_subsystem_devtype(dev, "input", nil),
            let nameC = udev_device_get_sysattr_value(parent, "name")
        {
            name = String(cString: nameC)
        }
        return DiscoveredDevice(
            sysname: sysname, devnode: String(cString: nodeC), syspath: syspath, name: name,
            properties: properties)
    }

    private static func eventNumber(_ sysname: String) -> Int { Int(sysname.dropFirst("event".count)) ?? Int.max }
}
