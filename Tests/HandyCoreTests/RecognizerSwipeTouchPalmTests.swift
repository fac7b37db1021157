import HandyCore
import HandyProtocol
import Testing

@Suite struct RecognizerSwipeTests {
    static let directions: [(SwipeDirection, Double, Double)] = [
        (.right, 30, 0), (.left, -30, 0), (.down, 0, 30), (.up, 0, -30),
    ]

    @Test(arguments: [1, 2, 3, 4], [0, 1, 2, 3])
    func swipeEveryDirection(fingers n: Int, direction d: Int) {
        let (dir, dx, dy) = Self.directions[d]
        // 30 mm in 150 ms: 200 mm/s.
        let fingers = (0..<n).map { i in
            Finger.line(
                id: i, (80 + Double(i) * 12, 60), (80 + Double(i) * 12 + dx, 60 + dy), down: 0, up: 0.16, move: 0.01,
                0.16)
        }
        let events = run(fingers)
        let swipes = events.filter { $0.gesture == .swipe }
        #expect(names(swipes) == ["swipe recognized"])
        #expect(swipes.first?.direction == dir && swipes.first?.fingers == n)
        // 28 mm (the lift frame repeats the last position) in 160 ms.
        #expect(Swift.abs((swipes.first?.velocity.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() } ?? 0) - 175) < 1)
        // A swipe is also a (fast) pan.
        #expect(collapsed(events, including: [.pan]) == ["pan began", "pan changed", "pan ended"])
        if n == 1 { #expect(names(events, including: perTouch) == ["touch-swipe recognized"]) }
    }

    @Test func tooSlowTooShortDiagonalOrTooLong() {
        func one(_ b: (Double, Double), up: Double) -> [GestureEvent] {
            run([Finger.line(id: 0, (80, 60), b, down: 0, up: up, move: 0.0, up)]).filter { $0.gesture == .swipe }
        }
        #expect(one((110, 60), up: 0.15).count == 1)
        #expect(one((110, 60), up: 0.25).isEmpty)  // 120 mm/s < 150
        #expect(one((98.5, 60), up: 0.05).isEmpty)  // 14.8 mm < 15 (lift repeats the 40 ms position)
        #expect(one((99, 60), up: 0.05).count == 1)  // 15.2 mm
        #expect(one((101, 81), up: 0.15).isEmpty)  // 45°: no axis
        #expect(one((106, 74), up: 0.15).first?.direction == .right)  // 28° off the axis
        #expect(one((180, 60), up: 0.45).isEmpty)  // 450 ms > 400 although fast
    }
}

@Suite struct RecognizerTouchGestureTests {
    @Test func eachTouchOnItsOwn() throws {
        // Finger 0 taps, finger 1 holds, finger 2 pans slowly, finger 3 swipes up, finger 4 flicks diagonally.
        let fingers = [
            Finger.hold(id: 0, (20, 20), down: 0, up: 0.08),
            Finger.hold(id: 1, (60, 20), down: 0, up: 0.8),
            Finger.line(id: 2, (100, 20), (100, 60), down: 0, up: 0.9, move: 0.1, 0.8),
            Finger.line(id: 3, (140, 90), (140, 50), down: 0, up: 0.15, move: 0.0, 0.15),
            Finger.line(id: 4, (170, 100), (190, 80), down: 0, up: 0.1, move: 0.0, 0.1),
        ]
        let events = run(fingers).filter { perTouch.contains($0.gesture) }
        func of(_ id: Int) -> [String] { collapsed(events.filter { $0.touch == id }) }
        #expect(of(0) == ["touch-tap recognized"])
        #expect(of(1) == ["touch-hold recognized"])
        #expect(of(2) == ["touch-pan began", "touch-pan changed", "touch-pan ended"])
        #expect(of(3) == ["touch-swipe recognized"])
        #expect(of(4) == ["touch-flick recognized"])
        #expect(events.first { $0.touch == 3 }?.direction == .up)
        let flick = try #require(events.first { $0.touch == 4 })
        let velocity = try #require(flick.velocity)
        #expect(velocity.x > 100 && velocity.y < -100)
        let hold = try #require(events.first { $0.touch == 1 })
        #expect(hold.time == 0.5 && hold.duration == 0.5)
        let panEnd = try #require(events.last { $0.touch == 2 })
        let translation = try #require(panEnd.translationMm)
        #expect(translation.y > 35)
        let ids = events.filter { $0.phase != .changed && $0.phase != .ended }.map(\.id)
        #expect(Set(ids).count == ids.count)
    }

