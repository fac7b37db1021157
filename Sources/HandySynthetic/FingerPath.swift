import HandyCore

/// Where a synthetic finger is and what it looks like at one instant.
public struct FingerSample: Hashable, Sendable {
    /// Position in mm from the sensor's top-left corner (sensor frame, x right, y down).
    public var xMm: Double
    /// Y in mm from the top edge.
    public var yMm: Double
    /// Contact ellipse axes in mm (ABS_MT_TOUCH_MAJOR/MINOR), when the finger has one.
    public var majorMm: Double?
    /// Minor axis in mm (the major one when nil and the device reports a minor axis).
    public var minorMm: Double?
    /// Ellipse orientation in radians, kernel convention (0 = along Y, positive clockwise, π/2 = along +X).
    public var orientation: Radians?
    /// Pressure 0…1.
    public var pressure: Double?
    /// Finger or palm (ABS_MT_TOOL_TYPE).
    public var tool: TouchTool

    /// A sample at (`xMm`, `yMm`); the other values are optional.
    public init(
        xMm: Double, yMm: Double, majorMm: Double? = nil, minorMm: Double? = nil,
        orientation: Radians? = nil, pressure: Double? = nil, tool: TouchTool = .finger
    ) {
        self.xMm = xMm
        self.yMm = yMm
        self.majorMm = majorMm
        self.minorMm = minorMm
        self.orientation = orientation
        self.pressure = pressure
        self.tool = tool
    }

    /// Linear interpolation, `f` in 0…1; optional values interpolate when both ends have them,
    /// the tool switches at the later keyframe.
    public func interpolated(to b: FingerSample, fraction f: Double) -> FingerSample {
        func mix(_ u: Double, _ v: Double) -> Double { u + (v - u) * f }
        func mixOpt(_ u: Double?, _ v: Double?) -> Double? {
            guard let u else { return nil }
            guard let v else { return u }
            return mix(u, v)
        }
        return FingerSample(
            xMm: mix(xMm, b.xMm), yMm: mix(yMm, b.yMm), majorMm: mixOpt(majorMm, b.majorMm),
            minorMm: mixOpt(minorMm, b.minorMm), orientation: mixOpt(orientation, b.orientation),
            pressure: mixOpt(pressure, b.pressure), tool: f >= 1 ? b.tool : tool)
    }
}

/// One synthetic finger: put down at ``downSeconds``, lifted at ``upSeconds`` (seconds from the
/// stream's start), its sample at any time in between given by keyframes (linearly interpolated)
/// or by a function.
///
/// ```swift
/// let swipe = FingerPath.line(fromMm: (20, 50), toMm: (120, 50), startSeconds: 0, durationSeconds: 0.2)
/// let tap = FingerPath.hold(atMm: (60, 40), startSeconds: 0.5, durationSeconds: 0.08)
/// ```
public struct FingerPath: Sendable {
    /// When the finger touches down, in seconds from the stream's start.
    public var downSeconds: Double
    /// When it lifts (at least ``downSeconds``).
    public var upSeconds: Double
    /// False: the finger is still down when the stream ends (no lift is emitted).
    public var lifts: Bool
    /// The finger's sample at a time in seconds from the stream's start (called only within down…up).
    public var sample: @Sendable (Double) -> FingerSample

    /// A finger following `sample` from `downSeconds` to `upSeconds`.
    public init(
        downSeconds: Double, upSeconds: Double, lifts: Bool = true, sample: @escaping @Sendable (Double) -> FingerSample
    ) {
        self.downSeconds = downSeconds
        self.upSeconds = Swift.max(upSeconds, downSeconds)
        self.lifts = lifts
        self.sample = sample
    }

    /// A finger through `keyframes` (time in seconds, sample), put down at the first and lifted at the last.
    /// Keyframes are sorted by time; an empty list gives a finger at (0, 0) that is never down long.
    public init(keyframes: [(seconds: Double, sample: FingerSample)], lifts: Bool = true) {
        let frames = keyframes.sorted { $0.seconds < $1.seconds }
        let first = frames.first ?? (0, FingerSample(xMm: 0, yMm: 0))
        let last = frames.last ?? first
        self.init(downSeconds: first.seconds, upSeconds: last.seconds, lifts: lifts) { t in
            // Few keyframes per path: a linear scan is fine.
            var previous = first
            for k in frames {
                if k.seconds >= t {
                    let span = k.seconds - previous.seconds
                    let f = span > 0 ? (t - previous.seconds) / span : 1
                    return previous.sample.interpolated(to: k.sample, fraction: Swift.min(Swift.max(f, 0), 1))
                }
                previous = k
            }
            return last.sample
        }
    }

