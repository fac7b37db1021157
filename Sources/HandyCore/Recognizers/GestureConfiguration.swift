import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
/// - `swipeEdgeMm` 10 mm: a swipe whose fingers came down within 10 mm of a display edge, moving
///   away from it, comes in from that edge (`edge` on the wire). A finger sliding in from the bezel
///   is first reported once its pad (8–15 mm wide) is over the active area, so its centre lands
///   4–8 mm inside; 10 mm catches that and stays below the shortest swipe (15 mm). Android's back
///   gesture inset (24 dp ≈ 3.8 mm) is for phones whose glass curves into the bezel.
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
    /// A touch moving less than this (mm) is still.
    public var touchSlopMm: Double = 2.5
    /// A tap lifts within this many milliseconds.
    public var tapTimeoutMs: Double = 180
    var doubleTapTimeoutMs: Double = 300
    var doubleTapSlopMm: Double = 15.875
    /// A press held still this long (ms) is a long press.
    public var longPressMs: Double = 500
    /// Motion per finger (mm) before a multi-finger gesture is decided.
    public var decideMotionPerFingerMm: Double = 1.5
    /// Span ratio that starts a pinch.
    public var pinchRatio: Double = 1.1
    /// Turns that start a rotate.
    public var rotateTurns: Double = 1.0 / 50.0
    /// While undecided, pinch and rotate must reach their threshold within this much pan travel (mm).
    public var transformWindowMm: Double = 20
    /// A contact whose major axis is at least this (mm) is a palm.
    public var palmMajorMm: Double = 25
    var palmMajorMmAssumedSize: Double = 40
    /// The least distance (mm) of a swipe.
    public var swipeMinDistanceMm: Double = 15
    /// The least speed (mm/s) of a swipe.
    public var swipeMinSpeedMmPerSecond: Double = 150
    /// The longest time (ms) of a swipe.
    public var swipeMaxDurationMs: Double = 400
    /// The largest angle (degrees) of a swipe from its axis.
    public var swipeMaxAngleDegrees: Double = 30
    var swipeEdgeMm: Double = 10
    /// Below this speed (mm/s) at the lift a stroke is a stop, not a flick.
    public var flickMinSpeedMmPerSecond: Double = 100
    /// The window (ms) of the velocity estimate.
    public var velocityWindowMs: Double = 100
    /// A pointer still this long (ms) is taken as stopped.
    public var velocityPauseMs: Double = 40
    /// Momentum's decay per millisecond.
    public var momentumDecayPerMs: Double = 0.998
    /// Handedness dead zones (see ``SeedHandednessRule``).
    public var handVerticalDeadZoneMm: Double = 5
    /// Horizontal dead zone (mm) of the seed handedness rule.
    public var handHorizontalDeadZoneMm: Double = 3
    /// The daemon's own threshold on the published hand (`hand-minimum-confidence`): a decision
    /// less confident than this is published as `unknown` (confidence 0, `clearSide` unknown), its
    /// `rightHandProbability` kept. The default is the classifier's own (``EvidenceHandednessClassifier``'s
    /// 0.6), and at or below it nothing is withheld beyond each classifier's own threshold (the
    /// single-contact rule and the seed rule answer from 0.5); above it, every gesture and single
    /// contact less confident is `unknown`. It never publishes what a classifier withheld.
    var handMinimumConfidence: Double = GestureConfiguration.defaultHandMinimumConfidence
    static let defaultHandMinimumConfidence = 0.6

    // MARK: policy (data, read by the arena)
    /// Which gestures may be recognised in the same touch sequence (see ``GesturePolicy``).
    public var policy: GesturePolicy = .default

    /// The defaults (docs/GESTURES.md).
    public init() {}

    /// Rotation threshold in radians.
    var rotateThresholdRadians: Double { rotateTurns * 2 * Double.pi }
    /// Glide time constant τ in seconds: an exponential decay `v(t) = v₀ · decay^(t/ms)` travels `v₀ · τ`.
    var momentumTimeConstantSeconds: Double {
        let d = momentumDecayPerMs
        guard d > 0, d < 1 else { return 0 }
        return -1 / (1000 * log(d))
    }
}

