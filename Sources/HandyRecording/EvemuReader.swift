import HandyCore

/// What one evemu file holds: a device description (the N:/I:/P:/B:/A: header), events, or both.
///
/// evemu-record writes the header then `E:` lines into one file; the split form keeps the header in
/// a `.desc` file and the events in `.events` files, so either part may be missing here.
struct EvemuFile {
    var description: DeviceDescription?
    var events: [InputEvent] = []
}

/// Reads the text format of evemu-record / evemu-describe (evemu 1.x and 2.x):
///
/// ```
/// # comment (anywhere; also after a line's fields)
/// N: <device name>
/// I: <bustype> <vendor> <product> <version>          (hex)
/// P: <property bitmask bytes>                        (hex, repeated lines continue the mask)
/// B: <type> <code bitmask bytes>                     (hex; type 00 holds the event-type mask)
/// A: <code> <min> <max> <fuzz> <flat> [<resolution>] (code hex, the rest decimal)
/// L: <led code> <value>   S: <switch code> <value>   (state; read and ignored)
/// E: <sec>.<usec> <type> <code> <value>              (type and code hex, value decimal)
/// ```
enum EvemuReader {
    static let eventForm = "'E: <sec>.<usec> <type> <code> <value>'"

    static func parse(_ bytes: [UInt8], file: String) throws(RecordingError) -> EvemuFile {
        var header = HeaderBuilder()
        var sawHeader = false
        var events: [InputEvent] = []
        // One event per line at most: sized once, the array does not double past what it needs
        // (a replay keeps it for the daemon's lifetime).
        events.reserveCapacity(bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        var firstEventLine: Int?

        try forEachTextLine(bytes, file: file) { line throws(RecordingError) in
            let text = line.text
            func fail(_ code: RecordingError.Code, _ message: String) -> RecordingError {
                RecordingError(code, file: file, line: line.number, message)
            }
            let content = text.trimmed
            if content.isEmpty || content.first == "#" { return }

            guard content.count >= 2, content.dropFirst().first == ":" else {
                throw fail(
                    .malformed,
                    "expected an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or # comment), got \(quoted(content))")
            }
            let tag = content.first ?? " "
            if tag != "E", let eventLine = firstEventLine {
                throw fail(.malformed, "device description line after the events began on line \(eventLine)")
            }
            // A device name may contain '#', so only other lines lose their trailing comment.
            let body = tag == "N" ? content.dropFirst(2) : stripComment(content.dropFirst(2))
            let fields = body.fields

            switch tag {
            case "E":
                if firstEventLine == nil { firstEventLine = line.number }
                events.append(try parseEvent(fields, line: content, fail: fail))
            case "N":
                guard header.name == nil else { throw fail(.malformed, "second N: line (two devices in one file?)") }
                header.name = String(body.trimmed)
                sawHeader = true
            case "I":
                guard header.id == nil else { throw fail(.malformed, "second I: line") }
                guard fields.count == 4 else {
                    throw fail(
                        .malformed, "expected 'I: <bustype> <vendor> <product> <version>' (hex), got \(quoted(content))"
                    )
                }
                var id: [UInt16] = []
                for f in fields {
                    guard let v = hexNumber(f, max: 0xffff) else {
                        throw fail(.outOfRange, "I: field \(quoted(f)) is not a hex number 0…ffff")
                    }
                    id.append(UInt16(v))
                }
                header.id = id
                sawHeader = true
            case "P":
                for f in fields {
                    guard let b = hexNumber(f, max: 0xff) else {
                        throw fail(.malformed, "P: byte \(quoted(f)) is not hex 00…ff")
                    }
                    header.propertyBytes.append(UInt8(b))
                }
                sawHeader = true
            case "B":
                guard let typeField = fields.first else {
                    throw fail(.malformed, "expected 'B: <type> <bitmask bytes>', got \(quoted(content))")
                }
                guard let type = hexNumber(typeField, max: Int(EventType.max)) else {
                    throw fail(.outOfRange, "B: event type \(quoted(typeField)) is not hex 00…1f")
                }
                for f in fields.dropFirst() {
                    guard let b = hexNumber(f, max: 0xff) else {
                        throw fail(.malformed, "B: byte \(quoted(f)) is not hex 00…ff")
                    }
                    header.codeBytes[UInt16(type), default: []].append(UInt8(b))
                }
                sawHeader = true
            case "A":
                let (code, info) = try parseAxis(fields, line: content, fail: fail)
                guard header.axes[code] == nil else {
                    throw fail(.malformed, "second A: line for axis 0x\(String(code, radix: 16))")
                }
                header.axes[code] = info
                sawHeader = true
            case "L", "S":
                // LED / switch state at recording time: not part of the model, but must be well-formed.
                guard fields.count == 2, hexNumber(fields[0], max: 0xffff) != nil, Int32(fields[1]) != nil else {
                    throw fail(.malformed, "expected '\(tag): <code> <value>', got \(quoted(content))")
                }
                sawHeader = true
            default:
                throw fail(.malformed, "unknown evemu line type '\(tag):' in \(quoted(content))")
            }
        }

        var result = EvemuFile(events: events)
        if sawHeader { result.description = try header.build(file: file) }
        return result
    }

    private static func parseEvent(
        _ f: [Substring], line: Substring, fail: (RecordingError.Code, String) -> RecordingError
    ) throws(RecordingError) -> InputEvent {
        guard f.count == 4 else { throw fail(.malformed, "expected \(eventForm), got \(quoted(line))") }
        guard let time = parseTime(f[0]) else {
            if isTimeForm(f[0]) {
                throw fail(.outOfRange, "event time \(quoted(f[0])) out of range in \(quoted(line))")
            }
            throw fail(
                .malformed,
                "expected \(eventForm), got \(quoted(line)): bad time \(quoted(f[0])) (want <sec>.<6-digit usec>)")
        }
        guard isHex(f[1]), isHex(f[2]) else {
            throw fail(.malformed, "expected \(eventForm) with hex type and code, got \(quoted(line))")
        }
        guard let type = hexNumber(f[1], max: Int(EventType.max)) else {
            throw fail(.outOfRange, "event type \(quoted(f[1])) out of range (max 0x1f) in \(quoted(line))")
        }
        guard let code = hexNumber(f[2], max: maximumCode) else {
            throw fail(.outOfRange, "event code \(quoted(f[2])) out of range (max 0x2ff) in \(quoted(line))")
        }
        guard isDecimal(f[3]) else {
            throw fail(.malformed, "expected \(eventForm) with a decimal value, got \(quoted(line))")
        }
        guard let value = Int32(f[3]) else {
            throw fail(.outOfRange, "event value \(quoted(f[3])) does not fit 32 bits in \(quoted(line))")
        }
        return InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: value)
    }

