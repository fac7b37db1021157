import CLibevdev
import HandyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A virtual input device created through /dev/uinput (libevdev's uinput API).
///
/// Used by `handyctl inject` and the kernel tests: whatever is written here comes out of a real
/// evdev node, through udev, exactly as from hardware.
public final class UInputDevice {
    /// The kernel's uinput node.
    public static let defaultControlPath = "/dev/uinput"

    /// What the device was created from.
    public let description: DeviceDescription
    /// The uinput node the device was made through.
    public let controlPath: String
    private var raw: OpaquePointer?
    private let template: OpaquePointer
    /// Open while the device exists: ours to close (libevdev closes only a node it opened itself).
    private var controlDescriptor: Int32

    /// Creates the device through `controlPath`. Needs write access to it (usually root, or the
    /// group a udev rule gives it).
    public init(description: DeviceDescription, controlPath: String = UInputDevice.defaultControlPath)
        throws(InputError)
    {
        guard let template = libevdev_new() else {
            throw InputError(path: controlPath, errno: ENOMEM, what: "libevdev_new")
        }
        libevdev_set_name(template, description.name.isEmpty ? "handyd virtual device" : description.name)
        libevdev_set_id_bustype(template, Int32(description.bustype))
        libevdev_set_id_vendor(template, Int32(description.vendor))
        libevdev_set_id_product(template, Int32(description.product))
        libevdev_set_id_version(template, Int32(description.version))
        for p in description.properties.sorted() {
            libevdev_enable_property(template, UInt32(p))
        }
        for (type, codes) in description.supportedEvents.sorted(by: { $0.key < $1.key }) {
            guard type != EventType.syn else { continue }  // libevdev always has EV_SYN
            libevdev_enable_event_type(template, UInt32(type))
            for code in codes.sorted() {
                switch type {
                case EventType.abs:
                    // An ABS code needs its range; a description without one gets a harmless default.
                    let info = description.absAxes[code] ?? AbsInfo(minimum: 0, maximum: 0)
                    var abs = input_absinfo(
                        value: info.value, minimum: info.minimum, maximum: info.maximum,
                        fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
                    libevdev_enable_event_code(template, UInt32(type), UInt32(code), &abs)
                case EventType.rep:
                    var v: Int32 = code == 0 ? 250 : 33  // REP_DELAY / REP_PERIOD in ms
                    libevdev_enable_event_code(template, UInt32(type), UInt32(code), &v)
                default:
                    libevdev_enable_event_code(template, UInt32(type), UInt32(code), nil)
                }
            }
        }
        // Opened here rather than by libevdev (LIBEVDEV_UINPUT_OPEN_MANAGED knows only /dev/uinput),
        // so the node is a parameter: a missing or refused one is an error that names it.
        let descriptor = open(controlPath, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            libevdev_free(template)
            throw InputError(path: controlPath, errno: error, what: "open")
        }
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(template, descriptor, &ui)
        guard rc == 0, let ui else {
            closeDescriptor(descriptor)
            libevdev_free(template)
            throw InputError(path: controlPath, errno: -rc, what: "libevdev_uinput_create_from_device")
        }
        self.controlPath = controlPath
        self.controlDescriptor = descriptor
        self.raw = ui
        self.syspath = libevdev_uinput_get_syspath(ui).map { String(cString: $0) }
        self.template = template
        self.description = description
    }

    deinit {
        close()
        libevdev_free(template)
    }

    /// The evdev node, e.g. "/dev/input/event7"; nil once closed or if the kernel has not made it yet.
    public var devnode: String? {
        guard let raw, let p = libevdev_uinput_get_devnode(raw) else { return nil }
        return String(cString: p)
    }

    /// The sysfs path of the input device, e.g. "/sys/devices/virtual/input/input12" (kept after
    /// ``close()``: inputN numbers are never reused, unlike eventN nodes, so it identifies the
    /// device in late udev events).
    public let syspath: String?

    /// Waits until the evdev node exists in /dev (devtmpfs creates it shortly after creation).
    /// - Returns: the node's path.
    public func waitForDevnode(timeoutSeconds: Double = 5) throws(InputError) -> String {
        let deadline = EvdevDevice.monotonicNow().advanced(byMilliseconds: timeoutSeconds * 1000)
        while true {
            if let node = devnode, Self.exists(node) { return node }
            if raw == nil { throw InputError(path: controlPath, errno: ENODEV, what: "device closed") }
            if EvdevDevice.monotonicNow() > deadline {
                throw InputError(path: syspath ?? controlPath, errno: ETIMEDOUT, what: "waiting for the evdev node")
            }
            usleep(10_000)
        }
    }

    /// Waits until `node` (a ``devnode`` read before) exists in /dev, without the device: for a
    /// caller that must not hold its lock while it waits. False after the time.
    public static func waitUntilExists(_ node: String, timeoutSeconds: Double) -> Bool {
        let deadline = EvdevDevice.monotonicNow().advanced(byMilliseconds: timeoutSeconds * 1000)
        while !exists(node) {
            if EvdevDevice.monotonicNow() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// stat, not access(F_OK): access asks the device cgroup too, and a service allowed only
    /// /dev/uinput (handyd-actions.service: DevicePolicy=closed) is denied the event node it just
    /// made, so the node would never "exist". stat asks no permission.
    private static func exists(_ node: String) -> Bool {
        var info = stat()
        return stat(node, &info) == 0
    }

    /// Writes one event (type/code/value; the kernel stamps its own time).
    public func write(_ event: InputEvent) throws(InputError) {
        try write(type: event.type, code: event.code, value: event.value)
    }

    /// Writes one event.
    public func write(type: UInt16, code: UInt16, value: Int32) throws(InputError) {
        guard let raw else { throw InputError(path: controlPath, errno: ENODEV, what: "write after close") }
        let rc = libevdev_uinput_write_event(raw, UInt32(type), UInt32(code), value)
        guard rc == 0 else {
            throw InputError(path: devnode ?? controlPath, errno: -rc, what: "libevdev_uinput_write_event")
        }
    }

    /// Destroys the device: readers get ENODEV, udev sees "remove". Safe to call twice.
    public func close() {
        if let raw {
            libevdev_uinput_destroy(raw)
            self.raw = nil
        }
        if controlDescriptor >= 0 {
            closeDescriptor(controlDescriptor)
            controlDescriptor = -1
        }
    }
}

/// close(2); the name `close` is ``UInputDevice/close()``'s inside the class.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #elseif canImport(Musl)
    _ = Musl.close(descriptor)
    #endif
}
