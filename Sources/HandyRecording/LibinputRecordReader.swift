import HandyCore

/// Reads `libinput record` YAML, version 1: the first device's `evdev` description and its
/// `events[].evdev` arrays of `[sec, usec, type, code, value]`. `libinput:` event entries
/// (libinput's own interpretation) and the `udev`, `quirks`, `hid` and `system` sections are skipped.
///
/// ```yaml
/// version: 1
/// devices:
/// - node: /dev/input/event0
///   evdev:
///     name: "Wacom ISDv4 E6 Finger"
///     id: [3, 1386, 230, 313]              # bustype, vendor, product, version
///     codes: {type: [code, ...], ...}      # written as one "type: [...]" line per type
///     absinfo: {code: [min, max, fuzz, flat, resolution], ...}
///     properties: [1]
///   events:
///   - evdev:
///     - [  0,      0,   3,  57,       7]
/// ```
enum LibinputRecordReader {
    static func parse(_ lines: [NumberedLine], file: String) throws(RecordingError) -> (DeviceDescription, [InputEvent])
    {
        let root = try MiniYAML.parse(lines, file: file)
        let r = Reader(file: file)

        let version = try r.integer(try r.required(root, "version", at: "file"), at: "version", in: 0...Int64.max)
        guard version == 1 else {
            throw RecordingError(
                .unsupported, file: file, line: root["version"]?.line,
                "libinput record version \(version) is not supported (only version 1)")
        }
        let devices = try r.list(try r.required(root, "devices", at: "file"), at: "devices")
        guard let device = devices.first else {
            throw RecordingError(.malformed, file: file, line: root["devices"]?.line, "devices: the list is empty")
        }
        let evdev = try r.required(device, "evdev", at: "devices[0]")

        guard case .scalar(let name, _) = try r.required(evdev, "name", at: "devices[0].evdev") else {
            throw r.wrongKind(evdev["name"], "devices[0].evdev.name", expected: "a string")
        }
        let idNode = try r.required(evdev, "id", at: "devices[0].evdev")
        let id = try r.integers(idNode, at: "devices[0].evdev.id", in: 0...0xffff)
        guard id.count == 4 else {
            throw RecordingError(
                .malformed, file: file, line: idNode.line,
                "devices[0].evdev.id: expected [bustype, vendor, product, version], got \(id.count) numbers")
        }

        var supported: [UInt16: Set<UInt16>] = [:]
        if let codes = evdev["codes"] {
            for (key, value) in try r.entries(codes, at: "devices[0].evdev.codes") {
                let type = try r.integer(
                    key, line: value.line, at: "devices[0].evdev.codes", in: 0...Int64(EventType.max))
                let list = try r.integers(value, at: "devices[0].evdev.codes.\(key)", in: 0...Int64(maximumCode))
                supported[UInt16(type)] = Set(list.map { UInt16($0) })
            }
        }
        // Same normalisation as evemu (see `synCodes`).
        if !supported.isEmpty { supported[EventType.syn] = synCodes }

        var axes: [UInt16: AbsInfo] = [:]
        if let absinfo = evdev["absinfo"] {
            for (key, value) in try r.entries(absinfo, at: "devices[0].evdev.absinfo") {
                let code = try r.integer(
                    key, line: value.line, at: "devices[0].evdev.absinfo", in: 0...Int64(AbsCode.max))
                let n = try r.integers(
                    value, at: "devices[0].evdev.absinfo.\(key)", in: Int64(Int32.min)...Int64(Int32.max))
                guard n.count == 5 else {
                    throw RecordingError(
                        .malformed, file: file, line: value.line,
                        "devices[0].evdev.absinfo.\(key): expected [min, max, fuzz, flat, resolution], got \(n.count) numbers"
                    )
                }
                guard n[0] <= n[1] else {
                    throw RecordingError(
                        .outOfRange, file: file, line: value.line,
                        "devices[0].evdev.absinfo.\(key): minimum \(n[0]) > maximum \(n[1])")
                }
                axes[UInt16(code)] = AbsInfo(
                    minimum: Int32(n[0]), maximum: Int32(n[1]), fuzz: Int32(n[2]),
                    flat: Int32(n[3]), resolution: Int32(n[4]))
            }
        }

        var properties = Set<UInt16>()
        if let props = evdev["properties"] {
            for p in try r.integers(props, at: "devices[0].evdev.properties", in: 0...0x1f) {
                properties.insert(UInt16(p))
            }
        }

        var events: [InputEvent] = []
        if let eventList = device["events"] {
            for (index, entry) in try r.list(eventList, at: "devices[0].events").enumerated() {
                guard case .mapping = entry else {
                    throw r.wrongKind(
                        entry, "devices[0].events[\(index)]", expected: "a mapping ('- evdev:' or '- libinput:')")
                }
                guard let frame = entry["evdev"] else { continue }
                for item in try r.list(frame, at: "devices[0].events[\(index)].evdev") {
                    events.append(try r.event(item, at: "devices[0].events[\(index)].evdev"))
                }
            }
        }

        let description = DeviceDescription(
            name: name, bustype: UInt16(id[0]), vendor: UInt16(id[1]), product: UInt16(id[2]), version: UInt16(id[3]),
            properties: properties, supportedEvents: supported, absAxes: axes)
        return (description, events)
    }
}

