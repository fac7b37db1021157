@testable import HandyCore
import HandyProtocol
import Testing

/// Every gesture carries its hand (issue 14 part 3): rotate, pan, long press, tap and swipe with two
/// or more fingers decide it as pinch does; one-finger gestures and the per-touch gestures from the
/// contact's ellipse when the device reports one, `unknown` otherwise. Mirror symmetry on each.
@Suite struct HandOnEveryGestureTests {
    /// Two fingers: the index (id 1) up and right of the thumb (id 0) for a right hand.
    static func twoFingers(_ moves: (Finger, Finger)) -> [Finger] { [moves.0, moves.1] }

    static func rotate() -> [Finger] {
        [Finger.arc(id: 0, center: (100, 60), from: 0.9 * Double.pi, to: 0.9 * Double.pi + 0.8, down: 0, up: 0.6, move: 0.05, 0.5),
         Finger.arc(id: 1, center: (100, 60), from: -0.1 * Double.pi, to: -0.1 * Double.pi + 0.8, down: 0, up: 0.6, move: 0.05, 0.5)]
    }

    static func twoFingerPan() -> [Finger] {
        [Finger.line(id: 0, (90, 70), (60, 70), down: 0, up: 0.5, move: 0.05, 0.45),
         Finger.line(id: 1, (110, 45), (80, 45), down: 0, up: 0.5, move: 0.05, 0.45)]
    }

    static func twoFingerLongPress() -> [Finger] {
        [Finger.hold(id: 0, (90, 70), down: 0, up: 1.2), Finger.hold(id: 1, (110, 45), down: 0.01, up: 1.2)]
    }

    static func twoFingerTap() -> [Finger] {
        [Finger.hold(id: 0, (90, 70), down: 0, up: 0.08), Finger.hold(id: 1, (110, 45), down: 0.01, up: 0.09)]
    }

    static func twoFingerSwipe() -> [Finger] {
        [Finger.line(id: 0, (110, 70), (50, 70), down: 0, up: 0.16, move: 0.01, 0.15),
         Finger.line(id: 1, (130, 45), (70, 45), down: 0, up: 0.16, move: 0.01, 0.15)]
    }

    /// One finger whose contact leans by `orientation` (kernel convention).
    static func leaning(_ finger: Finger, _ orientation: Double) -> Finger {
        var f = finger
        f.majorMm = { _ in 14 }
        f.minorMm = { _ in 9 }
        f.orientation = { _ in orientation }
        return f
    }

