#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HandyProtocol

/// Thresholds (mm, ms) and arena policy for the recognizers; every value is overridable per device
/// with ``apply(overrides:)`` (udev properties `HANDYD_THRESHOLD_<KEY>`, see docs/DEVICES.md).
///
/// Defaults and where they come from:
/// - `touchSlopMm` 2.5 mm: the distance a finger may drift and still be a tap / long press, and the
///   distance a pan must travel to begin. Android's touch slop is 8 dp = 8/160 in = 1.27 mm and
///   libinput's tap motion threshold is 1.3 mm, both for phones and touchpads; a touchscreen contact
///   is a whole fingertip pad (8–15 mm) whose centre rolls by 1–2 mm on press and lift, many kiosk
///   panels have coarse sensors (Atmel maXTouch 800×480), and without a kernel resolution handyd
///   guesses the size (250 mm wide), so it may be off by 2×. One slop for tap and pan (as Android)
///   means a tap never also pans.
/// - `tapTimeoutMs` 180 ms: libinput's tap timeout (first finger down to last finger up).
/// - `doubleTapTimeoutMs` 300 ms: Android DOUBLE_TAP_TIMEOUT (lift to the next touch down).
/// - `doubleTapSlopMm` 15.875 mm: Android DOUBLE_TAP_SLOP 100 dp = 100/160 in (how far the next tap may land).
/// - `longPressMs` 500 ms: iOS minimumPressDuration 0.5 s and Android's long-press timeout before
///   Android 13 (400 ms after); 500 keeps it well apart from taps on slow touchscreens.
/// - `decideMotionPerFingerMm` 1.5 mm: libinput decides a multi-finger gesture once the fingers
///   moved ~1.5 mm each; pinch and rotate need that much motion of each finger besides their ratio.
/// - `pinchRatio` 1.1: grail/geis pinch threshold (span grows or shrinks by 10 %).
/// - `rotateTurns` 1/50 turn (7.2°): grail/geis rotate threshold.
/// - `transformWindowMm` 20 mm: while undecided, pinch and rotate must reach their thresholds within
///   20 mm of pan travel, else their reference slides forward. Two-finger scrolls drift (the Wacom
///   ISDv4 `double-center-scroll` turns 9° and spreads 8 % over 105 mm of scrolling); a drift spread
///   over a long pan never adds up to a pinch or rotate, a deliberate one does.
/// - `palmMajorMm` 25 mm: fingertip contacts are 8–15 mm long, a flat thumb ~20 mm, the heel of a
///   hand 30 mm and more (libinput's touchpad palm size quirks use the same idea in device units).
/// - `palmMajorMmAssumedSize` 40 mm: replaces `palmMajorMm` on a device whose size is the 250 mm
///   guess (no resolution, no `HANDYD_SIZE_MM`, ``DeviceGeometry/isSizeAssumed``). A 156 mm wide
///   screen taken for 250 mm inflates every contact 1.6×, so a flat thumb would look like a palm
///   (5–7 of 600 synthetic pinches were lost that way); 25 × 1.6 = 40 keeps thumbs on screens down to
///   that width, and a real palm (40–60 mm) on screens up to ~400 mm.
/// - `swipeMinDistanceMm` 15 mm, `swipeMinSpeedMmPerSecond` 150 mm/s, `swipeMaxDurationMs` 400 ms,
///   `swipeMaxAngleDegrees` 30°: a swipe is short, fast and straight. 15 mm ≈ 100 px at 160 dpi
///   (the distance of the common Android swipe recipe); 150 mm/s is faster than the recorded
///   two-finger scrolls (55–100 mm/s), so a drag is not a swipe; 30° around an axis (libinput
///   buckets directions in 45° octants, narrower here so a diagonal stroke is no swipe).
/// - `flickMinSpeedMmPerSecond` 100 mm/s: a release velocity below it is a stop, not a flick
///   (Android's minimum fling velocity 50 dp/s ≈ 8 mm/s is for continuing a scroll, too low to call
///   a stroke a flick).
/// - `velocityWindowMs` 100 ms and `velocityPauseMs` 40 ms: Android VelocityTracker's horizon and
///   its ASSUME_POINTER_STOPPED_TIME (a pause resets the estimate, so a finger that stopped and then
///   lifted has no velocity).
/// - `momentumDecayPerMs` 0.998: iOS UIScrollView normal deceleration rate (velocity × 0.998 per
///   ms, an exponential decay); the glide is `v · τ` with `τ = -1 / (1000 · ln 0.998)` ≈ 0.5 s.
public struct GestureConfiguration: Hashable, Sendable {
    // MARK: thresholds
    public var touchSlopMm: Double = 2.5
    public var tapTimeoutMs: Double = 180
    public var doubleTapTimeoutMs: Double = 300
    public var doubleTapSlopMm: Double = 15.875
    public var longPressMs: Double = 500
    public var decideMotionPerFingerMm: Double = 1.5
    public var pinchRatio: Double = 1.1
    public var rotateTurns: Double = 1.0 / 50.0
    public var transformWindowMm: Double = 20
    public var palmMajorMm: Double = 25
    public var palmMajorMmAssumedSize: Double = 40
    public var swipeMinDistanceMm: Double = 15
    public var swipeMinSpeedMmPerSecond: Double = 150
    public var swipeMaxDurationMs: Double = 400
    public var swipeMaxAngleDegrees: Double = 30
    public var flickMinSpeedMmPerSecond: Double = 100
    public var velocityWindowMs: Double = 100
    public var velocityPauseMs: Double = 40
    public var momentumDecayPerMs: Double = 0.998
    /// Handedness dead zones (see ``SeedHandednessRule``).
    public var handVerticalDeadZoneMm: Double = 5
    public var handHorizontalDeadZoneMm: Double = 3

