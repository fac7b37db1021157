import HandyProtocol
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct HandednessTests {
    let rule = SeedHandednessRule()  // dead zones: vertical 5 mm, horizontal 3 mm

    func classify(top: (Double, Double), bottom: (Double, Double)) -> (hand: Hand, confidence: Double) {
        rule.classify(
            HandednessFeatures(
                topMm: PhysicalPoint(x: top.0, y: top.1), bottomMm: PhysicalPoint(x: bottom.0, y: bottom.1)))
    }

    @Test func rightAndLeftHand() {
        // Right hand: index (top) up and to the right of the thumb (bottom).
        #expect(classify(top: (120, 40), bottom: (100, 70)).hand == .right)
        #expect(classify(top: (80, 40), bottom: (100, 70)).hand == .left)
        #expect(Hand.right.clearSide == .left && Hand.left.clearSide == .right && Hand.unknown.clearSide == .unknown)
    }

    @Test func deadZonesGiveUnknown() {
        // Vertical separation at / just inside the dead zone: unknown, whatever the horizontal one.
        #expect(classify(top: (140, 50), bottom: (100, 55)) == (.unknown, 0))
        #expect(classify(top: (140, 50), bottom: (100, 54.9)) == (.unknown, 0))
        #expect(classify(top: (140, 50), bottom: (100, 55.1)).hand == .right)
        // Horizontal separation at / inside the dead zone: unknown.
        #expect(classify(top: (103, 20), bottom: (100, 70)) == (.unknown, 0))
        #expect(classify(top: (97.1, 20), bottom: (100, 70)) == (.unknown, 0))
        #expect(classify(top: (96.9, 20), bottom: (100, 70)).hand == .left)
    }

    @Test func confidenceGrowsWithMargin() {
        let near = classify(top: (104, 40), bottom: (100, 46)).confidence
        let mid = classify(top: (110, 40), bottom: (100, 52)).confidence
        let far = classify(top: (130, 20), bottom: (100, 70)).confidence
        #expect(near > 0.5 && near < mid && mid < far && far <= 0.95)
        #expect(far == 0.95)
    }

    @Test func mirrorSymmetryOfTheRule() {
        // A grid of finger pairs: the mirror image gives the mirrored hand with the same confidence.
        for dx in stride(from: -30.0, through: 30, by: 1.5) {
            for dy in stride(from: 0.0, through: 30, by: 1.5) {
                let f = HandednessFeatures(
                    topMm: PhysicalPoint(x: 100 + dx, y: 50), bottomMm: PhysicalPoint(x: 100, y: 50 + dy))
                let a = rule.classify(f), b = rule.classify(f.mirroredX(about: 100))
                #expect(b.hand == a.hand.mirrored && b.confidence == a.confidence, "dx \(dx) dy \(dy)")
            }
        }
    }

    @Test(arguments: [-0.9, -0.5, -2.2, -2.6, 0.02, -Double.pi / 2])
    func mirroredStreamGivesMirroredHand(tilt: Double) {
        let fingers = spread(30, 61, center: (70, 60), tilt: tilt)
        let events = run(fingers).filter { $0.gesture == .pinch }
        let mirrored = run(fingers.map { $0.mirroredX(widthMm: TestScreen.widthMm) }).filter { $0.gesture == .pinch }
        #expect(!events.isEmpty && events.count == mirrored.count)
        let hand = events.first!.hand!
        #expect(mirrored.allSatisfy { $0.hand == hand.mirrored && $0.clearSide == hand.mirrored.clearSide })
        #expect(mirrored.first!.handConfidence == events.first!.handConfidence)
        #expect(mirrored.map(\.time) == events.map(\.time) && mirrored.map(\.scale) == events.map(\.scale))
        switch tilt {
        case -0.9, -0.5: #expect(hand == .right)
        case -2.2, -2.6: #expect(hand == .left)
        default: #expect(hand == .unknown)  // side by side (0.02 rad) or one above the other (-π/2)
        }
    }

    @Test func handIsDecidedAtBeganAndKept() {
        // Right-hand posture at began; the fingers then swing past vertical: the hand stays right.
        let f0 = Finger.arc(
            id: 0, center: (100, 60), radius: { 15 + 15 * $0 }, from: Double.pi - 0.9, to: Double.pi + 0.6, down: 0,
            up: 0.7, move: 0.05, 0.6)
        let f1 = Finger.arc(
            id: 1, center: (100, 60), radius: { 15 + 15 * $0 }, from: -0.9, to: 0.6, down: 0, up: 0.7, move: 0.05, 0.6)
        let pinches = run([f0, f1]).filter { $0.gesture == .pinch }
        #expect(pinches.count > 3)
        #expect(pinches.allSatisfy { $0.hand == .right })
    }

    /// What `eval handedness --dump` writes of each contact: the ellipse the touch reports, its
    /// own axes before the approaching tool's, nothing where it reports none.
    @Test func aContactKeepsTheEllipseItsTouchReports() {
        func touch(major: Double?, minor: Double?, widthMajor: Double?, widthMinor: Double?) -> Touch {
            Touch(
                id: 0, phase: .began, device: DevicePoint(x: 0, y: 0), mm: PhysicalPoint(x: 10, y: 20),
                normalized: NormalizedPoint(x: 0.1, y: 0.2), majorMm: major, minorMm: minor, widthMajorMm: widthMajor,
                widthMinorMm: widthMinor, orientation: 0.4, beganAt: Timestamp(microseconds: 0),
                time: Timestamp(microseconds: 0))
        }
        let own = HandednessContact(touch(major: 12, minor: 8, widthMajor: 15, widthMinor: 11))
        #expect(own.majorMm == 12 && own.minorMm == 8 && own.orientation == 0.4)
        #expect(Swift.abs(own.areaMm2! - Double.pi / 4 * 12 * 8) < 1e-9)
        let tool = HandednessContact(touch(major: nil, minor: nil, widthMajor: 15, widthMinor: 11))
        #expect(tool.majorMm == 15 && tool.minorMm == 11)
        let majorOnly = HandednessContact(touch(major: 9, minor: nil, widthMajor: 15, widthMinor: 11))
        #expect(majorOnly.majorMm == 9 && majorOnly.minorMm == nil)
        let none = HandednessContact(touch(major: nil, minor: nil, widthMajor: nil, widthMinor: nil))
        #expect(none.majorMm == nil && none.minorMm == nil && none.areaMm2 == nil)
    }

    @Test func classifierIsReplaceable() {
        struct AlwaysLeft: HandednessClassifier {
            func classify(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double) { (.left, 1) }
        }
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        arena.setHandednessClassifier(AlwaysLeft())
        let events = runArena(makeFrames(spread(30, 60)), arena: &arena).filter { $0.gesture == .pinch }
        #expect(
            !events.isEmpty
                && events.allSatisfy { $0.hand == .left && $0.handConfidence == 1 && $0.clearSide == .right })
    }
}

@Suite struct HandednessConfigurationTests {
    @Test func deadZonesComeFromTheConfiguration() {
        // A right-hand pinch whose fingers are 23 mm apart vertically at began: unknown for the seed
        // rule once the vertical dead zone is raised to 40 mm (an override applied after the arena
        // was made). The default classifier (evidence) has no dead zones.
        #expect(run(spread(30, 60)).first { $0.gesture == .pinch }?.hand == .right)
        var arena = GestureArena(deviceID: "t", geometry: TestScreen.geometry)
        _ = arena.configuration.apply(overrides: ["hand-vertical-dead-zone-mm": "40"])
        arena.setHandednessClassifier(SeedHandednessRule(configuration: arena.configuration))
        let events = runArena(makeFrames(spread(30, 60)), arena: &arena).filter { $0.gesture == .pinch }
        #expect(
            !events.isEmpty
                && events.allSatisfy { $0.hand == .unknown && $0.handConfidence == 0 && $0.clearSide == .unknown })
    }
}
