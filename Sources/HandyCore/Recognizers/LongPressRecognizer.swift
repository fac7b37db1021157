import HandyProtocol

/// Long press: N fingers held still (each within `touchSlopMm` of where it began) for
/// `longPressMs` after the last of them came down. `began` at that deadline (its time is the
/// deadline, not the next frame), `changed` when the fingers move while held (a long press may turn
/// into a drag: it is not cancelled by motion once begun), `ended` when one of its fingers lifts.
/// Reports `fingers`, `duration` (seconds since the first finger came down) and `position` (centroid).
///
/// ```
///          finger down                 deadline passes (time input)
///  idle ─────────────▶ waiting(deadline) ─────────────────────────────▶ active ─┐ frame with motion:
///   ▲    ▲ all up ◀──────┘ │ ▲ another finger down: deadline moves     │  ▲    │ changed
///   │    │                 │ └─────────┘                                │  └────┘
///   │    │                 └ moved > slop / a finger lifts /            │ a finger of it lifts (ended)
///   │    │                   policy forbids / cancel ─▶ failed          │ palm / cancel (cancelled)
///   │    └──────────────── all fingers up ◀─ failed ◀───────────────────┘
/// ```
package struct LongPressRecognizer: Sendable {
    enum State: Sendable {
        case idle
        case waiting(deadline: Timestamp, firstDown: Timestamp)
        case active(Active)
        case failed
    }
    struct Active: Sendable {
        var id: UInt64
        var fingers: Int
        var participants: TouchMask
        var firstDown: Timestamp
        /// Decided when it begins, from the fingers held (as pinch decides), repeated on every event.
        var hand: HandDecision
    }

    private(set) var state: State = .idle
    private var fingers = 0
    private var fingerMask = TouchMask()
    private var centroidMm = PhysicalPoint.zero
    private var centroidNormalized = NormalizedPoint(x: 0, y: 0)
    /// The hand of the fingers held, decided when the last of them came down: the long press
    /// begins on a timer, between frames, and its fingers have not moved since (beyond the slop).
    /// Kept as the answer, not the frame: holding the frame would make the tracker reallocate its
    /// frame buffer on every frame.
    private var waitingHand: HandDecision = .undecided

    package init() {}

    var nextDeadline: Timestamp? {
        if case .waiting(let deadline, _) = state { return deadline }
        return nil
    }

    /// Fingers of the long press being held (0 when none is).
    var activeFingers: Int { if case .active(let a) = state { a.fingers } else { 0 } }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [CoreGestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced(let time): advance(to: time, &ctx, &out)
        case .cancel(let time, let reason):
            switch state {
            case .active(let a):
                var e = event(.cancelled, a, time, ctx)
                e.reason = reason
                out.append(e)
                state = .failed
            case .waiting: state = .failed
            case .idle, .failed: break
            }
        }
    }

    private mutating func advance(to time: Timestamp, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        guard case .waiting(let deadline, let firstDown) = state, deadline <= time else { return }
        guard fingers > 0 else {
            ctx.bug("long-press: waiting with no finger down at \(time)")
            state = .idle
            return
        }
        guard ctx.mayStart(.longPress) else { state = .failed; return }
        let a = Active(
            id: ctx.start(.longPress), fingers: fingers, participants: fingerMask, firstDown: firstDown,
            hand: waitingHand)
        state = .active(a)
        var began = event(.began, a, deadline, ctx)
        began.touches = a.participants.ids  // once per gesture: which touches it started with
        out.append(began)
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        let previousFingers = fingers
        fingers = m.fingers
        fingerMask = m.fingerMask
        if m.fingers > 0 {
            centroidMm = m.centroidMm
            centroidNormalized = m.centroidNormalized
        }
        switch state {
        case .idle:
            if m.fingers > 0 {
                state = .waiting(deadline: m.time.after(milliseconds: c.longPressMs), firstDown: m.time)
                waitingHand = ctx.decideHand(m.frame, mask: m.fingerMask, fingers: m.fingers)
                if m.anyFingerBeyondSlop { state = .failed }
            }
        case .failed:
            if m.fingers == 0 { state = .idle }
        case .waiting(_, let firstDown):
            if m.fingers == 0 { state = .idle; return }
            if !m.liftedMask.isEmpty || !m.cancelledMask.isEmpty || !m.newPalmMask.isEmpty
                || m.anyFingerBeyondSlop || m.fingers < previousFingers
            {
                state = .failed
                return
            }
            if !m.beganMask.isEmpty {
                state = .waiting(deadline: m.time.after(milliseconds: c.longPressMs), firstDown: firstDown)
                waitingHand = ctx.decideHand(m.frame, mask: m.fingerMask, fingers: m.fingers)
            }
        case .active(let a):
            if m.newPalmMask.intersects(a.participants), c.policy.palmCancels {
                var e = event(.cancelled, a, m.time, ctx)
                e.reason = "palm"
                out.append(e)
                state = m.fingers == 0 ? .idle : .failed
                return
            }
            if m.cancelledMask.intersects(a.participants) {
                var e = event(.cancelled, a, m.time, ctx)
                e.reason = "touch-cancelled"
                out.append(e)
                state = m.fingers == 0 ? .idle : .failed
                return
            }
            if m.liftedMask.intersects(a.participants) || m.fingers == 0 {
                out.append(event(.ended, a, m.time, ctx))
                state = m.fingers == 0 ? .idle : .failed
                return
            }
            if m.deltaMm != .zero || m.deltaScale != 1 || m.deltaRotation != 0 {
                out.append(event(.changed, a, m.time, ctx))
            }
        }
    }

    private func event(_ phase: GesturePhase, _ a: Active, _ time: Timestamp, _ ctx: ArenaContext) -> CoreGestureEvent {
        var e = ctx.event(.longPress, phase, id: a.id, time: time)
        e.fingers = a.fingers
        e.duration = time.s(since: a.firstDown)
        e.position = centroidNormalized
        e.positionMm = centroidMm
        e.setHand(a.hand)
        return e
    }
}

extension LongPressRecognizer: GestureRecognizer {
    static var kinds: [GestureKind] { [.longPress] }
    static var usesTimers: Bool { true }
    /// With the policy's gate on, a two-finger hold lets two-finger pan and rotate start: the gate
    /// is up to date before the recognizers after this one see the input.
    func afterHandling(_ context: inout ArenaContext) { context.gateOpen = activeFingers == 2 }
    func nextDeadline(_ context: ArenaContext) -> Timestamp? { nextDeadline }
    var stateName: String { Self.caseName(state) }
}
