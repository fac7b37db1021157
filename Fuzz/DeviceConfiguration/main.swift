import HandyCore
import HandyProtocol
import HandySettings
import HandySynthetic

// libFuzzer harness: the fuzz bytes are a device's properties, as udev (or `--device-property`)
// gives them to DeviceConfiguration (the pure module HandySettings, linked as built). Layout: byte 0 = flags (bit 0: a replay's properties, bit 1: also run a
// pipeline with the result), then one property per line, `NAME=VALUE`; a line starting with `#`
// names a property handyd knows by the next byte (index into `knownProperties`), the rest of the
// line is the value.
//
// Invariants: no trap; every property given that handyd judges is either applied or named by
// exactly one problem line, never both; an applied threshold has exactly the value its key and
// value give alone; every setting is within its documented range; the geometry stays finite;
// with bit 1, the demo's events through a GesturePipeline so configured keep PipelineCheck's
// invariants, every timer fired however far away.

/// Every property DeviceConfiguration reads, so the fuzzer reaches the value checks quickly.
let knownProperties: [String] =
    GestureConfiguration.overrideKeys.map(DeviceConfiguration.thresholdProperty) + [
        DeviceConfiguration.ignoreProperty, DeviceConfiguration.deviceProperty, DeviceConfiguration.calibrationProperty,
        DeviceConfiguration.libinputCalibrationProperty, DeviceConfiguration.sizeProperty,
        DeviceConfiguration.idProperty,
        "ID_PATH", "ID_SERIAL",
    ]

/// A short stream with a timer of each kind: a double tap and a long press, then a pinch.
let workoutDescription = DemoScenario.device.description
let workoutEvents: [InputEvent] = SyntheticStream(device: DemoScenario.device, start: Timestamp(seconds: 1)).events([
    .hold(atMm: (50, 60), startSeconds: 0, durationSeconds: 0.07),
    .hold(atMm: (50.5, 60.3), startSeconds: 0.2, durationSeconds: 0.07),
    .hold(atMm: (100, 60), startSeconds: 0.6, durationSeconds: 0.9),
    .line(fromMm: (90, 60), toMm: (70, 60), startSeconds: 1.8, durationSeconds: 0.3),
    .line(fromMm: (110, 60), toMm: (130, 60), startSeconds: 1.8, durationSeconds: 0.3),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let flags = bytes.first else { return 0 }
    let origin: DeviceConfiguration.Origin = flags & 1 != 0 ? .replay : .udev
    var properties: [String: String] = [:]
    for line in bytes.dropFirst().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        if line.first == UInt8(ascii: "#"), line.count >= 2 {
            let name = knownProperties[Int(line[line.startIndex + 1]) % knownProperties.count]
            properties[name] = String(decoding: line.dropFirst(2), as: UTF8.self)
        } else if let equals = line.firstIndex(of: UInt8(ascii: "=")) {
            properties[String(decoding: line[..<equals], as: UTF8.self)] = String(
                decoding: line[(equals + 1)...], as: UTF8.self)
        }
    }
    let c = DeviceConfiguration(properties: properties, origin: origin)
    check(c, properties, origin)
    if flags & 2 != 0 {
        var pipeline = PipelineCheck(
            description: workoutDescription, geometry: c.geometry(for: workoutDescription),
            configuration: c.thresholds)
        for event in workoutEvents { pipeline.feed(event) }
        pipeline.finish(at: Timestamp(microseconds: .max))
    }
    return 0
}