    private static func parseAxis(
        _ f: [Substring], line: Substring, fail: (RecordingError.Code, String) -> RecordingError
    ) throws(RecordingError) -> (UInt16, AbsInfo) {
        // evemu 1.0 wrote no resolution; 1.1 and later add it.
        guard f.count == 5 || f.count == 6 else {
            throw fail(.malformed, "expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]', got \(quoted(line))")
        }
        guard let code = hexNumber(f[0], max: Int(AbsCode.max)) else {
            throw fail(.outOfRange, "A: axis code \(quoted(f[0])) is not hex 00…3f")
        }
        var numbers: [Int32] = []
        for field in f.dropFirst() {
            guard isDecimal(field) else { throw fail(.malformed, "A: field \(quoted(field)) is not a decimal number") }
            guard let v = Int32(field) else {
                throw fail(.outOfRange, "A: field \(quoted(field)) does not fit 32 bits")
            }
            numbers.append(v)
        }
        let info = AbsInfo(
            minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
            resolution: numbers.count > 4 ? numbers[4] : 0)
        guard info.minimum <= info.maximum else {
            throw fail(
                .outOfRange,
                "A: axis 0x\(String(code, radix: 16)) has minimum \(info.minimum) > maximum \(info.maximum)")
        }
        return (UInt16(code), info)
    }
}

/// KEY_MAX: the largest event code of any type.
let maximumCode = 0x2ff

/// Header lines collected before they are checked and turned into a ``DeviceDescription``.
private struct HeaderBuilder {
    var name: String?
    var id: [UInt16]?
    var propertyBytes: [UInt8] = []
    var codeBytes: [UInt16: [UInt8]] = [:]
    var axes: [UInt16: AbsInfo] = [:]