extension GestureConfiguration {
    /// These thresholds as they apply to a device of this geometry: on a device whose size is only
    /// assumed, the palm threshold is ``palmMajorMmAssumedSize``.
    func applying(_ geometry: DeviceGeometry) -> GestureConfiguration {
        var c = self
        if geometry.isSizeAssumed { c.palmMajorMm = palmMajorMmAssumedSize }
        return c
    }
}

// The defaults a gesture brings with it, next to its thresholds above: its override keys and the
// kinds it may be recognised with (docs/ARCHITECTURE.md "Adding a gesture").

extension GestureConfiguration {
    /// Every override key with its accepted values and meaning: the one table the parser
    /// (``applyOverrides(_:)``), docs/GESTURES.md "Thresholds" (a test compares the two), the udev
    /// property parser (`DeviceConfiguration`) and the configuration fuzzer use.
    ///
    /// Ranges are wide enough for any real panel and narrow enough that no value makes a
    /// recognizer meaningless: times 1 ms … 1 min, slops 0.1 … 50 mm, angles within an octant.
    public static let overrideSettings: [OverrideSetting] = [
        .number(
            "touch-slop-mm", aliases: ["tap-slop-mm"], field: "touchSlopMm", 0.1...50, "mm", example: "3",
            "how far a finger may drift and still tap or long-press; how far a pan travels to begin",
            get: { $0.touchSlopMm }, set: { $0.touchSlopMm = $1 }),
        .number(
            "tap-timeout-ms", field: "tapTimeoutMs", 1...60_000, "ms", example: "250",
            "first finger down to last finger up, at most, for a tap",
            get: { $0.tapTimeoutMs }, set: { $0.tapTimeoutMs = $1 }),
        .number(
            "double-tap-timeout-ms", field: "doubleTapTimeoutMs", 1...60_000, "ms", example: "400",
            "lift to the next touch down, at most, for a double tap",
            get: { $0.doubleTapTimeoutMs }, set: { $0.doubleTapTimeoutMs = $1 }),
        .number(
            "double-tap-slop-mm", field: "doubleTapSlopMm", 0.1...50, "mm", example: "20",
            "how far from the first tap the next one may land",
            get: { $0.doubleTapSlopMm }, set: { $0.doubleTapSlopMm = $1 }),
        .number(
            "long-press-ms", field: "longPressMs", 1...60_000, "ms", example: "800",
            "how long fingers stay still for a long press",
            get: { $0.longPressMs }, set: { $0.longPressMs = $1 }),
        .number(
            "decide-mm", field: "decideMotionPerFingerMm", 0.1...50, "mm", example: "2",
            "motion of each finger before a pinch or rotate is decided",
            get: { $0.decideMotionPerFingerMm }, set: { $0.decideMotionPerFingerMm = $1 }),
        .number(
            "pinch-ratio", field: "pinchRatio", 1.01...10, "", example: "1.15",
            "span ratio (grown or shrunk) that begins a pinch",
            get: { $0.pinchRatio }, set: { $0.pinchRatio = $1 }),
        .number(
            "rotate-turns", field: "rotateTurns", 0.001...0.25, "turns", example: "0.03",
            "rotation that begins a rotate",
            get: { $0.rotateTurns }, set: { $0.rotateTurns = $1 }),
        .number(
            "rotate-degrees", field: "rotateTurns", 0.36...90, "degrees", example: "10",
            "`rotate-turns` in degrees",
            get: { $0.rotateTurns * 360 }, set: { $0.rotateTurns = $1 / 360 }),
        .number(
            "transform-window-mm", field: "transformWindowMm", 1...1_000, "mm", example: "30",
            "pan travel within which an undecided pinch or rotate must reach its threshold",
            get: { $0.transformWindowMm }, set: { $0.transformWindowMm = $1 }),
        .number(
            "palm-major-mm", field: "palmMajorMm", 1...500, "mm", example: "30",
            "contact length from which a touch is a palm",
            get: { $0.palmMajorMm }, set: { $0.palmMajorMm = $1 }),
        .number(
            "palm-major-mm-assumed-size", field: "palmMajorMmAssumedSize", 1...500, "mm", example: "45",
            "`palm-major-mm` on a device whose size is the 250 mm guess",
            get: { $0.palmMajorMmAssumedSize }, set: { $0.palmMajorMmAssumedSize = $1 }),
        .number(
            "swipe-min-distance-mm", field: "swipeMinDistanceMm", 0.1...1_000, "mm", example: "20",
            "shortest swipe",
            get: { $0.swipeMinDistanceMm }, set: { $0.swipeMinDistanceMm = $1 }),
        .number(
            "swipe-min-speed-mm-s", field: "swipeMinSpeedMmPerSecond", 1...100_000, "mm/s", example: "200",
            "slowest swipe (mean speed)",
            get: { $0.swipeMinSpeedMmPerSecond }, set: { $0.swipeMinSpeedMmPerSecond = $1 }),
        .number(
            "swipe-max-duration-ms", field: "swipeMaxDurationMs", 1...60_000, "ms", example: "300",
            "longest swipe",
            get: { $0.swipeMaxDurationMs }, set: { $0.swipeMaxDurationMs = $1 }),
        .number(
            "swipe-max-angle-degrees", field: "swipeMaxAngleDegrees", 1...45, "degrees", example: "20",
            "how far from an axis a swipe may run",
            get: { $0.swipeMaxAngleDegrees }, set: { $0.swipeMaxAngleDegrees = $1 }),
        .number(
            "swipe-edge-mm", field: "swipeEdgeMm", 0.1...100, "mm", example: "15",
            "how close to a display edge a swipe must begin to come in from that edge",
            get: { $0.swipeEdgeMm }, set: { $0.swipeEdgeMm = $1 }),
        .number(
            "flick-min-speed-mm-s", field: "flickMinSpeedMmPerSecond", 1...100_000, "mm/s", example: "150",
            "slowest flick (mean speed)",
            get: { $0.flickMinSpeedMmPerSecond }, set: { $0.flickMinSpeedMmPerSecond = $1 }),
        .number(
            "velocity-window-ms", field: "velocityWindowMs", 1...60_000, "ms", example: "80",
            "motion before the release that the release velocity is fitted to",
            get: { $0.velocityWindowMs }, set: { $0.velocityWindowMs = $1 }),
        .number(
            "velocity-pause-ms", field: "velocityPauseMs", 1...60_000, "ms", example: "50",
            "a pause this long before the release means no velocity",
            get: { $0.velocityPauseMs }, set: { $0.velocityPauseMs = $1 }),
        .number(
            "momentum-decay-per-ms", field: "momentumDecayPerMs", 0.5...0.9999, "per ms", example: "0.99",
            "glide velocity factor per ms after a release",
            get: { $0.momentumDecayPerMs }, set: { $0.momentumDecayPerMs = $1 }),
        .number(
            "hand-vertical-dead-zone-mm", field: "handVerticalDeadZoneMm", 0...100, "mm", example: "8",
            "seed handedness rule: below it the fingers are side by side",
            get: { $0.handVerticalDeadZoneMm }, set: { $0.handVerticalDeadZoneMm = $1 }),
        .number(
            "hand-horizontal-dead-zone-mm", field: "handHorizontalDeadZoneMm", 0...100, "mm", example: "4",
            "seed handedness rule: below it one finger is straight above the other",
            get: { $0.handHorizontalDeadZoneMm }, set: { $0.handHorizontalDeadZoneMm = $1 }),
        .number(
            "hand-minimum-confidence", field: "handMinimumConfidence", 0.5...1, "", example: "0.9",
            "confidence below which the published hand is `unknown` (`rightHandProbability` is still sent)",
            get: { $0.handMinimumConfidence }, set: { $0.handMinimumConfidence = $1 }),
        OverrideSetting(
            key: "simultaneous", field: "policy.simultaneous", accepted: .gesturePairs,
            example: "pinch+rotate,pinch+pan",
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
            key: "tap-waits-for-double-tap", field: "policy.tapWaitsForDoubleTapFingers", accepted: .fingerCounts,
            example: "1,2",
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

extension GesturePolicy {
    /// pinch, rotate and pan together (pinch-rotate-drag in one motion); a long press may turn into
    /// a drag, pinch or rotate; a swipe is also a (fast) pan. Everything else is exclusive.
    public static let `default` = GesturePolicy(simultaneous: [
        GesturePair(.pinch, .rotate), GesturePair(.pinch, .pan), GesturePair(.rotate, .pan),
        GesturePair(.longPress, .pan), GesturePair(.longPress, .pinch), GesturePair(.longPress, .rotate),
        GesturePair(.swipe, .pan),
    ])
}
