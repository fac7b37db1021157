import HandyCore

/// Per-device settings a kiosk sets through udev properties, or an operator through
/// `--device-property` on a replay (see docs/DEVICES.md).
///
/// Bad values never stop a device: each is one line in ``problems`` (the daemon logs them and
/// lists them in the device's `problems` on the wire) and that setting keeps its default. Threshold
/// values are checked by the recognizers' own table (``GestureConfiguration/overrideSettings``),
/// so there is one parser and one set of ranges.
///
/// Pure Swift (HandyCore only), so the fuzzer compiles it without the C libraries.
public struct DeviceConfiguration: Sendable, Equatable {
    /// Where the properties come from: a replay has no udev, so there every property given must be
    /// one handyd reads (a typo is a problem, not ignored among udev's own properties).
    public enum Origin: Sendable {
        case udev
        case replay
    }

    /// HANDYD_IGNORE=1: handyd leaves the device alone.
    public var ignore: Bool = false
    /// HANDYD_CALIBRATION_MATRIX, else LIBINPUT_CALIBRATION_MATRIX ("a b c d e f", libinput's convention).
    public var calibration: CalibrationMatrix?
    /// HANDYD_SIZE_MM="width height": the real sensor size, wins over the kernel's resolution.
    public var sizeMm: (width: Double, height: Double)?
    /// The recognizers' thresholds and policy with this device's HANDYD_THRESHOLD_* applied.
    public var thresholds = GestureConfiguration()
    /// HANDYD_ID: the id the device has on the wire, instead of the one handyd makes from udev's
    /// ID_PATH/ID_SERIAL and the name (``DeviceIdentity``); e.g. to tell two identical screens apart
    /// by where they are mounted rather than by port.
    public var id: String?
    /// HANDYD_HAND_PROFILE: the device's enrolled hand profile (a `HandProfile` JSON file, made by
    /// `handyctl calibrate hand`); nil: the default file `<handProfileDirectory>/<device id>.json`
    /// if there is one (the daemon reads the file; here only the path).
    public var handProfilePath: String?
    /// HANDYD_STUCK_TOUCH_S: a contact still this long is stuck, reported and left out of gesture
    /// recognition (``StuckContactFilter``); 0 turns it off.
    public var stuckTouchSeconds = GesturePipeline.defaultStuckAfterSeconds
    /// HANDYD_HOVER=0: the device's hovering contacts (ABS_MT_DISTANCE above 0) are not tracked,
    /// for a panel whose in-range signal is noisy; the tracker then runs as on a device without
    /// the axis (`TouchTracker(tracksHover: false)`). On (true) by default.
    public var hover = true
    /// The HANDYD_THRESHOLD_<NAME> values that were applied, keyed by the name in kebab case
    /// (HANDYD_THRESHOLD_TAP_TIMEOUT_MS → "tap-timeout-ms").
    public var thresholdOverrides: [String: String] = [:]
    /// The properties that took effect, sorted.
    public var applied: [String] = []
    /// One line per property that did not, sorted, each `PROPERTY="value": why, accepted …; using …`.
    public var problems: [String] = []

    public static let ignoreProperty = "HANDYD_IGNORE"
    public static let calibrationProperty = "HANDYD_CALIBRATION_MATRIX"
    public static let libinputCalibrationProperty = "LIBINPUT_CALIBRATION_MATRIX"
    public static let sizeProperty = "HANDYD_SIZE_MM"
    public static let thresholdPrefix = "HANDYD_THRESHOLD_"
    /// The daemon's own threshold on the published hand (docs/HANDEDNESS.md): the threshold
    /// `hand-minimum-confidence` by the name the hand's documentation gives it; the same as
    /// HANDYD_THRESHOLD_HAND_MINIMUM_CONFIDENCE.
    public static let handMinimumConfidenceProperty = "HANDYD_HAND_MINIMUM_CONFIDENCE"
    public static let idProperty = "HANDYD_ID"
    public static let handProfileProperty = "HANDYD_HAND_PROFILE"
    public static let stuckTouchProperty = "HANDYD_STUCK_TOUCH_S"
    public static let hoverProperty = "HANDYD_HOVER"
    /// HANDYD_STUCK_TOUCH_S's accepted values besides 0 (off): a second to a day.
    public static let stuckTouchRangeSeconds: ClosedRange<Double> = 1...86_400
    /// Where a device's hand profile is looked for when HANDYD_HAND_PROFILE does not name one:
    /// `<this>/<device id>.json` (a `/` in the id becomes `_`).
    public static let handProfileDirectory = "/var/lib/handyd/hands"
    /// HANDYD_HAND_PROFILE's longest accepted path, in bytes (PATH_MAX).
    public static let handProfilePathMaximumBytes = 4096
    /// HANDYD_ID's longest accepted value, in bytes.
    public static let idMaximumBytes = 64
    /// Set by udev/70-handyd.rules on every device handyd should read (read by discovery, not here).
    public static let deviceProperty = "HANDYD_DEVICE"

