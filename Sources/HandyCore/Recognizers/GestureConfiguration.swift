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
    public var swipeEdgeMm: Double = 10
    public var flickMinSpeedMmPerSecond: Double = 100
    public var velocityWindowMs: Double = 100
    public var velocityPauseMs: Double = 40
    public var momentumDecayPerMs: Double = 0.998
    /// Handedness dead zones (see ``SeedHandednessRule``).
    public var handVerticalDeadZoneMm: Double = 5
    public var handHorizontalDeadZoneMm: Double = 3
    /// The daemon's own threshold on the published hand (`hand-minimum-confidence`): a decision
    /// less confident than this is published as `unknown` (confidence 0, `clearSide` unknown), its
    /// `rightHandProbability` kept. The default is the classifier's own (``EvidenceHandednessClassifier``'s
    /// 0.6), and at or below it nothing is withheld beyond each classifier's own threshold (the
    /// single-contact rule and the seed rule answer from 0.5); above it, every gesture and single
    /// contact less confident is `unknown`. It never publishes what a classifier withheld.
    public var handMinimumConfidence: Double = GestureConfiguration.defaultHandMinimumConfidence
    public static let defaultHandMinimumConfidence = 0.6

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
