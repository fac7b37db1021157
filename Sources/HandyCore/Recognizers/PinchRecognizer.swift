import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Pinch: two or more fingers spreading or closing. Reports `scale` (span now / span at began,
/// the span being twice the mean distance of all fingers from their centroid), `scaleVelocity`
/// (1/s), `spanMm`, `centroid`, `fingers`, and the `hand` that made it with `handConfidence` and
/// `clearSide`, decided when it begins and repeated on every event of the gesture. On `ended`:
/// release `scaleVelocity` and `glideScale` (momentum).
///
/// The state machine is ``ContinuousGestureRecognizer``'s; what is pinch's own:
///
/// ```
///          2+ fingers                 span ratio ≥ pinchRatio (or ≤ 1/pinchRatio)
///  idle ─────────────▶ possible ──── and each finger moved ≥ decideMotionPerFingerMm ───▶ active ─┐
///   ▲ ◀── < 2 fingers ───┘ │ ▲  pan travel > transformWindowMm: reference slides forward  │ ▲    │ changed
///   │                      │ └─────────────────────────────────┘                          │ └────┘
///   │                      └─ policy forbids / cancel ─▶ blocked ◀─ palm / cancel ────────┤ (cancelled)
///   │                                                     │ all fingers up                │ < 2 fingers (ended)
///   └─────────────────────────────────────────────────────┘◀──────────────────────────────┘──▶ possible if 1 left
/// ```
typealias PinchRecognizer = ContinuousGestureRecognizer<PinchMeasure>

extension ContinuousGestureRecognizer where Measure == PinchMeasure {
    init() { self.init(measure: PinchMeasure()) }
}

/// Pinch's measure: the scale since the reference.
struct PinchMeasure: ContinuousGestureMeasure {
    struct Progress: Sendable {
        var scale: Double = 1
        var travelMm = PhysicalPoint.zero
    }

    static let kind = GestureKind.pinch
    static let minimumFingers = 2
    static let followsTwoFingerGate = false
    static let noProgress = Progress()
    static let noValue = 1.0

    private var lastSpanMm = 0.0

    mutating func observe(_ m: FrameMotion) { lastSpanMm = m.spanMm }

    func progress(_ r: inout Progress, _ m: FrameMotion, _ c: GestureConfiguration) -> Bool {
        r.scale *= m.deltaScale
        r.travelMm = r.travelMm + m.deltaMm
        let ratio = Swift.max(r.scale, 1 / r.scale)
        // Radial motion of each finger: half the span change since the reference.
        let radialMm = Swift.abs(m.spanMm - m.spanMm / r.scale) / 2
        if ratio >= c.pinchRatio && radialMm >= c.decideMotionPerFingerMm { return true }
        if r.travelMm.length > c.transformWindowMm { r = Progress() }
        return false
    }

    mutating func begin(_ m: FrameMotion, velocity: inout VelocityEstimator, _ c: GestureConfiguration) {
        velocity.add(m.time, x: 1, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
    }

    /// The bounds of `scale` and `glideScale`: far beyond a hand (a span of 10 m from 1 cm is
    /// 1000×); they keep a device's absurd values (a crafted recording, positions far outside the
    /// declared range when the range is empty) finite, so every line stays decodable JSON.
    static let scaleBounds = 1e-6...1e6

    @inline(__always) static func bounded(_ v: Double) -> Double {
        Swift.min(Swift.max(v, scaleBounds.lowerBound), scaleBounds.upperBound)
    }

    func apply(_ m: FrameMotion, to scale: inout Double, velocity: inout VelocityEstimator, _ c: GestureConfiguration)
        -> Bool
    {
        let changed = m.deltaScale != 1
        scale = Self.bounded(scale * m.deltaScale)
        if changed { velocity.add(m.time, x: scale, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs) }
        return changed
    }

    func describe(_ e: inout CoreGestureEvent, value scale: Double, _ ctx: borrowing ArenaContext) {
        e.scale = scale
        e.spanMm = lastSpanMm
    }

    func describeChange(
        _ e: inout CoreGestureEvent, velocity: VelocityEstimator, at time: Timestamp, _ c: GestureConfiguration
    ) {
        e.scaleVelocity = velocity.velocityX(at: time, pauseMs: c.velocityPauseMs)
    }

    func describeRelease(
        _ e: inout CoreGestureEvent, value scale: Double, velocity: VelocityEstimator, at time: Timestamp,
        _ c: GestureConfiguration
    ) {
        let v = velocity.velocityX(at: time, pauseMs: c.velocityPauseMs)
        e.scaleVelocity = v
        // exp overflows to infinity past 709: a spread made in microseconds and lifted at once.
        let glide = exp(c.momentumTimeConstantSeconds * v / Swift.max(scale, 1e-6))
        e.glideScale = glide.isNaN ? 1 : Self.bounded(glide)
    }
}
