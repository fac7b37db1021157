import HandyProtocol

/// The per-device overrides of the thresholds and policy: the parser and its table of keys.
extension GestureConfiguration {
    /// The keys ``apply(overrides:)`` understands (udev `HANDYD_THRESHOLD_<KEY>` with `_` → `-`,
    /// lower case), aliases included, in the order of ``overrideSettings``.
    public static let overrideKeys: [String] = overrideSettings.flatMap { [$0.key] + $0.aliases }

    /// Applies per-device overrides such as `["tap-timeout-ms": "200", "pinch-ratio": "1.15"]`.
    /// - Returns: the keys that were rejected, sorted (see ``applyOverrides(_:)`` for why).
    @discardableResult
    package mutating func apply(overrides: [String: String]) -> [String] {
        applyOverrides(overrides).map(\.key)
    }

    /// Applies per-device overrides, each checked against its entry in ``overrideSettings``: a
    /// number must be decimal, finite and within the entry's range; a policy value must parse.
    ///
    /// Nothing of a rejected key is applied, so its setting keeps the value it had (the default
    /// on a fresh configuration). Two keys for one setting (`touch-slop-mm` and its alias
    /// `tap-slop-mm`, or `rotate-turns` and `rotate-degrees`): the first valid one in key order
    /// applies, the others are rejected.
    /// - Returns: one rejection per key not applied, sorted by key, each saying what the key
    ///   accepts and the value the setting has now.
    public mutating func applyOverrides(_ overrides: [String: String]) -> [OverrideRejection] {
        var rejections: [(OverrideRejection, OverrideSetting?)] = []
        var appliedKeyByField: [String: String] = [:]
        for (key, raw) in overrides.sorted(by: { $0.key < $1.key }) {
            let name = key.lowercased()
            guard let setting = Self.overrideSetting(named: name) else {
                rejections.append(
                    (
                        OverrideRejection(
                            key: key, value: raw, reason: "unknown threshold name (the names are in docs/GESTURES.md)"),
                        nil
                    ))
                continue
            }
            if let other = appliedKeyByField[setting.field] {
                rejections.append(
                    (
                        OverrideRejection(key: key, value: raw, reason: "sets the same as \(other), which is used"),
                        setting
                    ))
                continue
            }
            if let problem = setting.apply(raw.trimmingSpaces, to: &self) {
                rejections.append((OverrideRejection(key: key, value: raw, reason: problem), setting))
            } else {
                appliedKeyByField[setting.field] = key
            }
        }
        // Said after everything applied: the value in use may come from another key.
        return rejections.map { rejection, setting in
            guard let setting else { return rejection }
            var r = rejection
            r.reason += "; using \(setting.currentText(self))"
            return r
        }
    }

    /// The entry for `name` (a key or an alias, lower case), nil when there is none.
    public static func overrideSetting(named name: String) -> OverrideSetting? {
        overrideSettingsByName[name]
    }

    private static let overrideSettingsByName: [String: OverrideSetting] = {
        var byName: [String: OverrideSetting] = [:]
        for s in overrideSettings { for name in [s.key] + s.aliases { byName[name] = s } }
        return byName
    }()
}

/// One key of ``GestureConfiguration/apply(overrides:)``: the values it accepts and what it means.
public struct OverrideSetting: Sendable {
    /// The values a setting accepts.
    public enum Accepted: Sendable, Equatable {
        /// A finite decimal number within the range (inclusive), in `unit` ("" for a ratio).
        case number(ClosedRange<Double>, unit: String)
        /// Comma-separated pairs of multi-finger gestures (`pinch+rotate,pinch+pan`), or `none`.
        case gesturePairs
        /// Comma-separated finger counts 1 … 10, or `none`.
        case fingerCounts
        /// true or false (also 1/0, yes/no, on/off).
        case boolean

        /// What is accepted, as docs/GESTURES.md's "accepted" column says it (`1 … 60000 ms`).
        public var summary: String {
            switch self {
            case .number(let range, let unit):
                let text =
                    "\(GestureConfiguration.formatSetting(range.lowerBound)) … \(GestureConfiguration.formatSetting(range.upperBound))"
                return unit.isEmpty ? text : "\(text) \(unit)"
            case .gesturePairs:
                return
                    "pairs `a+b` of \(GesturePolicy.pairableKinds.map(\.rawValue).joined(separator: ", ")), comma-separated, or `none`"
            case .fingerCounts: return "finger counts 1 … 10, comma-separated, or `none`"
            case .boolean: return "`true` or `false` (also 1/0, yes/no, on/off)"
            }
        }
    }

