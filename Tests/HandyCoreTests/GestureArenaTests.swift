import HandyProtocol
import HandyWire
import Testing

@testable import HandyCore

@Suite struct GestureArenaTests {
    /// A busy stream: a tap, a pinch-rotate-drag, a swipe, a long press.
    static var busy: [Finger] {
        var f = tap(2, at: 0)
        f += spread(30, 60, down: 0.5, move: (0.55, 0.9), up: 1.0).enumerated().map { i, x in
            var y = x; y.id = 2 + i; return y
        }
        f.append(Finger.line(id: 4, (40, 100), (80, 100), down: 1.2, up: 1.35, move: 1.2, 1.35))
        f.append(Finger.hold(id: 5, (150, 30), down: 1.6, up: 2.3))
        return f
    }

    @Test func idsAreUniqueMonotonicFromOne() {
        let events = run(Self.busy)
        var seen: [UInt64: GestureKind] = [:]
        var maxID: UInt64 = 0
        for e in events {
            if let k = seen[e.id] {
                #expect(k == e.gesture)
            } else {
                #expect(e.id == maxID + 1, "new ids come in order")
                maxID = e.id
                seen[e.id] = e.gesture
            }
            #expect(e.device == "test")
        }
        #expect(
            seen.values.contains(.tap) && seen.values.contains(.pinch) && seen.values.contains(.swipe)
                && seen.values.contains(.longPress))
        // Time never goes backwards.
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    /// A rebuilt pipeline (a reload, a replug) goes on from where the device's ids got to.
    @Test func idsGoOnFromAGivenNextID() {
        var first = GestureArena(deviceID: "test", geometry: TestScreen.geometry)
        let before = runArena(makeFrames(Self.busy), arena: &first)
        #expect(!before.isEmpty)
        #expect(first.nextGestureID == before.map(\.id).max()! + 1)
        var rebuilt = GestureArena(deviceID: "test", geometry: TestScreen.geometry)
        #expect(rebuilt.nextGestureID == 1)
        rebuilt.nextGestureID = first.nextGestureID
        let after = runArena(makeFrames(Self.busy), arena: &rebuilt)
        #expect(after.count == before.count)
        #expect(after.map(\.id) == before.map { $0.id + first.nextGestureID - 1 })
    }

    @Test func outputIsDeterministic() {
        #expect(run(Self.busy) == run(Self.busy))
    }

    @Test func resyncCancelsEverythingInProgress() {
        let frames = makeFrames(spread(30, 80, move: (0.05, 0.8), up: 1.0), resyncAt: 0.5)
        #expect(frames.contains { $0.resynced })
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        let events = runArena(frames, arena: &arena)
        let pinch = events.filter { $0.gesture == .pinch }
        #expect(collapsed(pinch) == ["pinch began", "pinch changed", "pinch cancelled"])
        #expect(pinch.last!.reason == "resync" && pinch.last!.time == 0.5)
        // Per-touch pans are cancelled too, and nothing restarts until the fingers lift.
        #expect(events.filter { $0.phase == .cancelled }.allSatisfy { $0.reason == "resync" })
        #expect(events.filter { $0.time > 0.5 }.isEmpty)
        #expect(arena.bugReports.isEmpty)
    }

    @Test func cancelAllAndNextDeadline() {
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        // 10 mm in 300 ms: slow, so the touch is a touch-pan as well.
        let frames = makeFrames([Finger.line(id: 0, (40, 50), (50, 50), down: 0, up: nil, move: 0, 0.3)], until: 0.3)
        var out: [CoreGestureEvent] = []
        for f in frames { out += arena.handle(f) }
        #expect(collapsed(out, including: [.pan]) == ["pan began", "pan changed"])
        #expect(arena.nextDeadline == nil)  // moving: no long press, no hold
        let cancelled = arena.cancelAll(at: Timestamp(seconds: 0.35), reason: "device-removed")
        #expect(names(cancelled) == ["pan cancelled", "touch-pan cancelled"])
        #expect(cancelled.allSatisfy { $0.reason == "device-removed" && $0.time == Timestamp(seconds: 0.35) })
        #expect(arena.cancelAll(at: Timestamp(seconds: 0.4), reason: "again").isEmpty)
    }