    /// HANDYD_SIZE_MM's accepted width and height: a 1 mm sensor to a 10 m wall. Beyond it the mm
    /// figures on the wire stop meaning anything (and 1e308 overflowed to infinity, which JSON cannot carry).
    public static let sizeRangeMm: ClosedRange<Double> = 1...10_000
    /// A calibration coefficient's accepted range. Real matrices hold rotations (±1), small scales
    /// and offsets within the screen; ±100 leaves room for any of them and keeps sizes finite.
    public static let calibrationCoefficientRange: ClosedRange<Double> = -100...100

    public init() {}

    /// Reads the configuration from a device's properties (udev's, or `--device-property` ones).
    public init(properties: [String: String], origin: Origin = .udev) {
        var problems: [(property: String, text: String)] = []
        func problem(_ property: String, _ value: String, _ why: String) {
            problems.append((property, "\(property)=\"\(Self.shown(value))\": \(why)"))
        }

        for (property, value) in properties where property.hasBytePrefix("HANDYD_") || origin == .replay {
            switch property {
            case Self.ignoreProperty, Self.deviceProperty:
                if origin == .replay { problem(property, value, "has no effect on a replayed device") }
            case Self.calibrationProperty, Self.libinputCalibrationProperty, Self.sizeProperty, Self.idProperty,
                Self.handMinimumConfidenceProperty, Self.handProfileProperty, Self.stuckTouchProperty,
                Self.hoverProperty:
                break
            default:
                if property.hasBytePrefix(Self.thresholdPrefix) { break }
                problem(property, value, "not a property handyd reads (see docs/DEVICES.md)")
            }
        }

        /// `property`'s value parsed: nil, with a problem saying what was expected and what is
        /// used instead, when it does not parse; nil when it is absent.
        func read<T>(_ property: String, otherwise reason: @autoclosure () -> String, _ parse: (String) -> T?) -> T? {
            guard let value = properties[property] else { return nil }
            guard let parsed = parse(value) else {
                problem(property, value, reason())
                return nil
            }
            applied.append(property)
            return parsed
        }

        if origin == .udev {
            // Exactly the values 90-handyd-systemd.rules matches (no trimming): a device the daemon
            // ignores is one udev does not start the service for, and the other way round.
            ignore =
                read(Self.ignoreProperty, otherwise: "expected 1, true, yes, 0, false or no (any case); using 0") {
                    Self.parseSwitch($0, emptyIs: false)
                } ?? ignore
        }
        id =
            read(
                Self.idProperty,
                otherwise:
                    "expected 1 to \(Self.idMaximumBytes) characters among A-Z a-z 0-9 . _ : @ / + -; using the id from ID_PATH/ID_SERIAL and the name"
            ) {
                DeviceIdentity.isValidID($0, maximumBytes: Self.idMaximumBytes) ? $0 : nil
            } ?? id
        handProfilePath =
            read(
                Self.handProfileProperty,
                otherwise:
                    "expected the path of a hand profile (1 to \(Self.handProfilePathMaximumBytes) bytes); using the default profile file if there is one"
            ) {
                !$0.isEmpty && $0.utf8.count <= Self.handProfilePathMaximumBytes && !$0.utf8.contains(0) ? $0 : nil
            } ?? handProfilePath
        stuckTouchSeconds =
            read(
                Self.stuckTouchProperty,
                otherwise:
                    "expected 0 (off) or seconds \(Self.rangeText(Self.stuckTouchRangeSeconds)); using \(GestureConfiguration.formatSetting(GesturePipeline.defaultStuckAfterSeconds))"
            ) {
                GestureConfiguration.parseDecimal($0).flatMap {
                    $0 == 0 || Self.stuckTouchRangeSeconds.contains($0) ? $0 : nil
                }
            } ?? stuckTouchSeconds
        hover =
            read(Self.hoverProperty, otherwise: "expected 1, true, yes, 0, false or no (any case); using 1") {
                Self.parseSwitch($0)
            } ?? hover

        let matrixExpected =
            "expected six numbers \"a b c d e f\", each \(Self.rangeText(Self.calibrationCoefficientRange))"
        let libinputMatrixParses = properties[Self.libinputCalibrationProperty].flatMap(Self.parseCalibration) != nil
        calibration = read(
            Self.calibrationProperty,
            otherwise: "\(matrixExpected); using \(libinputMatrixParses ? Self.libinputCalibrationProperty : "none")",
            Self.parseCalibration)
        if calibration == nil {
            calibration = read(
                Self.libinputCalibrationProperty, otherwise: "\(matrixExpected); using none", Self.parseCalibration)
        }
        sizeMm =
            read(
                Self.sizeProperty,
                otherwise:
                    "expected \"width height\", each \(Self.rangeText(Self.sizeRangeMm)) mm; using the kernel's resolution (or the 250 mm guess)"
            ) { value in
                let parts = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map {
                    GestureConfiguration.parseDecimal(String($0))
                }
                guard parts.count == 2, let w = parts[0], let h = parts[1], Self.sizeRangeMm.contains(w),
                    Self.sizeRangeMm.contains(h)
                else { return nil }
                return (w, h)
            } ?? sizeMm

        // Thresholds: names in kebab case, values checked by GestureConfiguration's table.
        var overrides: [String: String] = [:]
        var propertyByName: [String: String] = [:]
        for (property, value) in properties.sorted(by: { $0.key < $1.key })
        where property.hasBytePrefix(Self.thresholdPrefix) || property == Self.handMinimumConfidenceProperty {
            let name =
                property == Self.handMinimumConfidenceProperty
                ? "hand-minimum-confidence" : Self.thresholdName(property)
            guard !name.isEmpty else {
                problem(property, value, "no threshold name after \(Self.thresholdPrefix)")
                continue
            }
            // HANDYD_THRESHOLD_TAP_TIMEOUT_MS and HANDYD_THRESHOLD_TAP__TIMEOUT_MS name one key.
            if let first = propertyByName[name] {
                problem(property, value, "names the same threshold as \(first); only \(first) is read")
                continue
            }
            propertyByName[name] = property
            overrides[name] = value
        }
        var rejected = Set<String>()
        for rejection in thresholds.applyOverrides(overrides) {
            rejected.insert(rejection.key)
            problem(propertyByName[rejection.key] ?? rejection.key, rejection.value, rejection.reason)
        }
        for (name, property) in propertyByName where !rejected.contains(name) {
            thresholdOverrides[name] = overrides[name]?.trimmingSpaces
            applied.append(property)
        }

        applied.sort()
        self.problems = problems.sorted { $0.property < $1.property }.map(\.text)
    }

