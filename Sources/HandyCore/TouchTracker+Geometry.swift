#if canImport(Glibc)
import Glibc  // libm only
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The tracker's geometry: raw device values to the display frame (normalised, mm, ellipse,
// orientation through the calibration matrix, pressure 0…1).

/// What turns a contact's raw values into a touch's: the device's axes and geometry, fixed for
/// the tracker's life. A value of its own, so the tracker changes a touch where it lies while
/// reading it (`TouchTracker.update`): as the tracker's methods these needed `self` while one of
/// its touches was being changed, and the touches were swapped out of it for that.
struct ContactConversion {
    /// Unit conversion (device units → mm, normalised; calibration).
    let geometry: DeviceGeometry
    let hasTouchMajor: Bool
    let hasTouchMinor: Bool
    let hasWidthMajor: Bool
    let hasWidthMinor: Bool
    let hasOrientation: Bool
    let hasPressure: Bool
    let hasToolType: Bool
    let pressureAxis: TouchTracker.AxisRange
    let displayWidthMm: Double
    let displayHeightMm: Double
    /// Device units per mm for ellipse axes (the X axis's, per the kernel doc).
    let ellipseUnitsPerMm: Double
    /// ABS_MT_ORIENTATION maximum (radians = value / max · π/2).
    let orientationMax: Double
    let isIdentityCalibration: Bool

    @inline(__always) func normalized(_ p: DevicePoint) -> NormalizedPoint {
        let s = geometry.sensorNormalized(p)
        if isIdentityCalibration { return NormalizedPoint(x: s.x, y: s.y) }
        let c = geometry.calibration.apply(x: s.x, y: s.y)
        return NormalizedPoint(x: c.x, y: c.y)
    }

    /// An active touch updated from raw values: position, phase (moved/stationary), velocity
    /// (smoothed with `velocityTimeConstantSeconds`), attributes.
    @inline(__always)
    func apply(
        _ raw: TouchTracker.RawContact, at time: Timestamp, to t: inout Touch, velocityTimeConstantSeconds: Double
    ) {
        let p = DevicePoint(x: raw.x, y: raw.y)
        // Doubles, not Int64 subtraction: timestamps from a file may be anything (no trap).
        let dt = (Double(time.microseconds) - Double(t.time.microseconds)) / 1_000_000
        if p != t.device {
            let n = normalized(p)
            let mm = PhysicalPoint(x: n.x * displayWidthMm, y: n.y * displayHeightMm)
            if dt > 0 {
                let instant = (mm - t.mm) / dt
                if t.velocity == .zero && t.phase == .began {
                    t.velocity = instant  // first motion: no history to smooth with
                } else {
                    t.velocity = t.velocity + (instant - t.velocity) * (dt / (velocityTimeConstantSeconds + dt))
                }
            }
            t.device = p
            t.normalized = n
            t.mm = mm
            t.phase = .moved
        } else {
            if dt > 0 && t.velocity != .zero {
                // A frame without motion: the finger slowed down.
                let a = dt / (velocityTimeConstantSeconds + dt)
                t.velocity = t.velocity * (1 - a)
            }
            t.phase = .stationary
        }
        t.time = time
        fillAttributes(&t, raw)
    }

    @inline(__always) func fillAttributes(_ t: inout Touch, _ raw: TouchTracker.RawContact) {
        if hasToolType {
            t.tool = raw.toolType == MTTool.palm ? .palm : raw.toolType == MTTool.pen ? .pen : .finger
        }
        if hasTouchMajor {
            let major = Double(raw.touchMajor) / ellipseUnitsPerMm
            t.majorMm = major
            t.minorMm = hasTouchMinor ? Double(raw.touchMinor) / ellipseUnitsPerMm : major
        }
        if hasWidthMajor {
            let major = Double(raw.widthMajor) / ellipseUnitsPerMm
            t.widthMajorMm = major
            t.widthMinorMm = hasWidthMinor ? Double(raw.widthMinor) / ellipseUnitsPerMm : major
        }
        if hasOrientation {
            t.orientation = displayOrientation(Double(raw.orientation) / orientationMax * (Double.pi / 2))
        }
        if hasPressure {
            let a = pressureAxis
            if a.maximum > a.minimum {
                let v = (Double(raw.pressure) - Double(a.minimum)) / (Double(a.maximum) - Double(a.minimum))
                t.pressure = Swift.min(Swift.max(v, 0), 1)
            }
        }
    }

    /// Brings a kernel-convention orientation (0 = along the sensor's Y, positive clockwise) into
    /// the display frame through the calibration matrix, keeping the same convention.
    @inline(__always) func displayOrientation(_ sensorRadians: Double) -> Radians {
        if isIdentityCalibration { return sensorRadians }
        // Direction of the major axis in sensor mm (y down; "along Y" points to -y, north).
        let dx = sine(sensorRadians), dy = -cosine(sensorRadians)
        // Sensor mm -> sensor-normalised -> calibrated -> display mm.
        let w = geometry.sensorWidthMm, h = geometry.sensorHeightMm
        let v = geometry.calibration.applyLinear(x: dx / w, y: dy / h)
        let ex = v.x * displayWidthMm, ey = v.y * displayHeightMm
        var r = atan2Radians(ex, -ey)
        // Ellipses are symmetric: keep a quarter-revolution value in (-π/2, π/2] when the device's was.
        if Swift.abs(sensorRadians) <= Double.pi / 2 + 1e-12 {
            if r > Double.pi / 2 + 1e-12 { r -= Double.pi }
            if r <= -Double.pi / 2 - 1e-12 { r += Double.pi }
        }
        return r
    }
}

extension TouchTracker {
    /// Unit conversion (device units → mm, normalised; calibration).
    public var geometry: DeviceGeometry { conversion.geometry }
    var displayWidthMm: Double { conversion.displayWidthMm }
    var displayHeightMm: Double { conversion.displayHeightMm }
    var pressureAxis: AxisRange { conversion.pressureAxis }

    @inline(__always) func normalized(_ p: DevicePoint) -> NormalizedPoint { conversion.normalized(p) }
    @inline(__always) func fillAttributes(_ t: inout Touch, _ raw: TouchTracker.RawContact) {
        conversion.fillAttributes(&t, raw)
    }
    @inline(__always) func displayOrientation(_ sensorRadians: Double) -> Radians {
        conversion.displayOrientation(sensorRadians)
    }
}

@inline(__always) func atan2Radians(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
// Double-typed wrappers: a bare sin/cos on a Double expression can resolve to libm's Float16
// overloads under Swift 6.3.
@inline(__always) func cosine(_ a: Double) -> Double { cos(a) }
@inline(__always) func sine(_ a: Double) -> Double { sin(a) }
