import HandyProtocol

/// The per-device overrides of the thresholds and policy: the parser and its table of keys.
extension GestureConfiguration {
    /// The keys ``apply(overrides:)`` understands (udev `HANDYD_THRESHOLD_<KEY>` with `_` → `-`,
    /// lower case), aliases included, in the order of ``overrideSettings``.
    public static let overrideKeys: [String] = overrideSettings.flatMap { [$0.key] + $0.aliases }

    /// Applies per-device overrides such as `["tap-timeout-ms": "200", "pinch-ratio": "1.15"]`.
    /// - Returns: the keys that were rejected, sorted (see ``applyOverrides(_:)`` for why).
    @discardableResult
    public mutating func apply(overrides: [String: String]) -> [String] {
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
                rejections.append((OverrideRejection(key: key, value: raw, reason: "unknown threshold name (the names are in docs/GESTURES.md)"), nil))
                continue
            }
            if let other = appliedKeyByField[setting.field] {
                rejections.append((OverrideRejection(key: key, value: raw, reason: "sets the same as \(other), which is used"), setting))
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

    /// Every override key with its accepted values and meaning: the one table the parser
    /// (``applyOverrides(_:)``), docs/GESTURES.md "Thresholds" (a test compares the two), the udev
    /// property parser (`DeviceConfiguration`) and the configuration fuzzer use.
    ///
    /// Ranges are wide enough for any real panel and narrow enough that no value makes a
    /// recognizer meaningless: times 1 ms … 1 min, slops 0.1 … 50 mm, angles within an octant.
    public static let overrideSettings: [OverrideSetting] = [
        .number("touch-slop-mm", aliases: ["tap-slop-mm"], field: "touchSlopMm", 0.1...50, "mm", example: "3",
                "how far a finger may drift and still tap or long-press; how far a pan travels to begin",
                get: { $0.touchSlopMm }, set: { $0.touchSlopMm = $1 }),
        .number("tap-timeout-ms", field: "tapTimeoutMs", 1...60_000, "ms", example: "250",
                "first finger down to last finger up, at most, for a tap",
                get: { $0.tapTimeoutMs }, set: { $0.tapTimeoutMs = $1 }),
        .number("double-tap-timeout-ms", field: "doubleTapTimeoutMs", 1...60_000, "ms", example: "400",
                "lift to the next touch down, at most, for a double tap",
                get: { $0.doubleTapTimeoutMs }, set: { $0.doubleTapTimeoutMs = $1 }),
        .number("double-tap-slop-mm", field: "doubleTapSlopMm", 0.1...50, "mm", example: "20",
                "how far from the first tap the next one may land",
                get: { $0.doubleTapSlopMm }, set: { $0.doubleTapSlopMm = $1 }),
        .number("long-press-ms", field: "longPressMs", 1...60_000, "ms", example: "800",
                "how long fingers stay still for a long press",
                get: { $0.longPressMs }, set: { $0.longPressMs = $1 }),
        .number("decide-mm", field: "decideMotionPerFingerMm", 0.1...50, "mm", example: "2",
                "motion of each finger before a pinch or rotate is decided",
                get: { $0.decideMotionPerFingerMm }, set: { $0.decideMotionPerFingerMm = $1 }),
        .number("pinch-ratio", field: "pinchRatio", 1.01...10, "", example: "1.15",
                "span ratio (grown or shrunk) that begins a pinch",
                get: { $0.pinchRatio }, set: { $0.pinchRatio = $1 }),
        .number("rotate-turns", field: "rotateTurns", 0.001...0.25, "turns", example: "0.03",
                "rotation that begins a rotate",
                get: { $0.rotateTurns }, set: { $0.rotateTurns = $1 }),
        .number("rotate-degrees", field: "rotateTurns", 0.36...90, "degrees", example: "10",
                "`rotate-turns` in degrees",
                get: { $0.rotateTurns * 360 }, set: { $0.rotateTurns = $1 / 360 }),
        .number("transform-window-mm", field: "transformWindowMm", 1...1_000, "mm", example: "30",
                "pan travel within which an undecided pinch or rotate must reach its threshold",
                get: { $0.transformWindowMm }, set: { $0.transformWindowMm = $1 }),
        .number("palm-major-mm", field: "palmMajorMm", 1...500, "mm", example: "30",
                "contact length from which a touch is a palm",
                get: { $0.palmMajorMm }, set: { $0.palmMajorMm = $1 }),
        .number("palm-major-mm-assumed-size", field: "palmMajorMmAssumedSize", 1...500, "mm", example: "45",
                "`palm-major-mm` on a device whose size is the 250 mm guess",
                get: { $0.palmMajorMmAssumedSize }, set: { $0.palmMajorMmAssumedSize = $1 }),
        .number("swipe-min-distance-mm", field: "swipeMinDistanceMm", 0.1...1_000, "mm", example: "20",
                "shortest swipe",
                get: { $0.swipeMinDistanceMm }, set: { $0.swipeMinDistanceMm = $1 }),
        .number("swipe-min-speed-mm-s", field: "swipeMinSpeedMmPerSecond", 1...100_000, "mm/s", example: "200",
                "slowest swipe (mean speed)",
                get: { $0.swipeMinSpeedMmPerSecond }, set: { $0.swipeMinSpeedMmPerSecond = $1 }),
        .number("swipe-max-duration-ms", field: "swipeMaxDurationMs", 1...60_000, "ms", example: "300",
                "longest swipe",
                get: { $0.swipeMaxDurationMs }, set: { $0.swipeMaxDurationMs = $1 }),
        .number("swipe-max-angle-degrees", field: "swipeMaxAngleDegrees", 1...45, "degrees", example: "20",
                "how far from an axis a swipe may run",
                get: { $0.swipeMaxAngleDegrees }, set: { $0.swipeMaxAngleDegrees = $1 }),
        .number("swipe-edge-mm", field: "swipeEdgeMm", 0.1...100, "mm", example: "15",
                "how close to a display edge a swipe must begin to come in from that edge",
                get: { $0.swipeEdgeMm }, set: { $0.swipeEdgeMm = $1 }),
        .number("flick-min-speed-mm-s", field: "flickMinSpeedMmPerSecond", 1...100_000, "mm/s", example: "150",
                "slowest flick (mean speed)",
                get: { $0.flickMinSpeedMmPerSecond }, set: { $0.flickMinSpeedMmPerSecond = $1 }),
        .number("velocity-window-ms", field: "velocityWindowMs", 1...60_000, "ms", example: "80",
                "motion before the release that the release velocity is fitted to",
                get: { $0.velocityWindowMs }, set: { $0.velocityWindowMs = $1 }),
        .number("velocity-pause-ms", field: "velocityPauseMs", 1...60_000, "ms", example: "50",
                "a pause this long before the release means no velocity",
                get: { $0.velocityPauseMs }, set: { $0.velocityPauseMs = $1 }),
        .number("momentum-decay-per-ms", field: "momentumDecayPerMs", 0.5...0.9999, "per ms", example: "0.99",
                "glide velocity factor per ms after a release",
                get: { $0.momentumDecayPerMs }, set: { $0.momentumDecayPerMs = $1 }),
        .number("hand-vertical-dead-zone-mm", field: "handVerticalDeadZoneMm", 0...100, "mm", example: "8",
                "seed handedness rule: below it the fingers are side by side",
                get: { $0.handVerticalDeadZoneMm }, set: { $0.handVerticalDeadZoneMm = $1 }),
        .number("hand-horizontal-dead-zone-mm", field: "handHorizontalDeadZoneMm", 0...100, "mm", example: "4",
                "seed handedness rule: below it one finger is straight above the other",
                get: { $0.handHorizontalDeadZoneMm }, set: { $0.handHorizontalDeadZoneMm = $1 }),
        .number("hand-minimum-confidence", field: "handMinimumConfidence", 0.5...1, "", example: "0.9",
                "confidence below which the published hand is `unknown` (`rightHandProbability` is still sent)",
                get: { $0.handMinimumConfidence }, set: { $0.handMinimumConfidence = $1 }),
        OverrideSetting(
            key: "simultaneous", field: "policy.simultaneous", accepted: .gesturePairs, example: "pinch+rotate,pinch+pan",
            meaning: "the gesture pairs that may be recognised in one touch sequence (replaces the table)",
            currentText: { c in
                let pairs = c.policy.simultaneous.map { "\($0.first.rawValue)+\($0.second.rawValue)" }.sorted()
                return pairs.isEmpty ? "none" : pairs.joined(separator: ",")
            },
            parse: { text, c in
                guard let pairs = GesturePolicy.parsePairs(text) else { return false }
                c.policy.simultaneous = pairs
                return true
            }),
        OverrideSetting(
            key: "tap-waits-for-double-tap", field: "policy.tapWaitsForDoubleTapFingers", accepted: .fingerCounts, example: "1,2",
            meaning: "finger counts whose tap waits out the double-tap timeout and is reported once",
            currentText: { c in
                let counts = c.policy.tapWaitsForDoubleTapFingers.sorted()
                return counts.isEmpty ? "none" : counts.map(String.init).joined(separator: ",")
            },
            parse: { text, c in
                guard let counts = GesturePolicy.parseFingerCounts(text) else { return false }
                c.policy.tapWaitsForDoubleTapFingers = counts
                return true
            }),
        OverrideSetting(
            key: "palm-cancels", field: "policy.palmCancels", accepted: .boolean, example: "false",
            meaning: "a finger turning into a palm cancels the gestures it took part in",
            currentText: { "\($0.policy.palmCancels)" },
            parse: { text, c in
                guard let b = parseBool(text) else { return false }
                c.policy.palmCancels = b
                return true
            }),
        OverrideSetting(
            key: "two-finger-long-press-gates", field: "policy.twoFingerLongPressGatesPanAndRotate", accepted: .boolean,
            example: "true",
            meaning: "two-finger pan and rotate only move while a two-finger long press is held",
            currentText: { "\($0.policy.twoFingerLongPressGatesPanAndRotate)" },
            parse: { text, c in
                guard let b = parseBool(text) else { return false }
                c.policy.twoFingerLongPressGatesPanAndRotate = b
                return true
            }),
    ]
}

/// One key of ``GestureConfiguration/apply(overrides:)``: the values it accepts and what it means.
public struct OverrideSetting: Sendable {
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
                let text = "\(GestureConfiguration.formatSetting(range.lowerBound)) … \(GestureConfiguration.formatSetting(range.upperBound))"
                return unit.isEmpty ? text : "\(text) \(unit)"
            case .gesturePairs: return "pairs `a+b` of \(GesturePolicy.pairableKinds.map(\.rawValue).joined(separator: ", ")), comma-separated, or `none`"
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
    public let accepted: Accepted
    /// A value the parser accepts (docs/GESTURES.md shows it; the tests apply it).
    public let example: String
    /// What the setting changes, in a few words.
    public let meaning: String
    /// The setting's value in `c`, as a number in ``Accepted/number(_:unit:)``'s unit (nil for a policy key).
    public let numericValue: (@Sendable (GestureConfiguration) -> Double)?
    private let currentTextOf: @Sendable (GestureConfiguration) -> String
    private let parse: @Sendable (String, inout GestureConfiguration) -> Bool

