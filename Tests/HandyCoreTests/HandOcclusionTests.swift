import HandyCore
import HandyProtocol
import HandySynthetic
import Testing

/// The covered region (issue 14 part 4): every event with a hand carries `occlusion`, a polygon on
/// the hand's side and below the fingers, inside the display, mirror-symmetric, with `clearSide`
/// taken from it; on a rotated panel it falls towards the display's bottom.
@Suite struct HandOcclusionTests {
    typealias G = HandOnEveryGestureTests

    static let streams: [(String, [Finger], GestureKind)] = [
        ("rotate", G.rotate(), .rotate),
        ("two-finger pan", G.twoFingerPan(), .pan),
        ("two-finger long press", G.twoFingerLongPress(), .longPress),
        ("two-finger tap", G.twoFingerTap(), .tap),
        ("two-finger swipe", G.twoFingerSwipe(), .swipe),
        // One finger publishes no hand (docs/HANDEDNESS.md "One finger"): its region is an
        // unknown hand's, tested below.
    ]

    static func pinch() -> [Finger] {
        // A right-hand pinch out: thumb (0) below left, index (1) above right, moving apart.
        [
            Finger.line(id: 0, (90, 70), (75, 80), down: 0, up: 0.6, move: 0.05, 0.5),
            Finger.line(id: 1, (110, 50), (125, 40), down: 0, up: 0.6, move: 0.05, 0.5),
        ]
    }

    /// Area of `polygon` (mm) left of `x`, by sampling: independent of the model's own clipping code.
    static func areaLeft(of x: Double, _ polygon: [WirePoint]) -> (left: Double, right: Double) {
        var left = 0.0, right = 0.0
        for i in 0..<200 {
            for j in 0..<120 {
                let p = (Double(i) + 0.5, Double(j) + 0.5)
                guard contains(polygon, p) else { continue }
                if p.0 < x { left += 1 } else { right += 1 }
            }
        }
        return (left, right)
    }