func check(_ c: DeviceConfiguration, _ properties: [String: String], _ origin: DeviceConfiguration.Origin) {
    let applied = Set(c.applied)
    guard applied.count == c.applied.count else { fatalError("fuzz invariant: a property applied twice: \(c.applied)") }
    for property in applied where properties[property] == nil {
        fatalError("fuzz invariant: \(property) applied but not given")
    }
    let handydCalibrationApplied = applied.contains(DeviceConfiguration.calibrationProperty)
    var judged = 0
    for property in properties.keys {
        // Not judged: udev's own properties, HANDYD_DEVICE (discovery reads it), and libinput's
        // matrix when handyd's own one is used instead.
        if property == DeviceConfiguration.libinputCalibrationProperty && handydCalibrationApplied { continue }
        if origin == .udev
            && (!property.utf8.starts(with: "HANDYD_".utf8) || property == DeviceConfiguration.deviceProperty)
            && property != DeviceConfiguration.libinputCalibrationProperty
        {
            continue
        }
        judged += 1
        // On the bytes: a value starting with a combining mark joins the quote into one Character.
        let named = c.problems.filter { $0.utf8.starts(with: (property + "=\"").utf8) }.count
        let isApplied = applied.contains(property)
        guard (isApplied && named == 0) || (!isApplied && named == 1) else {
            fatalError("fuzz invariant: \(property) applied: \(isApplied), in \(named) problems: \(c.problems)")
        }
    }
    guard c.problems.count + c.applied.count == judged else {
        fatalError(
            "fuzz invariant: \(judged) properties judged, \(c.applied.count) applied, \(c.problems.count) problems")
    }
    // Every problem is one line: values' control characters are escaped (names here hold no newline).
    for problem in c.problems
    where problem.utf8.contains(UInt8(ascii: "\n")) || problem.utf8.contains(UInt8(ascii: "\r")) {
        guard let name = properties.keys.first(where: { problem.utf8.starts(with: ($0 + "=\"").utf8) }),
            name.utf8.contains(UInt8(ascii: "\r"))
        else {
            fatalError("fuzz invariant: problem is not one line: \(problem)")
        }
    }

    // Thresholds: each applied one as its key and value alone give it; all within their ranges.
    for (key, value) in c.thresholdOverrides {
        guard let setting = GestureConfiguration.overrideSetting(named: key) else {
            fatalError("fuzz invariant: unknown key \(key) applied")
        }
        var alone = GestureConfiguration()
        guard alone.applyOverrides([key: value]).isEmpty,
            setting.currentText(alone) == setting.currentText(c.thresholds)
        else {
            fatalError("fuzz invariant: \(key)=\(value) applied as \(setting.currentText(c.thresholds))")
        }
    }
    for setting in GestureConfiguration.overrideSettings {
        guard let value = setting.numericValue?(c.thresholds), case .number(let range, _) = setting.accepted else {
            continue
        }
        // rotate-degrees is rotate-turns × 360: allow its rounding.
        guard
            range.contains(value) || Swift.abs(value - range.lowerBound) < 1e-9
                || Swift.abs(value - range.upperBound) < 1e-9
        else {
            fatalError("fuzz invariant: \(setting.key) = \(value) outside \(setting.accepted.summary)")
        }
    }
    if let size = c.sizeMm,
        !(DeviceConfiguration.sizeRangeMm.contains(size.width) && DeviceConfiguration.sizeRangeMm.contains(size.height))
    {
        fatalError("fuzz invariant: size \(size) outside its range")
    }
    if let m = c.calibration,
        ![m.a, m.b, m.c, m.d, m.e, m.f].allSatisfy(DeviceConfiguration.calibrationCoefficientRange.contains)
    {
        fatalError("fuzz invariant: calibration \(m) outside its range")
    }
    // The wire id (DeviceIdentity.swift, compiled in): always a valid id, HANDYD_ID when applied.
    let name = properties["NAME"] ?? ""
    let id = DeviceIdentity.id(name: name, properties: properties)
    guard DeviceIdentity.isValidID(id, maximumBytes: 200) else { fatalError("fuzz invariant: id \(id) not valid") }
    if let explicit = c.id, explicit != id { fatalError("fuzz invariant: HANDYD_ID \(explicit) applied, id is \(id)") }
    let g = c.geometry(for: workoutDescription)
    guard g.displayWidthMm.isFinite, g.displayHeightMm.isFinite else {
        fatalError("fuzz invariant: display size not finite")
    }
}
