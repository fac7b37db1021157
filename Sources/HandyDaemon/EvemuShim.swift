import Foundation
import HandyCore

// TEMPORARY: a minimal evemu reader so the replay source works before branch `recordings`
// (HandyRecording) lands. Delete this file once the daemon uses `Recording.load`.

/// A device description plus its events, read from an evemu file (or a `.desc` + `.events` pair).
struct ReplayRecording: Sendable {
    var description: DeviceDescription
    var events: [InputEvent]

    struct LoadError: Error, CustomStringConvertible {
        var path: String
        var line: Int
        var message: String
        var description: String { "\(path):\(line): \(message)" }
    }

    /// Reads `path`; the device description comes from `descPath` when given, else from `path`.
    static func load(path: String, descPath: String?) throws -> ReplayRecording {
        let (eventsDesc, events) = try parse(path: path)
        var description = eventsDesc
        if let descPath {
            description = try parse(path: descPath).0
        }
        guard let description else {
            throw LoadError(path: descPath ?? path, line: 0, message: "no device description (N:/A: lines); pass --desc FILE")
        }
        return ReplayRecording(description: description, events: events)
    }

    private static func parse(path: String) throws -> (DeviceDescription?, [InputEvent]) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw LoadError(path: path, line: 0, message: "cannot read: \(error.localizedDescription)")
        }
        var name: String?
        var ids: [UInt16] = [0, 0, 0, 0]
        var props = Set<UInt16>()
        var axes: [UInt16: AbsInfo] = [:]
        var supported: [UInt16: Set<UInt16>] = [:]
        var events: [InputEvent] = []
        var supportedOffsets: [UInt16: Int] = [:]
        var propertyOffset = 0
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.count >= 2, !line.hasPrefix("#") else { continue }
            let tag = line.prefix(2)
            // Event lines carry a "# EV_ABS / ..." comment after a tab.
            let body = tag == "N:" ? Substring(line) : line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let fields = body.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" })
            func bad(_ what: String) -> LoadError { LoadError(path: path, line: lineNumber, message: what) }
            switch tag {
            case "N:":
                name = String(line.dropFirst(2).trimmingCharacters(in: .whitespaces))
            case "I:":
                guard fields.count == 4 else { throw bad("I: needs 4 hex fields") }
                ids = try fields.map { guard let v = UInt16($0, radix: 16) else { throw bad("bad hex \($0)") }; return v }
            case "P:":
                // Property bitmask bytes, 8 per line; evemu repeats P: lines for larger masks.
                for (i, f) in fields.enumerated() {
                    guard let byte = UInt8(f, radix: 16) else { throw bad("bad hex \(f)") }
                    for bit in 0..<8 where byte & (1 << bit) != 0 { props.insert(UInt16(propertyOffset + i * 8 + bit)) }
                }
                propertyOffset += fields.count * 8
            case "B:":
                guard let type = fields.first.flatMap({ UInt16($0, radix: 16) }) else { throw bad("bad B: line") }
                // Bitmask lines of one type continue where the previous one stopped.
                let offset = supportedOffsets[type, default: 0]
                for (i, f) in fields.dropFirst().enumerated() {
                    guard let byte = UInt8(f, radix: 16) else { throw bad("bad hex \(f)") }
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        supported[type, default: []].insert(UInt16(offset + i * 8 + bit))
                    }
                }
                supportedOffsets[type] = offset + (fields.count - 1) * 8
            case "A:":
                guard fields.count >= 5, let code = UInt16(fields[0], radix: 16),
                      let minimum = Int32(fields[1]), let maximum = Int32(fields[2]),
                      let fuzz = Int32(fields[3]), let flat = Int32(fields[4]) else { throw bad("bad A: line") }
                let resolution = fields.count > 5 ? Int32(fields[5]) ?? 0 : 0
                axes[code] = AbsInfo(minimum: minimum, maximum: maximum, fuzz: fuzz, flat: flat, resolution: resolution)
            case "E:":
                guard fields.count == 4 else { throw bad("E: needs time type code value") }
                let t = fields[0].split(separator: ".")
                guard t.count == 2, let s = Int64(t[0]), let us = Int64(t[1]),
                      let type = UInt16(fields[1], radix: 16), let code = UInt16(fields[2], radix: 16),
                      let value = Int32(fields[3]) else { throw bad("bad E: line") }
                events.append(InputEvent(time: Timestamp(seconds: s, microseconds: us), type: type, code: code, value: value))
            default:
                continue
            }
        }
        guard let name else { return (nil, events) }
        let desc = DeviceDescription(
            name: name, bustype: ids[0], vendor: ids[1], product: ids[2], version: ids[3],
            properties: props, supportedEvents: supported, absAxes: axes)
        return (desc, events)
    }
}
