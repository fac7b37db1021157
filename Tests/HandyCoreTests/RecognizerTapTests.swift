import HandyCore
import HandyProtocol
import HandyWire
import Testing

/// `n` fingers tapping at (x, y), down at `t` for `ms` milliseconds, lifting `stagger` s apart.
func tap(_ n: Int, at t: Double, ms: Double = 80, x: Double = 100, y: Double = 60, idBase: Int = 0, stagger: Double = 0)
    -> [Finger]
{
    (0..<n).map { i in
        Finger.hold(id: idBase + i, (x + Double(i) * 15, y), down: t, up: t + ms / 1000 + Double(i) * stagger)
    }
}

@Suite struct RecognizerTapTests {
    @Test(arguments: [1, 2, 3, 4])
    func singleTap(fingers n: Int) throws {
        let events = run(tap(n, at: 0))
        #expect(names(events, including: multiFinger) == ["tap recognized"])
        let e = try #require(events.first { $0.gesture == .tap })
        #expect(e.fingers == n && e.taps == 1)
        #expect(Swift.abs(e.positionMm!.x - (100 + 7.5 * Double(n - 1))) < 0.01 && e.positionMm!.y == 60)
        #expect(e.time == 0.08)
    }

    @Test func staggeredLiftIsOneTwoFingerTap() {
        let events = run(tap(2, at: 0, ms: 60, stagger: 0.04))
        #expect(names(events, including: multiFinger) == ["tap recognized"])
        #expect(events.first { $0.gesture == .tap }!.fingers == 2)
    }

    @Test func timeoutEdge() {
        // 180 ms (frames every 10 ms) is a tap, 190 ms is not.
        #expect(names(run(tap(1, at: 0, ms: 180)), including: [.tap]) == ["tap recognized"])
        #expect(names(run(tap(1, at: 0, ms: 190)), including: [.tap]).isEmpty)
    }

