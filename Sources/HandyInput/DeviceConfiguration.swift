import HandyCore

/// Per-device settings a kiosk sets through udev properties (see docs/DEVICES.md).
///
/// Malformed values never stop a device: they are listed in ``problems`` (the daemon logs them)
/// and the setting keeps its default.
public struct DeviceConfiguration: Sendable, Equatable {
    /// HANDYD_IGNORE=1: handyd leaves the device alone.
    public var ignore: Bool = false
    /// HANDYD_CALIBRATION_MATRIX, else LIBINPUT_CALIBRATION_MATRIX ("a b c d e f", libinput's convention).
    public var calibration: CalibrationMatrix?
    /// HANDYD_SIZE_MM="width height": the real sensor size, wins over the kernel's resolution.
    public var sizeMm: (width: Double, height: Double)?
    /// HANDYD_THRESHOLD_<NAME>=value, keyed by the name in kebab case
    /// (HANDYD_THRESHOLD_TAP_TIMEOUT_MS → "tap-timeout-ms").
    public var thresholdOverrides: [String: String] = [:]
    /// One line per malformed property, e.g. `HANDYD_SIZE_MM="abc": expected "width height" in mm`.
    public var problems: [String] = []

    public static let ignoreProperty = "HANDYD_IGNORE"
    public static let calibrationProperty = "HANDYD_CALIBRATION_MATRIX"
    public static let libinputCalibrationProperty = "LIBINPUT_CALIBRATION_MATRIX"
    public static let sizeProperty = "HANDYD_SIZE_MM"
    public static let thresholdPrefix = "HANDYD_THRESHOLD_"
    /// Set by udev/70-handyd.rules on every device handyd should read.
    public static let deviceProperty = "HANDYD_DEVICE"

    public init() {}

    /// Reads the configuration from a device's udev properties.
    public init(properties: [String: String]) {
        if let value = properties[Self.ignoreProperty] {
            switch value.trimmingSpaces.lowercased() {
            case "1", "true", "yes": ignore = true
            case "0", "false", "no", "": ignore = false
            default: problems.append("\(Self.ignoreProperty)=\"\(value)\": expected 1 or 0")
            }
        }

        if let value = properties[Self.calibrationProperty] {
            if let m = CalibrationMatrix(parsing: value) {
                calibration = m
            } else {
                problems.append("\(Self.calibrationProperty)=\"\(value)\": expected six numbers \"a b c d e f\"")
            }
        }
        if calibration == nil, let value = properties[Self.libinputCalibrationProperty] {
            if let m = CalibrationMatrix(parsing: value) {
                calibration = m
            } else {
                problems.append("\(Self.libinputCalibrationProperty)=\"\(value)\": expected six numbers \"a b c d e f\"")
            }
        }

        if let value = properties[Self.sizeProperty] {
            let parts = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
            if parts.count == 2, let w = parts[0], let h = parts[1], w.isFinite, h.isFinite, w > 0, h > 0 {
                sizeMm = (w, h)
            } else {
                problems.append("\(Self.sizeProperty)=\"\(value)\": expected \"width height\" in mm, both > 0")
            }
        }

        for (key, value) in properties.sorted(by: { $0.key < $1.key }) where key.hasPrefix(Self.thresholdPrefix) {
            let suffix = key.dropFirst(Self.thresholdPrefix.count)
            let name = suffix.lowercased().split(separator: "_", omittingEmptySubsequences: true).joined(separator: "-")
            let trimmed = value.trimmingSpaces
            guard !name.isEmpty else {
                problems.append("\(key): no threshold name after \(Self.thresholdPrefix)")
                continue
            }
            guard let number = Double(trimmed), number.isFinite else {
                problems.append("\(key)=\"\(value)\": expected a number")
                continue
            }
            _ = number
            thresholdOverrides[name] = trimmed
        }
    }

    /// Geometry for a device with this configuration applied.
    public func geometry(for description: DeviceDescription) -> DeviceGeometry {
        DeviceGeometry(description: description, calibration: calibration ?? .identity, sizeMm: sizeMm)
    }

    public static func == (a: DeviceConfiguration, b: DeviceConfiguration) -> Bool {
        a.ignore == b.ignore && a.calibration == b.calibration
            && a.sizeMm?.width == b.sizeMm?.width && a.sizeMm?.height == b.sizeMm?.height
            && a.thresholdOverrides == b.thresholdOverrides && a.problems == b.problems
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
