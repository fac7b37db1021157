import HandyProtocol

/// Rotate: two or more fingers turning around their centroid. Reports `rotation` (radians since
/// began, clockwise positive as y grows downwards), `rotationVelocity` (rad/s), `centroid`,
/// `fingers`; on `ended` the release `rotationVelocity` and `glideRotation` (momentum). The
/// rotation of N fingers is the least-squares (Procrustes) rotation of their positions about the
/// centroid from frame to frame: `atan2(Σ p×q, Σ p·q)`.
///
/// The state machine is ``ContinuousGestureRecognizer``'s; what is rotate's own:
///
/// ```
///          2+ fingers                 |rotation| ≥ rotateTurns (1/50 turn)
///  idle ─────────────▶ possible ──── and arc per finger ≥ decideMotionPerFingerMm ───▶ active ─┐
///   ▲ ◀── < 2 fingers ───┘ │ ▲  pan travel > transformWindowMm: reference slides forward  │ ▲    │ changed
///   │                      │ └─────────────────────────────────┘                          │ └────┘
///   │                      └─ policy forbids / cancel ─▶ blocked ◀─ palm / cancel ────────┤ (cancelled)
///   │                                                     │ all fingers up                │ < 2 fingers / gate (ended)
///   └─────────────────────────────────────────────────────┘◀──────────────────────────────┘──▶ possible if 1 left
/// ```
/// With the two-finger long-press gate on, a two-finger rotate only begins while a two-finger long
/// press is held and ends when it is released.
typealias RotateRecognizer = ContinuousGestureRecognizer<RotateMeasure>

extension ContinuousGestureRecognizer where Measure == RotateMeasure {
    init() { self.init(measure: RotateMeasure()) }
}

/// Rotate's measure: the rotation since the reference (radians).
struct RotateMeasure: ContinuousGestureMeasure {
    struct Progress: Sendable {
        var rotation: Double = 0
        var travelMm = PhysicalPoint.zero
    }

    static let kind = GestureKind.rotate
    static let minimumFingers = 2
    static let followsTwoFingerGate = true
    static let noProgress = Progress()
    static let noValue = 0.0

    mutating func observe(_ m: FrameMotion) {}

    func progress(_ r: inout Progress, _ m: FrameMotion, _ c: GestureConfiguration) -> Bool {
        r.rotation += m.deltaRotation
        r.travelMm = r.travelMm + m.deltaMm
        let arcMm = Swift.abs(r.rotation) * m.spanMm / 2
        if Swift.abs(r.rotation) >= c.rotateThresholdRadians && arcMm >= c.decideMotionPerFingerMm { return true }
        if r.travelMm.length > c.transformWindowMm { r = Progress() }
        return false
    }

    mutating func begin(_ m: FrameMotion, velocity: inout VelocityEstimator, _ c: GestureConfiguration) {
        velocity.add(m.time, x: 0, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
    }

    func apply(
        _ m: FrameMotion, to rotation: inout Double, velocity: inout VelocityEstimator, _ c: GestureConfiguration
    ) -> Bool {
        let turned = m.deltaRotation != 0
        rotation += m.deltaRotation
        if turned { velocity.add(m.time, x: rotation, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs) }
        return turned
    }

    func describe(_ e: inout CoreGestureEvent, value rotation: Double, _ ctx: borrowing ArenaContext) {
        e.rotation = rotation
    }

    func describeChange(
        _ e: inout CoreGestureEvent, velocity: VelocityEstimator, at time: Timestamp, _ c: GestureConfiguration
    ) {
        e.rotationVelocity = velocity.velocityX(at: time, pauseMs: c.velocityPauseMs)
    }

    func describeRelease(
        _ e: inout CoreGestureEvent, value: Double, velocity: VelocityEstimator, at time: Timestamp,
        _ c: GestureConfiguration
    ) {
        let v = velocity.velocityX(at: time, pauseMs: c.velocityPauseMs)
        e.rotationVelocity = v
        e.glideRotation = v * c.momentumTimeConstantSeconds
    }
}