    @Test func quickDragIsAPanWithoutWaitingForTheSwipeTimeout() {
        // 120 mm/s (the demo's drag): beyond the slop quickly, never fast enough for a swipe; a
        // touch-pan from 15 mm on (125 ms), not 400 ms late.
        let events = run([Finger.line(id: 0, (40, 95), (160, 95), down: 0, up: 1.1, move: 0, 1.0)]).filter {
            perTouch.contains($0.gesture)
        }
        #expect(collapsed(events) == ["touch-pan began", "touch-pan changed", "touch-pan ended"])
        #expect(events[0].time >= 0.12 && events[0].time <= 0.14)
    }

    @Test func fastStartThatGoesOnBecomesPan() {
        // Quick start (beyond slop in 20 ms) but the finger keeps moving slowly for a second: touch-pan.
        let f = Finger(id: 0, down: 0, up: 1.2) { t in
            PhysicalPoint(x: 50 + Swift.min(t, 0.05) * 200 + Swift.max(0, t - 0.05) * 20, y: 50)
        }
        let events = run([f]).filter { perTouch.contains($0.gesture) }
        #expect(collapsed(events) == ["touch-pan began", "touch-pan changed", "touch-pan ended"])
        // 10 mm in the first 50 ms, then 20 mm/s: past 15 mm at 0.3 s, too slow for a swipe: a pan.
        #expect(events[0].time >= 0.29 && events[0].time <= 0.31)
    }
}

@Suite struct RecognizerPalmTests {
    @Test func palmToolCancelsThePinchItJoins() throws {
        var fingers = spread(30, 80, move: (0.05, 0.8), up: 1.0)
        // Finger 1 turns into a palm (MT_TOOL_PALM) at 0.5 s, mid-pinch.
        let p = fingers[1].position
        fingers[1] = Finger(id: 1, down: 0, up: 1.0, position: p, tool: .finger)
        let palmFrames = makeFrames(fingers).map { frame -> TouchFrame in
            var f = frame
            for i in f.touches.indices where f.touches[i].id == 1 && f.time.seconds >= 0.5 { f.touches[i].tool = .palm }
            return f
        }
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        let events = runArena(palmFrames, arena: &arena)
        let pinch = events.filter { $0.gesture == .pinch }
        #expect(collapsed(pinch) == ["pinch began", "pinch changed", "pinch cancelled"])
        let cancelled = try #require(pinch.last)
        #expect(cancelled.reason == "palm" && cancelled.time == 0.5)
        // Nothing restarts with the remaining finger until everything lifts.
        #expect(events.filter { $0.time > 0.5 && multiFinger.contains($0.gesture) }.isEmpty)
        #expect(arena.bugReports.isEmpty)
    }

    @Test func largeContactIsAPalm() {
        let c = GestureConfiguration()
        // Two fingers pan; a third contact of major axis just over the threshold lands at 0.3 s and
        // moves along: the pan is not disturbed (it never took part). Just under: it is a finger.
        func stream(major: Double) -> [GestureEvent] {
            let a = Finger.line(id: 0, (50, 50), (50, 100), down: 0, up: 0.8, move: 0.05, 0.7)
            let b = Finger.line(id: 1, (70, 50), (70, 100), down: 0, up: 0.8, move: 0.05, 0.7)
            var palm = Finger.line(id: 2, (150, 50), (150, 100), down: 0.3, up: 0.8, move: 0.05, 0.7)
            palm.majorMm = { _ in major }
            return run([a, b, palm])
        }
        let over = stream(major: c.palmMajorMm + 0.5).filter { multiFinger.contains($0.gesture) }
        #expect(collapsed(over) == ["pan began", "pan changed", "pan ended"])
        #expect(over.allSatisfy { $0.fingers == 2 })
        let under = stream(major: c.palmMajorMm - 0.5).filter { $0.gesture == .pan }
        #expect(under.contains { $0.fingers == 3 })
    }

    @Test func palmTurningUpMidPanCancelsIt() {
        let a = Finger.line(id: 0, (50, 50), (50, 100), down: 0, up: 0.8, move: 0.05, 0.7)
        var b = Finger.line(id: 1, (70, 50), (70, 100), down: 0, up: 0.8, move: 0.05, 0.7)
        b.majorMm = { t in t < 0.4 ? 10 : 40 }
        let events = run([a, b])
        #expect(collapsed(events, including: [.pan]) == ["pan began", "pan changed", "pan cancelled"])
        #expect(events.last { $0.gesture == .pan }?.reason == "palm")
        // The palm's own touch-pan is cancelled too; the other finger's goes on.
        #expect(
            events.contains {
                $0.gesture == .touchPan && $0.touch == 1 && $0.phase == .cancelled && $0.reason == "palm"
            })
        #expect(events.contains { $0.gesture == .touchPan && $0.touch == 0 && $0.phase == .ended })
    }
}