    // MARK: policy (data, read by the arena)
    /// Which gestures may be recognised in the same touch sequence (see ``GesturePolicy``).
    public var policy: GesturePolicy = .default

    public init() {}

    /// Rotation threshold in radians.
    public var rotateThresholdRadians: Double { rotateTurns * 2 * Double.pi }
    /// Glide time constant τ in seconds: an exponential decay `v(t) = v₀ · decay^(t/ms)` travels `v₀ · τ`.
    public var momentumTimeConstantSeconds: Double {
        let d = momentumDecayPerMs
        guard d > 0, d < 1 else { return 0 }
        return -1 / (1000 * log(d))
    }

    /// The override keys ``apply(overrides:)`` understands (udev `HANDYD_THRESHOLD_<KEY>` with `_` → `-`, lower case).
    public static let overrideKeys: [String] = [
        "touch-slop-mm", "tap-slop-mm", "tap-timeout-ms", "double-tap-timeout-ms", "double-tap-slop-mm",
        "long-press-ms", "decide-mm", "pinch-ratio", "rotate-turns", "rotate-degrees", "transform-window-mm",
        "palm-major-mm", "palm-major-mm-assumed-size", "swipe-min-distance-mm", "swipe-min-speed-mm-s", "swipe-max-duration-ms",
        "swipe-max-angle-degrees", "flick-min-speed-mm-s", "velocity-window-ms", "velocity-pause-ms",
        "momentum-decay-per-ms", "hand-vertical-dead-zone-mm", "hand-horizontal-dead-zone-mm",
        "simultaneous", "tap-waits-for-double-tap", "palm-cancels", "two-finger-long-press-gates",
    ]

    /// Applies per-device overrides such as `["tap-timeout-ms": "200", "pinch-ratio": "1.15"]`.
    ///
    /// Numbers must be finite and in range (positive; ratios above 1; decay in 0…1). Policy keys:
    /// `simultaneous` = comma-separated pairs `pinch+rotate,pinch+pan` (replaces the table),
    /// `tap-waits-for-double-tap` = finger counts `1,2` (or `none`), `palm-cancels` and
    /// `two-finger-long-press-gates` = `true`/`false`/`1`/`0`.
    /// - Returns: the keys that were rejected (unknown key or bad value), sorted; nothing of a
    ///   rejected key is applied.
    public mutating func apply(overrides: [String: String]) -> [String] {
        var rejected: [String] = []
        for (key, raw) in overrides.sorted(by: { $0.key < $1.key }) {
            let value = raw.trimmingSpaces
            if !applyOne(key: key.lowercased(), value: value) { rejected.append(key) }
        }
        return rejected
    }

