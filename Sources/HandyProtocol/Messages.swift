/// Protocol version sent in `hello`. Within one version only additive changes are made.
public let handyProtocolVersion = 1

/// A device as the daemon announces it.
public struct DeviceInfo: Codable, Hashable, Sendable {
    /// Stable id: the same after an unplug and replug, and after a reboot. For a touchscreen it is
    /// built from the device name and udev's `ID_PATH` (else `ID_SERIAL`, else "virtual"), e.g.
    /// `elan-touchscreen@pci-0000:00:14.0-usb-0:2:1.0`, or set by the `HANDYD_ID` udev property;
    /// `replay:NAME` for a replay. Subscription filters accept it, or ``node``.
    public var id: String
    public var name: String
    /// Device node (`/dev/input/event5`) or the recording's path for a replay.
    public var path: String?
    /// The kernel's node name (`event5`): changes when the device is plugged in again. Absent for
    /// a replay. (Protocol 1 before this field used it as the id; filters still accept it.)
    public var node: String?
    public var vendor: Int?
    public var product: Int?
    public var slots: Int?
    public var widthMm: Double?
    public var heightMm: Double?
    /// The device's settings that did not apply (udev or `--device-property` properties out of
    /// range, malformed or unknown), one line each naming the property, its value and what it
    /// accepts; the defaults are used instead. Absent when there are none.
    public var problems: [String]?
    /// true: the device reports hovering contacts (a protocol-B device that declares
    /// ABS_MT_DISTANCE, its hover not turned off by HANDYD_HOVER=0), published as `hovering`
    /// touches. Absent otherwise, and from a daemon before this field.
    public var hover: Bool?
    /// false: the device is there but handyd cannot read it (see ``reason`` and ``fix``); it is
    /// opened as soon as its permissions change. Absent (or true) for a device being read.
    public var readable: Bool?
    /// Why the device cannot be read, e.g. "open /dev/input/event5: Permission denied (errno 13)".
    public var reason: String?
    /// What an operator can do about it.
    public var fix: String?
    public init(
        id: String, name: String, path: String? = nil, node: String? = nil, vendor: Int? = nil, product: Int? = nil,
        slots: Int? = nil, widthMm: Double? = nil, heightMm: Double? = nil, problems: [String]? = nil,
        readable: Bool? = nil, reason: String? = nil, fix: String? = nil, hover: Bool? = nil
    ) {
        self.id = id; self.name = name; self.path = path; self.node = node; self.vendor = vendor; self.product = product
        self.slots = slots; self.widthMm = widthMm; self.heightMm = heightMm; self.problems = problems
        self.readable = readable; self.reason = reason; self.fix = fix; self.hover = hover
    }

    /// Whether handyd reads this device (a missing `readable` field means yes).
    public var isReadable: Bool { readable ?? true }

    /// Whether the device reports hovering contacts (a missing `hover` field means no).
    public var reportsHover: Bool { hover ?? false }

    /// Whether a subscription filter entry names this device: its ``id``, or its ``node`` (`event5`).
    public func matches(filter entry: String) -> Bool { entry == id || (node != nil && entry == node) }
}

/// One touch in a `touches` message.
public struct WireTouch: Codable, Hashable, Sendable {
    public var id: Int
    /// began | moved | stationary | ended | cancelled
    public var phase: String
    /// finger | pen | palm
    public var tool: String
    /// Normalised 0…1.
    public var x: Double
    public var y: Double
    public var xMm: Double
    public var yMm: Double
    public var majorMm: Double?
    public var minorMm: Double?
    public var orientation: Double?
    public var pressure: Double?
    /// mm/s
    public var vxMm: Double?
    public var vyMm: Double?
    public init(
        id: Int, phase: String, tool: String, x: Double, y: Double, xMm: Double, yMm: Double,
        majorMm: Double? = nil, minorMm: Double? = nil, orientation: Double? = nil, pressure: Double? = nil,
        vxMm: Double? = nil, vyMm: Double? = nil
    ) {
        self.id = id; self.phase = phase; self.tool = tool; self.x = x; self.y = y; self.xMm = xMm; self.yMm = yMm
        self.majorMm = majorMm; self.minorMm = minorMm; self.orientation = orientation; self.pressure = pressure
        self.vxMm = vxMm; self.vyMm = vyMm
    }
}

