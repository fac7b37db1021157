import HandyProtocol

/// Rotate: two or more fingers turning around their centroid. Reports `rotation` (radians since
/// began, clockwise positive as y grows downwards), `rotationVelocity` (rad/s), `centroid`,
/// `fingers`; on `ended` the release `rotationVelocity` and `glideRotation` (momentum). The
/// rotation of N fingers is the least-squares (Procrustes) rotation of their positions about the
/// centroid from frame to frame: `atan2(Σ p×q, Σ p·q)`.
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
public struct RotateRecognizer: Sendable {
    enum State: Sendable {
        case idle
        case possible(Reference)
        case active(Active)
        case blocked
    }
    struct Reference: Sendable {
        var rotation: Double = 0
        var travelMm = PhysicalPoint.zero
    }
    struct Active: Sendable {
        var id: UInt64
        var rotation: Double
        var participants: TouchMask
        var fingers: Int
        var gated: Bool
    }

    private(set) var state: State = .idle
    private var velocity = VelocityEstimator()
    private var lastCentroidMm = PhysicalPoint.zero
    private var lastCentroidNormalized = NormalizedPoint(x: 0, y: 0)

    public init() {}

    var nextDeadline: Timestamp? { nil }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [GestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced: break
        case .cancel(let time, let reason): cancel(at: time, reason: reason, &ctx, &out)
        }
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [GestureEvent]) {
        let c = ctx.configuration
        let gateApplies = c.policy.twoFingerLongPressGatesPanAndRotate
        if m.fingers >= 2 {
            lastCentroidMm = m.centroidMm
            lastCentroidNormalized = m.centroidNormalized
        }
        switch state {
        case .idle:
            if m.fingers >= 2 { state = .possible(Reference()) }
        case .blocked:
            if m.fingers == 0 { state = .idle }
        case .possible(var r):
            if m.fingers < 2 { state = m.fingers == 0 ? .idle : .possible(Reference()); return }
            if gateApplies && m.fingers == 2 && !ctx.gateOpen { state = .possible(Reference()); return }
            r.rotation += m.deltaRotation
            r.travelMm = r.travelMm + m.deltaMm
            let arcMm = Swift.abs(r.rotation) * m.spanMm / 2
            if Swift.abs(r.rotation) >= c.rotateThresholdRadians && arcMm >= c.decideMotionPerFingerMm {
                guard ctx.mayStart(.rotate) else { state = .blocked; return }
                let a = Active(id: ctx.start(.rotate), rotation: 0, participants: m.fingerMask, fingers: m.fingers,
                               gated: gateApplies && m.fingers == 2)
                velocity.reset()
                velocity.add(m.time, x: 0, pauseMs: c.velocityPauseMs)
                state = .active(a)
                var began = event(.began, a, m.time, ctx)
                began.touches = a.participants.ids   // once per gesture: which touches it started with
                out.append(began)
                return
            }
            if r.travelMm.length > c.transformWindowMm { r = Reference() }
            state = .possible(r)
        case .active(var a):
            if m.newPalmMask.intersects(a.participants), c.policy.palmCancels {
                cancel(at: m.time, reason: "palm", &ctx, &out); return
            }
            if m.cancelledMask.intersects(a.participants) {
                cancel(at: m.time, reason: "touch-cancelled", &ctx, &out); return
            }
            let turned = m.deltaRotation != 0
            a.rotation += m.deltaRotation
            if turned { velocity.add(m.time, x: a.rotation, pauseMs: c.velocityPauseMs) }
            if m.fingers < 2 || (a.gated && !ctx.gateOpen) {
                var e = event(.ended, a, m.time, ctx)
                let v = velocity.velocityX(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                e.rotationVelocity = wireRounded(v, 4)
                e.glideRotation = wireRounded(v * c.momentumTimeConstantSeconds, 4)
                out.append(e)
                state = m.fingers == 0 ? .idle : (m.fingers == 1 ? .possible(Reference()) : .blocked)
                return
            }
            let fingersChanged = a.fingers != m.fingers
            a.fingers = m.fingers
            a.participants = a.participants | m.fingerMask
            state = .active(a)
            if turned || fingersChanged || m.deltaMm != .zero {
                let v = velocity.velocityX(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                out.append(event(.changed, a, m.time, ctx)) { e in e.rotationVelocity = wireRounded(v, 4) }
            }
        }
    }

    private mutating func cancel(at time: Timestamp, reason: String, _ ctx: inout ArenaContext, _ out: inout [GestureEvent]) {
        switch state {
        case .active(let a):
            var e = event(.cancelled, a, time, ctx)
            e.reason = reason
            out.append(e)
            state = .blocked
        case .possible: state = .blocked
        case .idle, .blocked: break
        }
    }

    private func event(_ phase: GesturePhase, _ a: Active, _ time: Timestamp, _ ctx: ArenaContext) -> GestureEvent {
        var e = ctx.event(.rotate, phase, id: a.id, time: time)
        e.fingers = a.fingers
        e.rotation = wireRounded(a.rotation, 5)
        e.centroid = ctx.wire(lastCentroidNormalized)
        e.centroidMm = ctx.wire(lastCentroidMm)
        return e
    }
}
