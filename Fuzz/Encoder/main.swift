import Foundation
import HandyCore
import HandyProtocol
import HandyWire

// libFuzzer harness: the fuzz bytes describe gesture events and a touches message (which fields
// are present, each double's bits, names and device ids of any bytes). They are written by the
// hand-written writer the daemon uses (HandyProtocol's JSONWriter) every way the daemon writes
// them: a line by value, a frame's lines in one pass with the device quoted once and a number
// memo kept across inputs, the touches line, and a whole compact `frame` line. Invariants: no
// trap (a write past its room traps before storing); every line is the Foundation encoder's bytes;
// the one-pass, quoted and memoised forms equal the plain one; the compact line is a JSON object.
// The same values as the core's events (HandyWire), which the daemon writes without making a
// `GestureEvent` of them: their lines and compact objects are those of the `GestureEvent` made of them.

/// Kept across inputs, as the daemon keeps one per encoding storage.
nonisolated(unsafe) private let memo = JSONNumberMemo()

private let reference: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    e.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return e
}()

/// Foundation's line: `{"type":"<type>",` + the object's fields + `}\n`, as JSONLines splices it.
private func foundationLine(type: String, _ value: some Encodable) -> [UInt8] {
    guard let body = try? reference.encode(value) else {
        fatalError("fuzz invariant: Foundation cannot encode \(value)")
    }
    var out = Array("{\"type\":\"\(type)\"".utf8)
    if body.count > 2 { out.append(UInt8(ascii: ",")) }
    out += body.dropFirst()
    out.append(UInt8(ascii: "\n"))
    return out
}

private struct Reader {
    let bytes: [UInt8]
    var at = 0
    var isEmpty: Bool { at >= bytes.count }
    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }
    mutating func bits(_ n: Int) -> UInt64 { (0..<n).reduce(0) { v, _ in v << 8 | UInt64(byte()) } }
    /// A double: mostly short decimals as the recognizers round them, else any bit pattern.
    mutating func double() -> Double {
        switch byte() % 4 {
        case 0: return Double(Int16(truncatingIfNeeded: bits(2))) / 100
        case 1: return Double(Int32(truncatingIfNeeded: bits(4))) / 1_000_000
        default: return Double(bitPattern: bits(8))
        }
    }
    mutating func maybe<T>(_ make: (inout Reader) -> T) -> T? { byte() & 1 == 1 ? make(&self) : nil }
    mutating func point() -> WirePoint { WirePoint(x: double(), y: double()) }
    /// Up to 255 bytes read as UTF-8 (invalid sequences become U+FFFD, as a device name would).
    mutating func string() -> String {
        let n = Int(byte())
        let start = Swift.min(at, bytes.count), end = Swift.min(at + n, bytes.count)
        at += n
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
    mutating func pick<T>(_ values: [T]) -> T { values[Int(byte()) % values.count] }
}

private func gesture(_ r: inout Reader, device: String) -> GestureEvent {
    var g = GestureEvent(
        gesture: r.pick(GestureKind.allCases), phase: r.pick([.began, .changed, .ended, .cancelled, .recognized]),
        id: r.bits(8), time: r.double(), device: r.byte() & 1 == 1 ? device : r.string())
    g.fingers = r.maybe { Int(truncatingIfNeeded: $0.bits(8)) }
    g.touches = r.maybe { r in (0..<Int(r.byte() % 16)).map { _ in Int(truncatingIfNeeded: r.bits(8)) } }
    g.touch = r.maybe { Int(truncatingIfNeeded: $0.bits(8)) }
    g.centroid = r.maybe { $0.point() }; g.centroidMm = r.maybe { $0.point() }
    g.scale = r.maybe { $0.double() }; g.scaleVelocity = r.maybe { $0.double() }; g.spanMm = r.maybe { $0.double() }
    g.hand = r.maybe { $0.pick([Hand.left, .right, .unknown]) }
    g.handConfidence = r.maybe { $0.double() }; g.rightHandProbability = r.maybe { $0.double() }
    g.clearSide = r.maybe { $0.pick([Side.left, .right, .unknown]) }
    g.occlusion = r.maybe { r in
        let n = Int(r.byte() % 24)
        return Occlusion(polygon: (0..<n).map { _ in r.point() }, polygonMm: (0..<n).map { _ in r.point() })
    }
    g.rotation = r.maybe { $0.double() }; g.rotationVelocity = r.maybe { $0.double() }
    g.translation = r.maybe { $0.point() }; g.translationMm = r.maybe { $0.point() };
    g.velocity = r.maybe { $0.point() }
    g.direction = r.maybe { $0.pick([SwipeDirection.up, .down, .left, .right]) }
    g.edge = r.maybe { $0.pick(DisplayEdge.allCases) }
    g.taps = r.maybe { Int(truncatingIfNeeded: $0.bits(8)) }
    g.position = r.maybe { $0.point() }; g.positionMm = r.maybe { $0.point() }; g.duration = r.maybe { $0.double() }
    g.glideMm = r.maybe { $0.point() }; g.glideScale = r.maybe { $0.double() };
    g.glideRotation = r.maybe { $0.double() }
    g.reason = r.maybe { $0.string() }
    return g
}

