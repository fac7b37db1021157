import HandyProtocol

/// What `handyctl actions` does: a list of bindings, each a gesture pattern and one action, read
/// from a TOML file (docs/ACTIONS.md). Every binding whose pattern matches an event fires, in file
/// order.
public struct ActionsConfiguration: Sendable, Equatable {
    public var bindings: [GestureBinding]

    public init(bindings: [GestureBinding]) { self.bindings = bindings }

    /// The bindings that fire for `event` on the device named `deviceName` whose kernel node is
    /// `deviceNode` (nil when unknown).
    public func bindings(matching event: GestureEvent, deviceName: String?, deviceNode: String? = nil)
        -> [GestureBinding]
    {
        bindings.filter { $0.match?.matches(event, deviceName: deviceName, deviceNode: deviceNode) ?? false }
    }

    /// The bindings that fire for a device-health message (docs/FLEET.md).
    public func bindings(matching message: DeviceMessage) -> [GestureBinding] {
        bindings.filter { $0.health?.matches(message) ?? false }
    }

    /// Every key code a `keys` action presses (the virtual keyboard must have them).
    public var keyCodes: Set<UInt16> {
        var codes = Set<UInt16>()
        for b in bindings { if case .keys(let chord) = b.action { codes.formUnion(chord.codes) } }
        return codes
    }
}

/// One `[[binding]]`: where it is in the file, what it matches and what it does.
public struct GestureBinding: Sendable, Equatable {
    /// 1-based position among the file's `[[binding]]` tables.
    public var index: Int
    /// Line of its `[[binding]]` header, when known.
    public var line: Int?
    /// What a gesture binding matches (nil for a health binding).
    public var match: GestureMatch?
    /// What a device-health binding matches (nil for a gesture binding).
    public var health: HealthMatch?
    public var action: GestureAction

    public init(index: Int, line: Int?, match: GestureMatch, action: GestureAction) {
        self.index = index; self.line = line; self.match = match; self.action = action
    }

    public init(index: Int, line: Int?, health: HealthMatch, action: GestureAction) {
        self.index = index; self.line = line; self.health = health; self.action = action
    }

    /// `binding 2 (line 9)`, for log lines.
    public var label: String { line.map { "binding \(index) (line \($0))" } ?? "binding \(index)" }
}

/// A gesture pattern: every field that is set must equal the event's; unset fields match anything.
public struct GestureMatch: Sendable, Equatable {
    public var gesture: GestureKind
    /// The phase that fires: `recognized` for discrete gestures, `began` by default for continuous
    /// ones (once per gesture), or `ended` / `cancelled`. Never `changed` (every frame).
    public var phase: GesturePhase
    public var fingers: Int?
    public var taps: Int?
    public var direction: SwipeDirection?
    public var edge: DisplayEdge?
    public var hand: Hand?
    /// A device id (`ep0430m09@pci-0000:00:14.0-usb-0:2:1.0`, `replay:demo`), its kernel node
    /// (`event5`, which can change on replug) or its name (`EP0430M09`), as subscribe filters take.
    public var device: String?

    public init(
        gesture: GestureKind, phase: GesturePhase? = nil, fingers: Int? = nil, taps: Int? = nil,
        direction: SwipeDirection? = nil, edge: DisplayEdge? = nil, hand: Hand? = nil, device: String? = nil
    ) {
        self.gesture = gesture
        self.phase = phase ?? gesture.firingPhase
        self.fingers = fingers; self.taps = taps; self.direction = direction; self.edge = edge
        self.hand = hand; self.device = device
    }

    public func matches(_ e: GestureEvent, deviceName: String?, deviceNode: String? = nil) -> Bool {
        guard e.gesture == gesture, e.phase == phase else { return false }
        if let fingers, e.fingers != fingers { return false }
        if let taps, e.taps != taps { return false }
        if let direction, e.direction != direction { return false }
        if let edge, e.edge != edge { return false }
        if let hand, e.hand != hand { return false }
        if let device, e.device != device, deviceName != device, deviceNode != device { return false }
        return true
    }
}

/// A device-health pattern (`health = "lost"`): the event, and optionally the device.
public struct HealthMatch: Sendable, Equatable {
    public var event: DeviceMessage.Event
    /// A device id, kernel node or name, as for gestures.
    public var device: String?

    /// The events a health binding may name: every `device` event but `added` and `removed`.
    public static let events: [DeviceMessage.Event] = [.stuck, .unstuck, .lost, .back, .flood, .dropped]

    public init(event: DeviceMessage.Event, device: String? = nil) { self.event = event; self.device = device }

    public func matches(_ m: DeviceMessage) -> Bool {
        guard m.health != nil, m.event == event else { return false }
        if let device, m.device.id != device, m.device.name != device, m.device.node != device { return false }
        return true
    }
}

/// What a binding does.
public enum GestureAction: Sendable, Equatable {
    /// Runs a program with these arguments (the first is looked up in PATH), no shell;
    /// `{placeholders}` are replaced by the event's fields.
    case run([ArgumentTemplate])
    /// Runs `/bin/sh -c SCRIPT` (`shell = true`); the event's fields are in the environment only.
    case shell(String)
    /// Presses a key chord on the virtual keyboard.
    case keys(KeyChord)
}

extension GestureKind {
    /// Discrete gestures fire when recognised; continuous ones when they begin (once per gesture).
    public var isDiscrete: Bool { traits.isDiscrete }

    /// The phase a binding fires on unless it names one.
    public var firingPhase: GesturePhase { isDiscrete ? .recognized : .began }

    /// The phases a binding may name for this gesture (`changed` would run an action every frame).
    public var bindablePhases: [GesturePhase] { isDiscrete ? [.recognized] : [.began, .ended, .cancelled] }

    /// Whether its events carry `fingers` (per-touch sub-gestures carry `touch` instead).
    var hasFingers: Bool { !traits.isPerTouch }
    var hasTaps: Bool { self == .tap || self == .touchTap }
    var hasDirection: Bool { self == .swipe || self == .touchSwipe }
    var hasEdge: Bool { self == .swipe }
}