    @Test func pipelineStillRuns() {
        // The pipeline's stub tracker makes no frames yet; it must still call the arena safely.
        let d = DeviceDescription(
            name: "x",
            absAxes: [
                AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 100),
                AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 100),
            ])
        var p = GesturePipeline(deviceID: "x", description: d)
        var out = PipelineOutput()
        p.handle(
            InputEvent(time: Timestamp(seconds: 1), type: EventType.syn, code: SynCode.report, value: 0), into: &out)
        #expect(p.nextDeadline == nil)
        _ = p.deviceRemoved(at: Timestamp(seconds: 2))
    }
}

@Suite struct GestureConfigurationTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let c = GestureConfiguration()
        #expect(c.touchSlopMm == 2.5 && c.tapTimeoutMs == 180 && c.doubleTapTimeoutMs == 300 && c.longPressMs == 500)
        #expect(c.pinchRatio == 1.1 && Swift.abs(c.rotateThresholdRadians - 2 * Double.pi / 50) < 1e-12)
        #expect(c.decideMotionPerFingerMm == 1.5)
        #expect(Swift.abs(c.doubleTapSlopMm - 100.0 / 160 * 25.4) < 1e-9)  // Android 100 dp
        #expect(
            c.policy.allows(.pinch, with: .rotate) && c.policy.allows(.pan, with: .pinch)
                && c.policy.allows(.rotate, with: .pan))
        #expect(!c.policy.allows(.tap, with: .pan) && !c.policy.allows(.swipe, with: .pinch))
        #expect(
            c.policy.tapWaitsForDoubleTapFingers.isEmpty && c.policy.palmCancels
                && !c.policy.twoFingerLongPressGatesPanAndRotate)
    }

    @Test func overridesApplyAndRejections() {
        var c = GestureConfiguration()
        let rejected = c.apply(overrides: [
            "tap-timeout-ms": "200", "tap-slop-mm": " 3 ", "long-press-ms": "450", "pinch-ratio": "1.15",
            "rotate-degrees": "10", "simultaneous": "pinch+pan,rotate+pan", "palm-cancels": "false",
            "pinch-ratio-typo": "1", "double-tap-timeout-ms": "-5", "momentum-decay-per-ms": "1.5",
            "swipe-min-speed-mm-s": "abc", "tap-waits-for-double-tap": "1,x",
        ])
        #expect(
            rejected == [
                "double-tap-timeout-ms", "momentum-decay-per-ms", "pinch-ratio-typo", "swipe-min-speed-mm-s",
                "tap-waits-for-double-tap",
            ])
        #expect(c.tapTimeoutMs == 200 && c.touchSlopMm == 3 && c.longPressMs == 450 && c.pinchRatio == 1.15)
        #expect(Swift.abs(c.rotateTurns - 10.0 / 360) < 1e-12)
        #expect(c.policy.allows(.pinch, with: .pan) && !c.policy.allows(.pinch, with: .rotate))
        #expect(!c.policy.palmCancels)
        #expect(c.doubleTapTimeoutMs == 300 && c.momentumDecayPerMs == 0.998)
        #expect(c.apply(overrides: ["simultaneous": "pinch+banana"]) == ["simultaneous"])
        #expect(c.apply(overrides: ["pinch-ratio": "1"]) == ["pinch-ratio"])
    }

    @Test func everyListedKeyIsAccepted() {
        for key in GestureConfiguration.overrideKeys {
            var c = GestureConfiguration()
            let example = GestureConfiguration.overrideSetting(named: key)?.example ?? "?"
            #expect(c.apply(overrides: [key: example]) == [], "\(key)")
        }
    }

    @Test func thresholdsComeFromTheConfiguration() {
        // A longer tap timeout turns a 250 ms touch into a tap.
        var c = GestureConfiguration()
        #expect(names(run(tap(1, at: 0, ms: 250)), including: [.tap]).isEmpty)
        _ = c.apply(overrides: ["tap-timeout-ms": "300"])
        #expect(names(run(tap(1, at: 0, ms: 250), configuration: c), including: [.tap]) == ["tap recognized"])
    }
}