    private mutating func applyOne(key: String, value: String) -> Bool {
        func positive(_ set: (inout GestureConfiguration, Double) -> Void) -> Bool {
            guard let v = Double(value), v.isFinite, v > 0 else { return false }
            set(&self, v)
            return true
        }
        switch key {
        case "touch-slop-mm", "tap-slop-mm": return positive { $0.touchSlopMm = $1 }
        case "tap-timeout-ms": return positive { $0.tapTimeoutMs = $1 }
        case "double-tap-timeout-ms": return positive { $0.doubleTapTimeoutMs = $1 }
        case "double-tap-slop-mm": return positive { $0.doubleTapSlopMm = $1 }
        case "long-press-ms": return positive { $0.longPressMs = $1 }
        case "decide-mm": return positive { $0.decideMotionPerFingerMm = $1 }
        case "pinch-ratio":
            guard let v = Double(value), v.isFinite, v > 1 else { return false }
            pinchRatio = v
            return true
        case "rotate-turns": return positive { $0.rotateTurns = $1 }
        case "rotate-degrees": return positive { $0.rotateTurns = $1 / 360 }
        case "transform-window-mm": return positive { $0.transformWindowMm = $1 }
        case "palm-major-mm": return positive { $0.palmMajorMm = $1 }
        case "palm-major-mm-assumed-size": return positive { $0.palmMajorMmAssumedSize = $1 }
        case "swipe-min-distance-mm": return positive { $0.swipeMinDistanceMm = $1 }
        case "swipe-min-speed-mm-s": return positive { $0.swipeMinSpeedMmPerSecond = $1 }
        case "swipe-max-duration-ms": return positive { $0.swipeMaxDurationMs = $1 }
        case "swipe-max-angle-degrees":
            guard let v = Double(value), v.isFinite, v > 0, v <= 45 else { return false }
            swipeMaxAngleDegrees = v
            return true
        case "flick-min-speed-mm-s": return positive { $0.flickMinSpeedMmPerSecond = $1 }
        case "velocity-window-ms": return positive { $0.velocityWindowMs = $1 }
        case "velocity-pause-ms": return positive { $0.velocityPauseMs = $1 }
        case "momentum-decay-per-ms":
            guard let v = Double(value), v.isFinite, v > 0, v < 1 else { return false }
            momentumDecayPerMs = v
            return true
        case "hand-vertical-dead-zone-mm":
            guard let v = Double(value), v.isFinite, v >= 0 else { return false }
            handVerticalDeadZoneMm = v
            return true
        case "hand-horizontal-dead-zone-mm":
            guard let v = Double(value), v.isFinite, v >= 0 else { return false }
            handHorizontalDeadZoneMm = v
            return true
        case "simultaneous":
            guard let pairs = GesturePolicy.parsePairs(value) else { return false }
            policy.simultaneous = pairs
            return true
        case "tap-waits-for-double-tap":
            if value.lowercased() == "none" || value.isEmpty { policy.tapWaitsForDoubleTapFingers = []; return true }
            var fingers = Set<Int>()
            for part in value.split(separator: ",") {
                guard let n = Int(String(part).trimmingSpaces), n > 0, n <= 10 else { return false }
                fingers.insert(n)
            }
            policy.tapWaitsForDoubleTapFingers = fingers
            return true
        case "palm-cancels":
            guard let b = parseBool(value) else { return false }
            policy.palmCancels = b
            return true
        case "two-finger-long-press-gates":
            guard let b = parseBool(value) else { return false }
            policy.twoFingerLongPressGatesPanAndRotate = b
            return true
        default:
            return false
        }
    }
}

/// The arena policy as data: which gestures may coexist, and the few switches of the seed library.
///
/// Stored as bit masks, so copying a configuration on the hot path costs no reference counting.
public struct GesturePolicy: Hashable, Sendable {
    /// Bit `index(a) * kinds + index(b)` set when a and b may coexist (both orders are set).
    private var pairsLow: UInt64 = 0
    private var pairsHigh: UInt64 = 0
    /// Bit n set when an n-finger tap waits for the double-tap timeout.
    private var tapWaitBits: UInt32 = 0

    /// Unordered pairs of gestures that may both be recognised in one touch sequence (from the
    /// first finger down to the last finger up). A gesture whose kind is not paired with every
    /// gesture already recognised in the sequence does not start until all fingers lift.
    /// Per-touch sub-gestures (`touch-*`) are a separate layer and are not governed by this table.
    public var simultaneous: Set<GesturePair> {
        get {
            var out = Set<GesturePair>()
            for a in GestureKind.allCases { for b in GestureKind.allCases where a != b && pairBit(a, b) { out.insert(GesturePair(a, b)) } }
            return out
        }
        set {
            pairsLow = 0; pairsHigh = 0
            for p in newValue { setPair(p.first, p.second); setPair(p.second, p.first) }
        }
    }
    /// Finger counts (1…31) whose tap waits for the double-tap timeout to pass, then reports once
    /// with the final `taps` count. Other finger counts report every tap at once (`taps` 1, then 2, ...).
    public var tapWaitsForDoubleTapFingers: Set<Int> {
        get { Set((1...31).filter { tapWaitBits & (1 << UInt32($0)) != 0 }) }
        set { tapWaitBits = 0; for n in newValue where n >= 1 && n <= 31 { tapWaitBits |= 1 << UInt32(n) } }
    }
    /// A touch that becomes a palm cancels the gestures it took part in (reason `palm`).
    public var palmCancels: Bool
    /// Seed option: two-finger pan and rotate only move while a two-finger long press is held.
    public var twoFingerLongPressGatesPanAndRotate: Bool

