import HandyCore
import HandyProtocol
import HandySynthetic
import HandyWire
import Testing

/// Recognizers behind the real tracker: evdev events from the tracker helper's synthetic stream
/// builder → GesturePipeline (TouchTracker → GestureArena), as the daemon runs them.
@Suite struct GestureSyntheticStreamTests {
    static let screen = SyntheticTouchscreen.fullFeatured()  // 200 × 120 mm, 20 units/mm, slots, tool type

    static func replay(_ events: [InputEvent], screen: SyntheticTouchscreen = screen) -> (
        gestures: [GestureEvent], bugs: [String]
    ) {
        var p = GesturePipeline(deviceID: "synthetic", description: screen.description)
        var out = PipelineOutput()
        for e in events { p.handle(e, into: &out) }
        if let last = events.last { out.gestures += p.advanceTime(to: last.time.advanced(byMilliseconds: 2000)) }
        return (out.gestures.wireEvents, p.arena.bugReports)
    }

    /// Thumb and index of a hand spreading: the index (top) up and to the `side` of the thumb.
    static func pinch(rightHand: Bool, centerX: Double = 100) -> [FingerPath] {
        let s = rightHand ? 1.0 : -1.0
        return [
            FingerPath.line(
                fromMm: (centerX - 8 * s, 70), toMm: (centerX - 20 * s, 85), startSeconds: 0, durationSeconds: 0.5),
            FingerPath.line(
                fromMm: (centerX + 8 * s, 50), toMm: (centerX + 20 * s, 35), startSeconds: 0, durationSeconds: 0.5),
        ]
    }

    @Test(arguments: [
        SyntheticTouchscreen.fullFeatured(),
        SyntheticTouchscreen(mtProtocol: .contacts, maxX: 3999, maxY: 2399, resolution: 20),
    ])
    func pinchThroughTheTrackerKnowsTheHand(screen: SyntheticTouchscreen) {
        for right in [true, false] {
            let stream = SyntheticStream(device: screen)
            let r = Self.replay(stream.events(Self.pinch(rightHand: right)), screen: screen)
            let pinch = r.gestures.filter { $0.gesture == .pinch }
            #expect(collapsed(pinch) == ["pinch began", "pinch changed", "pinch ended"])
            #expect(
                pinch.allSatisfy { $0.hand == (right ? .right : .left) && $0.clearSide == (right ? .left : .right) })
            #expect(pinch.last!.scale! > 1.8)
            #expect(r.bugs.isEmpty)
        }
    }

    @Test func synDroppedCancelsWithResync() {
        let stream = SyntheticStream(device: Self.screen)
        let frames = stream.frames(Self.pinch(rightHand: true))
        // Drop frames 30…34 mid-pinch: libevdev's resync follows.
        let faulty = SyntheticFault.libevdevSynDropped(frames, dropping: 30..<35)
        let r = Self.replay(faulty.flatMap { $0 })
        let pinch = r.gestures.filter { $0.gesture == .pinch }
        #expect(pinch.first?.phase == .began)
        #expect(pinch.last?.phase == .cancelled && pinch.last?.reason == "resync")
        #expect(r.bugs.isEmpty)
    }

    @Test func palmToolTypeThroughTheTracker() {
        // A finger pans; a second contact reported as MT_TOOL_PALM lands beside it: the pan goes on
        // with one finger (the palm never takes part).
        let stream = SyntheticStream(device: Self.screen)
        let events = stream.events([
            FingerPath.line(fromMm: (50, 60), toMm: (50, 100), startSeconds: 0, durationSeconds: 0.6),
            FingerPath.hold(atMm: (150, 60), startSeconds: 0.2, durationSeconds: 0.3, majorMm: 40, tool: .palm),
        ])
        let r = Self.replay(events)
        let multi = r.gestures.filter { multiFinger.contains($0.gesture) }
        #expect(collapsed(multi) == ["pan began", "pan changed", "pan ended"])
        #expect(multi.allSatisfy { $0.fingers == 1 })
        #expect(!r.gestures.contains { $0.touch == 1 })
    }

    @Test func deviceRemovedCancelsWhatIsInProgress() {
        let stream = SyntheticStream(device: Self.screen)
        let events = stream.events([
            FingerPath.line(fromMm: (50, 60), toMm: (50, 100), startSeconds: 0, durationSeconds: 0.6, lifts: false)
        ])
        var p = GesturePipeline(deviceID: "synthetic", description: Self.screen.description)
        var out = PipelineOutput()
        for e in events { p.handle(e, into: &out) }
        #expect(collapsed(out.gestures, including: [.pan]) == ["pan began", "pan changed"])
        let removed = p.deviceRemoved(at: events.last!.time.advanced(byMilliseconds: 10))
        // Gestures are cancelled first, with the real reason; then the touches.
        let cancelled = removed.gestures.filter { $0.phase == .cancelled }
        #expect(cancelled.contains { $0.gesture == .pan })
        #expect(cancelled.allSatisfy { $0.reason == "device-removed" })
        #expect(removed.frames.count == 1 && removed.frames[0].touches.allSatisfy { $0.phase == .cancelled })
        #expect(p.arena.bugReports.isEmpty)
    }
}

@Suite struct GestureDemoScenarioTests {
    @Test func demoGivesOneOfEachGesture() throws {
        // DemoScenario.timeline: right pinch out, left pinch in, rotate 60° cw, tap, double tap,
        // one-finger pan, two-finger swipe left, long press.
        let r = GestureSyntheticStreamTests.replay(DemoScenario.events, screen: DemoScenario.device)
        let starts = r.gestures.filter {
            multiFinger.contains($0.gesture) && ($0.phase == .began || $0.phase == .recognized)
        }
        #expect(
            starts.map { "\($0.gesture.rawValue)" } == [
                "pinch", "pinch", "rotate", "tap", "tap", "tap", "pan", "pan", "swipe", "long-press",
            ])
        #expect(starts[0].hand == .right && starts[1].hand == .left)
        let pinchEnds = r.gestures.filter { $0.gesture == .pinch && $0.phase == .ended }
        #expect(pinchEnds.count == 2 && pinchEnds[0].scale! > 1.5 && pinchEnds[1].scale! < 0.7)
        let rotate = try #require(r.gestures.last { $0.gesture == .rotate })
        #expect(rotate.phase == .ended && rotate.rotation! > 0.8)
        #expect(starts[3...5].map(\.taps) == [1, 1, 2])
        #expect(starts[7].fingers == 2 && starts[8].direction == .left && starts[8].fingers == 2)
        #expect(r.bugs.isEmpty)
    }
}
