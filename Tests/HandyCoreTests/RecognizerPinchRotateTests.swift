import HandyProtocol
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two fingers spreading from span `s0` to `s1` about (cx, cy) along a line tilted by `tilt` radians.
func spread(
    _ s0: Double, _ s1: Double, center: (Double, Double) = (100, 60), tilt: Double = -0.9,
    down: Double = 0, move: (Double, Double) = (0.05, 0.45), up: Double = 0.5
) -> [Finger] {
    // tilt -0.9 rad: finger 1 is up-right of finger 0 (a right hand's index above its thumb).
    let ux = cos(tilt), uy = sin(tilt)
    func f(_ id: Int, _ sign: Double) -> Finger {
        Finger(id: id, down: down, up: up) { t in
            let k = Swift.min(1, Swift.max(0, (t - move.0) / (move.1 - move.0)))
            let h = (s0 + (s1 - s0) * k) / 2 * sign
            return PhysicalPoint(x: center.0 + ux * h, y: center.1 + uy * h)
        }
    }
    return [f(0, -1), f(1, 1)]
}

@Suite struct RecognizerPinchTests {
    @Test(arguments: [(30.0, 60.0), (60.0, 30.0)])
    func spreadAndClose(_ s: (Double, Double)) throws {
        let events = run(spread(s.0, s.1))
        #expect(collapsed(events, including: multiFinger) == ["pinch began", "pinch changed", "pinch ended"])
        let pinches = events.filter { $0.gesture == .pinch }
        let began = pinches.first!, ended = pinches.last!
        #expect(began.scale == 1)
        #expect(began.touches == [0, 1] && pinches.dropFirst().allSatisfy { $0.touches == nil })
        // Scale is span now / span at began: the threshold (10 %) is passed before began.
        let spanAtBegan = try #require(began.spanMm)
        #expect(Swift.abs(ended.scale! - s.1 / spanAtBegan) < 0.01)
        #expect(Swift.abs(ended.spanMm! - s.1) < 0.01)
        #expect(s.1 > s.0 ? spanAtBegan >= s.0 * 1.1 - 0.01 : spanAtBegan <= s.0 / 1.1 + 0.01)
        #expect(ended.fingers == 2)
        #expect(Swift.abs(ended.centroidMm!.x - 100) < 0.01 && Swift.abs(ended.centroidMm!.y - 60) < 0.01)
        #expect(Swift.abs(ended.centroid!.x - 100 / TestScreen.geometry.displayWidthMm) < 1e-4)
        // Hand decided at began and carried by every event.
        #expect(
            pinches.allSatisfy {
                $0.hand == .right && $0.clearSide == .left && $0.handConfidence == began.handConfidence
            })
        #expect(names(events, including: [.rotate, .pan]).isEmpty)
    }

    @Test func ratioEdge() {
        // 40 mm → 43.9 mm (×1.0975) is no pinch; → 44.1 mm (×1.1025) is.
        #expect(names(run(spread(40, 43.9)), including: [.pinch]).isEmpty)
        #expect(names(run(spread(40, 44.1)), including: [.pinch]).first == "pinch began")
        #expect(names(run(spread(40, 40 / 1.095)), including: [.pinch]).isEmpty)
        #expect(names(run(spread(40, 40 / 1.105)), including: [.pinch]).first == "pinch began")
    }

    @Test func smallSpanNeedsPerFingerMotion() {
        // 10 mm → 12 mm is ×1.2 but each finger moved only 1 mm (< 1.5 mm): no pinch yet.
        #expect(names(run(spread(10, 12)), including: [.pinch]).isEmpty)
        #expect(names(run(spread(10, 13.2)), including: [.pinch]).first == "pinch began")
    }

    @Test func releaseVelocityAndGlideScale() throws {
        // Spreading until the lift: scaleVelocity > 0 and glideScale > 1.
        let events = run(spread(30, 60, move: (0.05, 0.5), up: 0.5))
        let ended = try #require(events.last { $0.gesture == .pinch })
        #expect(ended.phase == .ended)
        #expect(ended.scaleVelocity! > 1)
        let tau = GestureConfiguration().momentumTimeConstantSeconds
        #expect(Swift.abs(ended.glideScale! - exp(tau * ended.scaleVelocity! / ended.scale!)) < 1e-3)
        // Held still before lifting: no velocity.
        let still = try #require(run(spread(30, 60, move: (0.05, 0.3), up: 0.5)).last { $0.gesture == .pinch })
        #expect(still.scaleVelocity == 0 && still.glideScale == 1)
    }

    /// A spread made in a fifth of a millisecond, lifted at once (frames every 10 µs: a device
    /// that stamps its frames so, or a crafted recording): the release velocity is enormous, and
    /// the glide and every other value must stay finite numbers that a client can decode
    /// (`exp` of it overflowed to infinity, written as the string "inf").
    @Test func anEnormousReleaseVelocityKeepsEveryValueFinite() throws {
        var arena = GestureArena(deviceID: "test", geometry: TestScreen.geometry, configuration: .init())
        let frames = makeFrames(spread(30, 60, move: (0, 0.0002), up: 0.0005), hz: 100_000)
        let events = runArena(frames, arena: &arena).filter { $0.gesture == .pinch }
        let ended = try #require(events.last)
        #expect(ended.phase == .ended)
        #expect(ended.scaleVelocity! > 1_000, "the case needs a huge release velocity: \(ended.scaleVelocity!)")
        for e in events {
            for v in [e.scale, e.scaleVelocity, e.glideScale, e.spanMm].compactMap({ $0 }) {
                #expect(v.isFinite, "\(e.phase): \(v)")
            }
            let line = JSONLines.encode(.gesture(e))
            #expect(throws: Never.self) { try JSONLines.decodeServerMessage(line.dropLast()) }
        }
    }

    @Test func threeFingerPinchAndFingerLeaving() {
        // Three fingers spread about a centre; the third lifts early: the pinch goes on with two.
        func finger(_ id: Int, _ angle: Double, up: Double) -> Finger {
            Finger(id: id, down: 0, up: up) { t in
                let r = 15 + 15 * Swift.min(1, Swift.max(0, (t - 0.05) / 0.5))
                return PhysicalPoint(x: 100 + r * cos(angle), y: 60 + r * sin(angle))
            }
        }
        let events = run([finger(0, -2.0, up: 0.6), finger(1, -0.5, up: 0.6), finger(2, 1.5, up: 0.35)])
        let pinches = events.filter { $0.gesture == .pinch }
        #expect(collapsed(pinches) == ["pinch began", "pinch changed", "pinch ended"])
        #expect(pinches.first!.fingers == 3)
        #expect(pinches.last!.fingers == 2)
        #expect(pinches.last!.scale! > 1.5)
    }

    @Test func extraFingerJoiningKeepsThePinch() {
        // A two-finger spread; a third finger lands still at 0.3 s: same pinch, 3 fingers, and the
        // scale does not jump although the span of three fingers differs from that of two.
        let fingers = spread(30, 60, move: (0.05, 0.6), up: 0.7) + [Finger.hold(id: 2, (100, 100), down: 0.3, up: 0.7)]
        let pinches = run(fingers).filter { $0.gesture == .pinch }
        #expect(collapsed(pinches) == ["pinch began", "pinch changed", "pinch ended"])
        #expect(Set(pinches.map(\.id)).count == 1)
        #expect(pinches.contains { $0.fingers == 3 })
        for (a, b) in zip(pinches, pinches.dropFirst()) { #expect(Swift.abs(b.scale! - a.scale!) < 0.05) }
    }

    @Test func pinchRotateDragTogether() throws {
        // Spread ×2, turn 60° and move the centre 40 mm in one motion: all three at once.
        let cx0 = 80.0, cy = 60.0
        func finger(_ id: Int, _ a0: Double) -> Finger {
            Finger(id: id, down: 0, up: 0.8) { t in
                let k = Swift.min(1, Swift.max(0, (t - 0.05) / 0.6))
                let r = 15 + 15 * k, a = a0 + k * Double.pi / 3
                return PhysicalPoint(x: cx0 + 40 * k + r * cos(a), y: cy + r * sin(a))
            }
        }
        let events = run([finger(0, Double.pi), finger(1, 0)])
        let kinds = Set(events.filter { $0.phase == .began }.map(\.gesture))
        #expect(kinds.isSuperset(of: [.pinch, .rotate, .pan]))
        let rotate = try #require(events.last { $0.gesture == .rotate })
        #expect(rotate.phase == .ended)
        #expect(rotate.rotation! > 0.8 && rotate.rotation! < Double.pi / 3)  // clockwise, minus the threshold
        let ids = events.filter { $0.phase == .began }.map(\.id)
        #expect(Set(ids).count == ids.count)
    }

    @Test func exclusivePolicyKeepsFirstGestureOnly() {
        var c = GestureConfiguration()
        #expect(c.apply(overrides: ["simultaneous": "pinch+rotate"]) == [])
        // Pan first (both fingers move together), then spread: the pinch may not start next to the pan.
        func finger(_ id: Int, _ x0: Double) -> Finger {
            Finger(id: id, down: 0, up: 1) { t in
                let drag = 30 * Swift.min(1, t / 0.4)
                let spreadMm = 15 * Swift.min(1, Swift.max(0, (t - 0.5) / 0.3))
                return PhysicalPoint(x: x0 + drag + (x0 < 100 ? -spreadMm : spreadMm), y: 60)
            }
        }
        let events = run([finger(0, 90), finger(1, 110)], configuration: c)
        #expect(collapsed(events, including: multiFinger) == ["pan began", "pan changed", "pan ended"])
    }
}