/// Typed access to the YAML tree with errors naming the field and its line.
private struct Reader {
    let file: String

    func wrongKind(_ node: YAMLNode?, _ path: String, expected: String) -> RecordingError {
        RecordingError(
            .malformed, file: file, line: node?.line,
            "\(path): expected \(expected), got \(node?.kindName ?? "nothing")")
    }

    func required(_ node: YAMLNode, _ key: String, at path: String) throws(RecordingError) -> YAMLNode {
        guard case .mapping = node else { throw wrongKind(node, path, expected: "a mapping") }
        guard let value = node[key] else {
            throw RecordingError(.malformed, file: file, line: node.line, "\(path): missing '\(key):'")
        }
        return value
    }

    func list(_ node: YAMLNode, at path: String) throws(RecordingError) -> [YAMLNode] {
        switch node {
        case .sequence(let items, _): return items
        case .null: return []
        default: throw wrongKind(node, path, expected: "a list")
        }
    }

    func entries(_ node: YAMLNode, at path: String) throws(RecordingError) -> [(key: String, value: YAMLNode)] {
        switch node {
        case .mapping(let entries, _): return entries
        case .null: return []
        default: throw wrongKind(node, path, expected: "a mapping")
        }
    }

    func integer(_ text: String, line: Int, at path: String, in range: ClosedRange<Int64>) throws(RecordingError)
        -> Int64
    {
        let s = Substring(text)
        guard isDecimal(s) else {
            throw RecordingError(
                .malformed, file: file, line: line, "\(path): expected a decimal integer, got \(quoted(s))")
        }
        guard let v = Int64(s), range.contains(v) else {
            throw RecordingError(
                .outOfRange, file: file, line: line,
                "\(path): \(s) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    func integer(_ node: YAMLNode, at path: String, in range: ClosedRange<Int64>) throws(RecordingError) -> Int64 {
        guard case .scalar(let text, let line) = node else { throw wrongKind(node, path, expected: "an integer") }
        return try integer(text, line: line, at: path, in: range)
    }

    func integers(_ node: YAMLNode, at path: String, in range: ClosedRange<Int64>) throws(RecordingError) -> [Int64] {
        var out: [Int64] = []
        for item in try list(node, at: path) { out.append(try integer(item, at: path, in: range)) }
        return out
    }

    func event(_ node: YAMLNode, at path: String) throws(RecordingError) -> InputEvent {
        guard case .sequence(let items, let line) = node, items.count == 5 else {
            throw RecordingError(
                .malformed, file: file, line: node.line,
                "\(path): expected [sec, usec, type, code, value], got \(node.kindName)\(countSuffix(node))")
        }
        let sec = try integer(items[0], at: path + " sec", in: 0...Int64.max)
        let usec = try integer(items[1], at: path + " usec", in: 0...999_999)
        let type = try integer(items[2], at: path + " type", in: 0...Int64(EventType.max))
        let code = try integer(items[3], at: path + " code", in: 0...Int64(maximumCode))
        let value = try integer(items[4], at: path + " value", in: Int64(Int32.min)...Int64(Int32.max))
        guard let time = timestamp(seconds: sec, microseconds: usec) else {
            throw RecordingError(.outOfRange, file: file, line: line, "\(path): time \(sec).\(usec) out of range")
        }
        return InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: Int32(value))
    }

    private func countSuffix(_ node: YAMLNode) -> String {
        if case .sequence(let items, _) = node { return " of \(items.count)" }
        return ""
    }
}
