import Foundation
import HandyCore
import HandySettings
import HandyTestSupport
import Testing

/// docs/GESTURES.md "Thresholds" is a copy of `GestureConfiguration.overrideSettings`: every key it
/// documents must be settable per device with its documented example, with the documented range,
/// and no key may be missing from it. So the docs, the table and the parser cannot drift apart.
@Suite struct ConfigurationDocsTests {
    struct Row {
        var names: [String]  // key, then aliases
        var defaultValue: String
        var accepted: String
        var example: String
    }

    /// The rows of the first table after "## Thresholds".
    static func documentedRows() throws -> [Row] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/GESTURES.md"), encoding: .utf8)
        guard let section = text.range(of: "\n## Thresholds\n") else { throw DocsError("no ## Thresholds section") }
        var rows: [Row] = []
        var inTable = false
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|") else {
                if inTable { break } else { continue }
            }
            inTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, cells[0].hasPrefix("`") else { continue }  // header, separator
            rows.append(
                Row(
                    names: backticked(cells[0]), defaultValue: cells[1], accepted: cells[2],
                    example: backticked(cells[3]).first ?? ""))
        }
        return rows
    }

    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    struct DocsError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// docs/DEVICES.md "Properties": every HANDYD_ property it documents is one the parser reads
    /// (not refused as unknown), and every one the parser reads is documented there.
    @Test func everyDocumentedDevicePropertyIsRead() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/DEVICES.md"), encoding: .utf8)
        guard let section = text.range(of: "\n## Properties\n") else { throw DocsError("no ## Properties section") }
        var documented: [String] = []
        for line in text[section.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `HANDYD_") else { continue }
            documented.append(Self.backticked(String(line)).first ?? "")
        }
        let read = [
            DeviceConfiguration.deviceProperty, DeviceConfiguration.ignoreProperty, DeviceConfiguration.idProperty,
            DeviceConfiguration.calibrationProperty, DeviceConfiguration.sizeProperty,
            DeviceConfiguration.thresholdPrefix + "<NAME>",
            DeviceConfiguration.handMinimumConfidenceProperty, DeviceConfiguration.handProfileProperty,
            DeviceConfiguration.stuckTouchProperty, DeviceConfiguration.hoverProperty,
        ]
        #expect(Set(documented) == Set(read))
        for property in documented where !property.hasSuffix("<NAME>") {
            let c = DeviceConfiguration(properties: [property: "x"])
            #expect(!c.problems.contains { $0.contains("not a property handyd reads") }, "\(property): \(c.problems)")
        }
    }

    @Test func theDocumentedKeysAreExactlyTheParsersKeys() throws {
        let rows = try Self.documentedRows()
        #expect(rows.count >= 20)
        #expect(rows.map(\.names) == GestureConfiguration.overrideSettings.map { [$0.key] + $0.aliases })
    }

    @Test func everyDocumentedKeyIsSettablePerDeviceWithItsExample() throws {
        for row in try Self.documentedRows() {
            for name in row.names {
                let property = DeviceConfiguration.thresholdProperty(name)
                let c = DeviceConfiguration(properties: [property: row.example])
                #expect(c.problems.isEmpty, "\(property)=\(row.example): \(c.problems)")
                #expect(c.applied == [property], "\(property)=\(row.example)")
                #expect(c.thresholds != GestureConfiguration(), "\(property)=\(row.example) changed nothing")
            }
        }
    }

    @Test func theDocumentedRangesAreTheParsersRanges() throws {
        for row in try Self.documentedRows() {
            let setting = try #require(GestureConfiguration.overrideSetting(named: row.names[0]))
            #expect(row.accepted == setting.accepted.summary, "\(row.names[0])")
            #expect(row.example == setting.example, "\(row.names[0])")
        }
    }

    /// The "default" column of a number is the default configuration's value, in the setting's unit.
    @Test func theDocumentedDefaultsAreTheDefaults() throws {
        var numbers = 0
        for row in try Self.documentedRows() {
            let setting = try #require(GestureConfiguration.overrideSetting(named: row.names[0]))
            guard case .number(_, let unit) = setting.accepted, let value = setting.numericValue else { continue }
            // "2.5 mm", "30°", "1/50 turn (7.2°)": a number or a fraction, then the unit.
            let number = row.defaultValue.prefix { "0123456789./e-".contains($0) }
            let parts = number.split(separator: "/").compactMap { Double($0) }
            let documented = try #require(
                parts.count == 1 ? parts[0] : parts.count == 2 ? parts[0] / parts[1] : nil,
                "\(row.names[0]): default \(row.defaultValue)")
            #expect(
                Swift.abs(documented - value(GestureConfiguration())) <= 1e-12 * Swift.max(1, Swift.abs(documented)),
                "\(row.names[0]): documented \(row.defaultValue), default \(value(GestureConfiguration()))")
            let rest = row.defaultValue.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
            #expect(rest.hasPrefix(unit), "\(row.names[0]): \(row.defaultValue), unit \(unit)")
            numbers += 1
        }
        #expect(numbers >= 20)
    }

    /// The guest's CPU comparison plays its stream 50 times slower and gives handyd every time
    /// threshold scaled to match (scripts/vm/guest/perf_guest.py, docs/PERFORMANCE.md section 5): its
    /// list must hold every threshold in ms or mm/s with its default, so a threshold added or changed
    /// here cannot leave the comparison measuring a slow hand. momentum-decay-per-ms is the one left
    /// out (its range ends below the scaled value; the script says why).
    @Test func perfGuestScalesEveryTimeThreshold() throws {
        let script = try String(
            contentsOf: packageRoot.appendingPathComponent("scripts/vm/guest/perf_guest.py"), encoding: .utf8)
        func dictionary(_ name: String) throws -> [String: Double] {
            let start = try #require(script.range(of: "\n\(name) = {"), "\(name) in perf_guest.py")
            let end = try #require(script[start.upperBound...].firstIndex(of: "}"))
            var entries: [String: Double] = [:]
            for entry in script[start.upperBound..<end].split(separator: ",") {
                let parts = entry.split(separator: ":").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"")))
                }
                guard parts.count == 2, let value = Double(parts[1]) else {
                    throw DocsError("\(name): cannot read \(entry)")
                }
                entries[parts[0]] = value
            }
            return entries
        }
        var scaled = try dictionary("TIME_THRESHOLDS_MS").merging(try dictionary("SPEED_THRESHOLDS_MM_S")) { a, _ in a }
        var listed = 0
        for setting in GestureConfiguration.overrideSettings {
            guard case .number(_, let unit) = setting.accepted, unit == "ms" || unit == "mm/s",
                let value = setting.numericValue
            else { continue }
            let listedDefault = scaled.removeValue(forKey: setting.key)
            let scriptDefault = try #require(listedDefault, "\(setting.key) is not scaled by perf_guest.py")
            #expect(
                scriptDefault == value(GestureConfiguration()), "\(setting.key): perf_guest.py says \(scriptDefault)")
            listed += 1
        }
        #expect(scaled.isEmpty, "perf_guest.py scales what is not a threshold in ms or mm/s: \(scaled.keys.sorted())")
        #expect(listed == 8)
    }

    /// A documented range end is accepted, a value just beyond it is a problem (so a range widened
    /// in the code but not in the docs, or the other way round, fails here too).
    @Test func documentedRangeEndsAreTheBoundary() throws {
        for row in try Self.documentedRows() {
            let setting = try #require(GestureConfiguration.overrideSetting(named: row.names[0]))
            guard case .number = setting.accepted else { continue }
            let numbers = row.accepted.split(separator: " ").filter { $0 != "…" }.prefix(2).compactMap { Double($0) }
            try #require(numbers.count == 2, "\(row.accepted)")
            let property = DeviceConfiguration.thresholdProperty(row.names[0])
            for (value, inside) in [
                (numbers[0], true), (numbers[1], true),
                (numbers[0] - Swift.max(1e-9, numbers[0] * 1e-6), false), (numbers[1] * (1 + 1e-6), false),
            ] {
                let c = DeviceConfiguration(properties: [property: "\(value)"])
                #expect(c.problems.isEmpty == inside, "\(property)=\(value): \(c.problems)")
            }
        }
    }

    /// udev/90-handyd-systemd.rules starts the service for a device unless HANDYD_IGNORE matches its
    /// pattern; the daemon ignores a device when it reads the value as "ignore". The two must agree
    /// on every value, or udev starts a service for a device the daemon then ignores (or the other
    /// way round). The rule's pattern is read from the file and matched as udev does (`|` between
    /// fnmatch patterns).
    @Test func theSystemdRuleAndTheDaemonIgnoreTheSameValues() throws {
        let rules = try String(
            contentsOf: packageRoot.appendingPathComponent("udev/90-handyd-systemd.rules"), encoding: .utf8)
        let line = try #require(rules.split(separator: "\n").first { $0.hasPrefix("ENV{HANDYD_IGNORE}==") })
        let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
        try #require(quoted.count >= 3, "\(line)")
        let patterns = quoted[1].split(separator: "|").map(String.init)
        #expect(patterns.count >= 3)
        let values = [
            "1", "0", "", "true", "TRUE", "True", "yes", "YES", "yEs", "no", "false", "on", "2",
            " 1", "1 ", "\t1", "true ", " yes", "11", "yess", "tru",
        ]
        for value in values {
            let udevIgnores = patterns.contains { fnmatch($0, value, 0) == 0 }
            let daemonIgnores = DeviceConfiguration(properties: ["HANDYD_IGNORE": value]).ignore
            #expect(
                udevIgnores == daemonIgnores,
                "HANDYD_IGNORE=\"\(value)\": udev ignores \(udevIgnores), the daemon \(daemonIgnores)")
        }
    }
}
