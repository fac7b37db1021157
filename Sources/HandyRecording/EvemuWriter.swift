import HandyCore

/// Writes recordings in the evemu format that `evemu-record` writes and `evemu-device`/`evemu-play`
/// read, so a synthetic or recorded stream can be replayed, injected and attached to a bug report.
public enum EvemuWriter {
    /// Bitmask sizes per event type, as evemu prints them (one `B:` line per 8 bytes).
    /// Maxima from linux/input-event-codes.h: SYN_MAX 0xf, KEY_MAX 0x2ff, REL_MAX 0xf, ABS_MAX 0x3f,
    /// MSC_MAX 0x7, SW_MAX 0x10, LED_MAX 0xf, SND_MAX 0x7, REP_MAX 0x1, FF_MAX 0x7f.
    static let typeMaxima: [(type: UInt16, max: Int)] = [
        (0x00, 0x0f), (0x01, 0x2ff), (0x02, 0x0f), (0x03, 0x3f), (0x04, 0x07),
        (0x05, 0x10), (0x11, 0x0f), (0x12, 0x07), (0x14, 0x01), (0x15, 0x7f),
    ]

    /// The description part: comment header, `N:`, `I:`, `P:`, `B:` and `A:` lines.
    public static func header(for d: DeviceDescription, comment: String? = nil) -> String {
        var out = "# EVEMU 1.3\n"
        if let comment {
            for line in comment.split(separator: "\n", omittingEmptySubsequences: false) { out += "# \(line)\n" }
        }
        out += "# Input device name: \"\(d.name)\"\n"
        out += "N: \(d.name)\n"
        out += "I: \(hex4(d.bustype)) \(hex4(d.vendor)) \(hex4(d.product)) \(hex4(d.version))\n"
        out += "P:" + bytes(bits: d.properties, count: 8) + "\n"
        var supported = d.supportedEvents
        // evemu's "B: 00" line is EVIOCGBIT(0): the mask of supported event *types*, not SYN codes.
        supported[EventType.syn] = Set(d.supportedEvents.keys).union([EventType.syn])
        for (type, max) in typeMaxima {
            let byteCount = (max + 8) / 8
            let lines = (byteCount + 7) / 8
            let mask = bytesArray(bits: supported[type] ?? [], count: lines * 8)
            for l in 0..<lines {
                out += "B: \(hex2(UInt8(type)))"
                for b in mask[(l * 8)..<(l * 8 + 8)] { out += " \(hex2(b))" }
                out += "\n"
            }
        }
        for (code, a) in d.absAxes.sorted(by: { $0.key < $1.key }) {
            out +=
                "A: \(hex2(UInt8(truncatingIfNeeded: code))) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        return out
    }

    /// One `E:` line: `E: <sec>.<usec> <type hex4> <code hex4> <value %04d>`.
    public static func line(for e: InputEvent) -> String {
        let us = e.time.microseconds
        let sec = us >= 0 ? us / 1_000_000 : 0
        let usec = us >= 0 ? us % 1_000_000 : 0
        let frac = String(usec)
        let value = e.value < 0 ? "-" + pad(String(-Int64(e.value)), 3) : pad(String(e.value), 4)
        return
            "E: \(sec).\(String(repeating: "0", count: 6 - frac.count))\(frac) \(hex4(e.type)) \(hex4(e.code)) \(value)\n"
    }

    /// A whole single-file recording.
    public static func recording(description: DeviceDescription, events: [InputEvent], comment: String? = nil) -> String
    {
        var out = header(for: description, comment: comment)
        out.reserveCapacity(out.utf8.count + events.count * 28)
        for e in events { out += line(for: e) }
        return out
    }

    private static func bytesArray(bits: Set<UInt16>, count: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: count)
        for b in bits where Int(b) / 8 < count { mask[Int(b) / 8] |= UInt8(1) << UInt8(b % 8) }
        return mask
    }
    private static func bytes(bits: Set<UInt16>, count: Int) -> String {
        bytesArray(bits: bits, count: count).map { " " + hex2($0) }.joined()
    }
    private static func hex2(_ v: UInt8) -> String { pad(String(v, radix: 16), 2) }
    private static func hex4(_ v: UInt16) -> String { pad(String(v, radix: 16), 4) }
    private static func pad(_ s: String, _ n: Int) -> String { String(repeating: "0", count: max(0, n - s.count)) + s }
}
