import HandyProtocol

/// Per-touch sub-gestures (the seed: each finger interpreted on its own, whatever the others do).
/// Every touch runs this small machine; the first sub-gesture that claims a touch wins it and the
/// others stop for that touch. Events carry the touch id in `touch` and the hand of that touch, read
/// from its contact's ellipse when it came down (``SingleContactHandedness``; `unknown` on devices
/// that report no orientation).
///
/// - `touch-tap` (recognized): lifted within `tapTimeoutMs`, never beyond `touchSlopMm`.
/// - `touch-hold` (recognized): still for `longPressMs`; reports `duration`.
/// - `touch-pan` (began/changed/ended): moved beyond the slop slowly, or a quick stroke that went on
///   past `swipeMaxDurationMs` or past `swipeMinDistanceMm` slower than a swipe; `translation` since
///   began, `velocity` (the tracker's estimate, mm/s).
/// - `touch-swipe` (recognized): a quick stroke (beyond the slop at ≥ `flickMinSpeedMmPerSecond`,
///   lifted within `swipeMaxDurationMs`) that is long, fast and within `swipeMaxAngleDegrees` of an
///   axis; `direction`, `velocity` (mean).
/// - `touch-flick` (recognized): a quick stroke that is not a swipe (diagonal, short or slower)
///   with a mean speed ≥ `flickMinSpeedMmPerSecond`; `velocity`, `translation`.
///
/// ```
///  began ─▶ undecided ── lift in time ─────────────────────────────▶ (touch-tap)
///             │  │ └──── still for longPressMs (time input) ─────────▶ (touch-hold) ─▶ claimed
///             │  └ beyond slop, slow ─▶ panning ─ move: changed ─ lift: ended / palm: cancelled
///             └ beyond slop, fast ─▶ stroke ─ lift: (touch-swipe) or (touch-flick) or nothing
///                                      └ still down after swipeMaxDurationMs, or past
///                                        swipeMinDistanceMm slower than a swipe ─▶ panning
///  claimed / failed ── lift ──▶ gone          palm or lost touch: anything in progress stops
/// ```
package struct TouchGestureRecognizer: Sendable {
    enum State: Sendable {
        case none
        case undecided(down: Timestamp)
        case stroke(down: Timestamp)
        case panning(id: UInt64, beganMm: PhysicalPoint)
        case claimed
    }

    private var states = [State](repeating: .none, count: TouchMask.capacity)
    /// Per touch: its hand, decided when it came down.
    private var hands = [HandDecision](repeating: .undecided, count: TouchMask.capacity)
    /// Touches in `undecided` (the only ones with a deadline).
    private var undecidedMask = TouchMask()

    package init() {}

    /// When an undecided touch becomes a hold. Takes the delay alone, as ``TapRecognizer``'s does.
    func nextDeadline(longPressMs: Double) -> Timestamp? {
        guard !undecidedMask.isEmpty else { return nil }
        var best: Timestamp?
        var b = undecidedMask.bits
        while b != 0 {
            let i = b.trailingZeroBitCount
            b &= b - 1
            if case .undecided(let down) = states[i] {
                let d = down.after(milliseconds: longPressMs)
                if best == nil || d < best! { best = d }
            }
        }
        return best
    }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [CoreGestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced(let time): advance(to: time, &ctx, &out)
        case .cancel(let time, let reason):
            for i in 0..<states.count {
                if case .panning(let id, _) = states[i] {
                    var e = ctx.event(.touchPan, .cancelled, id: id, time: time)
                    e.touch = i
                    e.setHand(hands[i])
                    e.reason = reason
                    out.append(e)
                }
                if case .none = states[i] { continue }
                states[i] = .claimed
            }
            undecidedMask = TouchMask()
        }
    }

    private mutating func advance(to time: Timestamp, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        var b = undecidedMask.bits
        while b != 0 {
            let i = b.trailingZeroBitCount
            b &= b - 1
            guard case .undecided(let down) = states[i] else { continue }
            let deadline = down.after(milliseconds: c.longPressMs)
            guard deadline <= time else { continue }
            var e = ctx.event(.touchHold, .recognized, id: ctx.allocateID(), time: deadline)
            e.touch = i
            e.setHand(hands[i])
            e.duration = deadline.s(since: down)
            if let p = lastPosition[i] {
                e.positionMm = p.mm
                e.position = p.normalized
            }
            out.append(e)
            states[i] = .claimed
            undecidedMask.remove(i)
        }
    }

    private var lastPosition = [(mm: PhysicalPoint, normalized: NormalizedPoint)?](
        repeating: nil, count: TouchMask.capacity)

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        let slop2 = c.touchSlopMm * c.touchSlopMm
        for t in m.frame.touches {
            let i = t.id
            guard i >= 0, i < TouchMask.capacity, t.tool != .pen else { continue }
            let isPalm = t.tool == .palm || (t.majorMm ?? 0) > c.palmMajorMm || m.newPalmMask.contains(i)
            if t.phase == .began {
                if case .panning = states[i] { ctx.bug("touch \(i) began while its touch-pan was active") }
                states[i] = isPalm ? .claimed : .undecided(down: t.beganAt)
                if !isPalm { undecidedMask.insert(i) }
                hands[i] = ctx.decideHand(t)
            }
            if !t.phase.isFinished { lastPosition[i] = (t.mm, t.normalized) }
            if isPalm || t.phase == .cancelled {
                if case .panning(let id, let began) = states[i] {
                    var e = ctx.event(.touchPan, .cancelled, id: id, time: m.time)
                    e.touch = i
                    e.setHand(hands[i])
                    e.reason = isPalm ? "palm" : "touch-cancelled"
                    e.translationMm = t.mm - began
                    e.translation = ctx.normalized(t.mm - began)
                    out.append(e)
                }
                states[i] = t.phase.isFinished ? .none : .claimed
                undecidedMask.remove(i)
                continue
            }
            let d = t.mm - t.startMm
            let beyondSlop = d.x * d.x + d.y * d.y > slop2
            let elapsedMs = t.time.ms(since: t.beganAt)
            switch states[i] {
            case .none:
                if !t.phase.isFinished { states[i] = .claimed }  // a touch we did not see begin
            case .claimed:
                if t.phase.isFinished { states[i] = .none }
            case .undecided:
                if t.phase == .ended {
                    undecidedMask.remove(i)
                    states[i] = .none
                    if !beyondSlop && elapsedMs <= c.tapTimeoutMs {
                        var e = ctx.event(.touchTap, .recognized, id: ctx.allocateID(), time: m.time)
                        e.touch = i
                        e.setHand(hands[i])
                        e.taps = 1
                        e.position = t.normalized
                        e.positionMm = t.startMm
                        out.append(e)
                    }
                } else if beyondSlop {
                    undecidedMask.remove(i)
                    let speed = d.length / Swift.max(elapsedMs / 1000, 1e-3)
                    if speed >= c.flickMinSpeedMmPerSecond {
                        states[i] = .stroke(down: t.beganAt)
                    } else {
                        beginPan(t, at: m.time, &ctx, &out)
                    }
                }
            case .stroke(let down):
                if t.phase == .ended {
                    states[i] = .none
                    let seconds = Swift.max(t.time.s(since: down), 1e-3)
                    let distance = d.length
                    let speed = distance / seconds
                    let v = d / seconds
                    if distance >= c.swipeMinDistanceMm, speed >= c.swipeMinSpeedMmPerSecond,
                        let direction = swipeDirection(d, maxAngleDegrees: c.swipeMaxAngleDegrees)
                    {
                        var e = ctx.event(.touchSwipe, .recognized, id: ctx.allocateID(), time: m.time)
                        e.touch = i
                        e.setHand(hands[i])
                        e.direction = direction
                        e.velocity = v
                        e.translationMm = d
                        e.translation = ctx.normalized(d)
                        out.append(e)
                    } else if speed >= c.flickMinSpeedMmPerSecond {
                        var e = ctx.event(.touchFlick, .recognized, id: ctx.allocateID(), time: m.time)
                        e.touch = i
                        e.setHand(hands[i])
                        e.velocity = v
                        e.translationMm = d
                        e.translation = ctx.normalized(d)
                        out.append(e)
                    }
                } else if elapsedMs > c.swipeMaxDurationMs
                    || (d.length >= c.swipeMinDistanceMm
                        && d.length / Swift.max(elapsedMs / 1000, 1e-3) < c.swipeMinSpeedMmPerSecond)
                {
                    // Too long for a swipe, or long enough but too slow for one: a drag after all.
                    beginPan(t, at: m.time, &ctx, &out)
                }
            case .panning(let id, let began):
                let phase: GesturePhase = t.phase == .ended ? .ended : .changed
                if phase == .changed && t.phase == .stationary { continue }
                // The values first, then the event filled in place: a closure that read `ctx`
                // made the compiler copy the whole context for it (its strings and arrays retained).
                let translationMm = t.mm - began, translation = ctx.normalized(t.mm - began)
                let hand = hands[i]
                out.append(ctx.event(.touchPan, phase, id: id, time: m.time)) { e in
                    e.touch = i
                    e.setHand(hand)
                    e.translationMm = translationMm
                    e.translation = translation
                    e.velocity = t.velocity
                    if phase == .ended {
                        let tau = c.momentumTimeConstantSeconds
                        e.glideMm = t.velocity * tau
                    }
                }
                if phase == .ended { states[i] = .none }
            }
        }
    }

    private mutating func beginPan(
        _ t: Touch, at time: Timestamp, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]
    ) {
        let id = ctx.allocateID()
        states[t.id] = .panning(id: id, beganMm: t.mm)
        var e = ctx.event(.touchPan, .began, id: id, time: time)
        e.touch = t.id
        e.setHand(hands[t.id])
        e.translationMm = .zero
        e.translation = NormalizedPoint(x: 0, y: 0)
        e.velocity = t.velocity
        out.append(e)
    }
}

extension TouchGestureRecognizer: GestureRecognizer {
    static var kinds: [GestureKind] { [.touchTap, .touchHold, .touchSwipe, .touchPan, .touchFlick] }
    static var isPerTouch: Bool { true }
    static var usesTimers: Bool { true }
    func nextDeadline(_ context: ArenaContext) -> Timestamp? {
        nextDeadline(longPressMs: context.configuration.longPressMs)
    }
}
