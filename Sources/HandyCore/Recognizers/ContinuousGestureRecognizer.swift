import HandyProtocol

/// What makes one continuous gesture (pinch, rotate, pan) itself: what it accumulates, when it
/// begins, and the fields of its events. ``ContinuousGestureRecognizer`` does the rest, the same
/// way for all three.
protocol ContinuousGestureMeasure: Sendable {
    /// What accumulates while the gesture is possible (the reference it is measured against).
    associatedtype Progress: Sendable
    /// What accumulates while it is active (scale, rotation, translation).
    associatedtype Value: Sendable

    static var kind: GestureKind { get }
    /// Fewer fingers than this: the gesture cannot be possible, and an active one ends.
    static var minimumFingers: Int { get }
    /// Whether the policy's two-finger long-press gate applies to two-finger gestures of this kind.
    static var followsTwoFingerGate: Bool { get }
    static var noProgress: Progress { get }
    static var noValue: Value { get }

    /// Sees every frame with at least ``minimumFingers`` fingers, whatever the state (pinch keeps
    /// the span for its events).
    mutating func observe(_ m: FrameMotion)
    /// Possible: adds the frame's motion to `progress`; true when the gesture begins now. It may
    /// move its reference forward (pinch and rotate slide it after a long pan).
    func progress(_ progress: inout Progress, _ m: FrameMotion, _ c: GestureConfiguration) -> Bool
    /// The gesture begins: decide what it keeps for its life (pinch: the hand), and give the
    /// velocity estimator (just reset) its first sample.
    mutating func begin(_ m: FrameMotion, velocity: inout VelocityEstimator, _ c: GestureConfiguration)
    /// Active: applies the frame's motion to `value`, sampling `velocity`; true if the value changed.
    func apply(_ m: FrameMotion, to value: inout Value, velocity: inout VelocityEstimator, _ c: GestureConfiguration)
        -> Bool
    /// The measure's fields on every event of the gesture.
    /// `ctx` is `borrowing`: read where it lies, never copied (passed by plain value from the
    /// recognizers' `inout` context, the compiler copied the whole context, its strings and arrays
    /// retained, for every event; `inout` avoided that but said it was changed).
    func describe(_ e: inout CoreGestureEvent, value: Value, _ ctx: borrowing ArenaContext)
    /// The velocity field of a `changed` event.
    func describeChange(
        _ e: inout CoreGestureEvent, velocity: VelocityEstimator, at time: Timestamp, _ c: GestureConfiguration)
    /// The release fields of the `ended` event (velocity, glide for momentum).
    func describeRelease(
        _ e: inout CoreGestureEvent, value: Value, velocity: VelocityEstimator, at time: Timestamp,
        _ c: GestureConfiguration)
}

/// The state machine that pinch, rotate and pan share; each keeps only its measure and threshold
/// (``ContinuousGestureMeasure``).
///
/// ```
///        ≥ minimumFingers                 the measure's threshold passed
///  idle ─────────────────▶ possible ─────────────────────────────────────▶ active ─┐
///   ▲ ◀── no finger ──────┘  │ ▲ ▲  too few fingers / gate closed            │ ▲    │ changed
///   │                        │ │ └───────────────┘ (progress starts over)    │ └────┘
///   │                        │ └── ended with fewer than minimumFingers ─────┤
///   │                        └─ policy forbids / cancel ─▶ blocked ◀─ palm / cancel (cancelled),
///   │                                                        │       gate closed (ended)
///   └──────────────────── all fingers up ────────────────────┘◀──── all up (ended) ─┘
/// ```
/// - An active gesture cancels (reason `palm`) when one of its fingers turns into a palm and the
///   policy says palms cancel, or (`touch-cancelled`) when the tracker cancels one of its touches;
///   it then stays blocked until every finger lifts.
/// - It ends with fewer than ``ContinuousGestureMeasure/minimumFingers`` fingers, or when the
///   two-finger long-press gate it began under closes. With some fingers still down it becomes
///   possible again if too few remain to continue it, else blocked.
/// - Fingers joining or lifting keep the gesture (the motion is measured over the common fingers).
/// - The hand is decided when it begins (``ArenaContext/decideHand(_:mask:fingers:)``: the classifier with
///   two or more fingers, the contact's ellipse with one) and carried by every event.
/// - Velocity is estimated over the release window; `ended` carries the release velocity and the
///   glide (momentum) computed from it.
struct ContinuousGestureRecognizer<Measure: ContinuousGestureMeasure>: Sendable {
    enum State: Sendable {
        case idle
        case possible(Measure.Progress)
        case active(Active)
        case blocked
    }
    struct Active: Sendable {
        var id: UInt64
        var value: Measure.Value
        /// Every finger that took part since it began.
        var participants: TouchMask
        var fingers: Int
        /// Began as a two-finger gesture under the long-press gate: ends when the gate closes.
        var gated: Bool
        /// The hand that made it, decided when it began and repeated on every event.
        var hand: HandDecision
    }

