#if canImport(Glibc)
import Glibc  // libm only; HandyCore imports no C library of its own and does no I/O.
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A position in device units (the raw ABS_MT_POSITION_X/Y values).
public struct DevicePoint: Hashable, Sendable {
    /// Horizontal position in device units.
    public var x: Int32
    /// Vertical position in device units.
    public var y: Int32
    /// A point in device units.
    public init(x: Int32, y: Int32) { self.x = x; self.y = y }
}

/// A position or displacement in millimetres, in the display's frame (x right, y down).
public struct PhysicalPoint: Hashable, Sendable {
    /// Horizontal, mm (positive to the right).
    public var x: Double
    /// Vertical, mm (positive downwards).
    public var y: Double
    /// A point (or vector) in mm.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    /// The origin.
    public static let zero = PhysicalPoint(x: 0, y: 0)

    /// Length of the vector, mm.
    public var length: Double { (x * x + y * y).squareRoot() }
    /// Sum of two vectors.
    public static func + (a: PhysicalPoint, b: PhysicalPoint) -> PhysicalPoint { .init(x: a.x + b.x, y: a.y + b.y) }
    /// Difference of two vectors.
    public static func - (a: PhysicalPoint, b: PhysicalPoint) -> PhysicalPoint { .init(x: a.x - b.x, y: a.y - b.y) }
    /// The vector scaled by `s`.
    public static func * (a: PhysicalPoint, s: Double) -> PhysicalPoint { .init(x: a.x * s, y: a.y * s) }
    /// The vector divided by `s`.
    public static func / (a: PhysicalPoint, s: Double) -> PhysicalPoint { .init(x: a.x / s, y: a.y / s) }
    /// Distance to `o`, mm.
    public func distance(to o: PhysicalPoint) -> Double { (self - o).length }
}

/// A position on the display, 0…1 on each axis (x right, y down), after calibration.
public struct NormalizedPoint: Hashable, Sendable {
    /// Horizontal, 0 (left edge) … 1 (right edge).
    public var x: Double
    /// Vertical, 0 (top edge) … 1 (bottom edge).
    public var y: Double
    /// A point as fractions of the display.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// A velocity in millimetres per second.
public typealias VelocityMmPerSecond = PhysicalPoint

/// An angle in radians.
public typealias Radians = Double

/// libinput's calibration matrix convention: a 2×3 affine matrix applied to normalised device
/// coordinates, `x' = a·x + b·y + c`, `y' = d·x + e·y + f`
/// (udev property `LIBINPUT_CALIBRATION_MATRIX` / `HANDYD_CALIBRATION_MATRIX`).
public struct CalibrationMatrix: Hashable, Sendable {
    /// The coefficients: `x' = a·x + b·y + c`, `y' = d·x + e·y + f`.
    public var a, b, c, d, e, f: Double
    /// A matrix from its six coefficients, in libinput's order.
    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f
    }
    /// No rotation, no offset.
    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)
    /// The display rotated clockwise by 90° relative to the sensor (libinput's documented example).
    public static let rotated90 = CalibrationMatrix(0, -1, 1, 1, 0, 0)
    /// The display rotated by 180° relative to the sensor.
    public static let rotated180 = CalibrationMatrix(-1, 0, 1, 0, -1, 1)
    /// The display rotated clockwise by 270° relative to the sensor.
    public static let rotated270 = CalibrationMatrix(0, 1, 0, -1, 0, 1)

    /// Parses "a b c d e f": six plain decimals separated by spaces, as every device-property
    /// number (``GestureConfiguration/parseDecimal(_:)``: no hex, inf or nan); nil when malformed,
    /// including a seventh word or one that is not a number (they used to be dropped silently).
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 6 else { return nil }
        var parts: [Double] = []
        for word in words {
            guard let v = GestureConfiguration.parseDecimal(String(word)) else { return nil }
            parts.append(v)
        }
        self.init(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5])
    }

    /// The matrix applied to a sensor-normalised point.
    @inline(__always) public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
    /// The linear part only (for vectors such as velocities and ellipse axes).
    @inline(__always) public func applyLinear(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y, d * x + e * y)
    }
}

/// Converts device units to millimetres and normalised display coordinates.
///
/// Resolution fallback: when an axis reports resolution 0 (many older touchscreens do), handyd
/// assumes the sensor is ``fallbackWidthMm`` wide with square units, i.e. both axes get
/// `(xmax - xmin) / fallbackWidthMm` units per mm. A kiosk can state the real size with the
/// udev property `HANDYD_SIZE_MM="width height"`, which wins over both.
public struct DeviceGeometry: Hashable, Sendable {
    /// 250 mm: the width of a ~11.6" 16:9 panel, a middle ground between phone-sized and kiosk-sized
    /// screens; only used when the kernel gives no resolution.
    public static let fallbackWidthMm: Double = 250