@Suite struct RecognizerRotateTests {
    @Test(arguments: [Double.pi / 2, -Double.pi / 2])
    func rotateBothWays(_ turn: Double) throws {
        let f0 = Finger.arc(
            id: 0, center: (100, 60), from: Double.pi, to: Double.pi + turn, down: 0, up: 0.6, move: 0.05, 0.5)
        let f1 = Finger.arc(id: 1, center: (100, 60), from: 0, to: turn, down: 0, up: 0.6, move: 0.05, 0.5)
        let events = run([f0, f1])
        #expect(collapsed(events, including: multiFinger) == ["rotate began", "rotate changed", "rotate ended"])
        let rot = events.filter { $0.gesture == .rotate }
        #expect(rot.first!.rotation == 0)
        let threshold = GestureConfiguration().rotateThresholdRadians
        let last = try #require(rot.last?.rotation)
        #expect(Swift.abs(Swift.abs(last) - (Swift.abs(turn) - threshold)) < 0.02)
        #expect(last.sign == turn.sign)
        #expect(Swift.abs(rot.last!.centroidMm!.x - 100) < 0.01)
        #expect(rot.last!.rotationVelocity == 0)  // held 100 ms before lifting
    }

    @Test func thresholdEdge() {
        let t = GestureConfiguration().rotateThresholdRadians  // 7.2°
        func turn(_ a: Double) -> [GestureEvent] {
            run([
                Finger.arc(
                    id: 0, center: (100, 60), from: Double.pi, to: Double.pi + a, down: 0, up: 0.6, move: 0.05, 0.5),
                Finger.arc(id: 1, center: (100, 60), from: 0, to: a, down: 0, up: 0.6, move: 0.05, 0.5),
            ])
        }
        #expect(names(turn(t * 0.97), including: [.rotate]).isEmpty)
        #expect(names(turn(t * 1.05), including: [.rotate]).first == "rotate began")
    }

