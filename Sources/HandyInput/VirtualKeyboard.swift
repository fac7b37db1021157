import CLibevdev
import HandyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Key codes by their kernel names (`KEY_F1`), as libevdev knows them (linux/input-event-codes.h).
public enum KeyCodes {
    /// The EV_KEY code named `name` (`KEY_LEFTCTRL`, `BTN_LEFT`), nil when libevdev knows no such key.
    /// Exact kernel spelling, upper case.
    public static func code(named name: String) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(EventType.key), name)
        guard code >= 0, code <= Int32(UInt16.max) else { return nil }
        return UInt16(code)
    }

    /// The kernel name of an EV_KEY code (`KEY_F1`), nil when it has none.
    public static func name(of code: UInt16) -> String? {
        libevdev_event_code_get_name(UInt32(EventType.key), UInt32(code)).map { String(cString: $0) }
    }

    /// KEY_ESC (1) … KEY_MICMUTE (248): the keys of ordinary keyboards (letters, digits, modifiers,
    /// F1–F24, arrows, media keys, KEY_BACK, KEY_MENU), and no BTN_* code, so udev calls the device
    /// a keyboard (ID_INPUT_KEYBOARD) and nothing else.
    public static let keyboardRange: ClosedRange<UInt16> = 1...248
}

/// A uinput keyboard that presses key chords (`handyctl actions`): the compositor, X server or
/// console reads it like any keyboard. Needs write access to /dev/uinput.
public final class VirtualKeyboard {
    /// The device's name in the kernel (`/proc/bus/input/devices`, `libinput list-devices`).
    public static let defaultName = "handyd virtual keyboard"

    /// The keys the device has; a chord may only use these.
    public let keys: Set<UInt16>
    private let device: UInputDevice

    /// Creates the device with ``KeyCodes/keyboardRange`` plus `extraKeys`, through the uinput
    /// node at `controlPath`.
    public init(
        name: String = defaultName, extraKeys: Set<UInt16> = [],
        controlPath: String = UInputDevice.defaultControlPath
    ) throws(InputError) {
        let keys = Set(KeyCodes.keyboardRange).union(extraKeys)
        let description = DeviceDescription(
            name: name, bustype: 0x06 /* BUS_VIRTUAL */, vendor: 0x1d6b, product: 0x0105, version: 1,
            properties: [], supportedEvents: [EventType.syn: [SynCode.report], EventType.key: keys], absAxes: [:])
        device = try UInputDevice(description: description, controlPath: controlPath)
        self.keys = keys
    }

    /// The evdev node, e.g. "/dev/input/event9" (nil until the kernel made it).
    public var devnode: String? { device.devnode }

    /// Waits until the evdev node exists (see ``UInputDevice/waitForDevnode(timeoutSeconds:)``).
    public func waitForDevnode(timeoutSeconds: Double = 5) throws(InputError) -> String {
        try device.waitForDevnode(timeoutSeconds: timeoutSeconds)
    }

    /// Presses `chord` as a person does: each key down in order (modifiers first), one report, then
    /// each key up in reverse order, one report. Throws when a key is not on this keyboard or the
    /// write fails; a failed write releases what it can so no key stays held.
    public func press(_ chord: [UInt16]) throws(InputError) {
        if let missing = chord.first(where: { !keys.contains($0) }) {
            throw InputError(
                path: devnode ?? "/dev/uinput",
                what: "key \(KeyCodes.name(of: missing) ?? "\(missing)") is not on the virtual keyboard")
        }
        var failure: InputError?
        do {
            for code in chord { try device.write(type: EventType.key, code: code, value: 1) }
            try device.write(type: EventType.syn, code: SynCode.report, value: 0)
        } catch {
            failure = error
        }
        for code in chord.reversed() {
            do { try device.write(type: EventType.key, code: code, value: 0) } catch { failure = failure ?? error }
        }
        do { try device.write(type: EventType.syn, code: SynCode.report, value: 0) } catch {
            failure = failure ?? error
        }
        if let failure { throw failure }
    }

    /// Destroys the device. Safe to call twice.
    public func close() { device.close() }
}