    /// The first event of `kind` and every event of it carry the same hand; the mirrored stream
    /// gives the mirrored hand with the same confidence.
    func checkMirror(_ fingers: [Finger], _ kind: GestureKind, expected: Hand,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let events = run(fingers).filter { $0.gesture == kind }
        let mirrored = run(fingers.map { $0.mirroredX(widthMm: TestScreen.widthMm) }).filter { $0.gesture == kind }
        #expect(!events.isEmpty && events.count == mirrored.count, "\(kind): \(events.count) vs \(mirrored.count)", sourceLocation: sourceLocation)
        guard let first = events.first, let hand = first.hand else {
            Issue.record("\(kind) without a hand", sourceLocation: sourceLocation); return
        }
        #expect(hand == expected, "\(kind) hand \(hand)", sourceLocation: sourceLocation)
        #expect(events.allSatisfy { $0.hand == hand && $0.handConfidence == first.handConfidence && $0.clearSide == hand.clearSide },
                sourceLocation: sourceLocation)
        #expect(mirrored.allSatisfy { $0.hand == hand.mirrored && $0.clearSide == hand.mirrored.clearSide },
                sourceLocation: sourceLocation)
        #expect(mirrored.first?.handConfidence == first.handConfidence, sourceLocation: sourceLocation)
        // P(right hand): on every event, the same; the mirrored gesture's is 1 − P; its side is the hand's.
        guard let p = first.rightHandProbability, let q = mirrored.first?.rightHandProbability else {
            Issue.record("\(kind) without rightHandProbability", sourceLocation: sourceLocation); return
        }
        #expect(p >= 0 && p <= 1 && p == wireRounded(p, 3), "\(kind) P \(p)", sourceLocation: sourceLocation)
        #expect(events.allSatisfy { $0.rightHandProbability == p } && mirrored.allSatisfy { $0.rightHandProbability == q },
                sourceLocation: sourceLocation)
        #expect(q == wireRounded(1 - p, 3), "\(kind): P \(p), mirrored \(q)", sourceLocation: sourceLocation)
        switch hand {
        case .right: #expect(p > 0.5 && p == wireRounded(first.handConfidence ?? 0, 3), "\(kind) P \(p)", sourceLocation: sourceLocation)
        case .left: #expect(p < 0.5 && p == wireRounded(1 - (first.handConfidence ?? 0), 3), "\(kind) P \(p)", sourceLocation: sourceLocation)
        case .unknown: break
        }
    }

    /// A pinch opening along the line from `bottom` (id 0) to `top` (id 1), each finger 12 mm.
    static func pinch(bottom: (Double, Double), top: (Double, Double)) -> [Finger] {
        let dx = top.0 - bottom.0, dy = top.1 - bottom.1, d = (dx * dx + dy * dy).squareRoot()
        let ux = dx / d * 12, uy = dy / d * 12
        return [Finger.line(id: 0, bottom, (bottom.0 - ux, bottom.1 - uy), down: 0, up: 0.5, move: 0.05, 0.45),
                Finger.line(id: 1, top, (top.0 + ux, top.1 + uy), down: 0, up: 0.5, move: 0.05, 0.45)]
    }

    /// One finger straight above the other: the ambiguous slice, where positions alone publish no
    /// hand. The classifier ran, so P(right) is there all the same, and mirrors to 1 − P.
    @Test func aVerticalPinchIsUnknownWithAProbability() {
        let fingers = Self.pinch(bottom: (100, 80), top: (102, 50))
        checkMirror(fingers, .pinch, expected: .unknown)
        let p = run(fingers).first { $0.gesture == .pinch }?.rightHandProbability
        #expect(p != nil && p != 0.5, "P \(String(describing: p))")   // judged, not a shrug
    }

    /// A pinch whose hand is known: P's side is the hand's (checkMirror: P > 0.5 ⇔ right).
    @Test func aLeaningPinchHasTheHandOnPsSide() {
        checkMirror(Self.pinch(bottom: (90, 75), top: (115, 45)), .pinch, expected: .right)
    }

    /// Two fingers further apart than a hand spans: two hands, no P.
    @Test func twoHandsApartHaveNoProbability() {
        let events = run(Self.pinch(bottom: (25, 105), top: (180, 15))).filter { $0.gesture == .pinch }
        #expect(!events.isEmpty && events.allSatisfy { $0.hand == .unknown && $0.rightHandProbability == nil })
    }

    @Test func rotateCarriesTheHand() { checkMirror(Self.rotate(), .rotate, expected: .right) }
    @Test func twoFingerPanCarriesTheHand() { checkMirror(Self.twoFingerPan(), .pan, expected: .right) }
    @Test func twoFingerLongPressCarriesTheHand() { checkMirror(Self.twoFingerLongPress(), .longPress, expected: .right) }

    @Test func twoFingerTapCarriesTheHand() { checkMirror(Self.twoFingerTap(), .tap, expected: .right) }
    @Test func twoFingerSwipeCarriesTheHand() { checkMirror(Self.twoFingerSwipe(), .swipe, expected: .right) }

    @Test(arguments: [(-0.6, Hand.right), (0.6, Hand.left), (0.1, Hand.unknown)])
    func oneFingerTapAndItsTouchTapTakeTheHandFromTheEllipse(orientation: Double, expected: Hand) {
        let tap = Self.leaning(Finger.hold(id: 0, (100, 60), down: 0, up: 0.08), orientation)
        checkMirror([tap], .tap, expected: expected)
        checkMirror([tap], .touchTap, expected: expected)
    }

    @Test(arguments: [(-0.6, Hand.right), (0.6, Hand.left)])
    func oneFingerSwipeAndItsTouchSwipeTakeTheHandFromTheEllipse(orientation: Double, expected: Hand) {
        let swipe = Self.leaning(Finger.line(id: 0, (120, 60), (60, 60), down: 0, up: 0.16, move: 0.01, 0.15), orientation)
        checkMirror([swipe], .swipe, expected: expected)
        checkMirror([swipe], .touchSwipe, expected: expected)
    }

    /// Per-touch gestures: each touch its own hand, from its own ellipse, on every event of it.
    @Test func eachTouchPanCarriesItsOwnTouchsHand() {
        let fingers = [Self.leaning(Finger.line(id: 0, (60, 80), (60, 50), down: 0, up: 0.9, move: 0.05, 0.85), -0.6),
                       Self.leaning(Finger.line(id: 1, (140, 80), (140, 50), down: 0, up: 0.9, move: 0.05, 0.85), 0.6)]
        let pans = run(fingers).filter { $0.gesture == .touchPan }
        for (touch, hand) in [(0, Hand.right), (1, Hand.left)] {
            let mine = pans.filter { $0.touch == touch }
            #expect(!mine.isEmpty && mine.allSatisfy { $0.hand == hand && $0.clearSide == hand.clearSide },
                    "touch \(touch): \(mine.map { String(describing: $0.hand) })")
        }
    }

    @Test func perTouchGesturesWithoutOrientationAreUnknown() {
        let events = run([Finger.hold(id: 0, (100, 60), down: 0, up: 0.08),
                          Finger.line(id: 1, (150, 60), (150, 20), down: 0.5, up: 1.3, move: 0.55, 1.25)])
            .filter { $0.touch != nil }
        #expect(Set(events.map(\.gesture)).isSuperset(of: [.touchTap, .touchPan]))
        #expect(events.allSatisfy { $0.hand == .unknown && $0.handConfidence == 0 && $0.clearSide == .unknown })
        // No shape reported: no classifier ran, so no probability either.
        #expect(events.allSatisfy { $0.rightHandProbability == nil })
    }

    @Test func oneFingerWithoutOrientationIsUnknown() {
        let pan = run([Finger.line(id: 0, (100, 60), (60, 60), down: 0, up: 0.4, move: 0.05, 0.35)]).filter { $0.gesture == .pan }
        #expect(!pan.isEmpty && pan.allSatisfy { $0.hand == .unknown && $0.handConfidence == 0 && $0.clearSide == .unknown })
        #expect(pan.allSatisfy { $0.rightHandProbability == nil })
    }

    /// A contact whose shape says nothing (upright) is `unknown` with P = 0.5: the rule ran.
    @Test func anUprightContactIsUnknownWithAnEvenProbability() {
        let tap = Self.leaning(Finger.hold(id: 0, (100, 60), down: 0, up: 0.08), 0.1)
        let events = run([tap]).filter { $0.gesture == .tap || $0.gesture == .touchTap }
        #expect(events.count == 2 && events.allSatisfy { $0.hand == .unknown && $0.rightHandProbability == 0.5 })
    }

    @Test(arguments: [(-0.6, Hand.right), (0.6, Hand.left), (0.1, Hand.unknown)])
    func oneFingerPanTakesTheHandFromItsEllipse(orientation: Double, expected: Hand) {
        var finger = Finger.line(id: 0, (100, 60), (60, 60), down: 0, up: 0.4, move: 0.05, 0.35)
        finger.majorMm = { _ in 14 }
        finger.minorMm = { _ in 9 }
        finger.orientation = { _ in orientation }
        checkMirror([finger], .pan, expected: expected)
    }
}

