import HandyProtocol

/// The fields of a gesture event a command can use: as `{name}` in a `run` argument, and as the
/// environment variable `HANDYD_NAME` (upper snake case) of every command, `shell = true` ones too.
public enum EventField: String, Sendable, CaseIterable {
    case gesture, phase, fingers, taps, direction, edge, hand, clearSide, device
    /// Where it happened, 0…1 of the display (`position`, else `centroid`).
    case x, y
    /// The same in millimetres (`positionMm`, else `centroidMm`).
    case xMm, yMm

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
        }
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
                throw Problem(message: "unknown placeholder {\(name)}; the placeholders are "
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
    public func expand(for e: GestureEvent) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .field(let f): out += f.value(in: e) ?? ""
            }
        }
        return out
    }
}
