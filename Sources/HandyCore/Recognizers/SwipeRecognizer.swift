import HandyProtocol

/// Swipe: a fast straight stroke of N fingers, decided when the last finger lifts: the centroid
/// travelled at least `swipeMinDistanceMm`, at a mean speed of at least `swipeMinSpeedMmPerSecond`,
/// within `swipeMaxDurationMs` of the first finger down, within `swipeMaxAngleDegrees` of an axis,
/// and the path was straight (at most 1.3 × the displacement). `recognized` with `direction`,
/// `fingers` (most fingers down at once), `velocity` (mean, mm/s), `translation`, the hand (decided
/// on the most fingers down at once, as pinch decides it), and `edge` when it
/// came in from a display edge: the centroid of its fingers' touch-down points lies within
/// `swipeEdgeMm` of that edge and the swipe moves away from it (a right swipe from the left edge;
/// a downward swipe along the left edge is no edge swipe). Positions are in the display frame
/// (after the calibration matrix), so on a rotated panel the edges are the display's.
///
/// ```
///          finger down                       last finger up and fast, far, straight, on an axis
///  idle ─────────────▶ stroking ───────────────────────────────────────────────────▶ (recognized) ─▶ idle
///   ▲                     │ palm / lost touch / policy forbids / cancel / too long
///   │  all fingers up     ▼
///   └──────────────── failed
/// ```
package struct SwipeRecognizer: Sendable {
    /// Path length over displacement above which a stroke is not straight.
    static let maxPathRatio = 1.3

    enum State: Sendable {
        case idle
        case stroking(Stroke)
        case failed
    }
    struct Stroke: Sendable {
        var firstDown: Timestamp
        var maxFingers: Int
        var displacementMm = PhysicalPoint.zero
        var pathMm = 0.0
        /// Sum and count of the fingers' touch-down points (display frame), for the edge.
        var downSumMm = PhysicalPoint.zero
        var downCount = 0
        /// The hand, from the most fingers down at once.
        var hand = HandAtMostFingers()

        mutating func addTouchDowns(_ m: FrameMotion) {
            guard !m.beganMask.isEmpty else { return }
            for t in m.frame.touches where m.beganMask.contains(t.id) {
                downSumMm = downSumMm + t.mm
                downCount += 1
            }
        }
    }

    private(set) var state: State = .idle
    private var lastCentroidMm = PhysicalPoint.zero
    private var lastCentroidNormalized = NormalizedPoint(x: 0, y: 0)

    package init() {}

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [CoreGestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced: break
        case .cancel: if case .stroking = state { state = .failed }
        }
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [CoreGestureEvent]) {
        let c = ctx.configuration
        if m.fingers > 0 {
            lastCentroidMm = m.centroidMm
            lastCentroidNormalized = m.centroidNormalized
        }
        switch state {
        case .idle:
            guard !m.beganMask.isEmpty else { if m.fingers > 0 { state = .failed }; return }
            var s = Stroke(firstDown: m.time, maxFingers: m.fingers)
            s.addTouchDowns(m)
            s.hand.observe(m, &ctx)
            state = .stroking(s)
        case .failed:
            if m.fingers == 0 { state = .idle }
        case .stroking(var s):
            if !m.newPalmMask.isEmpty || !m.cancelledMask.isEmpty
                || m.time.ms(since: s.firstDown) > c.swipeMaxDurationMs
            {
                state = m.fingers == 0 ? .idle : .failed
                return
            }
            s.displacementMm = s.displacementMm + m.deltaMm
            s.pathMm += m.deltaMm.length
            s.maxFingers = Swift.max(s.maxFingers, m.fingers)
            s.addTouchDowns(m)
            s.hand.observe(m, &ctx)
            guard m.fingers == 0 else { state = .stroking(s); return }
            state = .idle
            let distance = s.displacementMm.length
            let seconds = Swift.max(m.time.s(since: s.firstDown), 1e-3)
            guard distance >= c.swipeMinDistanceMm, distance / seconds >= c.swipeMinSpeedMmPerSecond,
                s.pathMm <= Self.maxPathRatio * distance,
                let direction = swipeDirection(s.displacementMm, maxAngleDegrees: c.swipeMaxAngleDegrees),
                ctx.mayStart(.swipe)
            else { return }
            var e = ctx.event(.swipe, .recognized, id: ctx.start(.swipe), time: m.time)
            e.direction = direction
            e.fingers = s.maxFingers
            e.velocity = s.displacementMm / seconds
            e.translationMm = s.displacementMm
            e.translation = ctx.normalized(s.displacementMm)
            e.centroid = lastCentroidNormalized
            e.centroidMm = lastCentroidMm
            e.setHand(s.hand.decision)
            if s.downCount > 0 {
                e.edge = Self.edge(
                    startMm: s.downSumMm / Double(s.downCount), direction: direction,
                    displayWidthMm: ctx.displayWidthMm, displayHeightMm: ctx.displayHeightMm,
                    edgeMm: c.swipeEdgeMm)
            }
            out.append(e)
        }
    }

    /// The edge a swipe in `direction` that began at `startMm` came in from: the edge it moves away
    /// from, if it began within `edgeMm` of it (or beyond it: a calibration may map the sensor's
    /// border slightly off the display). One direction, so one edge at most, also in a corner.
    static func edge(
        startMm: PhysicalPoint, direction: SwipeDirection, displayWidthMm: Double, displayHeightMm: Double,
        edgeMm: Double
    ) -> DisplayEdge? {
        switch direction {
        case .right: startMm.x <= edgeMm ? .left : nil
        case .left: displayWidthMm - startMm.x <= edgeMm ? .right : nil
        case .down: startMm.y <= edgeMm ? .top : nil
        case .up: displayHeightMm - startMm.y <= edgeMm ? .bottom : nil
        }
    }
}

extension SwipeRecognizer: GestureRecognizer {
    static var kinds: [GestureKind] { [.swipe] }
    var stateName: String { Self.caseName(state) }
}