/// One hovering contact in a `touches` message (a finger in range above the glass, not touching),
/// sent only to a subscriber that asked for hover (docs/PROTOCOL.md "Hover").
public struct WireHover: Codable, Hashable, Sendable {
    /// Small stable id of its own, apart from the touches' ids.
    public var id: Int
    /// began | hovering | landed | ended | cancelled
    public var phase: String
    /// Normalised 0…1.
    public var x: Double
    public var y: Double
    /// Absent in the compact form (x·widthMm, y·heightMm).
    public var xMm: Double?
    public var yMm: Double?
    /// ABS_MT_DISTANCE as the device reports it.
    public var distance: Int
    /// The distance over the device's axis: 0 at its touching value, 1 at its maximum (4 decimals).
    public var distanceNormalized: Double
    /// `landed`: the id of the touch it became (which begins in the same frame).
    public var touch: Int?
    public init(
        id: Int, phase: String, x: Double, y: Double, xMm: Double? = nil, yMm: Double? = nil, distance: Int,
        distanceNormalized: Double, touch: Int? = nil
    ) {
        self.id = id; self.phase = phase; self.x = x; self.y = y; self.xMm = xMm; self.yMm = yMm
        self.distance = distance; self.distanceNormalized = distanceNormalized; self.touch = touch
    }
}

/// `{"type":"touches","time":…,"device":…,"touches":[…]}`: one frame in which something changed.
public struct TouchesMessage: Codable, Hashable, Sendable {
    public var time: Double
    public var device: String
    public var touches: [WireTouch]
    /// The frame's hovering contacts, to a subscriber with `hover` only; absent when it has none
    /// (and always for other subscribers).
    public var hovers: [WireHover]?
    public init(time: Double, device: String, touches: [WireTouch], hovers: [WireHover]? = nil) {
        self.time = time; self.device = device; self.touches = touches; self.hovers = hovers
    }
}

/// `{"type":"hello","protocol":1,"version":"…","devices":[…]}`, sent on connect.
public struct HelloMessage: Codable, Hashable, Sendable {
    public var `protocol`: Int
    public var version: String
    public var devices: [DeviceInfo]
    public init(protocol: Int = handyProtocolVersion, version: String, devices: [DeviceInfo]) {
        self.protocol = `protocol`; self.version = version; self.devices = devices
    }
}

/// `{"type":"device","event":"added"|"removed"|…,"device":{…}}`; a health event also carries `health`.
public struct DeviceMessage: Codable, Hashable, Sendable {
    public enum Event: String, Codable, Hashable, Sendable {
        case added, removed
        /// Health (added within protocol 1, docs/PROTOCOL.md "Device health"): a contact found
        /// stuck and left out of recognition; a stuck contact lifted.
        case stuck, unstuck
        /// The device went away without being asked (unplug, USB reset: after its `removed`), and
        /// came back under the same id (after its `added`).
        case lost, back
        /// Events far beyond any touchscreen's rate; kernel drops (SYN_DROPPED).
        case flood, dropped
    }
    public var event: Event
    public var device: DeviceInfo
    /// With a health event: what happened, and the device's counts.
    public var health: DeviceHealth?
    public init(event: Event, device: DeviceInfo, health: DeviceHealth? = nil) {
        self.event = event; self.device = device; self.health = health
    }
}

/// A device's health (docs/PROTOCOL.md "Device health"): in a health `device` message, what
/// happened and the counts after it; in `status`, the counts. Counts run from the daemon's start
/// for the device's id, across unplugs.
public struct DeviceHealth: Codable, Hashable, Sendable {
    /// `stuck`/`unstuck`: the touch (its id in `touches` frames) and where it is, mm.
    public var touch: Int?
    public var xMm: Double?
    public var yMm: Double?
    /// `stuck`: how long it had stayed still; `unstuck`: how long it was left out of recognition.
    public var seconds: Double?
    /// `flood`: the events a second the device sent.
    public var eventsPerSecond: Double?
    /// Contacts stuck now.
    public var stuckNow: Int
    /// Contacts found stuck, device losses, kernel drops (SYN_DROPPED), floods.
    public var stuckContacts: UInt64
    public var losses: UInt64
    public var kernelDrops: UInt64
    public var floods: UInt64
    /// Multitouch protocol faults the tracker coped with (docs/RELIABILITY.md).
    public var faults: UInt64
    /// Seconds since a finger last went down, moved or lifted; absent before the first.
    public var secondsSinceLastTouch: Double?