@Suite struct GestureArenaBugReportTests {
    @Test func impossibleInputIsReportedNotACrash() {
        // A tracker never says "began" twice for a touch that is down; if it did, the per-touch
        // machine reports a handyd bug and carries on.
        var frames = makeFrames([Finger.line(id: 0, (40, 50), (50, 50), down: 0, up: 0.5, move: 0, 0.4)])
        var bogus = frames[20]
        bogus.touches[0].phase = .began
        frames.insert(bogus, at: 21)
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        let events = runArena(frames, arena: &arena)
        #expect(arena.bugReports.count == 1)
        #expect(arena.bugReports.first?.hasPrefix("handyd bug: touch 0 began while its touch-pan was active") == true)
        #expect(!events.isEmpty)
    }
}

@Suite struct GestureArenaTraceTests {
    @Test func transitionsAreTracedOnlyWhenAsked() {
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        _ = runArena(makeFrames(tap(1, at: 0)), arena: &arena)
        #expect(arena.transitions.isEmpty)

        var traced = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        traced.tracesTransitions = true
        _ = runArena(makeFrames(tap(1, at: 0)), arena: &traced)
        let t = traced.drainTransitions()
        #expect(t.contains("tap: idle -> frame@0.000000 -> touching"))
        #expect(t.contains("tap: touching -> frame@0.080000 -> idle"))
        #expect(t.contains("long-press: idle -> frame@0.000000 -> waiting"))
        #expect(t.contains("long-press: waiting -> frame@0.080000 -> idle"))
        #expect(traced.transitions.isEmpty)
    }
}

@Suite struct GestureArenaFuzzTests {
    /// Deterministic pseudo-random numbers (a test must replay the same way).
    struct LCG {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11
        }
        mutating func unit() -> Double { Double(next() % 1_000_000) / 1_000_000 }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    @Test(arguments: [Int64.min + 1, -5_000_000, 0, Int64.max - 2_000_000, Int64.max - 1])
    func garbageFramesNeverCrash(start: Int64) {
        var rng = LCG(state: UInt64(bitPattern: start) ^ 0x9e3779b97f4a7c15)
        var arena = GestureArena(deviceID: "fuzz", geometry: TestScreen.geometry)
        var time = start
        var count = 0
        for _ in 0..<5_000 {
            // Time mostly moves forward in small steps, sometimes jumps anywhere (even backwards).
            let step = rng.below(10) == 0 ? Int64(bitPattern: rng.next() << 11) : Int64(rng.below(20_000))
            time = time.addingReportingOverflow(step).overflow ? start : time &+ step
            let phases: [TouchPhase] = [.began, .moved, .stationary, .ended, .cancelled]
            let tools: [TouchTool] = [.finger, .finger, .finger, .pen, .palm]
            var touches: [Touch] = []
            for _ in 0..<rng.below(6) {
                let p = PhysicalPoint(x: rng.unit() * 400 - 100, y: rng.unit() * 300 - 100)
                let major: Double? = rng.below(3) == 0 ? rng.unit() * 60 : nil
                let id = rng.below(8) == 0 ? 64 + rng.below(100) : rng.below(12)
                touches.append(
                    Touch(
                        id: id, phase: phases[rng.below(5)], tool: tools[rng.below(5)],
                        device: DevicePoint(x: 0, y: 0), mm: p, normalized: NormalizedPoint(x: p.x / 200, y: p.y / 120),
                        startMm: PhysicalPoint(x: p.x + rng.unit() * 10, y: p.y), majorMm: major,
                        beganAt: Timestamp(microseconds: time &- Int64(rng.below(1_000_000))),
                        time: Timestamp(microseconds: time),
                        velocity: PhysicalPoint(x: rng.unit() * 500, y: 0)))
            }
            let frame = TouchFrame(time: Timestamp(microseconds: time), touches: touches, resynced: rng.below(50) == 0)
            count += arena.handle(frame).count
            if rng.below(20) == 0 {
                count += arena.advanceTime(to: Timestamp(microseconds: time &+ Int64(rng.below(1_000_000)))).count
            }
            if rng.below(200) == 0 { count += arena.cancelAll(at: Timestamp(microseconds: time), reason: "fuzz").count }
        }
        #expect(count > 0)
        #expect(arena.ignoredTouches > 0)
    }
}