@Suite struct SingleContactHandednessTests {
    func contact(_ orientation: Double?, elongation: Double? = 0.35) -> HandednessContact {
        HandednessContact(positionMm: PhysicalPoint(x: 50, y: 50), startMm: PhysicalPoint(x: 50, y: 50), landedSeconds: 0,
                          orientation: orientation, elongation: elongation)
    }

    @Test func leaningUpLeftIsARightHandAndUpRightALeftHand() {
        let right = SingleContactHandedness.classify(contact(-45 * Double.pi / 180))
        #expect(right.hand == .right && right.confidence == SingleContactHandedness.maximumConfidence)
        let left = SingleContactHandedness.classify(contact(30 * Double.pi / 180))
        #expect(left.hand == .left && left.confidence > 0.5 && left.confidence < SingleContactHandedness.maximumConfidence)
    }

    @Test func saysNothingWhenUprightFlatRoundOrUnreported() {
        for c in [contact(0.1), contact(-0.2), contact(Double.pi / 2), contact(Double.pi / 2 - 0.1), contact(-0.7, elongation: 0.05),
                  contact(-0.7, elongation: nil), contact(nil), contact(.nan)] {
            let r = SingleContactHandedness.classify(c)
            #expect(r.hand == .unknown && r.confidence == 0, "\(String(describing: c.orientation))")
        }
    }

    @Test func decideGivesTheProbabilityOfTheRightHand() {
        #expect(SingleContactHandedness.decide(contact(nil)) == .undecided)
        #expect(SingleContactHandedness.decide(contact(-0.7, elongation: nil)) == .undecided)
        let upright = SingleContactHandedness.decide(contact(0.1))
        #expect(upright.hand == .unknown && upright.confidence == 0 && upright.rightHandProbability == 0.5)
        let round = SingleContactHandedness.decide(contact(-0.7, elongation: 0.05))
        #expect(round.hand == .unknown && round.rightHandProbability == 0.5)
        let right = SingleContactHandedness.decide(contact(-45 * Double.pi / 180))
        #expect(right.hand == .right && right.rightHandProbability == SingleContactHandedness.maximumConfidence)
        let left = SingleContactHandedness.decide(contact(30 * Double.pi / 180))
        #expect(left.hand == .left && left.rightHandProbability == wireRounded(1 - left.confidence, 3))
    }

    @Test func mirrorSymmetricAndBounded() {
        for degrees in stride(from: -172.0, through: 172, by: 5) {   // not on a dead-zone edge (±15°, ±75°)
            let c = contact(degrees * Double.pi / 180)
            let a = SingleContactHandedness.classify(c), b = SingleContactHandedness.classify(c.mirroredX(about: 100))
            #expect(b.hand == a.hand.mirrored && b.confidence == a.confidence, "\(degrees)°")
            #expect(a.confidence <= SingleContactHandedness.maximumConfidence)
            // An axis is undirected: θ and θ ± 180° are the same contact.
            #expect(SingleContactHandedness.classify(contact((degrees + 180) * Double.pi / 180)).hand == a.hand, "\(degrees)°")
        }
    }
}