    /// A yes/no property: 1, true, yes / 0, false, no in any case, not trimmed; nil for anything
    /// else (and for "" unless `emptyIs` gives its meaning).
    static func parseSwitch(_ value: String, emptyIs: Bool? = nil) -> Bool? {
        switch value.lowercased() {
        case "1", "true", "yes": true
        case "0", "false", "no": false
        case "": emptyIs
        default: nil
        }
    }

    /// `HANDYD_THRESHOLD_TAP_TIMEOUT_MS` → `tap-timeout-ms` ("" when nothing follows the prefix).
    public static func thresholdName(_ property: String) -> String {
        guard property.hasBytePrefix(thresholdPrefix) else { return "" }
        return String(decoding: property.utf8.dropFirst(thresholdPrefix.utf8.count), as: UTF8.self).lowercased()
            .split(separator: "_", omittingEmptySubsequences: true).joined(separator: "-")
    }

    /// `tap-timeout-ms` → `HANDYD_THRESHOLD_TAP_TIMEOUT_MS`.
    public static func thresholdProperty(_ name: String) -> String {
        thresholdPrefix + name.uppercased().replacingDashes
    }

    /// The hand profile file of the device with id `deviceID`: HANDYD_HAND_PROFILE, else
    /// `<directory>/<id>.json` (`/` in the id → `_`); `explicit` tells which (a missing default file
    /// is no problem, a missing named one is).
    public func handProfileFile(deviceID: String, directory: String? = handProfileDirectory) -> (
        path: String, explicit: Bool
    )? {
        if let handProfilePath { return (handProfilePath, true) }
        guard let directory, !directory.isEmpty else { return nil }
        let name = String(deviceID.map { $0 == "/" ? "_" : $0 })
        return ((directory.hasSuffix("/") ? directory : directory + "/") + name + ".json", false)
    }

