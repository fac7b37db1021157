#if canImport(Glibc)
import Glibc  // libm only
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The tracker's geometry: raw device values to the display frame (normalised, mm, ellipse,
// orientation through the calibration matrix, pressure 0…1).
extension TouchTracker {
    @inline(__always) func normalized(_ p: DevicePoint) -> NormalizedPoint {
        let s = geometry.sensorNormalized(p)
        if isIdentityCalibration { return NormalizedPoint(x: s.x, y: s.y) }
        let c = geometry.calibration.apply(x: s.x, y: s.y)
        return NormalizedPoint(x: c.x, y: c.y)
    }

    @inline(__always) func fillAttributes(_ t: inout Touch, _ raw: RawContact) {
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

@inline(__always) func atan2Radians(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
// Double-typed wrappers: a bare sin/cos on a Double expression can resolve to libm's Float16
// overloads under Swift 6.3.
@inline(__always) func cosine(_ a: Double) -> Double { cos(a) }
@inline(__always) func sine(_ a: Double) -> Double { sin(a) }