    /// The name in kebab case (`tap-timeout-ms`; udev `HANDYD_THRESHOLD_TAP_TIMEOUT_MS`).
    public let key: String
    /// Other names for the same setting, in the same unit.
    public let aliases: [String]
    /// The ``GestureConfiguration`` property it sets (two keys for one property conflict).
    public let field: String
    /// The values it accepts.
    public let accepted: Accepted
    /// A value the parser accepts (docs/GESTURES.md shows it; the tests apply it).
    public let example: String
    /// What the setting changes, in a few words.
    public let meaning: String
    /// The setting's value in `c`, as a number in ``Accepted/number(_:unit:)``'s unit (nil for a policy key).
    public let numericValue: (@Sendable (GestureConfiguration) -> Double)?
    private let currentTextOf: @Sendable (GestureConfiguration) -> String
    private let parse: @Sendable (String, inout GestureConfiguration) -> Bool

    init(
        key: String, aliases: [String] = [], field: String, accepted: Accepted, example: String, meaning: String,
        numericValue: (@Sendable (GestureConfiguration) -> Double)? = nil,
        currentText: @escaping @Sendable (GestureConfiguration) -> String,
        parse: @escaping @Sendable (String, inout GestureConfiguration) -> Bool
    ) {
        self.key = key; self.aliases = aliases; self.field = field; self.accepted = accepted
        self.example = example; self.meaning = meaning; self.numericValue = numericValue
        self.currentTextOf = currentText; self.parse = parse
    }

    static func number(
        _ key: String, aliases: [String] = [], field: String, _ range: ClosedRange<Double>, _ unit: String,
        example: String, _ meaning: String,
        get: @escaping @Sendable (GestureConfiguration) -> Double,
        set: @escaping @Sendable (inout GestureConfiguration, Double) -> Void
    ) -> OverrideSetting {
        OverrideSetting(
            key: key, aliases: aliases, field: field, accepted: .number(range, unit: unit), example: example,
            meaning: meaning,
            numericValue: get,
            currentText: { c in
                unit.isEmpty
                    ? GestureConfiguration.formatSetting(get(c))
                    : "\(GestureConfiguration.formatSetting(get(c))) \(unit)"
            },
            parse: { text, c in
                guard let v = GestureConfiguration.parseDecimal(text), range.contains(v) else { return false }
                set(&c, v)
                return true
            })
    }

    /// The setting's value in `c`, in the form the parser takes plus the unit (`180 ms`, `pinch+pan`, `true`).
    public func currentText(_ c: GestureConfiguration) -> String { currentTextOf(c) }

    /// Applies `text` (already trimmed) to `c`; nil when applied, else why not (nothing applied).
    func apply(_ text: String, to c: inout GestureConfiguration) -> String? {
        if parse(text, &c) { return nil }
        if case .number = accepted {
            return GestureConfiguration.parseDecimal(text) == nil
                ? "not a number, accepted \(accepted.summary)" : "out of range, accepted \(accepted.summary)"
        }
        return "not accepted, expected \(accepted.summary)"
    }
}

/// A key ``GestureConfiguration/applyOverrides(_:)`` did not apply.
public struct OverrideRejection: Hashable, Sendable, CustomStringConvertible {
    /// The key as given.
    public var key: String
    /// The value as given.
    public var value: String
    /// Why, what the key accepts, and the value in use instead (`out of range, accepted 1 … 60000 ms; using 500 ms`).
    public var reason: String
    /// `key="value": reason`.
    public var description: String { "\(key)=\"\(value)\": \(reason)" }
}

extension GestureConfiguration {
    /// A plain decimal number (`250`, `-1.5`, `1e3`): no `inf`, `nan`, hex or inner spaces, so a
    /// value means what it looks like. Every number in a device property is read with it.
    package static func parseDecimal(_ text: String) -> Double? {
        guard !text.isEmpty,
            text.utf8.allSatisfy({
                ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2b || $0 == 0x2d || $0 == 0x65 || $0 == 0x45
            }),
            let v = Double(text), v.isFinite
        else { return nil }
        return v
    }

    /// A number as the docs and problem lines show it: whole numbers without `.0`.
    package static func formatSetting(_ v: Double) -> String {
        if v == v.rounded(), Swift.abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}

/// true or false, also 1/0, yes/no, on/off (a policy switch in ``GestureConfiguration/overrideSettings``).
func parseBool(_ s: String) -> Bool? {
    switch s.lowercased() {
    case "1", "true", "yes", "on": true
    case "0", "false", "no", "off": false
    default: nil
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
