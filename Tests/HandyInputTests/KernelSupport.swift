import HandyCore
import HandyInput
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// When the kernel tests run: where /dev/uinput is usable (the qemu guest, scripts/vm), or when
/// HANDYD_REQUIRE_UINPUT=1 says it must be (then a missing uinput fails instead of skipping).
enum KernelGate {
    static var required: Bool { getenv("HANDYD_REQUIRE_UINPUT").map { String(cString: $0) } == "1" }
    static var uinputUsable: Bool { access("/dev/uinput", W_OK) == 0 }
    /// systemd-udevd is running (its control socket exists).
    static var udevdRunning: Bool { access("/run/udev/control", F_OK) == 0 }
    static var runUinput: Bool { uinputUsable || required }
    static var runUdev: Bool { (uinputUsable && udevdRunning) || required }
    /// scripts/vm/run-guest-tests.sh installs udev/70-handyd.rules and scripts/vm/99-handyd-test.rules.
    static var testRulesInstalled: Bool { getenv("HANDYD_TEST_RULES").map { String(cString: $0) } == "1" }
}

/// A 10-slot protocol-B touchscreen like a small kiosk panel: 1920×1080 units at 10 units/mm.
func touchscreenDescription(name: String) -> DeviceDescription {
    let x = AbsInfo(minimum: 0, maximum: 1919, resolution: 10)
    let y = AbsInfo(minimum: 0, maximum: 1079, resolution: 10)
    return DeviceDescription(
        name: name, bustype: 0x06 /* BUS_VIRTUAL */, vendor: 0x1234, product: 0x5678, version: 1,
        properties: [InputProperty.direct],
        supportedEvents: [EventType.key: [KeyCode.btnTouch]],
        absAxes: [
            AbsCode.x: x, AbsCode.y: y,
            AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: 9),
            AbsCode.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            AbsCode.mtPositionX: x, AbsCode.mtPositionY: y,
        ])
}

/// A unique device name so parallel runs and leftover devices never match.
func uniqueName(_ what: String) -> String { "handyd-test \(what) \(getpid())-\(UInt32.random(in: 0...UInt32.max))" }

struct Contact: Hashable, CustomStringConvertible {
    var trackingID: Int32
    var x: Int32
    var y: Int32
    var description: String { "#\(trackingID)@(\(x),\(y))" }
}

/// Protocol-B slot state built from events only, the way a tracker sees them. Axis values
/// persist per slot across tracking ids (the kernel only sends values that changed).
struct SlotModel {
    var current = 0
    var raw: [Int: Contact] = [:]
    var frames: [[Int: Contact]] = []
    var sawDropped = false

    /// Slots with a contact (tracking id >= 0).
    var slots: [Int: Contact] { raw.filter { $0.value.trackingID >= 0 } }

    mutating func apply(_ e: InputEvent) {
        switch (e.type, e.code) {
        case (EventType.abs, AbsCode.mtSlot): current = Int(e.value)
        case (EventType.abs, AbsCode.mtTrackingID):
            raw[current, default: Contact(trackingID: -1, x: 0, y: 0)].trackingID = e.value
        case (EventType.abs, AbsCode.mtPositionX):
            raw[current, default: Contact(trackingID: -1, x: 0, y: 0)].x = e.value
        case (EventType.abs, AbsCode.mtPositionY):
            raw[current, default: Contact(trackingID: -1, x: 0, y: 0)].y = e.value
        case (EventType.syn, SynCode.report): frames.append(slots)
        case (EventType.syn, SynCode.dropped): sawDropped = true
        default: break
        }
    }
}

