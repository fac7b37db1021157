import HandyCore
import HandyProtocol
import HandySynthetic
import Testing

/// `handyctl calibrate hand --device`'s steps without a daemon: frames as the daemon publishes them.
@Suite struct EnrolmentSessionTests {
    static func frame(_ time: Double, _ touches: [(id: Int, phase: String, x: Double, y: Double)]) -> TouchesMessage {
        TouchesMessage(
            time: time, device: "d",
            touches: touches.map {
                WireTouch(id: $0.id, phase: $0.phase, tool: "finger", x: $0.x, y: $0.y, xMm: $0.x, yMm: $0.y)
            })
    }

    /// Two fingers down, closing in, lifted; `pinched` says whether the daemon saw the pinch begin.
    static func pinch(_ session: inout EnrolmentSession, at t: Double, pinched: Bool) -> [EnrolmentSession.Outcome] {
        var outcomes = session.handle(
            frame(t, [(1, "began", 100, 50), (2, "began", 80, 80)]), widthMm: 250, heightMm: 150)
        if pinched { session.pinchBegan() }
        outcomes += session.handle(
            frame(t + 0.1, [(1, "moved", 95, 55), (2, "moved", 85, 75)]), widthMm: 250, heightMm: 150)
        outcomes += session.handle(
            frame(t + 0.2, [(1, "ended", 95, 55), (2, "ended", 85, 75)]), widthMm: 250, heightMm: 150)
        return outcomes
    }

    static func tap(_ session: inout EnrolmentSession, at t: Double, id: Int) -> [EnrolmentSession.Outcome] {
        session.handle(frame(t, [(id, "began", 120, 70)]), widthMm: 250, heightMm: 150)
            + session.handle(frame(t + 0.05, [(id, "ended", 120, 70)]), widthMm: 250, heightMm: 150)
    }

    static func describe(_ outcomes: [EnrolmentSession.Outcome]) -> [String] {
        outcomes.map {
            switch $0 {
            case .take(let r, let step, let name):
                "take \(name) step \(step) frames \(r.events.filter { $0.type == EventType.syn }.count)"
            case .progress(let done, let count, let kind): "\(kind.rawValue) \(done)/\(count)"
            case .stepFinished: "step finished"
            }
        }
    }

    @Test func aPinchIsKeptOnlyWhenTheDaemonSawItBegin() {
        var session = EnrolmentSession(pinches: 2, taps: 0)
        #expect(
            Self.describe(Self.pinch(&session, at: 0, pinched: false)).isEmpty, "two fingers without a pinch: no take")
        #expect(
            Self.describe(Self.pinch(&session, at: 1, pinched: true)) == ["take pinch step 0 frames 3", "pinch 1/2"])
        #expect(
            Self.describe(Self.pinch(&session, at: 2, pinched: true)) == [
                "take pinch step 0 frames 3", "pinch 2/2", "step finished",
            ])
        #expect(session.step == 1 && session.current?.hand == .left && !session.isFinished)
    }

    @Test func oneFingerIsNoPinchEvenIfAPinchBegan() {
        var session = EnrolmentSession(pinches: 1, taps: 0)
        var outcomes = session.handle(Self.frame(0, [(1, "began", 100, 50)]), widthMm: 250, heightMm: 150)
        session.pinchBegan()
        outcomes += session.handle(Self.frame(0.1, [(1, "ended", 100, 50)]), widthMm: 250, heightMm: 150)
        #expect(Self.describe(outcomes).isEmpty)
        #expect(session.step == 0)
    }

    @Test func theStepsRunRightPinchesLeftPinchesRightTapsLeftTaps() {
        var session = EnrolmentSession(pinches: 1, taps: 2)
        #expect(
            session.steps.map { "\($0.hand.rawValue) \($0.kind.rawValue) \($0.count)" }
                == ["right pinch 1", "left pinch 1", "right tap 2", "left tap 2"])
        var all: [String] = []
        all += Self.describe(Self.pinch(&session, at: 0, pinched: true))
        all += Self.describe(Self.pinch(&session, at: 1, pinched: true))
        // The taps of a step are one take, kept once the count is reached with every finger up.
        all += Self.describe(Self.tap(&session, at: 2, id: 3))
        all += Self.describe(Self.tap(&session, at: 3, id: 4))
        all += Self.describe(Self.tap(&session, at: 4, id: 5))
        all += Self.describe(Self.tap(&session, at: 5, id: 6))
        #expect(
            all == [
                "take pinch step 0 frames 3", "pinch 1/1", "step finished",
                "take pinch step 1 frames 3", "pinch 1/1", "step finished",
                "take taps step 2 frames 4", "tap 2/2", "step finished",
                "take taps step 3 frames 4", "tap 2/2", "step finished",
            ])
        #expect(session.isFinished && session.current == nil)
        #expect(Self.tap(&session, at: 6, id: 7).isEmpty, "after the last step nothing is taken")
    }

    @Test func twoFingersTogetherCountAsTwoTapsAndNothingIsAFrameWithoutATouch() {
        var session = EnrolmentSession(pinches: 1, taps: 2)
        _ = Self.pinch(&session, at: 0, pinched: true)
        _ = Self.pinch(&session, at: 1, pinched: true)
        #expect(session.current?.kind == .tap)
        // A lift of a touch never seen, and an empty frame: no take begins or ends.
        #expect(session.handle(Self.frame(2, [(9, "ended", 100, 50)]), widthMm: 250, heightMm: 150).isEmpty)
        #expect(session.handle(Self.frame(2.1, []), widthMm: 250, heightMm: 150).isEmpty)
        var outcomes = session.handle(
            Self.frame(3, [(2, "began", 100, 50), (3, "began", 140, 50)]), widthMm: 250, heightMm: 150)
        #expect(outcomes.isEmpty, "the count is reached but fingers are down")
        outcomes = session.handle(
            Self.frame(3.1, [(2, "ended", 100, 50), (3, "ended", 140, 50)]), widthMm: 250, heightMm: 150)
        #expect(Self.describe(outcomes) == ["take taps step 2 frames 2", "tap 2/2", "step finished"])
        #expect(session.current?.hand == .left)
    }
}