    var xAxis: AbsInfo
    var yAxis: AbsInfo
    /// Device units per millimetre on each axis (after the fallback).
    public var unitsPerMmX: Double
    /// Device units per millimetre on the y axis.
    public var unitsPerMmY: Double
    /// True when the kernel's resolution was used, false when the fallback or an override was.
    public var hasKernelResolution: Bool
    /// True when the size in mm is the ``fallbackWidthMm`` guess (no resolution, no configured size):
    /// every mm figure of this device is then off by the ratio of its real width to 250 mm.
    var isSizeAssumed: Bool
    /// The calibration from the sensor to the display.
    public var calibration: CalibrationMatrix

    /// The geometry of a device's position axes (multitouch ones first); `sizeMm` wins over the kernel's resolution.
    public init(
        description: DeviceDescription, calibration: CalibrationMatrix = .identity,
        sizeMm: (width: Double, height: Double)? = nil
    ) {
        let x =
            description.absAxes[AbsCode.mtPositionX] ?? description.absAxes[AbsCode.x]
            ?? AbsInfo(minimum: 0, maximum: 1)
        let y =
            description.absAxes[AbsCode.mtPositionY] ?? description.absAxes[AbsCode.y]
            ?? AbsInfo(minimum: 0, maximum: 1)
        self.init(xAxis: x, yAxis: y, calibration: calibration, sizeMm: sizeMm)
    }

    /// The geometry of two position axes; `sizeMm` wins over their resolution.
    public init(
        xAxis: AbsInfo, yAxis: AbsInfo, calibration: CalibrationMatrix = .identity,
        sizeMm: (width: Double, height: Double)? = nil
    ) {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.calibration = calibration
        if let size = sizeMm, size.width > 0, size.height > 0 {
            unitsPerMmX = Double(xAxis.extent) / size.width
            unitsPerMmY = Double(yAxis.extent) / size.height
            hasKernelResolution = false
            isSizeAssumed = false
        } else if xAxis.resolution > 0 && yAxis.resolution > 0 {
            unitsPerMmX = Double(xAxis.resolution)
            unitsPerMmY = Double(yAxis.resolution)
            hasKernelResolution = true
            isSizeAssumed = false
        } else {
            let perMm = Double(xAxis.extent) / Self.fallbackWidthMm
            unitsPerMmX = xAxis.resolution > 0 ? Double(xAxis.resolution) : perMm
            unitsPerMmY = yAxis.resolution > 0 ? Double(yAxis.resolution) : perMm
            hasKernelResolution = false
            isSizeAssumed = true
        }
    }

    /// Sensor size in mm (before calibration).
    /// Distance from the minimum to the maximum position, so `millimetres` of a point is exactly
    /// `(value - minimum) / unitsPerMm`.
    var sensorWidthMm: Double { Double(xAxis.extent) / unitsPerMmX }
    var sensorHeightMm: Double { Double(yAxis.extent) / unitsPerMmY }

    /// Display size in mm: the sensor size seen through the calibration matrix's linear part.
    public var displayWidthMm: Double {
        Swift.abs(calibration.a) * sensorWidthMm + Swift.abs(calibration.b) * sensorHeightMm
    }
    /// Display height in mm.
    public var displayHeightMm: Double {
        Swift.abs(calibration.d) * sensorWidthMm + Swift.abs(calibration.e) * sensorHeightMm
    }

    /// Sensor-normalised coordinates, 0…1, before calibration.
    @inline(__always) public func sensorNormalized(_ p: DevicePoint) -> (x: Double, y: Double) {
        (
            Double(Int64(p.x) - Int64(xAxis.minimum)) / Double(xAxis.extent),
            Double(Int64(p.y) - Int64(yAxis.minimum)) / Double(yAxis.extent)
        )
    }

    /// Normalised display coordinates (after calibration).
    @inline(__always) public func normalized(_ p: DevicePoint) -> NormalizedPoint {
        let s = sensorNormalized(p)
        let c = calibration.apply(x: s.x, y: s.y)
        return NormalizedPoint(x: c.x, y: c.y)
    }

    /// Position in mm in the display's frame (after calibration).
    @inline(__always) public func millimetres(_ p: DevicePoint) -> PhysicalPoint {
        let n = normalized(p)
        return PhysicalPoint(x: n.x * displayWidthMm, y: n.y * displayHeightMm)
    }

    /// A length along the sensor's x axis in device units, in mm.
    @inline(__always) public func millimetres(unitsAlongX u: Double) -> Double { u / unitsPerMmX }
    /// A length along the sensor's y axis in device units, in mm.
    @inline(__always) public func millimetres(unitsAlongY u: Double) -> Double { u / unitsPerMmY }

    /// Rotation (radians, clockwise positive in y-down) that the calibration matrix applies to
    /// directions; 0 for the identity. Used to bring ellipse orientations into the display frame.
    var calibrationRotation: Radians {
        // Image of the sensor's x unit vector.
        let v = calibration.applyLinear(x: 1, y: 0)
        return atan2(v.y, v.x)
    }
}
