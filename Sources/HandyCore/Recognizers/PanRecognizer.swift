import HandyProtocol

/// Pan: N fingers moving together. Reports `translation` since began (mm and normalised), the
/// current `velocity` (mm/s, least squares), `fingers`, `centroid`; on `ended` the release
/// velocity and `glideMm` (momentum).
///
/// The state machine is ``ContinuousGestureRecognizer``'s; what is pan's own:
///
/// ```
///            finger down                      centroid moved ≥ touchSlopMm
///   idle ───────────────▶ possible ───────────────────────────────────────▶ active ──┐ frame:
///    ▲                     │  │ policy forbids / cancel                       │  │ ▲  └ changed
///    │   all fingers up    │  └──────────────▶ blocked ◀── palm / cancel ──────┘  │
///    ├─────────────────────┘                      │         (cancelled)          │ all up / gate closed
///    └──────────────── all fingers up ────────────┘◀─────── (ended) ─────────────┘
/// ```
/// Fingers joining or lifting keep the same pan (deltas are measured over the common fingers);
/// the pan ends when the last finger lifts. With the two-finger long-press gate on, a two-finger
/// pan only begins while a two-finger long press is held and ends when it is released.
typealias PanRecognizer = ContinuousGestureRecognizer<PanMeasure>

extension ContinuousGestureRecognizer where Measure == PanMeasure {
    init() { self.init(measure: PanMeasure()) }
}

/// Pan's measure: the centroid's travel (mm).
struct PanMeasure: ContinuousGestureMeasure {
    static let kind = GestureKind.pan
    static let minimumFingers = 1
    static let followsTwoFingerGate = true
    static let noProgress = PhysicalPoint.zero
    static let noValue = PhysicalPoint.zero

    mutating func observe(_ m: FrameMotion) {}

    func progress(_ travelMm: inout PhysicalPoint, _ m: FrameMotion, _ c: GestureConfiguration) -> Bool {
        travelMm = travelMm + m.deltaMm
        return travelMm.length >= c.touchSlopMm
    }

    mutating func begin(_ m: FrameMotion, velocity: inout VelocityEstimator, _ c: GestureConfiguration) {
        velocity.add(m.time, x: 0, y: 0, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
    }

    func apply(
        _ m: FrameMotion, to translationMm: inout PhysicalPoint, velocity: inout VelocityEstimator,
        _ c: GestureConfiguration
    ) -> Bool {
        let moved = m.deltaMm.x != 0 || m.deltaMm.y != 0
        translationMm = translationMm + m.deltaMm
        if moved {
            velocity.add(
                m.time, x: translationMm.x, y: translationMm.y, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs
            )
        }
        return moved
    }

    func describe(_ e: inout CoreGestureEvent, value translationMm: PhysicalPoint, _ ctx: borrowing ArenaContext) {
        e.translationMm = translationMm
        e.translation = ctx.normalized(translationMm)
    }

    func describeChange(
        _ e: inout CoreGestureEvent, velocity: VelocityEstimator, at time: Timestamp, _ c: GestureConfiguration
    ) {
        let v = velocity.velocity(at: time, pauseMs: c.velocityPauseMs)
        e.velocity = PhysicalPoint(x: v.x, y: v.y)
    }

    func describeRelease(
        _ e: inout CoreGestureEvent, value: PhysicalPoint, velocity: VelocityEstimator, at time: Timestamp,
        _ c: GestureConfiguration
    ) {
        let v = velocity.velocity(at: time, pauseMs: c.velocityPauseMs)
        let tau = c.momentumTimeConstantSeconds
        e.velocity = PhysicalPoint(x: v.x, y: v.y)
        e.glideMm = PhysicalPoint(x: v.x * tau, y: v.y * tau)
    }
}
