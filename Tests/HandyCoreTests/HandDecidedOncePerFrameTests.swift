import HandyProtocol
import Synchronization
import Testing

@testable import HandyCore

/// The classifier scores the fingers of a frame once (issue 52 item 4): long press, swipe and tap
/// deciding at the same finger down, pinch, rotate and pan beginning on the same frame, share one
/// decision (``ArenaContext/decideHand(_:mask:fingers:)`` remembers the frame's last).
@Suite struct HandDecidedOncePerFrameTests {
    /// The default classifier, counting its decisions.
    final class CountingClassifier: HandednessClassifier {
        let inner = EvidenceHandednessClassifier()
        let calls = Mutex(0)
        func classify(_ features: HandednessFeatures) -> (hand: Hand, confidence: Double) { inner.classify(features) }
        func decide(_ features: HandednessFeatures) -> HandDecision {
            calls.withLock { $0 += 1 }
            return inner.decide(features)
        }
    }

    @Test(arguments: ["rotate", "pan", "long press", "tap", "swipe"])
    func eachFrameIsScoredAtMostOnceAndTheHandsAreTheSame(_ name: String) {
        let fingers: [Finger] =
            switch name {
            case "rotate": HandOnEveryGestureTests.rotate()
            case "pan": HandOnEveryGestureTests.twoFingerPan()
            case "long press": HandOnEveryGestureTests.twoFingerLongPress()
            case "tap": HandOnEveryGestureTests.twoFingerTap()
            default: HandOnEveryGestureTests.twoFingerSwipe()
            }
        let frames = makeFrames(fingers)
        let counting = CountingClassifier()
        var arena = GestureArena(deviceID: "test", geometry: TestScreen.geometry, configuration: .init())
        arena.setHandednessClassifier(counting)
        var events: [GestureEvent] = []
        for (i, frame) in frames.enumerated() {
            let before = counting.calls.withLock { $0 }
            events += arena.handle(frame).wireEvents
            let scored = counting.calls.withLock { $0 } - before
            #expect(scored <= 1, "\(name): frame \(i) at \(frame.time.seconds) s scored \(scored) times")
        }
        events += arena.advanceTime(to: Timestamp(seconds: (frames.last?.time.seconds ?? 0) + 2)).wireEvents
        #expect(counting.calls.withLock { $0 } >= 1, "\(name): the classifier decided no hand")
        // The same hands as the default arena's.
        let plain = run(fingers)
        #expect(events.map(\.hand) == plain.map(\.hand) && events.count == plain.count && !events.isEmpty)
        #expect(events.contains { $0.hand != nil }, "\(name): no gesture with a hand")
        #expect(arena.bugReports.isEmpty)
    }
}
