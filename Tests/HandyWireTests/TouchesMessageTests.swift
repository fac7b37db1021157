import HandyCore
import HandyProtocol
import HandyWire
import Testing

/// A touch frame in the wire's shape: each value rounded to its decimals (docs/PROTOCOL.md
/// "touches"), and a reused scratch array giving the same message as a fresh one.
@Suite struct TouchesMessageTests {
    static func touch(id: Int, x: Double, phase: TouchPhase = .moved) -> Touch {
        Touch(
            id: id, phase: phase, device: DevicePoint(x: Int32(x * 10), y: 5),
            mm: PhysicalPoint(x: x + 0.123_456, y: -2.25),
            normalized: NormalizedPoint(x: 0.123_456_7, y: 0.5), majorMm: 8.888_8, minorMm: nil,
            orientation: 0.785_398_16, pressure: 0.333_33, beganAt: Timestamp(microseconds: 0),
            time: Timestamp(microseconds: 1_500_000), velocity: VelocityMmPerSecond(x: 12.34, y: -0.04))
    }

    @Test func eachValueIsRoundedToItsDecimals() throws {
        let frame = TouchFrame(time: Timestamp(microseconds: 1_500_000), touches: [Self.touch(id: 3, x: 40)])
        let message = frame.wireMessage(device: "d")
        #expect(message.time == 1.5)
        #expect(message.device == "d")
        let t = try #require(message.touches.first)
        #expect(t.id == 3 && t.phase == "moved" && t.tool == "finger")
        #expect(t.x == 0.12346 && t.y == 0.5, "normalised to 5 decimals: \(t.x), \(t.y)")
        #expect(t.xMm == 40.12 && t.yMm == -2.25, "mm to 2 decimals: \(t.xMm), \(t.yMm)")
        #expect(t.majorMm == 8.89 && t.minorMm == nil)
        #expect(t.orientation == 0.7854 && t.pressure == 0.3333)
        #expect(t.vxMm == 12.3, "mm/s to 1 decimal: \(String(describing: t.vxMm))")
        let vy = try #require(t.vyMm)
        #expect(vy == 0 && vy.sign == .minus, "a small negative velocity is -0, as rounded() gives")
    }

    @Test func aReusedScratchGivesTheSameMessage() {
        var scratch: [WireTouch] = []
        for count in [3, 1, 0, 4, 2] {
            let frame = TouchFrame(
                time: Timestamp(microseconds: Int64(count) * 1_000),
                touches: (0..<count).map { Self.touch(id: $0, x: Double($0) * 10) })
            let reused = frame.wireMessage(device: "d", reusing: &scratch)
            #expect(reused == frame.wireMessage(device: "d"), "\(count) touches")
            #expect(scratch.count == count)
        }
    }
}