    init(key: String, aliases: [String] = [], field: String, accepted: Accepted, example: String, meaning: String,
         numericValue: (@Sendable (GestureConfiguration) -> Double)? = nil,
         currentText: @escaping @Sendable (GestureConfiguration) -> String,
         parse: @escaping @Sendable (String, inout GestureConfiguration) -> Bool) {
        self.key = key; self.aliases = aliases; self.field = field; self.accepted = accepted
        self.example = example; self.meaning = meaning; self.numericValue = numericValue
        self.currentTextOf = currentText; self.parse = parse
    }

    static func number(_ key: String, aliases: [String] = [], field: String, _ range: ClosedRange<Double>, _ unit: String,
                       example: String, _ meaning: String,
                       get: @escaping @Sendable (GestureConfiguration) -> Double,
                       set: @escaping @Sendable (inout GestureConfiguration, Double) -> Void) -> OverrideSetting {
        OverrideSetting(
            key: key, aliases: aliases, field: field, accepted: .number(range, unit: unit), example: example, meaning: meaning,
            numericValue: get,
            currentText: { c in unit.isEmpty ? GestureConfiguration.formatSetting(get(c)) : "\(GestureConfiguration.formatSetting(get(c))) \(unit)" },
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
            return GestureConfiguration.parseDecimal(text) == nil ? "not a number, accepted \(accepted.summary)" : "out of range, accepted \(accepted.summary)"
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
    public var description: String { "\(key)=\"\(value)\": \(reason)" }
}

extension GestureConfiguration {
    /// A plain decimal number (`250`, `-1.5`, `1e3`): no `inf`, `nan`, hex or inner spaces, so a
    /// value means what it looks like. Every number in a device property is read with it.
    public static func parseDecimal(_ text: String) -> Double? {
        guard !text.isEmpty,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2b || $0 == 0x2d || $0 == 0x65 || $0 == 0x45 }),
              let v = Double(text), v.isFinite else { return nil }
        return v
    }

    /// A number as the docs and problem lines show it: whole numbers without `.0`.
    public static func formatSetting(_ v: Double) -> String {
        if v == v.rounded(), Swift.abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}

private func parseBool(_ s: String) -> Bool? {
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