    @Test func slopEdge() {
        let slop = GestureConfiguration().touchSlopMm
        func wiggle(_ d: Double) -> [GestureEvent] {
            run([Finger.line(id: 0, (100, 60), (100 + d, 60), down: 0, up: 0.1, move: 0.02, 0.06)])
        }
        #expect(names(wiggle(slop - 0.1), including: multiFinger) == ["tap recognized"])
        #expect(
            names(wiggle(slop + 0.1), including: multiFinger) == ["pan began", "pan changed", "pan ended"]
                || names(wiggle(slop + 0.1), including: multiFinger) == ["pan began", "pan ended"])
    }

    /// The slop on its own: two fingers drift apart in opposite directions, so their centroid stays
    /// put (no pan), each by a little more or less than the slop, and lift within 100 ms. Each
    /// finger past the slop is no tap, whatever else the motion is. 60 mm apart, so the span changes
    /// by less than the pinch ratio at the slop edge.
    @Test(arguments: [-0.1, 0.1, 1.0, 10.0])
    func slopPerFingerWithoutCentroidMotion(beyondSlopMm delta: Double) {
        let slop = GestureConfiguration().touchSlopMm
        let d = slop + delta
        let fingers = [
            Finger.line(id: 0, (70, 60), (70 - d, 60), down: 0, up: 0.09, move: 0.02, 0.07),
            Finger.line(id: 1, (130, 60), (130 + d, 60), down: 0, up: 0.09, move: 0.02, 0.07),
        ]
        let events = run(fingers)
        #expect(!names(events).contains { $0.hasPrefix("pan") }, "the centroid did not move: \(names(events))")
        let taps = events.filter { $0.gesture == .tap }
        if delta < 0 {
            #expect(taps.count == 1 && taps.first?.fingers == 2, "\(names(events))")
        } else {
            #expect(taps.isEmpty, "fingers moved \(d) mm each (slop \(slop) mm): \(names(events))")
        }
    }

    @Test(arguments: [1, 2])
    func doubleAndTripleTapCount(fingers n: Int) {
        let events = run(tap(n, at: 0) + tap(n, at: 0.25, idBase: 4) + tap(n, at: 0.5, x: 108, idBase: 8))
        let taps = events.filter { $0.gesture == .tap }
        #expect(taps.map(\.taps) == [1, 2, 3])
        #expect(taps.allSatisfy { $0.fingers == n })
        #expect(Set(taps.map(\.id)).count == 3)
    }

    @Test func chainBreaksOnLatenessDistanceOrFingerCount() {
        // 310 ms between lift and next down: too late.
        #expect(run(tap(1, at: 0) + tap(1, at: 0.39, idBase: 2)).filter { $0.gesture == .tap }.map(\.taps) == [1, 1])
        // 20 mm away: too far.
        #expect(
            run(tap(1, at: 0) + tap(1, at: 0.2, x: 120, idBase: 2)).filter { $0.gesture == .tap }.map(\.taps) == [1, 1])
        // One finger then two fingers.
        let mixed = run(tap(1, at: 0) + tap(2, at: 0.2, idBase: 2)).filter { $0.gesture == .tap }
        #expect(mixed.map(\.taps) == [1, 1] && mixed.map(\.fingers) == [1, 2])
    }

    @Test func waitingForDoubleTapReportsOnce() {
        var c = GestureConfiguration()
        #expect(c.apply(overrides: ["tap-waits-for-double-tap": "2"]) == [])
        // Two-finger double tap: one event, taps 2, at lift + 300 ms.
        let double = run(tap(2, at: 0) + tap(2, at: 0.2, idBase: 4), configuration: c).filter { $0.gesture == .tap }
        #expect(double.count == 1 && double[0].taps == 2 && double[0].fingers == 2)
        #expect(Swift.abs(double[0].time - (0.28 + 0.3)) < 1e-9)
        // Single two-finger tap: reported when the timeout passes.
        let single = run(tap(2, at: 0), configuration: c).filter { $0.gesture == .tap }
        #expect(single.count == 1 && single[0].taps == 1 && Swift.abs(single[0].time - 0.38) < 1e-9)
        // One finger does not wait.
        let one = run(tap(1, at: 0) + tap(1, at: 0.2, idBase: 4), configuration: c).filter { $0.gesture == .tap }
        #expect(one.map(\.taps) == [1, 2] && one.map(\.time) == [0.08, 0.28])
    }

    @Test func waitingTapHasADeadline() {
        var c = GestureConfiguration()
        _ = c.apply(overrides: ["tap-waits-for-double-tap": "1"])
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry, configuration: c)
        var out: [CoreGestureEvent] = []
        for f in makeFrames(tap(1, at: 0)) { out += arena.handle(f) }
        #expect(out.filter { $0.gesture == .tap }.isEmpty)
        // Per-touch hold deadline is gone (the touch lifted); the tap waits until lift + 300 ms.
        #expect(arena.nextDeadline == Timestamp(seconds: 0.38))
        #expect(arena.advanceTime(to: Timestamp(seconds: 0.37)).isEmpty)
        let fired = arena.advanceTime(to: Timestamp(seconds: 0.5))
        #expect(names(fired) == ["tap recognized"] && fired[0].time == Timestamp(seconds: 0.38))
        #expect(arena.nextDeadline == nil)
    }
}

