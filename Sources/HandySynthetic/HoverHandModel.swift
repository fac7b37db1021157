import HandyCore
import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a hand holds its other fingers while one touches (docs/HANDEDNESS.md "One finger from its
/// shadows"): where they lie and how high above the glass.
public enum HoverPosture: String, CaseIterable, Hashable, Sendable {
    /// The index finger pointing, the others curled into the palm, the thumb over them.
    case pointing
    /// The index finger pointing, the thumb held ready beside it (about to pinch), the others curled.
    case pinching
    /// The hand half open, fingers curved, hovering over the glass.
    case relaxed
    /// The hand flat and open, the index tapping a little lower than the others.
    case open
}

/// One finger of a hand that does not touch: where its tip lies from the touching index finger's
/// tip (right hand, display frame, mm, y down) and how high above the glass (uniform in the range).
public struct HoverFingerPlacement: Hashable, Sendable {
    public var name: String
    public var dxMm: Double
    public var dyMm: Double
    public var heightMm: ClosedRange<Double>
}

/// A labelled synthetic tap with the hand's other fingers above the glass: the device (it declares
/// ABS_MT_DISTANCE), the events, and what made it.
public struct SyntheticHoverTap: Sendable {
    public var hand: Hand
    public var posture: HoverPosture
    public var description: DeviceDescription
    public var events: [InputEvent]
    /// The touching finger (display mm) and the fingers the panel sees hovering (display mm).
    public var touchMm: PhysicalPoint
    public var hoveringMm: [PhysicalPoint]
}

/// A parametric model of a hand tapping with its index finger while its other fingers stay above
/// the glass, and of a panel that sees fingers within a few millimetres of it (hid-multitouch's In
/// Range, issue 55). A left hand is the exact mirror image of a right one. Every number is an
/// assumption (adult hands, not measured on people); docs/HANDEDNESS.md lists them.
public struct HoverHandModel: Hashable, Sendable {
    /// The panel sees a finger up to about this height (mm): surely below 0.8 × it, never above
    /// 1.2 × it, linearly between.
    public var hoverRangeMm = 7.5
    /// The distance axis's maximum: 1 is hid-multitouch's In Range (any height in range reports 1);
    /// above 1 the panel reports height / range × maximum (at least 1: 0 is touching).
    public var distanceMax: Int32 = 1
    /// Spread of the hand's turn on the screen about the touching finger (normal, degrees).
    public var handRotationSdDegrees = 20.0
    /// Both hands turned clockwise by this much (degrees, not mirrored: a kiosk reached across).
    public var postureRotationDegrees = 0.0
    /// Hand size: every placement × this × uniform 0.9…1.1.
    public var handScale = 1.0
    /// Every finger's height × this.
    public var heightScale = 1.0
    /// Where each finger lies from its posture's place (normal per axis, mm).
    public var placementSdMm = 4.0
    /// Sensor noise of a hovering contact's position (normal per axis, mm).
    public var sensorNoiseMm = 1.5
    /// The postures drawn from, equally likely.
    public var postures: [HoverPosture] = HoverPosture.allCases
    /// The display (mm); a hovering finger off it is not seen.
    public var displayWidthMm = 340.0
    public var displayHeightMm = 200.0

    public init() {}

    /// The other fingers of `posture` (right hand): the curled fingers lie behind and below the
    /// index's tip, 15–35 mm up; a flat hand's fingertips lie beside it, a few mm up; a thumb held
    /// ready lies below-left, 2–12 mm up.
    public static func placements(_ posture: HoverPosture) -> [HoverFingerPlacement] {
        func f(_ name: String, _ dx: Double, _ dy: Double, _ h: ClosedRange<Double>) -> HoverFingerPlacement {
            HoverFingerPlacement(name: name, dxMm: dx, dyMm: dy, heightMm: h)
        }
        switch posture {
        case .pointing:
            return [
                f("middle", 14, 32, 15...35), f("ring", 28, 36, 15...35), f("little", 40, 40, 12...30),
                f("thumb", 4, 42, 18...40),
            ]
        case .pinching:
            return [
                f("thumb", -20, 22, 2...12), f("middle", 14, 30, 10...28), f("ring", 26, 36, 12...32),
                f("little", 36, 40, 12...32),
            ]
        case .relaxed:
            return [
                f("middle", 18, 8, 4...16), f("ring", 34, 16, 6...20), f("little", 46, 28, 8...26),
                f("thumb", -30, 36, 6...24),
            ]
        case .open:
            return [
                f("middle", 20, -6, 3...14), f("ring", 38, 2, 5...18), f("little", 54, 22, 8...24),
                f("thumb", -42, 48, 6...28),
            ]
        }
    }

    /// The device: a positions-only kiosk panel with ABS_MT_DISTANCE 0…``distanceMax``.
    public var device: SyntheticTouchscreen {
        SyntheticTouchscreen(
            name: "handyd synthetic hover touchscreen", mtProtocol: .slots(10),
            maxX: Int32((displayWidthMm * 20).rounded()) - 1, maxY: Int32((displayHeightMm * 20).rounded()) - 1,
            resolution: 20)
    }

    /// One tap of `hand`'s index finger in `posture`, its other fingers where the posture puts them.
    public func tap(hand: Hand, posture: HoverPosture, rng: inout SeededRandom) -> SyntheticHoverTap {
        let rightHand = hand != .left
        let degree = Double.pi / 180
        let device = self.device
        var description = device.description
        description.absAxes[AbsCode.mtDistance] = AbsInfo(minimum: 0, maximum: distanceMax)
        let margin = 20.0
        let tx = rng.uniform(margin, displayWidthMm - margin), ty = rng.uniform(margin, displayHeightMm - margin)
        // Right-hand frame: turned clockwise on the screen (y down) by the posture and the draw;
        // mirrored at the end (the posture's turn not mirrored, like HandModel's).
        let turn = (rng.normal(0, handRotationSdDegrees) + (rightHand ? 1 : -1) * postureRotationDegrees) * degree
        let scale = handScale * rng.uniform(0.9, 1.1)
        var seen: [(x: Double, y: Double, height: Double)] = []
        for p in Self.placements(posture) {
            let dx = p.dxMm * scale + rng.normal(0, placementSdMm), dy = p.dyMm * scale + rng.normal(0, placementSdMm)
            let height = rng.uniform(p.heightMm.lowerBound, p.heightMm.upperBound) * heightScale
            let seenChance = Swift.min(Swift.max((1.2 * hoverRangeMm - height) / (0.4 * hoverRangeMm), 0), 1)
            let noiseX = rng.normal(0, sensorNoiseMm), noiseY = rng.normal(0, sensorNoiseMm)
            let isSeen = rng.chance(seenChance)
            // Clockwise on screen with y down: (dx, dy) → (dx cos − dy sin, dx sin + dy cos).
            var x = dx * cos(turn) - dy * sin(turn)
            let y = dx * sin(turn) + dy * cos(turn)
            if !rightHand { x = -x }
            let hx = tx + x + noiseX, hy = ty + y + noiseY
            guard isSeen, hx >= 0, hx <= displayWidthMm, hy >= 0, hy <= displayHeightMm else { continue }
            seen.append((hx, hy, height))
        }
        // The events: the seen fingers come into range, the index lands 40 ms later and lifts 80 ms
        // after that, the others leave 50 ms after the lift.
        var events: [InputEvent] = []
        let start = Timestamp(microseconds: 1_000_000)
        func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: start.microseconds + ms * 1000) }
        func emit(_ time: Timestamp, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: type, code: code, value: value))
        }
        func sync(_ time: Timestamp) { emit(time, EventType.syn, SynCode.report, 0) }
        let reported: (Double) -> Int32 = { height in
            guard distanceMax > 1 else { return 1 }
            let v = (height / hoverRangeMm * Double(distanceMax)).rounded()
            return Int32(Swift.min(Swift.max(v, 1), Double(distanceMax)))
        }
        for (k, h) in seen.enumerated() {
            let d = device.devicePoint(xMm: h.x, yMm: h.y)
            emit(at(0), EventType.abs, AbsCode.mtSlot, Int32(k + 1))
            emit(at(0), EventType.abs, AbsCode.mtTrackingID, Int32(100 + k))
            emit(at(0), EventType.abs, AbsCode.mtPositionX, d.x)
            emit(at(0), EventType.abs, AbsCode.mtPositionY, d.y)
            emit(at(0), EventType.abs, AbsCode.mtDistance, reported(h.height))
        }
        if !seen.isEmpty {
            emit(at(0), EventType.key, KeyCode.btnTouch, 1)
            sync(at(0))
        }
        let touch = device.devicePoint(xMm: tx, yMm: ty)
        emit(at(40), EventType.abs, AbsCode.mtSlot, 0)
        emit(at(40), EventType.abs, AbsCode.mtTrackingID, 99)
        emit(at(40), EventType.abs, AbsCode.mtPositionX, touch.x)
        emit(at(40), EventType.abs, AbsCode.mtPositionY, touch.y)
        emit(at(40), EventType.abs, AbsCode.mtDistance, 0)
        if seen.isEmpty { emit(at(40), EventType.key, KeyCode.btnTouch, 1) }
        emit(at(40), EventType.abs, AbsCode.x, touch.x)
        emit(at(40), EventType.abs, AbsCode.y, touch.y)
        sync(at(40))
        sync(at(80))
        emit(at(120), EventType.abs, AbsCode.mtSlot, 0)
        emit(at(120), EventType.abs, AbsCode.mtTrackingID, -1)
        if seen.isEmpty { emit(at(120), EventType.key, KeyCode.btnTouch, 0) }
        sync(at(120))
        if !seen.isEmpty {
            for k in seen.indices {
                emit(at(170), EventType.abs, AbsCode.mtSlot, Int32(k + 1))
                emit(at(170), EventType.abs, AbsCode.mtTrackingID, -1)
            }
            emit(at(170), EventType.key, KeyCode.btnTouch, 0)
            sync(at(170))
        }
        return SyntheticHoverTap(
            hand: rightHand ? .right : .left, posture: posture, description: description, events: events,
            touchMm: PhysicalPoint(x: tx, y: ty), hoveringMm: seen.map { PhysicalPoint(x: $0.x, y: $0.y) })
    }
}