    static func contains(_ polygon: [WirePoint], _ p: (Double, Double)) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.1) != (b.y > p.1), p.0 < (b.x - a.x) * (p.1 - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    @Test func aRightHandPinchCoversItsRightAndBelow() {
        let pinches = run(Self.pinch()).filter { $0.gesture == .pinch }
        #expect(!pinches.isEmpty)
        #expect(pinches.filter { $0.phase != .changed }.allSatisfy { $0.occlusion != nil }, "began and ended carry it")
        #expect(pinches.contains { $0.phase == .changed && $0.occlusion != nil }, "a moving pinch sends it again")
        #expect(pinches.contains { $0.phase == .changed && $0.occlusion == nil }, "small moves do not repeat it")
        for e in pinches {
            #expect(e.hand == .right && e.clearSide == .left)
            guard let o = e.occlusion, let c = e.centroidMm else { continue }
            #expect(o.polygon.count == o.polygonMm.count && o.polygonMm.count >= 3)
            #expect(
                o.polygonMm.allSatisfy {
                    $0.x >= 0 && $0.x <= TestScreen.widthMm && $0.y >= 0 && $0.y <= TestScreen.heightMm
                })
            #expect(o.polygon.allSatisfy { $0.x >= 0 && $0.x <= 1 && $0.y >= 0 && $0.y <= 1 })
            for (n, mm) in zip(o.polygon, o.polygonMm) {
                #expect(
                    Swift.abs(n.x * TestScreen.widthMm - mm.x) < 0.16
                        && Swift.abs(n.y * TestScreen.heightMm - mm.y) < 0.16)
            }
            let split = Self.areaLeft(of: c.x, o.polygonMm)
            #expect(split.right > 2 * split.left, "right hand: \(split)")
            // The forearm reaches the bottom edge: the user stands below the display.
            #expect(o.polygonMm.contains { $0.y == TestScreen.heightMm })
            // The fingers themselves are covered.
            #expect(Self.contains(o.polygonMm, (c.x, c.y)))
        }
    }

    /// Every gesture with a hand carries the region; the mirror image of the stream gives the
    /// mirror image of the region (within the wire's 0.1 mm rounding) and the other clear side.
    @Test(arguments: 0..<streams.count)
    func everyGestureWithAHandCarriesItMirrorSymmetric(_ index: Int) {
        let (name, fingers, kind) = Self.streams[index]
        let events = run(fingers).filter { $0.gesture == kind }
        let mirrored = run(fingers.map { $0.mirroredX(widthMm: TestScreen.widthMm) }).filter { $0.gesture == kind }
        #expect(!events.isEmpty && events.count == mirrored.count, "\(name)")
        #expect(
            events.filter { $0.phase != .changed }.allSatisfy { $0.occlusion != nil }, "\(name): not on every began/end"
        )
        for (a, b) in zip(events, mirrored) {
            #expect(a.hand != .unknown, "\(name)")
            #expect(a.clearSide == a.hand?.clearSide && b.clearSide == a.hand?.mirrored.clearSide, "\(name)")
            // A `changed` event repeats the region only after a move; rounding may decide that on
            // one side of the mirror and not the other.
            guard let oa = a.occlusion, let ob = b.occlusion else { continue }
            let flipped = oa.polygonMm.map { WirePoint(x: TestScreen.widthMm - $0.x, y: $0.y) }
            // The same shape: every corner of each on the other's outline (within the wire's rounding).
            for p in flipped {
                #expect(Self.distance(p, toOutlineOf: ob.polygonMm) <= 0.15, "\(name): \(p) is off \(ob.polygonMm)")
            }
            for p in ob.polygonMm {
                #expect(Self.distance(p, toOutlineOf: flipped) <= 0.15, "\(name): \(p) is off \(flipped)")
            }
        }
    }

    /// A `changed` event carries the region again exactly when a finger moved more than 2 mm along x
    /// or y since the last one sent; without it, its `clearSide` is the kept region's, and the kept
    /// region stays within a few mm of where the fingers' region is now.
    @Test func theRegionIsSentAgainWhenAFingerMovedMoreThan2Mm() {
        let fingers = Self.pinch()
        let pinches = run(fingers).filter { $0.gesture == .pinch }
        #expect(pinches.first?.phase == .began && pinches.first?.occlusion != nil)
        var keptAt: [PhysicalPoint] = []
        var kept: (region: [WirePoint], clearSide: Side?)?
        var resent = 0, held = 0
        for e in pinches {
            let at = fingers.map { $0.position(e.time) }
            let fresh = HandOcclusionModel().polygon(
                contactsMm: at, hand: e.hand ?? .unknown,
                displayWidthMm: TestScreen.widthMm, displayHeightMm: TestScreen.heightMm
            )
            .map { WirePoint(x: $0.x, y: $0.y) }
            if e.phase == .changed {
                let moved = zip(keptAt, at).contains { Swift.abs($0.x - $1.x) > 2 || Swift.abs($0.y - $1.y) > 2 }
                #expect(
                    (e.occlusion != nil) == moved, "at \(e.time): moved \(moved), region sent \(e.occlusion != nil)")
                if e.occlusion == nil, let kept {
                    held += 1
                    #expect(e.clearSide == kept.clearSide)
                    for p in kept.region {
                        #expect(Self.distance(p, toOutlineOf: fresh) <= 4, "at \(e.time): \(p) off \(fresh)")
                    }
                }
            }
            if let o = e.occlusion {
                if e.phase == .changed { resent += 1 }
                keptAt = at
                kept = (o.polygonMm, e.clearSide)
            }
        }
        #expect(resent >= 3 && held >= 3, "resent \(resent), held \(held)")
    }

    /// The compact wire form leaves the hand out of a `changed` event without a region
    /// (docs/PROTOCOL.md "frame (compact form)"): that holds only while the hand, its confidence
    /// and the clear side change nowhere else, on every gesture.
    @Test func theHandChangesOnlyWithTheRegion() {
        let streams = [
            Self.pinch(),
            [Finger.line(id: 0, (100, 50), (100, 20), down: 0, up: 0.5, move: 0.05, 0.45)],
            [
                Finger.line(id: 0, (60, 80), (120, 60), down: 0, up: 0.8, move: 0.05, 0.7),
                Finger.line(id: 1, (90, 40), (150, 30), down: 0.02, up: 0.8, move: 0.06, 0.7),
            ],
            [
                Finger.arc(
                    id: 0, center: (100, 60), radius: { 15 + 15 * $0 }, from: Double.pi - 0.9, to: Double.pi + 0.6,
                    down: 0, up: 0.7, move: 0.05, 0.6),
                Finger.arc(
                    id: 1, center: (100, 60), radius: { 15 + 15 * $0 }, from: -0.9, to: 0.6, down: 0, up: 0.7,
                    move: 0.05, 0.6),
            ],
        ]
        var checked = Set<GestureKind>()
        for fingers in streams {
            var sent: [UInt64: (Hand?, Double?, Side?)] = [:]
            for e in run(fingers) {
                if e.phase == .changed && e.occlusion == nil {
                    guard let last = sent[e.id] else {
                        Issue.record("\(e.gesture) \(e.id): changed before a hand was sent"); continue
                    }
                    #expect(
                        e.hand == last.0 && e.handConfidence == last.1 && e.clearSide == last.2,
                        "\(e.gesture) at \(e.time)")
                    checked.insert(e.gesture)
                } else {
                    sent[e.id] = (e.hand, e.handConfidence, e.clearSide)
                }
            }
        }
        #expect(checked.isSuperset(of: [.pinch, .rotate, .pan, .touchPan]), "checked \(checked)")
    }

    static func distance(_ p: WirePoint, toOutlineOf polygon: [WirePoint]) -> Double {
        var best = Double.infinity
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let l2 = dx * dx + dy * dy
            let t = l2 > 0 ? Swift.min(1, Swift.max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0
            let qx = a.x + t * dx - p.x, qy = a.y + t * dy - p.y
            best = Swift.min(best, (qx * qx + qy * qy).squareRoot())
        }
        return best
    }

    @Test func anUnknownHandCoversStraightBelowAndNamesNoSide() {
        let pan = run([Finger.line(id: 0, (100, 50), (100, 20), down: 0, up: 0.5, move: 0.05, 0.45)]).filter {
            $0.gesture == .pan
        }
        #expect(!pan.isEmpty)
        for e in pan {
            guard let o = e.occlusion, let c = e.centroidMm else { #expect(e.phase == .changed); continue }
            #expect(e.hand == .unknown && e.clearSide == .unknown)
            let split = Self.areaLeft(of: c.x, o.polygonMm)
            #expect(Swift.abs(split.left - split.right) < 0.05 * (split.left + split.right), "\(split)")
            #expect(o.polygonMm.allSatisfy { $0.y >= c.y - 45.1 }, "nothing far above the finger")
        }
    }

    /// At the right edge the region is cut by the display, yet a right hand keeps `clearSide` left.
    @Test func nearAnEdgeTheSideStays() {
        let fingers = [
            Finger.line(id: 0, (180, 70), (170, 80), down: 0, up: 0.6, move: 0.05, 0.5),
            Finger.line(id: 1, (195, 50), (199, 40), down: 0, up: 0.6, move: 0.05, 0.5),
        ]
        let pinches = run(fingers).filter { $0.gesture == .pinch }
        #expect(!pinches.isEmpty && pinches.allSatisfy { $0.hand == .right && $0.clearSide == .left })
        #expect(
            pinches.allSatisfy {
                $0.occlusion?.polygonMm.allSatisfy { $0.x <= TestScreen.widthMm } ?? ($0.phase == .changed)
            })
    }

    /// Through the real tracker on a panel mounted rotated 90°: the region lies towards the
    /// display's bottom edge (the sensor's right edge), inside the display (120 × 200 mm).
    @Test func onARotatedPanelItFallsTowardsTheDisplaysBottom() {
        let screen = SyntheticTouchscreen.fullFeatured()
        let geometry = DeviceGeometry(description: screen.description, calibration: .rotated90)
        var p = GesturePipeline(deviceID: "rotated", description: screen.description, geometry: geometry)
        var out = PipelineOutput()
        // Two fingers spreading about the sensor's centre (so the display's centre).
        let events = SyntheticStream(device: screen).events([
            FingerPath.line(fromMm: (x: 95, y: 55), toMm: (x: 85, y: 45), startSeconds: 0, durationSeconds: 0.5),
            FingerPath.line(fromMm: (x: 105, y: 65), toMm: (x: 115, y: 75), startSeconds: 0, durationSeconds: 0.5),
        ])
        for e in events { p.handle(e, into: &out) }
        let pinches = out.gestures.filter { $0.gesture == .pinch }
        #expect(!pinches.isEmpty)
        let width = geometry.displayWidthMm, height = geometry.displayHeightMm
        #expect(Swift.abs(width - 120) < 1 && Swift.abs(height - 200) < 1, "display \(width) × \(height)")
        #expect(pinches.filter { $0.phase != .changed }.allSatisfy { $0.occlusion != nil })
        for e in pinches {
            guard let o = e.occlusion, let c = e.centroidMm else { continue }
            // On the wire mm are rounded to 0.1 mm (this display is 119.95 × 199.95 mm).
            #expect(
                o.polygonMm.allSatisfy {
                    $0.x >= 0 && $0.x <= width + 0.05 + 1e-9 && $0.y >= 0 && $0.y <= height + 0.05 + 1e-9
                },
                "\(width) × \(height): \(o.polygonMm)")
            #expect(
                o.polygonMm.contains { Swift.abs($0.y - height) <= 0.05 + 1e-9 },
                "the forearm reaches the display's bottom")
            let below = o.polygonMm.filter { $0.y > c.y }.count
            #expect(below > o.polygonMm.count / 2, "most of the region lies below the fingers: \(o.polygonMm)")
        }
    }

    @Test func theModelsPolygonIsConvexAndHoldsItsParts() {
        let model = HandOcclusionModel()
        let contacts = [PhysicalPoint(x: 80, y: 60), PhysicalPoint(x: 100, y: 45)]
        let hull = model.hull(contactsMm: contacts, hand: .right, displayWidthMm: 200, displayHeightMm: 120)
        // Convex: every turn the same way.
        var signs = Set<Bool>()
        for i in 0..<hull.count {
            let a = hull[i], b = hull[(i + 1) % hull.count], c = hull[(i + 2) % hull.count]
            signs.insert((b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x) > 0)
        }
        #expect(signs.count == 1)
        let wire = hull.map { WirePoint(x: $0.x, y: $0.y) }
        for c in contacts { #expect(Self.contains(wire, (c.x, c.y))) }
        #expect(model.polygon(contactsMm: [], hand: .right, displayWidthMm: 200, displayHeightMm: 120).isEmpty)
        #expect(HandOcclusionModel.clearSide(of: hull, at: PhysicalPoint(x: 90, y: 52.5)) == .left)
        let clipped = model.polygon(contactsMm: contacts, hand: .right, displayWidthMm: 200, displayHeightMm: 120)
        #expect(HandOcclusionModel.area(clipped) < HandOcclusionModel.area(hull))
    }
}