    /// Geometry for a device with this configuration applied.
    public func geometry(for description: DeviceDescription) -> DeviceGeometry {
        DeviceGeometry(description: description, calibration: calibration ?? .identity, sizeMm: sizeMm)
    }

    public static func == (a: DeviceConfiguration, b: DeviceConfiguration) -> Bool {
        a.ignore == b.ignore && a.id == b.id && a.calibration == b.calibration && a.handProfilePath == b.handProfilePath
            && a.stuckTouchSeconds == b.stuckTouchSeconds
            && a.sizeMm?.width == b.sizeMm?.width && a.sizeMm?.height == b.sizeMm?.height
            && a.thresholds == b.thresholds && a.thresholdOverrides == b.thresholdOverrides
            && a.applied == b.applied && a.problems == b.problems
    }

    private static func parseCalibration(_ text: String) -> CalibrationMatrix? {
        guard let m = CalibrationMatrix(parsing: text) else { return nil }
        let coefficients = [m.a, m.b, m.c, m.d, m.e, m.f]
        return coefficients.allSatisfy(calibrationCoefficientRange.contains) ? m : nil
    }

    private static func rangeText(_ range: ClosedRange<Double>) -> String {
        "\(GestureConfiguration.formatSetting(range.lowerBound)) … \(GestureConfiguration.formatSetting(range.upperBound))"
    }

    /// A value as a problem line shows it: control characters escaped and a runaway value cut, so
    /// the problem stays one readable line (in the log and in `handyctl devices`).
    private static func shown(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars.prefix(80) {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return value.unicodeScalars.count > 80 ? out + "…" : out
    }
}

extension DeviceConfiguration {
    /// A `--device-property` argument that is not `NAME=VALUE`, or a name given twice.
    public struct AssignmentError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The properties of `--device-property NAME=VALUE` arguments (split at the first `=`), for
    /// ``init(properties:origin:)``. An argument without a name, or a name given twice, is a usage
    /// error: there is no value to judge, or two.
    public static func properties(fromAssignments assignments: [String]) throws(AssignmentError) -> [String: String] {
        var properties: [String: String] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw AssignmentError(
                    description:
                        "--device-property \"\(assignment)\": expected NAME=VALUE, e.g. HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250"
                )
            }
            let name = String(assignment[..<equals])
            guard properties[name] == nil else {
                throw AssignmentError(description: "--device-property \(name) given twice")
            }
            properties[name] = String(assignment[assignment.index(after: equals)...])
        }
        return properties
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    fileprivate var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }

    /// `hasPrefix` on the bytes: property names are ASCII, and a combining mark after the prefix
    /// (which makes `_` + mark one Character) must not hide a HANDYD_ property from the checks.
    fileprivate func hasBytePrefix(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }
}