    public init(simultaneous: Set<GesturePair>, tapWaitsForDoubleTapFingers: Set<Int> = [], palmCancels: Bool = true,
                twoFingerLongPressGatesPanAndRotate: Bool = false) {
        self.palmCancels = palmCancels
        self.twoFingerLongPressGatesPanAndRotate = twoFingerLongPressGatesPanAndRotate
        self.simultaneous = simultaneous
        self.tapWaitsForDoubleTapFingers = tapWaitsForDoubleTapFingers
    }

    /// pinch, rotate and pan together (pinch-rotate-drag in one motion); a long press may turn into
    /// a drag, pinch or rotate; a swipe is also a (fast) pan. Everything else is exclusive.
    public static let `default` = GesturePolicy(simultaneous: [
        GesturePair(.pinch, .rotate), GesturePair(.pinch, .pan), GesturePair(.rotate, .pan),
        GesturePair(.longPress, .pan), GesturePair(.longPress, .pinch), GesturePair(.longPress, .rotate),
        GesturePair(.swipe, .pan),
    ])

    /// True when `a` and `b` may both be recognised in one sequence (a kind always coexists with itself).
    @inline(__always) public func allows(_ a: GestureKind, with b: GestureKind) -> Bool {
        a == b || pairBit(a, b)
    }

    /// True when an n-finger tap waits for the double-tap timeout.
    @inline(__always) public func tapWaits(fingers n: Int) -> Bool {
        n >= 1 && n <= 31 && tapWaitBits & (1 << UInt32(n)) != 0
    }

    @inline(__always) private func pairBit(_ a: GestureKind, _ b: GestureKind) -> Bool {
        let i = a.policyIndex * GestureKind.allCases.count + b.policyIndex
        return i < 64 ? pairsLow & (1 << UInt64(i)) != 0 : pairsHigh & (1 << UInt64(i - 64)) != 0
    }

    private mutating func setPair(_ a: GestureKind, _ b: GestureKind) {
        let i = a.policyIndex * GestureKind.allCases.count + b.policyIndex
        if i < 64 { pairsLow |= 1 << UInt64(i) } else { pairsHigh |= 1 << UInt64(i - 64) }
    }

    /// Parses `pinch+rotate,pinch+pan` (or `none`); nil when a name is unknown.
    static func parsePairs(_ text: String) -> Set<GesturePair>? {
        if text.lowercased() == "none" || text.isEmpty { return [] }
        var out = Set<GesturePair>()
        for item in text.split(separator: ",") {
            let names = item.split(separator: "+").map { String($0).trimmingSpaces }
            guard names.count == 2, let a = GestureKind(rawValue: names[0]), let b = GestureKind(rawValue: names[1]) else { return nil }
            out.insert(GesturePair(a, b))
        }
        return out
    }
}

extension GestureKind {
    /// 0…10, the position in `allCases` (11 kinds: 121 pair bits fit in two words).
    @inline(__always) var policyIndex: Int {
        switch self {
        case .pinch: 0
        case .rotate: 1
        case .pan: 2
        case .tap: 3
        case .longPress: 4
        case .swipe: 5
        case .touchTap: 6
        case .touchHold: 7
        case .touchSwipe: 8
        case .touchPan: 9
        case .touchFlick: 10
        }
    }
}

/// An unordered pair of gesture kinds.
public struct GesturePair: Hashable, Sendable {
    public let first: GestureKind
    public let second: GestureKind
    public init(_ a: GestureKind, _ b: GestureKind) {
        if a.rawValue <= b.rawValue { first = a; second = b } else { first = b; second = a }
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

extension GestureConfiguration {
    /// These thresholds as they apply to a device of this geometry: on a device whose size is only
    /// assumed, the palm threshold is ``palmMajorMmAssumedSize``.
    public func applying(_ geometry: DeviceGeometry) -> GestureConfiguration {
        var c = self
        if geometry.isSizeAssumed { c.palmMajorMm = palmMajorMmAssumedSize }
        return c
    }
}