    private(set) var state: State = .idle
    var measure: Measure
    private var velocity = VelocityEstimator()
    private var lastCentroidMm = PhysicalPoint.zero
    private var lastCentroidNormalized = NormalizedPoint(x: 0, y: 0)

    init(measure: Measure) { self.measure = measure }

    var isActive: Bool { if case .active = state { true } else { false } }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [CoreGestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced: break
        case .cancel(let time, let reason): cancel(at: time, reason: reason, &ctx, &out)
        }
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        let minimum = Measure.minimumFingers
        let gateApplies = Measure.followsTwoFingerGate && c.policy.twoFingerLongPressGatesPanAndRotate
        if m.fingers >= minimum {
            lastCentroidMm = m.centroidMm
            lastCentroidNormalized = m.centroidNormalized
            measure.observe(m)
        }
        switch state {
        case .idle:
            if m.fingers >= minimum { state = .possible(Measure.noProgress) }
        case .blocked:
            if m.fingers == 0 { state = .idle }
        case .possible(var p):
            if m.fingers < minimum { state = m.fingers == 0 ? .idle : .possible(Measure.noProgress); return }
            // While the gate is closed the view does not move: progress starts over.
            if gateApplies && m.fingers == 2 && !ctx.gateOpen { state = .possible(Measure.noProgress); return }
            guard measure.progress(&p, m, c) else { state = .possible(p); return }
            guard ctx.mayStart(Measure.kind) else { state = .blocked; return }
            let decided = ctx.decideHand(m.frame, mask: m.fingerMask, fingers: m.fingers)
            let a = Active(
                id: ctx.start(Measure.kind), value: Measure.noValue, participants: m.fingerMask,
                fingers: m.fingers, gated: gateApplies && m.fingers == 2,
                hand: decided)
            velocity.reset()
            measure.begin(m, velocity: &velocity, c)
            state = .active(a)
            var began = event(.began, a, m.time, ctx)
            began.touches = a.participants.ids  // once per gesture: which touches it started with
            out.append(began)
        case .active(var a):
            if m.newPalmMask.intersects(a.participants), c.policy.palmCancels {
                cancel(at: m.time, reason: "palm", &ctx, &out); return
            }
            if m.cancelledMask.intersects(a.participants) {
                cancel(at: m.time, reason: "touch-cancelled", &ctx, &out); return
            }
            let changed = measure.apply(m, to: &a.value, velocity: &velocity, c)
            if m.fingers < minimum || (a.gated && !ctx.gateOpen) {
                var e = event(.ended, a, m.time, ctx)
                measure.describeRelease(&e, value: a.value, velocity: velocity, at: m.time, c)
                out.append(e)
                state = m.fingers == 0 ? .idle : (m.fingers < minimum ? .possible(Measure.noProgress) : .blocked)
                return
            }
            let fingersChanged = a.fingers != m.fingers
            a.fingers = m.fingers
            a.participants = a.participants | m.fingerMask
            state = .active(a)
            if changed || fingersChanged || m.deltaMm != .zero {
                let measure = self.measure, velocity = self.velocity
                out.append(event(.changed, a, m.time, ctx)) { e in
                    measure.describeChange(&e, velocity: velocity, at: m.time, c)
                }
            }
        }
    }

    private mutating func cancel(
        at time: Timestamp, reason: String, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
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

    /// `ctx` `borrowing`, as in ``ContinuousGestureMeasure/describe(_:value:_:)``.
    @inline(__always) private func event(
        _ phase: GesturePhase, _ a: Active, _ time: Timestamp, _ ctx: borrowing ArenaContext
    ) -> CoreGestureEvent {
        var e = ctx.event(Measure.kind, phase, id: a.id, time: time)
        e.fingers = a.fingers
        e.centroid = lastCentroidNormalized
        e.centroidMm = lastCentroidMm
        e.setHand(a.hand)
        measure.describe(&e, value: a.value, ctx)
        return e
    }
}

extension ContinuousGestureRecognizer: GestureRecognizer {
    static var kinds: [GestureKind] { [Measure.kind] }
    var stateName: String { Self.caseName(state) }
}
