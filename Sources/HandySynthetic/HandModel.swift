import HandyCore
import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small deterministic random number generator (SplitMix64), so a seed gives the same set on
/// every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in `lower..<upper`.
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * Double(next() >> 11) / Double(1 << 53)
    }
    /// Normal (Box–Muller).
    public mutating func normal(_ mean: Double, _ sd: Double) -> Double {
        let u1 = Swift.max(uniform(0, 1), 1e-300), u2 = uniform(0, 1)
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
    /// exp(normal(0, sd)): a multiplicative noise factor.
    public mutating func logNormal(_ sd: Double) -> Double { exp(normal(0, sd)) }
    public mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
}

/// A labelled synthetic pinch: the device, its calibration (display rotation), the finger paths in
/// the sensor's mm and what made it.
public struct SyntheticPinch: Sendable {
    public var hand: Hand
    public var tier: HandednessTier
    /// Closing (pinch in) or opening (pinch out).
    public var closing: Bool
    /// Display rotation in degrees (0, 90, 180, 270) and the matching calibration matrix.
    public var rotationDegrees: Int
    public var calibration: CalibrationMatrix
    public var device: SyntheticTouchscreen
    /// Thumb first, then index.
    public var fingers: [FingerPath]
    /// The device's report rate.
    public var frameRateHz: Double = 100

    /// The events of the pinch (protocol B, at ``frameRateHz``).
    public var events: [InputEvent] { SyntheticStream(device: device, frameRateHz: frameRateHz).events(fingers) }

    /// The geometry the daemon would use (the calibration comes from the udev property).
    public var geometry: DeviceGeometry { DeviceGeometry(description: device.description, calibration: calibration) }

    /// `hand=right tier=orientation pinch=in rotation=90`: the label line of a recording.
    public var label: String {
        "hand=\(hand.rawValue) tier=\(tier.rawValue) pinch=\(closing ? "in" : "out") rotation=\(rotationDegrees)"
    }
}

/// A parametric model of a thumb–index pinch on a touchscreen, for labelled synthetic data.
///
/// A right hand is generated in the display frame and a left hand is its exact mirror image (x and
/// orientations negated), so the model itself is mirror-symmetric. All numbers are assumptions of
/// the model (plausible for adult hands, not measured); docs/HANDEDNESS.md lists them.
public struct HandModel: Hashable, Sendable {
    /// Mean direction thumb→index, above the horizontal towards the hand's side (right hand: up-right).
    public var pinchLineDegrees = 55.0
    /// Spread of the whole hand's rotation on the screen (normal, degrees).
    public var handRotationSdDegrees = 25.0
    /// Finger axes relative to the thumb→index line (right hand; the V opens towards the palm).
    public var indexAxisDegrees = 45.0
    public var thumbAxisDegrees = -80.0
    /// Orientation noise per contact (normal, degrees).
    public var orientationSdDegrees = 15.0
    /// Share of contacts whose reported orientation is unrelated to the finger (round contacts,
    /// sensor noise): uniformly random.
    public var orientationGarbageShare = 0.1
    /// Span at the start: pinch in 45…90 mm, closing to 35…60 %; pinch out 15…35 mm, opening 1.8…3×.
    public var closingStartMm = 45.0...90.0
    public var openingStartMm = 15.0...35.0
    /// Share of the span change made by the index finger (normal, clipped to 0.3…0.95).
    public var indexMotionShare = 0.65
    public var indexMotionShareSd = 0.12
    /// Line turn per unit of ln(span ratio) for a right hand, radians (normal): closing a right-hand
    /// pinch (ln ratio < 0) turns the line clockwise on screen by ~8° per halving, and one pinch in four turns the other way.
    public var turnPerLogRatio = -0.2
    public var turnPerLogRatioSd = 0.3
    /// The thumb lands first with this probability; the second finger lands 0…60 ms later.
    public var thumbLandsFirst = 0.6
    /// Index contact major axis (mm, × log-normal 0.12), minor/major 0.6…0.8; the thumb's area is
    /// `thumbAreaRatio` × the index's (× log-normal 0.15), minor/major 0.55…0.75.
    public var indexMajorMm = 10.0
    public var thumbAreaRatio = 1.3
    /// Pressure of the index 0…1 (× log-normal 0.2); the thumb presses `thumbPressureRatio` × harder.
    public var indexPressure = 0.4
    public var thumbPressureRatio = 1.15
    /// Share of devices mounted rotated (90°, 180° or 270°, equally likely).
    public var rotatedShare = 0.25
    /// Spread of the thumb→index line on its own (normal, degrees): how far one pinch's line strays
    /// from its hand's usual posture while the finger axes stay with the hand. 0 in the defaults
    /// (the line turns only with the whole hand).
    public var pinchLineSdDegrees = 0.0
    /// Sensor position noise per sample and axis (normal, mm). 0 in the defaults.
    public var positionNoiseMm = 0.0
    /// The device's report rate.
    public var frameRateHz = 100.0
    /// Display widths drawn from, equally likely (mm); the height is 0.56…0.75 × the width.
    public var displayWidthsMm: [Double] = [150, 250, 340]
    /// Both hands turned clockwise on the screen by this much (degrees): a kiosk's mounting or its
    /// users' posture (standing beside it, reaching across), the same for every user. Unlike every
    /// other assumption it is not mirrored between the hands, so it makes one hand look like the
    /// other: at 30° a left hand's thumb→index line stands near vertical, leaning right. 0 in the
    /// defaults and the family (a per-device offset is what a hand profile learns, ``HandProfile``).
    public var postureRotationDegrees = 0.0
    /// The hand's roll about the forearm (degrees, normal with ``handRollSdDegrees``; 0 in the
    /// defaults): the hand turned onto its side, not only turned on the screen (its yaw, the hand
    /// rotation). Rolled by ρ, the thumb comes under the index, so the thumb→index line swings
    /// towards vertical by (90° − its angle)·sin ρ; both fingers stand on their sides, so their axes
    /// close on the line (× cos ρ); the thumb touches with its tip, its area and extra pressure
    /// × cos ρ; and the thumb takes a larger share of the motion (the index's share towards 0.5 by
    /// cos ρ). The cues the classifier reads beside the line all weaken together: what an
    /// independent hand model's hard slice (near-vertical axes, the hand turned) found (issue 52).
    public var handRollDegrees = 0.0
    public var handRollSdDegrees = 0.0

