/// A hand-written JSON writer for the hot messages (`gesture`, `touches`): the same bytes as
/// ``JSONLines``' Foundation encoder (keys sorted after `"type"`, doubles in Swift's shortest
/// form without a trailing `.0`, non-finite numbers as `"inf"`/`"-inf"`/`"nan"`, `/` unescaped),
/// without Foundation's per-field boxing. Tests/HandyProtocolTests compare the two byte for byte.
struct JSONWriter {
    var bytes: [UInt8]
    /// Whether the object being written has a field yet (a comma goes before the next one).
    private var hasField = false

    init(into bytes: [UInt8]) { self.bytes = bytes }

    /// Opens `{"type":"NAME"`.
    mutating func beginMessage(type: StaticString) {
        append("{\"type\":\"")
        append(type)
        bytes.append(UInt8(ascii: "\""))
        hasField = true
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        hasField = true
    }

    private mutating func key(_ name: StaticString) {
        if hasField { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        append(name)
        append("\":")
        hasField = true
    }

    mutating func field(_ name: StaticString, _ value: Double) { key(name); number(value) }
    mutating func field(_ name: StaticString, _ value: Double?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Int) { key(name); integer(value) }
    mutating func field(_ name: StaticString, _ value: Int?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: UInt64) { key(name); unsigned(value) }
    mutating func field(_ name: StaticString, _ value: String) { key(name); string(value) }
    mutating func field(_ name: StaticString, _ value: String?) { if let value { field(name, value) } }
    mutating func field<R: RawRepresentable>(_ name: StaticString, _ value: R?) where R.RawValue == String {
        if let value { field(name, value.rawValue) }
    }
    mutating func field(_ name: StaticString, _ value: WirePoint?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "{"))
        hasField = false
        field("x", value.x)
        field("y", value.y)
        endObject()
    }
    mutating func field(_ name: StaticString, _ values: [Int]?) {
        guard let values else { return }
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            integer(v)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Opens an array field whose elements the caller writes with ``beginElement()``.
    mutating func beginArray(_ name: StaticString) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        hasField = false
    }
    mutating func beginElement() {
        if hasField { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "{"))
        hasField = false
    }
    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        hasField = true
    }

    private mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func number(_ v: Double) {
        guard v.isFinite else {
            bytes.append(contentsOf: v.isNaN ? #""nan""#.utf8 : v < 0 ? #""-inf""#.utf8 : #""inf""#.utf8)
            return
        }
        // Whole numbers below 2^53 print as integers ("2", "-0" for -0.0), as JSONEncoder does.
        if v == v.rounded(.towardZero), abs(v) < 1e15 {
            if v == 0, v.sign == .minus { bytes.append(UInt8(ascii: "-")) }
            integer(Int(v))
            return
        }
        var s = v.description
        s.withUTF8 { u in
            if u.count > 2, u[u.count - 2] == UInt8(ascii: "."), u[u.count - 1] == UInt8(ascii: "0") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[..<(u.count - 2)]))
            } else {
                bytes.append(contentsOf: u)
            }
        }
    }

    private mutating func integer(_ v: Int) {
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            unsigned(v.magnitude.toUInt64)
        } else {
            unsigned(UInt64(v))
        }
    }

    private mutating func unsigned(_ v: UInt64) {
        if v < 10 { bytes.append(UInt8(ascii: "0") &+ UInt8(v)); return }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)   // 20 digits max, on the stack
        var n = v
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while n > 0 {
                buffer[31 - count] = UInt8(ascii: "0") &+ UInt8(n % 10)
                n /= 10
                count += 1
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(32 - count)...]))
        }
    }

    private mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            var start = 0
            for i in 0..<u.count {
                let c = u[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hex.utf8Start[Int(c >> 4)])
                    bytes.append(hex.utf8Start[Int(c & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

private extension UInt {
    var toUInt64: UInt64 { UInt64(self) }
}

extension GestureEvent {
    /// Appends `{"type":"gesture",...}\n` (keys after `type` in sorted order, as JSONEncoder's `.sortedKeys`).
    func writeLine(into bytes: inout [UInt8]) {
        var w = JSONWriter(into: bytes)
        bytes = []   // hand the buffer over without copying it
        w.beginMessage(type: "gesture")
        w.field("centroid", centroid)
        w.field("centroidMm", centroidMm)
        w.field("clearSide", clearSide)
        w.field("device", device)
        w.field("direction", direction)
        w.field("duration", duration)
        w.field("fingers", fingers)
        w.field("gesture", gesture.rawValue)
        w.field("glideMm", glideMm)
        w.field("glideRotation", glideRotation)
        w.field("glideScale", glideScale)
        w.field("hand", hand)
        w.field("handConfidence", handConfidence)
        w.field("id", id)
        w.field("phase", phase.rawValue)
        w.field("position", position)
        w.field("positionMm", positionMm)
        w.field("reason", reason)
        w.field("rotation", rotation)
        w.field("rotationVelocity", rotationVelocity)
        w.field("scale", scale)
        w.field("scaleVelocity", scaleVelocity)
        w.field("spanMm", spanMm)
        w.field("taps", taps)
        w.field("time", time)
        w.field("touch", touch)
        w.field("touches", touches)
        w.field("translation", translation)
        w.field("translationMm", translationMm)
        w.field("velocity", velocity)
        w.endObject()
        w.bytes.append(UInt8(ascii: "\n"))
        bytes = w.bytes
    }
}

extension TouchesMessage {
    /// Appends `{"type":"touches","device":…,"time":…,"touches":[…]}\n`.
    func writeLine(into bytes: inout [UInt8]) {
        var w = JSONWriter(into: bytes)
        bytes = []
        w.beginMessage(type: "touches")
        w.field("device", device)
        w.field("time", time)
        w.beginArray("touches")
        for t in touches {
            w.beginElement()
            w.field("id", t.id)
            w.field("majorMm", t.majorMm)
            w.field("minorMm", t.minorMm)
            w.field("orientation", t.orientation)
            w.field("phase", t.phase)
            w.field("pressure", t.pressure)
            w.field("tool", t.tool)
            w.field("vxMm", t.vxMm)
            w.field("vyMm", t.vyMm)
            w.field("x", t.x)
            w.field("xMm", t.xMm)
            w.field("y", t.y)
            w.field("yMm", t.yMm)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        w.bytes.append(UInt8(ascii: "\n"))
        bytes = w.bytes
    }
}