    public init(
        touch: Int? = nil, xMm: Double? = nil, yMm: Double? = nil, seconds: Double? = nil,
        eventsPerSecond: Double? = nil,
        stuckNow: Int = 0, stuckContacts: UInt64 = 0, losses: UInt64 = 0, kernelDrops: UInt64 = 0, floods: UInt64 = 0,
        faults: UInt64 = 0, secondsSinceLastTouch: Double? = nil
    ) {
        self.faults = faults
        self.touch = touch; self.xMm = xMm; self.yMm = yMm; self.seconds = seconds;
        self.eventsPerSecond = eventsPerSecond
        self.stuckNow = stuckNow; self.stuckContacts = stuckContacts; self.losses = losses;
        self.kernelDrops = kernelDrops
        self.floods = floods; self.secondsSinceLastTouch = secondsSinceLastTouch
    }
}

/// `{"type":"status",…}`: the daemon's counters.
public struct StatusMessage: Codable, Hashable, Sendable {
    public var clients: Int
    public var devices: Int
    public var frames: UInt64
    public var events: UInt64
    public var drops: UInt64
    public var uptime: Double?
    /// The devices that are there but cannot be read (``DeviceInfo/readable`` false, with the
    /// reason and the fix); absent when there are none. ``devices`` counts only the ones read.
    public var unreadable: [DeviceInfo]?
    /// Each device's health by its id (added within protocol 1); absent without devices.
    public var health: [String: DeviceHealth]?
    public init(
        clients: Int, devices: Int, frames: UInt64, events: UInt64, drops: UInt64, uptime: Double? = nil,
        unreadable: [DeviceInfo]? = nil, health: [String: DeviceHealth]? = nil
    ) {
        self.clients = clients; self.devices = devices; self.frames = frames; self.events = events
        self.drops = drops; self.uptime = uptime; self.unreadable = unreadable; self.health = health
    }
}

/// `{"type":"error","code":"…","message":"…"}`.
public struct ErrorMessage: Codable, Hashable, Sendable {
    public var code: String
    public var message: String
    public init(code: String, message: String) { self.code = code; self.message = message }
}

/// `{"type":"shutdown","reason":"…"}`: the daemon is stopping; the connection closes after it.
public struct ShutdownMessage: Codable, Hashable, Sendable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

/// Every message the daemon sends.
public enum ServerMessage: Hashable, Sendable {
    case hello(HelloMessage)
    case gesture(GestureEvent)
    case touches(TouchesMessage)
    case device(DeviceMessage)
    case status(StatusMessage)
    case error(ErrorMessage)
    case shutdown(ShutdownMessage)

    public var typeName: String {
        switch self {
        case .hello: "hello"
        case .gesture: "gesture"
        case .touches: "touches"
        case .device: "device"
        case .status: "status"
        case .error: "error"
        case .shutdown: "shutdown"
        }
    }
}

/// `{"type":"subscribe","gestures":[…],"devices":[…],"touches":false}`.
/// Absent fields keep their current value; the default subscription is all gestures of all devices
/// and no touches.
public struct SubscribeRequest: Codable, Hashable, Sendable {
    /// Gesture names to receive (nil = all).
    public var gestures: [String]?
    /// Device ids to receive (nil = all).
    public var devices: [String]?
    /// Whether to receive `touches` frames.
    public var touches: Bool?
    /// Whether `touches` frames carry the hovering contacts (`hovers`), on devices that report
    /// them; with `touches` only. Added within protocol 1.
    public var hover: Bool?
    /// The form of gestures and touches: a ``WireForm`` raw value (`full`, `compact`). A string,
    /// not the enum, so that a form this daemon does not know gets its own error
    /// (`unknown-form`) while the rest of the request applies. HandyClient decodes the full form
    /// only (it skips `frame` lines), so its subscriptions leave this nil.
    public var form: String?
    public init(
        gestures: [String]? = nil, devices: [String]? = nil, touches: Bool? = nil, form: String? = nil,
        hover: Bool? = nil
    ) {
        self.gestures = gestures; self.devices = devices; self.touches = touches; self.form = form
        self.hover = hover
    }
}

/// Every message a client may send.
public enum ClientMessage: Hashable, Sendable {
    case subscribe(SubscribeRequest)
    case status
}
