import HandyProtocol

/// The fields of a gesture event a command can use: as `{name}` in a `run` argument, and as the
/// environment variable `HANDYD_NAME` (upper snake case) of every command, `shell = true` ones too.
public enum EventField: String, Sendable, CaseIterable {
    case gesture, phase, fingers, taps, direction, edge, hand, clearSide, device
    /// Where it happened, 0…1 of the display (`position`, else `centroid`).
    case x, y
    /// The same in millimetres (`positionMm`, else `centroidMm`; a stuck contact's position).
    case xMm, yMm
    /// Device-health bindings: the event (`stuck`, `lost`, …), the device's kernel node, the
    /// stuck contact's touch id.
    case health, node, touch

    /// `HANDYD_CLEAR_SIDE`, `HANDYD_X_MM`.
    public var environmentName: String {
        var out = "HANDYD_"
        for c in rawValue {
            if c.isUppercase { out += "_" }
            out += c.uppercased()
        }
        return out
    }

    /// The field's text in `event`, nil when the event has none (an empty argument, no variable).
    public func value(in e: GestureEvent) -> String? {
        switch self {
        case .gesture: e.gesture.rawValue
        case .phase: e.phase.rawValue
        case .fingers: e.fingers.map(String.init)
        case .taps: e.taps.map(String.init)
        case .direction: e.direction?.rawValue
        case .edge: e.edge?.rawValue
        case .hand: e.hand?.rawValue
        case .clearSide: e.clearSide?.rawValue
        case .device: e.device
        case .x: (e.position ?? e.centroid).map { Self.number($0.x) }
        case .y: (e.position ?? e.centroid).map { Self.number($0.y) }
        case .xMm: (e.positionMm ?? e.centroidMm).map { Self.number($0.x) }
        case .yMm: (e.positionMm ?? e.centroidMm).map { Self.number($0.y) }
        case .health, .node, .touch: nil
        }
    }

    /// The field's text in a device-health message (only the device, the event, its node, and a
    /// stuck contact's touch and position).
    public func value(in m: DeviceMessage) -> String? {
        switch self {
        case .device: m.device.id
        case .health: m.event.rawValue
        case .node: m.device.node
        case .touch: m.health?.touch.map(String.init)
        case .xMm: m.health?.xMm.map(Self.number)
        case .yMm: m.health?.yMm.map(Self.number)
        default: nil
        }
    }

    /// `HANDYD_*` variables for every field a health message has.
    public static func environment(for m: DeviceMessage) -> [String: String] {
        var env: [String: String] = [:]
        for field in allCases { if let v = field.value(in: m) { env[field.environmentName] = v } }
        return env
    }

    /// As the wire writes it: `50`, not `50.0`.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), Swift.abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// `HANDYD_*` variables for every field `event` has.
    public static func environment(for e: GestureEvent) -> [String: String] {
        var env: [String: String] = [:]
        for field in allCases { if let v = field.value(in: e) { env[field.environmentName] = v } }
        return env
    }
}

/// One `run` argument: literal text with `{field}` placeholders (`{{` and `}}` are literal braces).
public struct ArgumentTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case text(String)
        case field(EventField)
    }
    var parts: [Part]
    /// The argument as written in the file.
    public let source: String

    /// Why a template does not parse: the message names the placeholder.
    public struct Problem: Error, Sendable, Equatable { public var message: String }

    public init(parsing source: String) throws(Problem) {
        self.source = source
        var parts: [Part] = []
        var text = ""
        var i = source.startIndex
        while i < source.endIndex {
            let c = source[i]
            let next = source.index(after: i)
            if c == "{", next < source.endIndex, source[next] == "{" {
                text.append("{"); i = source.index(after: next); continue
            }
            if c == "}", next < source.endIndex, source[next] == "}" {
                text.append("}"); i = source.index(after: next); continue
            }
            if c == "}" { throw Problem(message: "a lone \"}\" (write \"}}\" for a brace)") }
            guard c == "{" else { text.append(c); i = next; continue }
            guard let close = source[next...].firstIndex(of: "}") else {
                throw Problem(message: "\"{\" without \"}\" (write \"{{\" for a brace)")
            }
            let name = String(source[next..<close])
            guard let field = EventField(rawValue: name) else {
                throw Problem(
                    message: "unknown placeholder {\(name)}; the placeholders are "
                        + EventField.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", "))
            }
            if !text.isEmpty { parts.append(.text(text)); text = "" }
            parts.append(.field(field))
            i = source.index(after: close)
        }
        if !text.isEmpty || parts.isEmpty { parts.append(.text(text)) }
        self.parts = parts
    }

    /// The argument for `event`: each placeholder replaced by the field's text, or by nothing.
    public func expand(for e: GestureEvent) -> String { expand { $0.value(in: e) } }

    /// The argument for a device-health message.
    public func expand(for m: DeviceMessage) -> String { expand { $0.value(in: m) } }

    private func expand(_ value: (EventField) -> String?) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .field(let f): out += value(f) ?? ""
            }
        }
        return out
    }
}