@Suite struct RecognizerLongPressTests {
    @Test(arguments: [1, 2, 3])
    func longPressBeganChangedEnded(fingers n: Int) {
        // Held 800 ms, then (after began) moved 10 mm while held, then lifted.
        let fingers = (0..<n).map { i in
            Finger.line(id: i, (100 + Double(i) * 15, 60), (110 + Double(i) * 15, 60), down: 0, up: 0.9, move: 0.6, 0.8)
        }
        let events = run(fingers)
        #expect(
            collapsed(events, including: [.longPress]) == [
                "long-press began", "long-press changed", "long-press ended",
            ])
        let lp = events.filter { $0.gesture == .longPress }
        #expect(lp[0].time == 0.5 && lp[0].duration == 0.5 && lp[0].fingers == n)
        #expect(lp.last!.duration == 0.9)
        // The drag after the long press is also a pan (policy: long-press + pan).
        #expect(names(events, including: [.pan]).first == "pan began")
        #expect(names(events, including: [.tap]).isEmpty)
    }

    @Test func timeEdgeAndMotionEdge() {
        #expect(names(run([Finger.hold(id: 0, (50, 50), down: 0, up: 0.49)]), including: [.longPress]).isEmpty)
        #expect(
            names(run([Finger.hold(id: 0, (50, 50), down: 0, up: 0.51)]), including: [.longPress]) == [
                "long-press began", "long-press ended",
            ])
        let slop = GestureConfiguration().touchSlopMm
        #expect(
            names(
                run([Finger.line(id: 0, (50, 50), (50, 50 + slop - 0.1), down: 0, up: 0.7, move: 0.1, 0.3)]),
                including: [.longPress]
            ).count == 2)
        #expect(
            names(
                run([Finger.line(id: 0, (50, 50), (50, 50 + slop + 0.1), down: 0, up: 0.7, move: 0.1, 0.3)]),
                including: [.longPress]
            ).isEmpty)
    }

    @Test func beganComesFromTheTimerWithoutFrames() {
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        let frames = makeFrames([Finger.hold(id: 0, (50, 50), down: 1, up: nil)], until: 1)
        #expect(frames.count == 1)
        _ = arena.handle(frames[0])
        #expect(arena.nextDeadline == Timestamp(seconds: 1.5))
        let out = arena.advanceTime(to: Timestamp(seconds: 1.7))
        // Long press and the per-touch hold share the deadline; long press comes first.
        #expect(names(out) == ["long-press began", "touch-hold recognized"])
        #expect(out.allSatisfy { $0.time == Timestamp(seconds: 1.5) })
    }

    @Test func extraFingerRestartsTheDelay() {
        // Second finger at 0.3 s: a two-finger long press at 0.8 s, not a one-finger one at 0.5 s.
        let events = run([Finger.hold(id: 0, (50, 50), down: 0, up: 1), Finger.hold(id: 1, (70, 50), down: 0.3, up: 1)])
        let lp = events.filter { $0.gesture == .longPress }
        #expect(names(lp) == ["long-press began", "long-press ended"])
        #expect(lp[0].fingers == 2 && lp[0].time == 0.8)
    }

    @Test func twoFingerLongPressGatesPanAndRotate() {
        var c = GestureConfiguration()
        #expect(c.apply(overrides: ["two-finger-long-press-gates": "true"]) == [])
        // Two fingers move right at once: gated, no pan.
        let quick = [
            Finger.line(id: 0, (50, 50), (90, 50), down: 0, up: 0.6, move: 0.05, 0.5),
            Finger.line(id: 1, (50, 70), (90, 70), down: 0, up: 0.6, move: 0.05, 0.5),
        ]
        #expect(names(run(quick, configuration: c), including: [.pan, .rotate]).isEmpty)
        #expect(names(run(quick), including: [.pan]).first == "pan began")  // without the gate: a pan
        // Held 600 ms (the long press begins at 500 ms), then moved: the pan runs while held and
        // ends when the first finger lifts.
        let held = [
            Finger.line(id: 0, (50, 50), (90, 50), down: 0, up: 1.2, move: 0.6, 1.0),
            Finger.line(id: 1, (50, 70), (90, 70), down: 0, up: 1.3, move: 0.6, 1.0),
        ]
        let events = run(held, configuration: c)
        let seq = events.filter { $0.gesture == .pan || $0.gesture == .longPress }.map {
            "\($0.gesture.rawValue) \($0.phase.rawValue)"
        }
        #expect(seq.first == "long-press began")
        #expect(seq.contains("pan began"))
        let lpEnd = seq.firstIndex(of: "long-press ended")!, panEnd = seq.firstIndex(of: "pan ended")!
        #expect(panEnd == lpEnd + 1)
        #expect(events.first { $0.gesture == .pan && $0.phase == .ended }!.time == 1.2)
    }
}
