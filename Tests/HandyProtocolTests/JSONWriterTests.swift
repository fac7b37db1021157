import Foundation
import Testing

@testable import HandyProtocol

/// The hand-written writer for `gesture` and `touches` lines must give exactly the bytes the
/// Foundation encoder gives (clients and tests compare lines).
@Suite struct JSONWriterTests {
    /// A small deterministic generator (SplitMix64) so a failure reproduces.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let awkwardDoubles: [Double] = [
        0, -0.0, 1, -1, 2, 0.1, 1e-5, 1.5e-7, 1e15, 1e15 + 0.5, 9_007_199_254_740_992, 1e16, 1.2345678901234568e20,
        1_763_742_000.123456, 100.02, -3.5, 0.0001, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity,
        -.infinity, .nan,
        123.45, -0.00042, 4_294_967_296.0,
    ]

    static func double(_ r: inout SplitMix) -> Double {
        switch Int.random(in: 0..<4, using: &r) {
        case 0: return awkwardDoubles.randomElement(using: &r)!
        case 1:
            let p = [1.0, 10, 100, 1e4, 1e6].randomElement(using: &r)!;
            return (Double.random(in: -2000...2000, using: &r) * p).rounded() / p
        case 2: return Double.random(in: -1e6...1e6, using: &r)
        default: return Double(Int.random(in: -100_000...100_000, using: &r))
        }
    }
    static func maybe<T>(_ r: inout SplitMix, _ make: (inout SplitMix) -> T) -> T? {
        Bool.random(using: &r) ? make(&r) : nil
    }
    static func point(_ r: inout SplitMix) -> WirePoint { WirePoint(x: double(&r), y: double(&r)) }
    static let strings = [
        "bench", "replay:Wacom ISDv4 E6 Finger.2fg-tap", "a/b", "q\"uo\\te", "tab\tnew\nline\r\u{1}\u{1f}\u{8}\u{c}",
        "é😀\u{2028}\u{7f}", "", "event5",
    ]

    static func gesture(_ r: inout SplitMix) -> GestureEvent {
        var g = GestureEvent(
            gesture: GestureKind.allCases.randomElement(using: &r)!,
            phase: [.began, .changed, .ended, .cancelled, .recognized].randomElement(using: &r)!,
            id: [0, 1, 42, UInt64.max, UInt64(Int.max)].randomElement(using: &r)!,
            time: double(&r), device: strings.randomElement(using: &r)!)
        g.fingers = maybe(&r) { Int.random(in: -1...10, using: &$0) }
        g.touches = maybe(&r) { r in
            (0..<Int.random(in: 0...10, using: &r)).map { _ in Int.random(in: -5...70_000, using: &r) }
        }
        g.touch = maybe(&r) { Int.random(in: Int.min...Int.max, using: &$0) }
        g.centroid = maybe(&r, point); g.centroidMm = maybe(&r, point)
        g.scale = maybe(&r, double); g.scaleVelocity = maybe(&r, double); g.spanMm = maybe(&r, double)
        g.hand = maybe(&r) { [Hand.left, .right, .unknown].randomElement(using: &$0)! }
        g.handConfidence = maybe(&r, double)
        g.rightHandProbability = maybe(&r, double)
        g.clearSide = maybe(&r) { [Side.left, .right, .unknown].randomElement(using: &$0)! }
        g.occlusion = maybe(&r) { r in
            let n = Int.random(in: 0...40, using: &r)
            return Occlusion(polygon: (0..<n).map { _ in point(&r) }, polygonMm: (0..<n).map { _ in point(&r) })
        }
        g.rotation = maybe(&r, double); g.rotationVelocity = maybe(&r, double)
        g.translation = maybe(&r, point); g.translationMm = maybe(&r, point); g.velocity = maybe(&r, point)
        g.direction = maybe(&r) { [SwipeDirection.up, .down, .left, .right].randomElement(using: &$0)! }
        g.edge = maybe(&r) { DisplayEdge.allCases.randomElement(using: &$0)! }
        g.taps = maybe(&r) { Int.random(in: 0...3, using: &$0) }
        g.position = maybe(&r, point); g.positionMm = maybe(&r, point); g.duration = maybe(&r, double)
        g.glideMm = maybe(&r, point); g.glideScale = maybe(&r, double); g.glideRotation = maybe(&r, double)
        g.reason = maybe(&r) { strings.randomElement(using: &$0)! }
        return g
    }

    static func touches(_ r: inout SplitMix) -> TouchesMessage {
        TouchesMessage(
            time: double(&r), device: strings.randomElement(using: &r)!,
            touches: (0..<Int.random(in: 0...10, using: &r)).map { _ in
                // The names the daemon sends (the writer copies "moved" and "finger" as literals) and others.
                WireTouch(
                    id: Int.random(in: 0...100, using: &r),
                    phase: ["began", "moved", "stationary", "ended", "cancelled", "move", "moved "].randomElement(
                        using: &r)!,
                    tool: (strings + ["finger", "pen", "palm", "fingers"]).randomElement(using: &r)!, x: double(&r),
                    y: double(&r), xMm: double(&r), yMm: double(&r),
                    majorMm: maybe(&r, double), minorMm: maybe(&r, double), orientation: maybe(&r, double),
                    pressure: maybe(&r, double), vxMm: maybe(&r, double), vyMm: maybe(&r, double))
            })
    }

    @Test func gestureLinesMatchTheFoundationEncoder() {
        var r = SplitMix(state: 7)
        for _ in 0..<3000 {
            let m = ServerMessage.gesture(Self.gesture(&r))
            let fast = JSONLines.encode(m), reference = JSONLines.encodeWithFoundation(m)
            #expect(
                fast == reference,
                "\(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: reference, as: UTF8.self))")
            if fast != reference { return }
            if case .gesture(let g) = m {
                #expect(JSONLines.encode(g) == fast)
                #expect(fast.count <= g.maximumLineBytes)
            }
        }
    }

    @Test func touchesLinesMatchTheFoundationEncoder() {
        var r = SplitMix(state: 11)
        for _ in 0..<2000 {
            let m = ServerMessage.touches(Self.touches(&r))
            let fast = JSONLines.encode(m), reference = JSONLines.encodeWithFoundation(m)
            #expect(
                fast == reference,
                "\(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: reference, as: UTF8.self))")
            if fast != reference { return }
        }
    }

    /// The daemon writes each event where it lies, with the device id quoted once per batch: the
    /// same bytes as the event encoded by value, whichever device was quoted (its bytes are used
    /// only for that device).
    @Test func eventsWrittenInPlaceWithAQuotedDeviceMatch() {
        var r = SplitMix(state: 13)
        let quoted = Self.strings.map { JSONQuotedString($0) }
        for _ in 0..<1500 {
            let events = (0..<3).map { _ in Self.gesture(&r) }
            let touches = Self.touches(&r)
            for q in quoted + [nil] {
                var line: [UInt8] = []
                events.withUnsafeBufferPointer { b in
                    for k in b.indices { JSONLines.encode(eventAt: b.baseAddress! + k, quotedDevice: q, into: &line) }
                }
                // All at once, as the daemon writes an output's events: the same bytes, and each
                // line's end where the one-by-one writing ended it.
                var together: [UInt8] = Array("x".utf8), ends: [Int] = []
                var oneByOne: [UInt8] = Array("x".utf8), expectedEnds: [Int] = []
                events.withUnsafeBufferPointer { b in
                    JSONLines.encode(eventsIn: b, quotedDevice: q, into: &together, ends: &ends)
                    for k in b.indices {
                        JSONLines.encode(eventAt: b.baseAddress! + k, quotedDevice: q, into: &oneByOne)
                        expectedEnds.append(oneByOne.count)
                    }
                }
                #expect(together == oneByOne && ends == expectedEnds, "quoted \(q?.string ?? "none")")
                JSONLines.encode(touches, quotedDevice: q, into: &line)
                var compact: [UInt8] = []
                events.withUnsafeBufferPointer { b in
                    for k in b.indices { GestureEvent.writeCompactObject(at: b.baseAddress! + k, into: &compact) }
                }
                CompactFrameHeader.write(device: touches.device, quotedDevice: q, time: 1, into: &compact)
                let expectedLines =
                    events.flatMap { JSONLines.encode(.gesture($0)) } + JSONLines.encode(.touches(touches))
                var expectedCompact: [UInt8] = []
                for e in events { e.writeCompactObject(into: &expectedCompact) }
                CompactFrameHeader.write(device: touches.device, time: 1, into: &expectedCompact)
                #expect(line == expectedLines, "quoted \(q?.string ?? "none")")
                #expect(compact == expectedCompact, "quoted \(q?.string ?? "none")")
                if line != expectedLines || compact != expectedCompact { return }
            }
        }
    }

    /// A number found in the memo is copied from it: the same bytes as printed, for every value
    /// (`-0` beside `0`, NaN, infinities, texts longer than an entry holds), whichever values
    /// shared an entry before. The values come from a small pool so most are found there.
    @Test func numbersFromTheMemoAreTheNumbersPrinted() {
        var r = SplitMix(state: 17)
        var pool =
            Self.awkwardDoubles + [
                0.5172, 99.25, 53.95, 0.848, 1.1021, 48.171, 0.166667, -0.00052, 123_456.123456, 1_763_742_000.123456,
            ]
        // Two values in one entry, taking it in turns.
        let first = 0.25
        var second = 0.75
        while JSONNumberMemo.slot(second.bitPattern) != JSONNumberMemo.slot(first.bitPattern) { second += 0.001 }
        pool += [first, second]
        let memo = JSONNumberMemo()
        var found = 0
        for _ in 0..<50_000 {
            let v = pool.randomElement(using: &r)!
            let slot = memo.entries + JSONNumberMemo.slot(v.bitPattern)
            if slot.pointee.bits == v.bitPattern { found += 1 }
            var plain: [UInt8] = [], memoised: [UInt8] = []
            JSONWriter.append(to: &plain, bound: JSONWriter.maximumNumberBytes) { $0.number(v) }
            JSONWriter.append(to: &memoised, bound: JSONWriter.maximumNumberBytes, memo: memo) { $0.number(v) }
            #expect(
                memoised == plain,
                "\(v): \(String(decoding: memoised, as: UTF8.self)) vs \(String(decoding: plain, as: UTF8.self))")
            // Kept when it fits an entry, so the next one is copied.
            #expect((slot.pointee.bits == v.bitPattern) == (plain.count <= JSONNumberMemo.longestText))
            if memoised != plain { return }
        }
        #expect(found > 25_000, "the memo was used")
    }

    /// Whole lines with one memo kept throughout, as the daemon keeps one per storage: the bytes
    /// of the lines and compact objects written without it.
    @Test func linesWrittenWithAMemoMatch() {
        var r = SplitMix(state: 19)
        let memo = JSONNumberMemo()
        for _ in 0..<1500 {
            // Frames repeat numbers: the same events again with one field changed, the time shared.
            var events = (0..<2).map { _ in Self.gesture(&r) }
            events += events.map {
                var e = $0; e.scale = Self.double(&r); return e
            }
            let touches = Self.touches(&r)
            var line: [UInt8] = [], compact: [UInt8] = []
            events.withUnsafeBufferPointer { b in
                for k in b.indices {
                    JSONLines.encode(eventAt: b.baseAddress! + k, memo: memo, into: &line)
                    GestureEvent.writeCompactObject(at: b.baseAddress! + k, after: ",", memo: memo, into: &compact)
                }
            }
            JSONLines.encode(touches, quotedDevice: nil, memo: memo, into: &line)
            touches.writeCompactTouches(after: ",", memo: memo, into: &compact)
            CompactFrameHeader.write(device: touches.device, time: touches.time, memo: memo, into: &compact)
            var expectedLine: [UInt8] = [], expectedCompact: [UInt8] = []
            events.withUnsafeBufferPointer { b in
                for k in b.indices {
                    JSONLines.encode(eventAt: b.baseAddress! + k, into: &expectedLine)
                    GestureEvent.writeCompactObject(at: b.baseAddress! + k, after: ",", into: &expectedCompact)
                }
            }
            JSONLines.encode(touches, quotedDevice: nil, into: &expectedLine)
            touches.writeCompactTouches(after: ",", into: &expectedCompact)
            CompactFrameHeader.write(device: touches.device, time: touches.time, into: &expectedCompact)
            #expect(String(decoding: line, as: UTF8.self) == String(decoding: expectedLine, as: UTF8.self))
            #expect(String(decoding: compact, as: UTF8.self) == String(decoding: expectedCompact, as: UTF8.self))
            if line != expectedLine || compact != expectedCompact { return }
        }
    }

    /// Strings are copied 8 bytes at a time up to the first 8 that may need escaping: a character
    /// to escape at every position of every length, next to multi-byte UTF-8, escapes exactly.
    @Test func stringsEscapeWhereverTheCharacterToEscapeSits() {
        let escaped: [Character] = (0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) } + ["\"", "\\"]
        var checked = 0
        for length in 0...26 {
            for filler in ["a", "é", "😀", "~"] {
                let clean = String(repeating: filler, count: length)
                var cases = [clean]
                for position in 0...length {
                    for c in escaped where position % 3 == 0 || c == "\"" || c == "\\" || c == "\u{1f}" || c == "\u{0}"
                    {
                        var chars = Array(clean)
                        chars.insert(c, at: position)
                        cases.append(String(chars))
                    }
                }
                for device in cases {
                    let m = ServerMessage.gesture(
                        GestureEvent(gesture: .tap, phase: .recognized, id: 1, time: 1, device: device))
                    let fast = JSONLines.encode(m), reference = JSONLines.encodeWithFoundation(m)
                    #expect(fast == reference, "\(device.debugDescription): \(String(decoding: fast, as: UTF8.self))")
                    if fast != reference { return }
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
        // Each test of the word is exact: a word with one such byte anywhere is flagged, a clean one is not.
        for position in 0..<8 {
            for bad: UInt8 in Array(0..<0x20) + [0x22, 0x5C] {
                for fill: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: fill, count: 8)
                    #expect(!JSONWriter.mayNeedEscaping(Self.word(bytes)), "\(bytes)")
                    bytes[position] = bad
                    #expect(JSONWriter.mayNeedEscaping(Self.word(bytes)), "\(bytes)")
                }
            }
        }
    }

    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    @Test func aMinimalGestureLine() {
        let g = GestureEvent(gesture: .tap, phase: .recognized, id: 3, time: 100.25, device: "event5")
        #expect(
            String(decoding: JSONLines.encode(.gesture(g)), as: UTF8.self)
                == #"{"type":"gesture","device":"event5","gesture":"tap","id":3,"phase":"recognized","time":100.25}"#
                + "\n")
    }

    @Test func encodingIntoABufferAppends() throws {
        var buffer = Array("x".utf8)
        let g = GestureEvent(gesture: .pan, phase: .began, id: 1, time: 2, device: "d")
        JSONLines.encode(.gesture(g), into: &buffer)
        #expect(buffer == Array("x".utf8) + JSONLines.encode(.gesture(g)))
        // And it decodes back to the same event.
        let line = JSONLines.encode(.gesture(g)).dropLast()
        #expect(try JSONLines.decodeServerMessage(line) == .gesture(g))
    }

    /// The writer's own double formatting (a fast path for short decimals, `description` for the
    /// rest) against `description`, on the values the recognizers send: rounded to 1…6 decimals at
    /// every magnitude, and arbitrary doubles.
    @Test func doublesPrintAsDescriptionDoes() {
        var r = SplitMix(state: 3)
        func check(_ v: Double) -> Bool {
            var bytes: [UInt8] = []
            JSONWriter.append(to: &bytes, bound: JSONWriter.maximumNumberBytes) { $0.number(v) }
            var expected = v.description
            if expected.hasSuffix(".0") { expected.removeLast(2) }
            if v.isNaN {
                expected = "\"nan\""
            } else if v == .infinity {
                expected = "\"inf\""
            } else if v == -.infinity {
                expected = "\"-inf\""
            }
            let got = String(decoding: bytes, as: UTF8.self)
            #expect(got == expected, "\(v): \(got) vs \(expected)")
            return got == expected
        }
        for v in Self.awkwardDoubles + [
            0.001, 0.000999, 1e9, 999_999_999.5, 999_999_999.123456789, 0.1 + 0.2, 1.0 / 3, 2.675, 1.005, 0.145,
            // Around the 9-decimal path's edges: 10^6, 10^-3, 9 decimals, 8 trailing zeros.
            999_999.999_999_999, 999_999.5, 1e6 + 0.5, 0.123_456_789, 5.000_000_001, 3.1, 0.001_000_1,
            // The 6-decimal path's: 7 decimals, all six written, the whole part's 1, 2 and 3+ digits.
            0.123_456_5, 0.100_000_1, 999_999.999_999, 999_999.999_999_5, 0.001_001, 0.000_999_999, 9.000_001,
            99.999_999, 100.000_001, 12.5, 99.5, 0.05, 0.5, 10, 100,
        ] {
            guard check(v), check(-v) else { return }
        }
        for _ in 0..<200_000 {
            let decimals = Int.random(in: 0...9, using: &r)
            var p = 1.0
            for _ in 0..<decimals { p *= 10 }
            let magnitude = [1e-4, 1e-3, 0.01, 1, 100, 1e4, 1e6, 1e8, 1e9, 1e10].randomElement(using: &r)!
            let raw = Double.random(in: -magnitude...magnitude, using: &r)
            let v = Bool.random(using: &r) ? (raw * p).rounded() / p : raw
            guard check(v) else { return }
        }
    }

    /// `rightHandProbability` (the longest key) adds to the bound at least what it adds to the
    /// line, at its longest value, so the bound does not rest on other fields' slack.
    @Test func rightHandProbabilityIsCountedInTheBound() {
        let long = -2.2250738585072014e-308
        var g = GestureEvent(gesture: .pinch, phase: .began, id: 1, time: 1, device: "d")
        g.hand = .unknown; g.handConfidence = 0
        let without = JSONLines.encode(.gesture(g)), boundWithout = g.maximumLineBytes
        var roomy: [UInt8] = []
        roomy.reserveCapacity(64 * 1024)
        let looseWithout = withUnsafePointer(to: g) { GestureEvent.lineBound(at: $0, appendingTo: roomy) }
        for p in [long, 0, 1, 0.5, 0.001, 0.999, .greatestFiniteMagnitude] {
            g.rightHandProbability = p
            let with = JSONLines.encode(.gesture(g))
            #expect(with == JSONLines.encodeWithFoundation(.gesture(g)))
            #expect(String(decoding: with, as: UTF8.self).contains(",\"rightHandProbability\":"))
            #expect(g.maximumLineBytes - boundWithout >= with.count - without.count)
            let loose = withUnsafePointer(to: g) { GestureEvent.lineBound(at: $0, appendingTo: roomy) }
            #expect(loose - looseWithout >= 0 && GestureEvent.everyFixedField >= 24 + JSONWriter.maximumNumberBytes)
        }
        // Sorted after `reason`, before `rotation`, as Foundation's `.sortedKeys`.
        g.rightHandProbability = 0.123
        g.reason = "r"; g.rotation = 1
        let text = String(decoding: JSONLines.encode(.gesture(g)), as: UTF8.self)
        #expect(text.contains(#""reason":"r","rightHandProbability":0.123,"rotation":1"#))
    }

    /// A line never outgrows the bound its buffer is sized by, even with every field at its longest.
    @Test func linesStayWithinTheirBounds() {
        let long = -2.2250738585072014e-308
        let point = WirePoint(x: long, y: long)
        var g = GestureEvent(
            gesture: .touchFlick, phase: .recognized, id: .max, time: long,
            device: String(repeating: "\u{1}", count: 40))
        g.fingers = .min; g.touches = Array(repeating: .min, count: 20); g.touch = .min
        g.centroid = point; g.centroidMm = point; g.scale = long; g.scaleVelocity = long; g.spanMm = long
        g.hand = .unknown; g.handConfidence = long; g.rightHandProbability = long; g.clearSide = .unknown
        g.rotation = long; g.rotationVelocity = long
        g.translation = point; g.translationMm = point; g.velocity = point; g.direction = .right; g.edge = .bottom;
        g.taps = .min
        g.position = point; g.positionMm = point; g.duration = long; g.glideMm = point; g.glideScale = long
        g.glideRotation = long; g.reason = String(repeating: "\u{2}", count: 30)
        let line = JSONLines.encode(.gesture(g))
        #expect(line == JSONLines.encodeWithFoundation(.gesture(g)))
        #expect(line.count <= g.maximumLineBytes)
        // Into a buffer with room, the bound that counts every fixed-size field: never below the
        // exact one, and the line the same (a line past its bound traps in JSONWriter.append).
        var roomy: [UInt8] = []
        roomy.reserveCapacity(64 * 1024)
        let loose = withUnsafePointer(to: g) { GestureEvent.lineBound(at: $0, appendingTo: roomy) }
        #expect(loose >= g.maximumLineBytes)
        #expect(loose > 1_000)
        JSONLines.encode(g, into: &roomy)
        #expect(roomy == line)
        var compact: [UInt8] = []
        compact.reserveCapacity(64 * 1024)
        g.writeCompactObject(into: &compact)
        var fresh: [UInt8] = []
        g.writeCompactObject(into: &fresh)
        #expect(compact == fresh)
        // Without room, the exact bound: a new array is allocated at it.
        #expect(withUnsafePointer(to: g) { GestureEvent.lineBound(at: $0, appendingTo: []) } == g.maximumLineBytes)
        let t = WireTouch(
            id: .min, phase: "\u{3}cancelled", tool: "\u{3}finger", x: long, y: long, xMm: long, yMm: long,
            majorMm: long, minorMm: long, orientation: long, pressure: long, vxMm: long, vyMm: long)
        let m = TouchesMessage(time: long, device: "\u{4}\u{4}", touches: Array(repeating: t, count: 10))
        let touchesLine = JSONLines.encode(.touches(m))
        #expect(touchesLine == JSONLines.encodeWithFoundation(.touches(m)))
        #expect(touchesLine.count <= 80 + 6 * 2 + 2 + 32 + 10 * (1 + t.maximumBytes))
    }

    /// Each message the writer makes, at its largest: a device id of 1,024 control bytes (each
    /// escaped as `\u00XX`, 6 bytes; ids have no bound below the line's but for `HANDYD_ID`'s 64
    /// bytes, and a replay's id is its file's name), every optional field, the longest number
    /// text, `Int.min`, `UInt64.max`, NaN and the infinities (written as strings, as today), a
    /// region of 64 corners, 64 touches. Each is valid JSON and Foundation's bytes, whether
    /// written into a fresh array (the exact bound) or into one with room (the loose bound).
    @Test(arguments: [-2.2250738585072014e-308, -.greatestFiniteMagnitude, .greatestFiniteMagnitude, .nan, -.infinity])
    func everyMessageAtItsLargest(value: Double) throws {
        let device = String(repeating: "\u{1}", count: 1024)
        let point = WirePoint(x: value, y: -2.2250738585072014e-308)
        var g = GestureEvent(gesture: .touchFlick, phase: .cancelled, id: .max, time: value, device: device)
        g.fingers = .min; g.touches = Array(repeating: .min, count: 64); g.touch = .min
        g.centroid = point; g.centroidMm = point; g.scale = value; g.scaleVelocity = value; g.spanMm = value
        g.hand = .unknown; g.handConfidence = value; g.rightHandProbability = value; g.clearSide = .unknown
        g.occlusion = Occlusion(
            polygon: Array(repeating: point, count: 64), polygonMm: Array(repeating: point, count: 64))
        g.rotation = value; g.rotationVelocity = value
        g.translation = point; g.translationMm = point; g.velocity = point; g.direction = .right; g.edge = .bottom;
        g.taps = .min
        g.position = point; g.positionMm = point; g.duration = value; g.glideMm = point; g.glideScale = value
        g.glideRotation = value; g.reason = String(repeating: "\u{2}", count: 256)
        let t = WireTouch(
            id: .min, phase: "\u{3}cancelled", tool: "\u{3}finger", x: value, y: value, xMm: value, yMm: value,
            majorMm: value, minorMm: value, orientation: value, pressure: value, vxMm: value, vyMm: value)
        let touches = TouchesMessage(time: value, device: device, touches: Array(repeating: t, count: 64))
        func isJSONObject(_ bytes: [UInt8]) -> Bool {
            (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] != nil
        }
        let quoted = JSONQuotedString(device)
        for roomy in [false, true] {
            func buffer() -> [UInt8] { var b: [UInt8] = []; if roomy { b.reserveCapacity(1 << 20) }; return b }
            var line = buffer()
            JSONLines.encode(g, into: &line)
            #expect(line == JSONLines.encodeWithFoundation(.gesture(g)))
            #expect(isJSONObject(line))
            var inPlace = buffer(), ends: [Int] = []
            [g, g].withUnsafeBufferPointer {
                JSONLines.encode(eventsIn: $0, quotedDevice: quoted, into: &inPlace, ends: &ends)
            }
            #expect(inPlace == line + line && ends == [line.count, 2 * line.count])
            var touchesLine = buffer()
            JSONLines.encode(touches, quotedDevice: quoted, into: &touchesLine)
            #expect(touchesLine == JSONLines.encodeWithFoundation(.touches(touches)))
            #expect(isJSONObject(touchesLine))
            // The compact frame line whole: header, gestures, touches.
            var frame = buffer()
            CompactFrameHeader.write(device: device, quotedDevice: quoted, time: value, into: &frame)
            withUnsafePointer(to: g) { GestureEvent.writeCompactObject(at: $0, after: ",\"gestures\":[", into: &frame) }
            frame.append(UInt8(ascii: "]"))
            #expect(touches.writeCompactTouches(after: ",\"touches\":", into: &frame))
            frame += Array("}\n".utf8)
            #expect(isJSONObject(frame), "\(String(decoding: frame.prefix(200), as: UTF8.self))")
        }
    }
}
