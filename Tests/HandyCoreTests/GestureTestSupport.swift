import HandyCore
import HandyProtocol
import HandyWire
import Testing

/// Test-local frame builder: finger paths in mm over time → TouchFrames as a tracker makes them
/// (a frame per tick in which something changed; began / moved / stationary / ended phases;
/// startMm, normalised position, velocity by finite difference).
struct Finger {
    var id: Int
    var down: Double
    var up: Double?
    var position: @Sendable (Double) -> PhysicalPoint
    var tool: TouchTool = .finger
    var majorMm: @Sendable (Double) -> Double? = { _ in nil }
    var minorMm: @Sendable (Double) -> Double? = { _ in nil }
    /// Ellipse orientation (radians, kernel convention in the display frame), nil = not reported.
    var orientation: @Sendable (Double) -> Double? = { _ in nil }

    /// A straight line from `a` to `b` between `t0` and `t1` (held before and after).
    static func line(
        id: Int, _ a: (Double, Double), _ b: (Double, Double), down: Double, up: Double?,
        move t0: Double? = nil, _ t1: Double? = nil
    ) -> Finger {
        let s = t0 ?? down, e = t1 ?? (up ?? down + 1)
        return Finger(id: id, down: down, up: up) { t in
            let f = e > s ? Swift.min(1, Swift.max(0, (t - s) / (e - s))) : 1
            return PhysicalPoint(x: a.0 + (b.0 - a.0) * f, y: a.1 + (b.1 - a.1) * f)
        }
    }

    static func hold(id: Int, _ a: (Double, Double), down: Double, up: Double?) -> Finger {
        Finger(id: id, down: down, up: up) { _ in PhysicalPoint(x: a.0, y: a.1) }
    }

    /// Circular motion about `c`: radius `r`, angle from `a0` to `a1` (radians, clockwise in y-down).
    static func arc(
        id: Int, center c: (Double, Double), radius r: @escaping @Sendable (Double) -> Double = { _ in 20 },
        from a0: Double, to a1: Double, down: Double, up: Double?, move t0: Double, _ t1: Double
    ) -> Finger {
        Finger(id: id, down: down, up: up) { t in
            let f = Swift.min(1, Swift.max(0, (t - t0) / (t1 - t0)))
            let a = a0 + (a1 - a0) * f
            return PhysicalPoint(x: c.0 + r(f) * cos(a), y: c.1 + r(f) * sin(a))
        }
    }

    func mirroredX(widthMm: Double) -> Finger {
        var f = self
        let p = position
        f.position = { t in
            let q = p(t); return PhysicalPoint(x: widthMm - q.x, y: q.y)
        }
        let o = orientation
        f.orientation = { t in o(t).map { -$0 } }  // clockwise from y: a mirror negates it
        return f
    }
}

enum TestScreen {
    static let widthMm = 200.0
    static let heightMm = 120.0
    static let unitsPerMm: Int32 = 20
    static var geometry: DeviceGeometry {
        DeviceGeometry(
            xAxis: AbsInfo(minimum: 0, maximum: Int32(widthMm) * unitsPerMm - 1, resolution: unitsPerMm),
            yAxis: AbsInfo(minimum: 0, maximum: Int32(heightMm) * unitsPerMm - 1, resolution: unitsPerMm))
    }
}

