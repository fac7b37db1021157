import HandyProtocol
import HandySynthetic
import HandyWire
import Testing

@testable import HandyCore

/// Edge swipes: a swipe whose fingers came down within `swipe-edge-mm` of a display edge and that
/// moves away from it carries `edge`. The test screen is 200 × 120 mm (TestScreen).
@Suite struct RecognizerEdgeSwipeTests {
    /// A swipe in from `edge`: `fingers` fingers side by side along the edge, starting `insetMm`
    /// from it, travelling 40 mm inwards in 0.2 s (200 mm/s, a swipe by the default thresholds).
    static func inFrom(_ edge: DisplayEdge, fingers n: Int, insetMm: Double) -> [Finger] {
        (0..<n).map { i in
            let along = Double(i - (n - 1) / 2) * 15  // spread along the edge, 15 mm apart
            let (a, b): ((Double, Double), (Double, Double))
            switch edge {
            case .left: a = (insetMm, 60 + along); b = (insetMm + 40, 60 + along)
            case .right:
                a = (TestScreen.widthMm - insetMm, 60 + along); b = (TestScreen.widthMm - insetMm - 40, 60 + along)
            case .top: a = (100 + along, insetMm); b = (100 + along, insetMm + 40)
            case .bottom:
                a = (100 + along, TestScreen.heightMm - insetMm); b = (100 + along, TestScreen.heightMm - insetMm - 40)
            }
            return Finger.line(id: i, a, b, down: 0, up: 0.2, move: 0, 0.2)
        }
    }

    static let inwards: [DisplayEdge: SwipeDirection] = [.left: .right, .right: .left, .top: .down, .bottom: .up]