    public init() {}

    /// One pinch of `hand` on a random device of `tier`.
    public func pinch(hand: Hand, tier: HandednessTier, rng: inout SeededRandom) -> SyntheticPinch {
        let rightHand = hand != .left
        let degree = Double.pi / 180
        // Device: size, resolution (0 = none reported: the fallback geometry scales every mm), axes.
        let widths = displayWidthsMm.isEmpty ? [250.0] : displayWidthsMm
        let displayWidthMm = widths[Swift.min(Int(rng.uniform(0, Double(widths.count))), widths.count - 1)]
        let displayHeightMm = (displayWidthMm * rng.uniform(0.56, 0.75)).rounded()
        let rotation = rng.chance(rotatedShare) ? [90, 180, 270][Int(rng.uniform(0, 3))] : 0
        let calibration: CalibrationMatrix =
            switch rotation {
            case 90: .rotated90
            case 180: .rotated180
            case 270: .rotated270
            default: .identity
            }
        let swapped = rotation == 90 || rotation == 270
        let sensorW = swapped ? displayHeightMm : displayWidthMm, sensorH = swapped ? displayWidthMm : displayHeightMm
        let resolution: Int32 = rng.chance(0.15) ? 0 : [10, 20, 40][Int(rng.uniform(0, 3))]
        let unitsPerMm = Double(resolution == 0 ? 20 : resolution)
        var device = SyntheticTouchscreen(
            name: "handyd synthetic \(tier.rawValue) touchscreen", mtProtocol: .slots(10),
            maxX: Int32((sensorW * unitsPerMm).rounded()), maxY: Int32((sensorH * unitsPerMm).rounded()),
            resolution: resolution)
        switch tier {
        case .positions:
            break
        case .size:
            switch Int(rng.uniform(0, 4)) {
            case 0: device.pressureMax = 255
            case 1: device.touchMajorMax = Int32(30 * unitsPerMm)
            case 2:
                device.touchMajorMax = Int32(30 * unitsPerMm); device.hasTouchMinor = true; device.pressureMax = 1023
            default:
                // A [0,1] orientation is "wider than tall", not an angle: still the size tier.
                device.touchMajorMax = Int32(30 * unitsPerMm); device.hasTouchMinor = true;
                device.orientationRange = 0...1
            }
        case .orientation:
            device.touchMajorMax = Int32(30 * unitsPerMm)
            device.hasTouchMinor = true
            device.orientationRange = [-90...90, -127...127, -4...4, -32...31][Int(rng.uniform(0, 4))]
            if rng.chance(0.5) { device.pressureMax = 255 }
        }
        // Mm as the tracker will see them: without a resolution the fallback width rescales everything.
        let scale = resolution == 0 ? DeviceGeometry.fallbackWidthMm / sensorW : 1

        // Hand posture in the display frame (math angles, y up), right hand; mirrored at the end.
        // The posture turns the finished (mirrored) hand clockwise: before the mirror, the right hand
        // turns clockwise and the left hand anticlockwise.
        let posture = rightHand ? -postureRotationDegrees : postureRotationDegrees
        // Drawn only when the assumption is on, so the other members' pinches stay what they were.
        let roll =
            handRollDegrees != 0 || handRollSdDegrees > 0
            ? Swift.min(Swift.max(rng.normal(handRollDegrees, handRollSdDegrees), 0), 85) * degree : 0
        let rollLine = (90 - pinchLineDegrees) * sin(roll), rollKeeps = cos(roll)
        let handAngle =
            (pinchLineDegrees + rollLine + posture + rng.normal(0, handRotationSdDegrees)) * degree
        // Drawn only when the assumption is on, so the defaults' pinches stay what they were.
        let lineAngle = handAngle + (pinchLineSdDegrees > 0 ? rng.normal(0, pinchLineSdDegrees) * degree : 0)
        let closing = rng.chance(0.5)
        let s0 =
            closing
            ? rng.uniform(closingStartMm.lowerBound, closingStartMm.upperBound)
            : rng.uniform(openingStartMm.lowerBound, openingStartMm.upperBound)
        let s1 = s0 * (closing ? rng.uniform(0.35, 0.6) : rng.uniform(1.8, 3))
        let drawnShare = rng.normal(indexMotionShare, indexMotionShareSd)
        let share = Swift.min(Swift.max(roll == 0 ? drawnShare : 0.5 + (drawnShare - 0.5) * rollKeeps, 0.3), 0.95)
        let turnTotal = rng.normal(turnPerLogRatio, turnPerLogRatioSd) * log(s1 / s0)
        var indexAxisDrawn =
            handAngle + indexAxisDegrees * rollKeeps * degree + rng.normal(0, orientationSdDegrees) * degree
        var thumbAxisDrawn =
            handAngle + thumbAxisDegrees * rollKeeps * degree + rng.normal(0, orientationSdDegrees) * degree
        if rng.chance(orientationGarbageShare) { indexAxisDrawn = rng.uniform(0, Double.pi) }
        if rng.chance(orientationGarbageShare) { thumbAxisDrawn = rng.uniform(0, Double.pi) }
        let indexAxis = indexAxisDrawn, thumbAxis = thumbAxisDrawn
        let margin = 0.5 * s0 + 10
        let cx = rng.uniform(
            Swift.min(margin, displayWidthMm / 2), Swift.max(displayWidthMm - margin, displayWidthMm / 2))
        let cy = rng.uniform(
            Swift.min(margin, displayHeightMm / 2), Swift.max(displayHeightMm - margin, displayHeightMm / 2))
        // Contacts.
        let indexMajor = indexMajorMm * rng.logNormal(0.12)
        let indexMinor = indexMajor * rng.uniform(0.6, 0.8)
        let thumbRatio = rng.uniform(0.55, 0.75)
        let thumbArea = thumbAreaRatio * rollKeeps * indexMajor * indexMinor * rng.logNormal(0.15)
        let thumbMajor = (thumbArea / thumbRatio).squareRoot(), thumbMinor = thumbMajor * thumbRatio
        let indexPress = Swift.min(indexPressure * rng.logNormal(0.2), 1)
        let thumbPress = Swift.min(
            indexPress * (roll == 0 ? thumbPressureRatio : 1 + (thumbPressureRatio - 1) * rollKeeps)
                * rng.logNormal(0.2), 1)
        // Timing: landing order and gap, a short rest, the motion (smoothstep), the lifts.
        let thumbFirst = rng.chance(thumbLandsFirst)
        let gap = rng.uniform(0, 0.06)
        let moveStart = gap + rng.uniform(0.02, 0.08)
        let moveSeconds = rng.uniform(0.25, 0.5)
        let thumbUp = moveStart + moveSeconds + rng.uniform(0.02, 0.1)
        let indexUp = moveStart + moveSeconds + rng.uniform(0.02, 0.1)
        let noiseSd = positionNoiseMm, noiseSeed = noiseSd > 0 ? rng.next() : 0

        // The thumb and index rotate and scale about a pivot on the line: the one nearer moves less.
        let pivotFromThumb = 1 - share
        let displayW = displayWidthMm, displayH = displayHeightMm
        @Sendable func displaySample(_ isThumb: Bool, _ t: Double) -> (x: Double, y: Double, axis: Double) {
            let f0 = Swift.min(Swift.max((t - moveStart) / moveSeconds, 0), 1)
            let f = f0 * f0 * (3 - 2 * f0)
            let span = s0 * exp(log(s1 / s0) * f)
            let angle = lineAngle + turnTotal * f
            let offset = isThumb ? -pivotFromThumb * span : (1 - pivotFromThumb) * span
            let px = cx + (pivotFromThumb - 0.5) * s0 * cos(lineAngle)
            let py = cy - (pivotFromThumb - 0.5) * s0 * sin(lineAngle)
            var x = px + offset * cos(angle)
            let y = py - offset * sin(angle)  // math y up → screen y down
            var axis = (isThumb ? thumbAxis : indexAxis) + turnTotal * f
            if !rightHand { x = displayW - x; axis = Double.pi - axis }
            return (x, y, axis)
        }
        let inverse = Self.inverse(calibration)
        @Sendable func sensorSample(_ isThumb: Bool, _ t: Double) -> FingerSample {
            var d = displaySample(isThumb, t)
            if noiseSd > 0 {
                // Deterministic per (pinch, finger, time): the same sample time gives the same noise.
                var r = SeededRandom(
                    seed: noiseSeed ^ UInt64(bitPattern: Int64((t * 1e6).rounded())) &* 0x9E37_79B9
                        ^ (isThumb ? 0x5bd1e995 : 0))
                d.x += r.normal(0, noiseSd)
                d.y += r.normal(0, noiseSd)
            }
            let n = inverse.apply(x: d.x / displayW, y: d.y / displayH)
            // Major-axis direction: display mm → sensor mm, then the kernel angle (0 = along y, clockwise).
            let dir = inverse.applyLinear(x: cos(d.axis) / displayW, y: -sin(d.axis) / displayH)
            let ex = dir.x * sensorW, ey = dir.y * sensorH
            var kernel = atan2(ex, -ey)
            if kernel > Double.pi / 2 { kernel -= Double.pi }
            if kernel <= -Double.pi / 2 { kernel += Double.pi }
            let major = isThumb ? thumbMajor : indexMajor, minor = isThumb ? thumbMinor : indexMinor
            return FingerSample(
                xMm: n.x * sensorW * scale, yMm: n.y * sensorH * scale, majorMm: major * scale,
                minorMm: minor * scale, orientation: kernel, pressure: isThumb ? thumbPress : indexPress)
        }
        let thumbDown = thumbFirst ? 0 : gap, indexDown = thumbFirst ? gap : 0
        let thumb = FingerPath(downSeconds: thumbDown, upSeconds: thumbUp) { sensorSample(true, $0) }
        let index = FingerPath(downSeconds: indexDown, upSeconds: indexUp) { sensorSample(false, $0) }
        return SyntheticPinch(
            hand: rightHand ? .right : .left, tier: tier, closing: closing, rotationDegrees: rotation,
            calibration: calibration, device: device, fingers: [thumb, index], frameRateHz: frameRateHz)
    }

    /// The inverse of an invertible calibration (the rotations are).
    static func inverse(_ m: CalibrationMatrix) -> CalibrationMatrix {
        let det = m.a * m.e - m.b * m.d
        guard det != 0 else { return .identity }
        let ia = m.e / det, ib = -m.b / det, id = -m.d / det, ie = m.a / det
        return CalibrationMatrix(ia, ib, -(ia * m.c + ib * m.f), id, ie, -(id * m.c + ie * m.f))
    }
}