/// Frames for `fingers` at `hz`, from the first finger down to the last lift (or `until`).
func makeFrames(_ fingers: [Finger], until: Double? = nil, hz: Double = 100, resyncAt: Double? = nil) -> [TouchFrame] {
    let start = fingers.map(\.down).min() ?? 0
    let end = until ?? (fingers.map { $0.up ?? $0.down }.max() ?? 0)
    let dt = 1 / hz
    var frames: [TouchFrame] = []
    var previous: [Int: PhysicalPoint] = [:]
    var starts: [Int: (PhysicalPoint, Double)] = [:]
    var k = 0
    while true {
        let t = start + Double(k) * dt
        if t > end + 1e-9 { break }
        k += 1
        var touches: [Touch] = []
        var changed = false
        for f in fingers.sorted(by: { $0.id < $1.id }) {
            let down = t + 1e-9 >= f.down
            let lifted = f.up.map { t + 1e-9 >= $0 } ?? false
            guard down else { continue }
            let wasDown = previous[f.id] != nil
            if lifted && !wasDown { continue }
            let p = lifted ? previous[f.id]! : f.position(t)
            let phase: TouchPhase
            if !wasDown {
                phase = .began; starts[f.id] = (p, t)
            } else if lifted {
                phase = .ended
            } else if p != previous[f.id]! {
                phase = .moved
            } else {
                phase = .stationary
            }
            if phase != .stationary { changed = true }
            let (startMm, beganAt) = starts[f.id]!
            let v: PhysicalPoint = wasDown && !lifted ? (p - previous[f.id]!) / dt : .zero
            let geometry = TestScreen.geometry
            var touch = Touch(
                id: f.id, phase: phase, tool: f.tool,
                device: DevicePoint(
                    x: Int32(p.x * Double(TestScreen.unitsPerMm)), y: Int32(p.y * Double(TestScreen.unitsPerMm))),
                mm: p, normalized: NormalizedPoint(x: p.x / geometry.displayWidthMm, y: p.y / geometry.displayHeightMm),
                startMm: startMm, majorMm: f.majorMm(t), minorMm: f.minorMm(t), orientation: f.orientation(t),
                beganAt: Timestamp(seconds: beganAt), time: Timestamp(seconds: t),
                velocity: v)
            touch.tool = f.tool
            touches.append(touch)
            if lifted { previous[f.id] = nil } else { previous[f.id] = p }
        }
        let resync = resyncAt.map { Swift.abs($0 - t) < dt / 2 } ?? false
        if changed || resync {
            frames.append(TouchFrame(time: Timestamp(seconds: t), touches: touches, resynced: resync))
        }
    }
    return frames
}

/// Feeds frames to a fresh arena (timers as the pipeline does: before each frame, and at the end up
/// to `advanceTo`); returns every event.
func runArena(
    _ frames: [TouchFrame], configuration: GestureConfiguration = .init(), advanceTo: Double? = nil,
    arena: inout GestureArena
) -> [GestureEvent] {
    var out: [GestureEvent] = []
    for f in frames { out += arena.handle(f).wireEvents }
    let end = advanceTo ?? ((frames.last?.time.seconds ?? 0) + 2)
    out += arena.advanceTime(to: Timestamp(seconds: end)).wireEvents
    return out
}

/// Runs `fingers` through a fresh arena. An arena bug report (a broken invariant) fails the calling
/// test, not the whole test process.
func run(
    _ fingers: [Finger], configuration: GestureConfiguration = .init(), until: Double? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [GestureEvent] {
    var arena = GestureArena(deviceID: "test", geometry: TestScreen.geometry, configuration: configuration)
    let events = runArena(makeFrames(fingers, until: until), configuration: configuration, arena: &arena)
    #expect(arena.bugReports.isEmpty, "arena bug reports: \(arena.bugReports)", sourceLocation: sourceLocation)
    return events
}

/// "gesture phase" lines, for asserting exact sequences.
func names<Event: GestureEventFields>(_ events: [Event], including kinds: Set<GestureKind>? = nil) -> [String] {
    events.filter { kinds?.contains($0.gesture) ?? true }.map { "\($0.gesture.rawValue) \($0.phase.rawValue)" }
}

/// Collapses runs of `changed` into one, so sequences read `pan began, pan changed, pan ended`.
func collapsed<Event: GestureEventFields>(_ events: [Event], including kinds: Set<GestureKind>? = nil) -> [String] {
    var out: [String] = []
    for n in names(events, including: kinds) where !(n.hasSuffix("changed") && out.last == n) { out.append(n) }
    return out
}

let multiFinger: Set<GestureKind> = [.pinch, .rotate, .pan, .tap, .longPress, .swipe]
let perTouch: Set<GestureKind> = [.touchTap, .touchHold, .touchSwipe, .touchPan, .touchFlick]

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