    @Test func releaseVelocityAndGlide() throws {
        let f0 = Finger.arc(
            id: 0, center: (100, 60), from: Double.pi, to: Double.pi + 1, down: 0, up: 0.5, move: 0.0, 0.5)
        let f1 = Finger.arc(id: 1, center: (100, 60), from: 0, to: 1, down: 0, up: 0.5, move: 0.0, 0.5)
        let ended = try #require(run([f0, f1]).last { $0.gesture == .rotate })
        #expect(Swift.abs(ended.rotationVelocity! - 2) < 0.1)  // 1 rad in 0.5 s
        #expect(
            Swift.abs(
                ended.glideRotation! - ended.rotationVelocity! * GestureConfiguration().momentumTimeConstantSeconds)
                < 1e-3)
    }

    @Test func slowDriftDuringLongScrollIsOnlyAPan() {
        // Two fingers scroll 100 mm down while their line turns 9° and spreads 8 % (as the Wacom
        // ISDv4 double-center-scroll recording does): a pan, no rotate, no pinch.
        func finger(_ id: Int, _ sign: Double) -> Finger {
            Finger(id: id, down: 0, up: 1.1) { t in
                let k = Swift.min(1, Swift.max(0, (t - 0.05) / 1.0))
                let a = k * 9 * Double.pi / 180, h = 11 * (1 + 0.08 * k) * sign
                return PhysicalPoint(x: 100 + h * cos(a), y: 10 + 100 * k + h * sin(a))
            }
        }
        let events = run([finger(0, -1), finger(1, 1)])
        #expect(collapsed(events, including: multiFinger) == ["pan began", "pan changed", "pan ended"])
    }
}