/// The core event with `g`'s values, unrounded as the recognizers make them (the time to the µs).
private func coreEvent(_ g: GestureEvent) -> CoreGestureEvent {
    func physical(_ p: WirePoint?) -> PhysicalPoint? { p.map { PhysicalPoint(x: $0.x, y: $0.y) } }
    func normalized(_ p: WirePoint?) -> NormalizedPoint? { p.map { NormalizedPoint(x: $0.x, y: $0.y) } }
    var e = CoreGestureEvent(
        gesture: g.gesture, phase: g.phase, id: g.id, time: Timestamp(seconds: g.time), device: g.device)
    e.fingers = g.fingers; e.touches = g.touches; e.touch = g.touch
    e.centroid = normalized(g.centroid); e.centroidMm = physical(g.centroidMm)
    e.scale = g.scale; e.scaleVelocity = g.scaleVelocity; e.spanMm = g.spanMm
    e.hand = g.hand; e.handConfidence = g.handConfidence; e.rightHandProbability = g.rightHandProbability
    e.clearSide = g.clearSide
    e.occlusion = g.occlusion.map {
        OcclusionRegion(polygon: $0.polygon.compactMap(normalized), polygonMm: $0.polygonMm.compactMap(physical))
    }
    e.rotation = g.rotation; e.rotationVelocity = g.rotationVelocity
    e.translation = normalized(g.translation); e.translationMm = physical(g.translationMm)
    e.velocity = physical(g.velocity); e.direction = g.direction; e.edge = g.edge; e.taps = g.taps
    e.position = normalized(g.position); e.positionMm = physical(g.positionMm); e.duration = g.duration
    e.glideMm = physical(g.glideMm); e.glideScale = g.glideScale; e.glideRotation = g.glideRotation
    e.reason = g.reason
    return e
}

private func touches(_ r: inout Reader, device: String) -> TouchesMessage {
    let phases = ["began", "moved", "stationary", "ended", "cancelled"], tools = ["finger", "pen", "palm"]
    return TouchesMessage(
        time: r.double(), device: device,
        touches: (0..<Int(r.byte() % 12)).map { _ in
            WireTouch(
                id: Int(truncatingIfNeeded: r.bits(8)), phase: r.byte() & 1 == 1 ? r.pick(phases) : r.string(),
                tool: r.byte() & 1 == 1 ? r.pick(tools) : r.string(), x: r.double(), y: r.double(), xMm: r.double(),
                yMm: r.double(),
                majorMm: r.maybe { $0.double() }, minorMm: r.maybe { $0.double() },
                orientation: r.maybe { $0.double() },
                pressure: r.maybe { $0.double() }, vxMm: r.maybe { $0.double() }, vyMm: r.maybe { $0.double() })
        })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var r = Reader(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let device = r.string()
    var events: [GestureEvent] = []
    while !r.isEmpty && events.count < 8 { events.append(gesture(&r, device: device)) }
    let frame = touches(&r, device: device)

    var expected: [UInt8] = [], ends: [Int] = []
    for g in events {
        let line = JSONLines.encode(g)
        guard line == foundationLine(type: "gesture", g) else {
            fatalError(
                "fuzz invariant: gesture line differs from Foundation's: \(String(decoding: line, as: UTF8.self))")
        }
        expected += line
        ends.append(expected.count)
    }
    // As the daemon writes a frame's events: in one pass, the device quoted once, the memo kept;
    // into a buffer with room (the loose bound) and into an empty one (the exact bound).
    let quoted = JSONQuotedString(device)
    for roomy in [false, true] {
        var together: [UInt8] = [], togetherEnds: [Int] = []
        if roomy { together.reserveCapacity(1 << 18) }
        JSONLines.encode(events, quotedDevice: quoted, memo: memo, into: &together, ends: &togetherEnds)
        guard together == expected, togetherEnds == ends else {
            fatalError("fuzz invariant: the one-pass lines differ")
        }
    }
    // The daemon's path: the core's events written where they lie, as the `GestureEvent`s made of them.
    let core = events.map(coreEvent)
    var fromCore: [UInt8] = [], coreEnds: [Int] = [], fromWire: [UInt8] = [], wireEnds: [Int] = []
    JSONLines.encode(core, quotedDevice: quoted, memo: memo, into: &fromCore, ends: &coreEnds)
    JSONLines.encode(core.wireEvents, quotedDevice: quoted, memo: memo, into: &fromWire, ends: &wireEnds)
    guard fromCore == fromWire, coreEnds == wireEnds else {
        fatalError("fuzz invariant: a core event's line differs from its GestureEvent's")
    }
    for e in core {
        var a: [UInt8] = [], b: [UInt8] = []
        e.writeCompactObject(into: &a)
        GestureEvent(e).writeCompactObject(into: &b)
        guard a == b else {
            fatalError("fuzz invariant: a core event's compact object differs from its GestureEvent's")
        }
    }
    var touchesLine: [UInt8] = []
    JSONLines.encode(frame, quotedDevice: quoted, memo: memo, into: &touchesLine)
    guard touchesLine == foundationLine(type: "touches", frame) else {
        fatalError(
            "fuzz invariant: touches line differs from Foundation's: \(String(decoding: touchesLine, as: UTF8.self))")
    }
    // The compact frame line whole, as the daemon puts it together: a JSON object.
    var compact: [UInt8] = []
    CompactFrameHeader.write(device: device, quotedDevice: quoted, time: frame.time, memo: memo, into: &compact)
    if !events.isEmpty {
        compact += Array(",\"gestures\":[".utf8)
        for (k, g) in events.enumerated() {
            if k > 0 { compact.append(UInt8(ascii: ",")) }
            g.writeCompactObject(into: &compact)
        }
        compact.append(UInt8(ascii: "]"))
    }
    frame.writeCompactTouches(after: ",\"touches\":", memo: memo, into: &compact)
    compact += Array("}\n".utf8)
    guard (try? JSONSerialization.jsonObject(with: Data(compact))) as? [String: Any] != nil else {
        fatalError(
            "fuzz invariant: compact frame line is not a JSON object: \(String(decoding: compact, as: UTF8.self))")
    }
    return 0
}