    static func swipes(
        _ fingers: [Finger], configuration: GestureConfiguration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [GestureEvent] {
        run(fingers, configuration: configuration, sourceLocation: sourceLocation).filter { $0.gesture == .swipe }
    }

    @Test(arguments: DisplayEdge.allCases, [1, 3])
    func aSwipeInFromAnEdgeSaysWhichEdge(edge: DisplayEdge, fingers: Int) {
        let s = Self.swipes(Self.inFrom(edge, fingers: fingers, insetMm: 4))
        #expect(s.count == 1)
        #expect(s.first?.direction == Self.inwards[edge])
        #expect(s.first?.fingers == fingers)
        #expect(s.first?.edge == edge)
    }

    @Test(arguments: DisplayEdge.allCases)
    func theSameSwipeFurtherInHasNoEdge(edge: DisplayEdge) {
        let s = Self.swipes(Self.inFrom(edge, fingers: 1, insetMm: 25))
        #expect(s.first?.direction == Self.inwards[edge])
        #expect(s.count == 1 && s.first?.edge == nil)
    }

    @Test func theEdgeWidthIsAPerDeviceThreshold() throws {
        // 13 mm in: beyond the default 10 mm, within 15 mm.
        let fingers = Self.inFrom(.left, fingers: 1, insetMm: 13)
        #expect(Self.swipes(fingers).first?.edge == nil)
        var c = GestureConfiguration()
        #expect(c.applyOverrides(["swipe-edge-mm": "15"]).isEmpty)
        #expect(c.swipeEdgeMm == 15)
        #expect(Self.swipes(fingers, configuration: c).first?.edge == .left)
        // Exactly on the threshold counts (within, both ends included like the ranges).
        #expect(Self.swipes(Self.inFrom(.left, fingers: 1, insetMm: 10)).first?.edge == .left)
        // Out of range: rejected, the default stays.
        var bad = GestureConfiguration()
        let rejected = bad.applyOverrides(["swipe-edge-mm": "0"])
        #expect(rejected.map(\.key) == ["swipe-edge-mm"])
        #expect(rejected.first?.reason == "out of range, accepted 0.1 … 100 mm; using 10 mm")
    }

    @Test func aSwipeAlongAnEdgeIsNoEdgeSwipe() {
        // 4 mm from the left edge, downwards: it moves along the edge, not away from it.
        let down = Self.swipes([Finger.line(id: 0, (4, 20), (4, 60), down: 0, up: 0.2, move: 0, 0.2)])
        #expect(down.count == 1 && down.first?.direction == .down)
        #expect(down.first?.edge == nil)
        // Towards the right edge from 40 mm out, ending 4 mm from it: it did not begin there.
        let towards = Self.swipes([Finger.line(id: 0, (156, 60), (196, 60), down: 0, up: 0.2, move: 0, 0.2)])
        #expect(towards.first?.direction == .right && towards.first?.edge == nil)
    }

    @Test func fromACornerTheEdgeIsTheOneItMovesAwayFrom() {
        let right = Self.swipes([Finger.line(id: 0, (4, 4), (44, 4), down: 0, up: 0.2, move: 0, 0.2)])
        #expect(right.first?.direction == .right && right.first?.edge == .left)
        let down = Self.swipes([Finger.line(id: 0, (4, 4), (4, 44), down: 0, up: 0.2, move: 0, 0.2)])
        #expect(down.first?.direction == .down && down.first?.edge == .top)
    }

    @Test func theStartIsTheCentroidOfTheTouchDownPoints() {
        // Two fingers side by side across the left edge zone: 4 mm and 30 mm in, centroid 17 mm.
        let wide = [
            Finger.line(id: 0, (4, 60), (44, 60), down: 0, up: 0.2, move: 0, 0.2),
            Finger.line(id: 1, (30, 60), (70, 60), down: 0, up: 0.2, move: 0, 0.2),
        ]
        let s = Self.swipes(wide)
        #expect(s.count == 1 && s.first?.fingers == 2)
        #expect(s.first?.edge == nil)
        var c = GestureConfiguration()
        c.swipeEdgeMm = 17
        #expect(Self.swipes(wide, configuration: c).first?.edge == .left)
    }

    /// Through the real tracker on a panel mounted rotated 90° (libinput's example matrix): the
    /// edges are the display's, not the sensor's. The sensor is 200 × 120 mm; the display is
    /// 120 mm wide and 200 mm tall, its left edge the sensor's bottom, its top the sensor's left.
    @Test func onARotatedPanelTheEdgesAreTheDisplays() {
        let screen = SyntheticTouchscreen.fullFeatured()
        func swipe(_ calibration: CalibrationMatrix, from a: (Double, Double), to b: (Double, Double)) -> GestureEvent?
        {
            let geometry = DeviceGeometry(description: screen.description, calibration: calibration)
            var p = GesturePipeline(deviceID: "rotated", description: screen.description, geometry: geometry)
            var out = PipelineOutput()
            let events = SyntheticStream(device: screen).events([
                FingerPath.line(fromMm: (x: a.0, y: a.1), toMm: (x: b.0, y: b.1), startSeconds: 0, durationSeconds: 0.2)
            ])
            for e in events { p.handle(e, into: &out) }
            #expect(p.arena.bugReports.isEmpty)
            let swipes = out.gestures.filter { $0.gesture == .swipe }
            #expect(swipes.count == 1)
            return swipes.first.map(GestureEvent.init)
        }
        // Sensor: up from 4 mm above its bottom edge.
        let upFromSensorBottom = ((100.0, 116.0), (100.0, 76.0))
        let flat = swipe(.identity, from: upFromSensorBottom.0, to: upFromSensorBottom.1)
        #expect(flat?.direction == .up && flat?.edge == .bottom)
        let rotated = swipe(.rotated90, from: upFromSensorBottom.0, to: upFromSensorBottom.1)
        #expect(rotated?.direction == .right && rotated?.edge == .left)
        // Sensor: right from 4 mm inside its left edge = down from the display's top.
        let rightFromSensorLeft = ((4.0, 60.0), (44.0, 60.0))
        #expect(swipe(.identity, from: rightFromSensorLeft.0, to: rightFromSensorLeft.1)?.edge == .left)
        let down = swipe(.rotated90, from: rightFromSensorLeft.0, to: rightFromSensorLeft.1)
        #expect(down?.direction == .down && down?.edge == .top)
        // 180°: the sensor's bottom is the display's top.
        let flipped = swipe(.rotated180, from: upFromSensorBottom.0, to: upFromSensorBottom.1)
        #expect(flipped?.direction == .down && flipped?.edge == .top)
        // A swipe from the middle of the sensor is no edge swipe however the panel is mounted.
        for calibration in [CalibrationMatrix.identity, .rotated90, .rotated180, .rotated270] {
            #expect(swipe(calibration, from: (80, 60), to: (120, 60))?.edge == nil)
        }
    }

    @Test func onlySwipesCarryAnEdge() {
        let events = run(Self.inFrom(.left, fingers: 1, insetMm: 4))
        #expect(events.contains { $0.gesture == .swipe && $0.edge == .left })
        #expect(events.filter { $0.gesture != .swipe }.allSatisfy { $0.edge == nil })
    }
}
