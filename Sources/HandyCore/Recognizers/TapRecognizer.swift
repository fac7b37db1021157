import HandyProtocol

/// Tap: N fingers down and up again, each within `touchSlopMm` of where it came down, the first
/// down to the last up within `tapTimeoutMs`. `recognized` with `fingers` (most fingers down at
/// once), `taps`, `position` (mean of where the fingers came down) and the hand (decided on the most
/// fingers down at once, as pinch decides it; one finger: from its contact's ellipse).
///
/// Multi-tap: a tap whose fingers come down within `doubleTapTimeoutMs` of the previous tap's
/// lift, within `doubleTapSlopMm` of it and with the same finger count continues the count
/// (`taps: 2` is a double tap). By default each tap is reported at its lift (`taps` 1, then 2, ...);
/// for the finger counts in ``GesturePolicy/tapWaitsForDoubleTapFingers`` a tap waits until the
/// double-tap timeout passes with no further tap and is reported once with the final count.
///
/// ```
///          finger down                     all up, no finger beyond slop, within tapTimeoutMs
///  idle ─────────────▶ touching ───────────────────────────────────────────▶ (recognized) ─▶ idle
///   ▲ ▲                  │                                                  │ waits for double tap
///   │ │                  │ moved > slop / palm / lost touch /               ▼
///   │ │ all up           ▼ too long / policy forbids               pending(deadline) ── deadline ──▶ (recognized)
///   │ └───────────── failed                                          │ next tap down in time & near:
///   │                                                                │ counted on its lift
///   └────────────────────────────────────────────────────────────────┘
/// ```
package struct TapRecognizer: Sendable {
    enum State: Sendable {
        case idle
        case touching(Sequence)
        case failed
    }
    struct Sequence: Sendable {
        var firstDown: Timestamp
        var maxFingers: Int
        var sumMm = PhysicalPoint.zero
        var sumNX = 0.0, sumNY = 0.0
        var count = 0
        /// The hand, from the most fingers down at once.
        var hand = HandAtMostFingers()
        var positionMm: PhysicalPoint { count > 0 ? sumMm / Double(count) : .zero }
        var positionNormalized: NormalizedPoint {
            count > 0
                ? NormalizedPoint(x: sumNX / Double(count), y: sumNY / Double(count)) : NormalizedPoint(x: 0, y: 0)
        }
    }
    /// The last tap, for counting multi-taps.
    struct LastTap: Sendable {
        var lift: Timestamp
        var taps: Int
        var fingers: Int
        var positionMm: PhysicalPoint
        var positionNormalized: NormalizedPoint
        var hand: HandDecision
        /// Not reported yet: it waits for the double-tap timeout.
        var pending: Bool
    }

    private(set) var state: State = .idle
    private var last: LastTap?

    package init() {}

    /// When a pending tap is reported unless a second one comes. Takes the timeout alone: given the
    /// whole configuration, the arena's call copied it (~260 bytes) on every frame.
    func nextDeadline(doubleTapTimeoutMs: Double) -> Timestamp? {
        guard let last, last.pending else { return nil }
        return last.lift.after(milliseconds: doubleTapTimeoutMs)
    }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [CoreGestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced(let time):
            if let deadline = nextDeadline(doubleTapTimeoutMs: ctx.configuration.doubleTapTimeoutMs), deadline <= time {
                flushPending(at: deadline, &ctx, &out)
            }
        case .cancel:
            // A pending tap was complete: it is still reported at its deadline. A tap in progress fails.
            if case .touching = state { state = .failed }
        }
    }

    private mutating func flushPending(at time: Timestamp, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        guard let l = last, l.pending else { return }
        last?.pending = false
        emit(l, at: time, &ctx, &out)
    }

    private func emit(_ l: LastTap, at time: Timestamp, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        var e = ctx.event(.tap, .recognized, id: ctx.allocateID(), time: time)
        pendingEmit(&e, l, ctx)
        out.append(e)
    }

    private func pendingEmit(_ e: inout CoreGestureEvent, _ l: LastTap, _ ctx: ArenaContext) {
        e.fingers = l.fingers
        e.taps = l.taps
        e.position = l.positionNormalized
        e.positionMm = l.positionMm
        e.setHand(l.hand)
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        switch state {
        case .idle:
            guard !m.beganMask.isEmpty else { if m.fingers > 0 { state = .failed }; return }
            var s = Sequence(firstDown: m.time, maxFingers: m.fingers)
            add(m, to: &s)
            s.hand.observe(m, &ctx)
            // A new sequence that cannot continue the pending tap's count reports that tap now.
            if let l = last, l.pending, !canContinue(l, s, c) {
                last?.pending = false
                emit(l, at: m.time, &ctx, &out)
            }
            state = m.anyFingerBeyondSlop || !m.newPalmMask.isEmpty ? .failed : .touching(s)
            if m.fingers == 0 { finish(s, m, &ctx, &out) }
        case .failed:
            if m.fingers == 0 { state = .idle }
        case .touching(var s):
            if m.anyFingerBeyondSlop || !m.newPalmMask.isEmpty || !m.cancelledMask.isEmpty
                || m.time.ms(since: s.firstDown) > c.tapTimeoutMs
            {
                state = m.fingers == 0 ? .idle : .failed
                return
            }
            add(m, to: &s)
            s.hand.observe(m, &ctx)
            s.maxFingers = Swift.max(s.maxFingers, m.fingers)
            state = .touching(s)
            if m.fingers == 0 { finish(s, m, &ctx, &out) }
        }
    }

    private func add(_ m: FrameMotion, to s: inout Sequence) {
        guard !m.beganMask.isEmpty else { return }
        for t in m.frame.touches where m.beganMask.contains(t.id) {
            s.sumMm = s.sumMm + t.startMm
            s.sumNX += t.normalized.x
            s.sumNY += t.normalized.y
            s.count += 1
        }
    }

    private func canContinue(_ l: LastTap, _ s: Sequence, _ c: GestureConfiguration) -> Bool {
        s.firstDown.ms(since: l.lift) <= c.doubleTapTimeoutMs
            && s.positionMm.distance(to: l.positionMm) <= c.doubleTapSlopMm
    }

    /// All fingers are up: the sequence was a tap (the caller checked slop and time).
    private mutating func finish(
        _ s: Sequence, _ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        let c = ctx.configuration
        state = .idle
        guard s.maxFingers > 0, ctx.mayStart(.tap) else { return }
        var taps = 1
        if let l = last, l.fingers == s.maxFingers, canContinue(l, s, c) { taps = l.taps + 1 }
        let waits = c.policy.tapWaits(fingers: s.maxFingers)
        // A pending tap of another finger count is reported before this one.
        if let l = last, l.pending, taps == 1 {
            last?.pending = false
            emit(l, at: m.time, &ctx, &out)
        }
        let tap = LastTap(
            lift: m.time, taps: taps, fingers: s.maxFingers, positionMm: s.positionMm,
            positionNormalized: s.positionNormalized, hand: s.hand.decision, pending: waits)
        last = tap
        ctx.mark(.tap)  // the id is allocated when the tap is reported
        if !waits { emit(tap, at: m.time, &ctx, &out) }
    }
}

extension TapRecognizer: GestureRecognizer {
    static var kinds: [GestureKind] { [.tap] }
    static var usesTimers: Bool { true }
    func nextDeadline(_ context: ArenaContext) -> Timestamp? {
        nextDeadline(doubleTapTimeoutMs: context.configuration.doubleTapTimeoutMs)
    }
    var stateName: String { Self.caseName(state) }
}
