import HandyProtocol
import Testing

@testable import HandyCore

@Suite struct RecognizerPanTests {
    /// (dx, dy) per direction, 40 mm.
    static let directions: [(String, Double, Double)] = [
        ("right", 40, 0), ("left", -40, 0), ("down", 0, 40), ("up", 0, -40),
    ]

    @Test(arguments: [1, 2, 3], [0, 1, 2, 3])
    func panEveryDirectionAndFingerCount(fingers n: Int, direction d: Int) throws {
        let (_, dx, dy) = Self.directions[d]
        // Slow (400 ms for 40 mm = 100 mm/s, under the swipe speed) and straight.
        let fingers = (0..<n).map { i in
            Finger.line(
                id: i, (80 + Double(i) * 15, 60), (80 + Double(i) * 15 + dx, 60 + dy), down: 0, up: 0.6, move: 0.05,
                0.45)
        }
        let events = run(fingers)
        #expect(collapsed(events, including: multiFinger) == ["pan began", "pan changed", "pan ended"])
        let ended = try #require(events.last { $0.gesture == .pan })
        #expect(ended.fingers == n)
        // Translation since began: the whole stroke minus the slop travelled before began (< 3.5 mm).
        let t = try #require(ended.translationMm)
        #expect(Swift.abs(t.x - dx) < 3.5 && Swift.abs(t.y - dy) < 3.5)
        #expect(Swift.abs(t.x) + Swift.abs(t.y) > 36)
        #expect(Swift.abs(ended.translation!.x - t.x / TestScreen.geometry.displayWidthMm) < 1e-4)
        #expect(Swift.abs(ended.translation!.y - t.y / TestScreen.geometry.displayHeightMm) < 1e-4)
        // Finger held still 150 ms before lifting: no release velocity, no glide (pause reset).
        #expect(ended.velocity == WirePoint(x: 0, y: 0))
        #expect(ended.glideMm == WirePoint(x: 0, y: 0))
        let ids = Set(events.filter { $0.gesture == .pan }.map(\.id))
        #expect(ids.count == 1)
    }

    @Test func slopEdge() {
        let c = GestureConfiguration()
        // Just under the slop: nothing but the (too long for a tap) hold; just over: a pan.
        let under = run([
            Finger.line(id: 0, (50, 50), (50 + c.touchSlopMm - 0.1, 50), down: 0, up: 0.4, move: 0.05, 0.3)
        ])
        #expect(names(under, including: [.pan]).isEmpty)
        let over = run([Finger.line(id: 0, (50, 50), (50 + c.touchSlopMm + 0.1, 50), down: 0, up: 0.4, move: 0.05, 0.3)]
        )
        #expect(
            collapsed(over, including: [.pan]) == ["pan began", "pan changed", "pan ended"]
                || collapsed(over, including: [.pan]) == ["pan began", "pan ended"])
    }

    @Test func releaseVelocityAndGlide() throws {
        // Moving at 100 mm/s right when lifted.
        let events = run([Finger.line(id: 0, (20, 50), (60, 50), down: 0, up: 0.4, move: 0.0, 0.4)])
        let ended = try #require(events.last { $0.gesture == .pan })
        #expect(ended.phase == .ended)
        let v = try #require(ended.velocity)
        #expect(Swift.abs(v.x - 100) < 3 && Swift.abs(v.y) < 0.5)
        let tau = GestureConfiguration().momentumTimeConstantSeconds
        #expect(Swift.abs(tau - 0.4995) < 0.001)
        #expect(Swift.abs(ended.glideMm!.x - v.x * tau) < 0.1)
    }

    @Test func extraFingerJoiningKeepsOnePanWithoutJump() {
        // One finger pans right; a second comes down 30 mm away mid-way and moves along.
        let a = Finger.line(id: 0, (20, 50), (80, 50), down: 0, up: 0.7, move: 0.0, 0.6)
        let b = Finger(id: 1, down: 0.3, up: 0.7) { t in PhysicalPoint(x: 20 + 60 * Swift.min(1, t / 0.6), y: 80) }
        let events = run([a, b])
        let pans = events.filter { $0.gesture == .pan }
        #expect(collapsed(pans) == ["pan began", "pan changed", "pan ended"])
        #expect(Set(pans.map(\.id)).count == 1)
        #expect(pans.contains { $0.fingers == 2 })
        // Translation never jumps by the 15 mm the centroid moved when the second finger landed.
        var last = 0.0
        for e in pans {
            #expect(Swift.abs(e.translationMm!.y) < 0.01); #expect(e.translationMm!.x - last < 3);
            last = e.translationMm!.x
        }
        #expect(names(events, including: [.pinch, .rotate]).isEmpty)
    }

    @Test(arguments: [true, false])
    func liftOrderDoesNotMatter(firstLiftsFirst: Bool) throws {
        let a = Finger.line(id: 0, (40, 50), (40, 90), down: 0, up: firstLiftsFirst ? 0.55 : 0.6, move: 0.05, 0.45)
        let b = Finger.line(id: 1, (70, 50), (70, 90), down: 0, up: firstLiftsFirst ? 0.6 : 0.55, move: 0.05, 0.45)
        let events = run([a, b])
        #expect(collapsed(events, including: multiFinger) == ["pan began", "pan changed", "pan ended"])
        let ended = try #require(events.last { $0.gesture == .pan })
        #expect(ended.gesture == .pan && ended.phase == .ended && Swift.abs(ended.translationMm!.y - 40) < 3.5)
    }
}