/// Writes one protocol-B frame: every contact's slot, tracking id (when new) and position.
func writeFrame(_ ui: UInputDevice, _ contacts: [Int: Contact?], btnTouch: Int32? = nil) throws {
    for (slot, contact) in contacts.sorted(by: { $0.key < $1.key }) {
        try ui.write(type: EventType.abs, code: AbsCode.mtSlot, value: Int32(slot))
        if let contact {
            try ui.write(type: EventType.abs, code: AbsCode.mtTrackingID, value: contact.trackingID)
            try ui.write(type: EventType.abs, code: AbsCode.mtPositionX, value: contact.x)
            try ui.write(type: EventType.abs, code: AbsCode.mtPositionY, value: contact.y)
        } else {
            try ui.write(type: EventType.abs, code: AbsCode.mtTrackingID, value: -1)
        }
    }
    if let btnTouch { try ui.write(type: EventType.key, code: KeyCode.btnTouch, value: btnTouch) }
    try ui.write(type: EventType.syn, code: SynCode.report, value: 0)
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// poll(2) one descriptor for input; false on timeout.
func waitReadable(_ fd: CInt, timeoutMs: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, timeoutMs) > 0
}

/// Drains `device` until `done` says so, polling with a deadline (never hangs the guest).
@discardableResult
func readUntil(
    _ device: EvdevDevice, timeoutSeconds: Double = 15, into model: inout SlotModel,
    events: inout [InputEvent], until done: (SlotModel) -> Bool
) throws -> DrainStatus {
    let deadline = EvdevDevice.monotonicNow().advanced(byMilliseconds: timeoutSeconds * 1000)
    while true {
        var m = model
        var got: [InputEvent] = []
        let status = try device.drain { e in
            m.apply(e)
            got.append(e)
        }
        model = m
        events += got
        if status == .gone || done(model) { return status }
        let left = deadline.milliseconds(since: EvdevDevice.monotonicNow())
        if left <= 0 {
            throw TimedOut(
                what:
                    "reading \(device.path): \(model.frames.count) frames so far, slots now \(model.slots), SYN_DROPPED seen: \(model.sawDropped), \(events.count) events"
            )
        }
        _ = waitReadable(device.fileDescriptor, timeoutMs: Int32(min(left, 500)))
    }
}

/// Waits for a udev monitor event matching `match`.
func waitForUdev(_ udev: UdevDiscovery, timeoutSeconds: Double = 20, _ match: @escaping (UdevEvent) -> Bool) throws
    -> UdevEvent
{
    try waitForUdev(udev, timeoutSeconds: timeoutSeconds, all: [match])[0]
}

/// Waits until each of `matches` has matched one monitor event, in whatever order they arrive, and
/// returns them in the order of `matches`. udevd runs devices through parallel workers, so two
/// devices created one after the other may be announced in either order: waiting for them one by
/// one would drop the second device's event while waiting for the first.
func waitForUdev(_ udev: UdevDiscovery, timeoutSeconds: Double = 20, all matches: [(UdevEvent) -> Bool]) throws
    -> [UdevEvent]
{
    let deadline = EvdevDevice.monotonicNow().advanced(byMilliseconds: timeoutSeconds * 1000)
    var found = [UdevEvent?](repeating: nil, count: matches.count)
    var others: [String] = []
    while true {
        while let e = udev.receive() {
            if let i = matches.indices.first(where: { found[$0] == nil && matches[$0](e) }) {
                found[i] = e
            } else {
                others.append("\(e.action.rawValue) \(e.device.syspath)")
            }
        }
        if found.allSatisfy({ $0 != nil }) { return found.map { $0! } }
        let left = deadline.milliseconds(since: EvdevDevice.monotonicNow())
        if left <= 0 {
            let missing = found.indices.filter { found[$0] == nil }.map(String.init)
            throw TimedOut(
                what:
                    "udev monitor event(s) #\(missing.joined(separator: ",")) of \(matches.count); other events: \(others)"
            )
        }
        _ = waitReadable(udev.monitorFileDescriptor, timeoutMs: Int32(min(left, 500)))
    }
}

/// True when a udev event is about `ui`'s event node. Event node names are reused at once, and
/// udevd may announce an earlier test's device late, so the devnode alone does not identify a
/// device; its sysfs parent (/sys/devices/virtual/input/inputN, N never reused) does.
func isEvent(_ e: UdevEvent, of ui: UInputDevice) -> Bool {
    guard let parent = ui.syspath else { return false }
    return e.device.syspath.hasPrefix(parent + "/")
}