    /// A finger moving at constant speed from one point to another (mm, sensor frame).
    public static func line(
        fromMm a: (x: Double, y: Double), toMm b: (x: Double, y: Double), startSeconds: Double, durationSeconds: Double,
        majorMm: Double? = nil, minorMm: Double? = nil, orientation: Radians? = nil, pressure: Double? = nil,
        tool: TouchTool = .finger, lifts: Bool = true
    ) -> FingerPath {
        FingerPath(
            keyframes: [
                (
                    startSeconds,
                    FingerSample(
                        xMm: a.x, yMm: a.y, majorMm: majorMm, minorMm: minorMm, orientation: orientation,
                        pressure: pressure, tool: tool)
                ),
                (
                    startSeconds + durationSeconds,
                    FingerSample(
                        xMm: b.x, yMm: b.y, majorMm: majorMm, minorMm: minorMm, orientation: orientation,
                        pressure: pressure, tool: tool)
                ),
            ], lifts: lifts)
    }

    /// A finger resting at one point (a tap when short, a long press when long).
    public static func hold(
        atMm p: (x: Double, y: Double), startSeconds: Double, durationSeconds: Double,
        majorMm: Double? = nil, minorMm: Double? = nil, orientation: Radians? = nil, pressure: Double? = nil,
        tool: TouchTool = .finger, lifts: Bool = true
    ) -> FingerPath {
        line(
            fromMm: p, toMm: p, startSeconds: startSeconds, durationSeconds: durationSeconds, majorMm: majorMm,
            minorMm: minorMm, orientation: orientation, pressure: pressure, tool: tool, lifts: lifts)
    }

    /// A finger on a circular arc around `centerMm` (angles in radians, 0 = +x, positive = clockwise on a y-down screen).
    public static func arc(
        centerMm c: (x: Double, y: Double), radiusMm r: Double, fromRadians a0: Double, toRadians a1: Double,
        startSeconds: Double, durationSeconds: Double, lifts: Bool = true
    ) -> FingerPath {
        FingerPath(downSeconds: startSeconds, upSeconds: startSeconds + durationSeconds, lifts: lifts) { t in
            let f = durationSeconds > 0 ? Swift.min(Swift.max((t - startSeconds) / durationSeconds, 0), 1) : 1
            let a = a0 + (a1 - a0) * f
            return FingerSample(xMm: c.x + r * cosine(a), yMm: c.y + r * sine(a))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
// Double-typed wrappers: a bare sin/cos on a Double expression can resolve to libm's Float16
// overloads under Swift 6.3 (HandyCore has the same pair for its own use).
@inline(__always) func cosine(_ a: Double) -> Double { cos(a) }
@inline(__always) func sine(_ a: Double) -> Double { sin(a) }

extension FingerPath {
    /// The same path, `seconds` later.
    public func delayed(bySeconds seconds: Double) -> FingerPath {
        let sample = self.sample
        return FingerPath(downSeconds: downSeconds + seconds, upSeconds: upSeconds + seconds, lifts: lifts) { t in
            sample(t - seconds)
        }
    }

    /// The same path moved by (`dx`, `dy`) mm.
    public func translated(byMm dx: Double, _ dy: Double) -> FingerPath {
        let sample = self.sample
        return FingerPath(downSeconds: downSeconds, upSeconds: upSeconds, lifts: lifts) { t in
            var s = sample(t)
            s.xMm += dx
            s.yMm += dy
            return s
        }
    }

    /// The same path with every sample changed by `change` (e.g. a palm from some time on).
    public func mapSamples(_ change: @escaping @Sendable (Double, FingerSample) -> FingerSample) -> FingerPath {
        let sample = self.sample
        return FingerPath(downSeconds: downSeconds, upSeconds: upSeconds, lifts: lifts) { t in change(t, sample(t)) }
    }
}