    func build(file: String) throws(RecordingError) -> DeviceDescription {
        guard let name else {
            throw RecordingError(.malformed, file: file, "device description has no 'N: <name>' line")
        }
        guard let id else {
            throw RecordingError(
                .malformed, file: file, "device description has no 'I: <bustype> <vendor> <product> <version>' line")
        }
        var properties = Set<UInt16>()
        for bit in bits(propertyBytes) {
            guard bit <= 0x1f else {
                throw RecordingError(.outOfRange, file: file, "P: property bit \(bit) out of range (max 0x1f)")
            }
            properties.insert(UInt16(bit))
        }
        var supported: [UInt16: Set<UInt16>] = [:]
        // B: 00 is EVIOCGBIT(0): the mask of event *types*, not of SYN codes.
        for type in bits(codeBytes[EventType.syn] ?? []) {
            guard type <= Int(EventType.max) else {
                throw RecordingError(.outOfRange, file: file, "B: 00 event type bit \(type) out of range")
            }
            supported[UInt16(type), default: []] = []
        }
        for (type, bytes) in codeBytes where type != EventType.syn {
            for code in bits(bytes) {
                guard code <= maximumCode else {
                    throw RecordingError(
                        .outOfRange, file: file,
                        "B: \(String(type, radix: 16)) code bit \(code) out of range (max 0x2ff)")
                }
                supported[type, default: []].insert(UInt16(code))
            }
        }
        if !supported.isEmpty { supported[EventType.syn] = synCodes }
        return DeviceDescription(
            name: name, bustype: id[0], vendor: id[1], product: id[2], version: id[3],
            properties: properties, supportedEvents: supported, absAxes: axes)
    }
}

/// EV_SYN codes every device supports. Neither recorder gives them as such (evemu stores the type mask
/// in their place, libinput record lists all 16 codes libevdev accepts), so both readers use this set.
let synCodes: Set<UInt16> = [SynCode.report, SynCode.config, SynCode.mtReport, SynCode.dropped]

/// Indices of the set bits, byte 0 bit 0 first (the kernel's little-endian bitmask layout).
func bits(_ bytes: [UInt8]) -> [Int] {
    var out: [Int] = []
    for (i, b) in bytes.enumerated() where b != 0 {
        for bit in 0..<8 where b & (1 << bit) != 0 { out.append(i * 8 + bit) }
    }
    return out
}

func stripComment(_ s: Substring) -> Substring {
    guard let hash = s.firstIndex(of: "#") else { return s }
    return s[..<hash]
}

func isHex(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy(\.isHexDigit) }

/// Digits with an optional leading minus.
func isDecimal(_ s: Substring) -> Bool {
    let digits = s.first == "-" ? s.dropFirst() : s
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
}

/// A hex number 0…max (at most 8 digits, so a huge field fails instead of overflowing).
func hexNumber(_ s: Substring, max: Int) -> Int? {
    guard isHex(s) else { return nil }
    let digits = s.drop { $0 == "0" }
    guard digits.count <= 8, let v = Int(digits.isEmpty ? "0" : digits, radix: 16), v <= max else { return nil }
    return v
}

/// `<sec>.<usec>` as evemu writes it (`%lu.%06u`).
func parseTime(_ s: Substring) -> Timestamp? {
    guard let dot = s.firstIndex(of: ".") else { return nil }
    let sec = s[..<dot], usec = s[s.index(after: dot)...]
    guard !sec.isEmpty, sec.allSatisfy({ $0.isASCII && $0.isNumber }), usec.count == 6,
        usec.allSatisfy({ $0.isASCII && $0.isNumber }),
        let seconds = Int64(sec), let micro = Int64(usec)
    else { return nil }
    return timestamp(seconds: seconds, microseconds: micro)
}

/// Digits, a dot, six digits: the shape of an evemu time whatever its size.
func isTimeForm(_ s: Substring) -> Bool {
    guard let dot = s.firstIndex(of: ".") else { return false }
    let sec = s[..<dot], usec = s[s.index(after: dot)...]
    return !sec.isEmpty && usec.count == 6 && (sec + usec).allSatisfy { $0.isASCII && $0.isNumber }
}

/// seconds·10⁶ + µs without trapping on overflow.
func timestamp(seconds: Int64, microseconds: Int64) -> Timestamp? {
    guard seconds >= 0, (0..<1_000_000).contains(microseconds) else { return nil }
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    guard !overflow else { return nil }
    let (total, overflow2) = scaled.addingReportingOverflow(microseconds)
    guard !overflow2 else { return nil }
    return Timestamp(microseconds: total)
}
