import HandyProtocol

/// Pan: N fingers moving together. Reports `translation` since began (mm and normalised), the
/// current `velocity` (mm/s, least squares), `fingers`, `centroid`; on `ended` the release
/// velocity and `glideMm` (momentum).
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
public struct PanRecognizer: Sendable {
    enum State: Sendable {
        case idle
        case possible(travelMm: PhysicalPoint)
        case active(Active)
        case blocked
    }
    struct Active: Sendable {
        var id: UInt64
        var translationMm: PhysicalPoint
        var participants: TouchMask
        var gated: Bool
        var fingers: Int
    }

    private(set) var state: State = .idle
    private var velocity = VelocityEstimator()
    private var lastCentroidMm = PhysicalPoint.zero
    private var lastCentroidNormalized = NormalizedPoint(x: 0, y: 0)

    public init() {}

    var nextDeadline: Timestamp? { nil }
    var isActive: Bool { if case .active = state { true } else { false } }

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
        if m.fingers > 0 {
            lastCentroidMm = m.centroidMm
            lastCentroidNormalized = m.centroidNormalized
        }
        switch state {
        case .idle:
            if m.fingers > 0 { state = .possible(travelMm: .zero) }
        case .blocked:
            if m.fingers == 0 { state = .idle }
        case .possible(var travel):
            if m.fingers == 0 { state = .idle; return }
            if gateApplies && m.fingers == 2 && !ctx.gateOpen {
                state = .possible(travelMm: .zero)   // the view does not move while the gate is closed
                return
            }
            travel = travel + m.deltaMm
            guard travel.length >= c.touchSlopMm else { state = .possible(travelMm: travel); return }
            guard ctx.mayStart(.pan) else { state = .blocked; return }
            let a = Active(id: ctx.start(.pan), translationMm: .zero, participants: m.fingerMask,
                           gated: gateApplies && m.fingers == 2, fingers: m.fingers)
            velocity.reset()
            velocity.add(m.time, x: 0, y: 0, pauseMs: c.velocityPauseMs)
            state = .active(a)
            var began = event(.began, a, m.time, ctx)
            began.touches = a.participants.ids   // once per gesture: which touches it started with
            out.append(began)
        case .active(var a):
            if m.newPalmMask.intersects(a.participants), c.policy.palmCancels {
                cancel(at: m.time, reason: "palm", &ctx, &out)
                return
            }
            if m.cancelledMask.intersects(a.participants) {
                cancel(at: m.time, reason: "touch-cancelled", &ctx, &out)
                return
            }
            let moved = m.deltaMm.x != 0 || m.deltaMm.y != 0
            a.translationMm = a.translationMm + m.deltaMm
            a.participants = a.participants | m.fingerMask
            if moved { velocity.add(m.time, x: a.translationMm.x, y: a.translationMm.y, pauseMs: c.velocityPauseMs) }
            if m.fingers == 0 || (a.gated && !ctx.gateOpen) {
                var e = event(.ended, a, m.time, ctx)
                let v = velocity.velocity(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                let tau = c.momentumTimeConstantSeconds
                e.velocity = WirePoint(x: wireRounded(v.x, 1), y: wireRounded(v.y, 1))
                e.glideMm = WirePoint(x: wireRounded(v.x * tau, 2), y: wireRounded(v.y * tau, 2))
                out.append(e)
                state = m.fingers == 0 ? .idle : .blocked
                return
            }
            let fingersChanged = m.fingers != a.fingers
            a.fingers = m.fingers
            state = .active(a)
            if moved || fingersChanged {
                let v = velocity.velocity(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                out.append(event(.changed, a, m.time, ctx)) { e in
                    e.velocity = WirePoint(x: wireRounded(v.x, 1), y: wireRounded(v.y, 1))
                }
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
        var e = ctx.event(.pan, phase, id: a.id, time: time)
        e.fingers = a.fingers
        e.translationMm = ctx.wire(a.translationMm)
        e.translation = ctx.normalized(a.translationMm)
        e.centroid = ctx.wire(lastCentroidNormalized)
        e.centroidMm = ctx.wire(lastCentroidMm)
        return e
    }
}
