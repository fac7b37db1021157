/// A hand-written JSON writer for the hot messages (`gesture`, `touches`): the same bytes as
/// ``JSONLines``' Foundation encoder (keys sorted after `"type"`, doubles in Swift's shortest
/// form without a trailing `.0`, non-finite numbers as `"inf"`/`"-inf"`/`"nan"`, `/` unescaped),
/// without Foundation's per-field boxing. Tests/HandyProtocolTests compare the two byte for byte.
///
/// Speed (docs/PERFORMANCE.md, section 1): a line is written through a raw cursor into memory
/// reserved once by an upper bound on its length (``GestureEventFields/maximumLineBytes(at:)``), so a field
/// costs one check of its room and a few stores instead of `Array.append(contentsOf:)` calls with
/// their uniqueness and capacity checks. The bound only sizes the room: each write checks it
/// before storing, so a miscounted bound stops the line and never writes past it; keys are literals that carry their separator (`,"scale":`); doubles that have a short
/// decimal form (every value is rounded to a few decimals for the wire) are printed without
/// `Double.description`.
@usableFromInline struct JSONWriter {
    /// Where the next byte goes.
    @usableFromInline var cursor: UnsafeMutablePointer<UInt8>
    /// One past the last byte this writer may store. Every write it offers checks its room
    /// against it before storing anything (``room(_:)``); the `put…` steps that do not check are
    /// private and run only inside a write that checked for them. A line whose reserved bound was
    /// miscounted (a field added and not counted) stops with a "handyd bug", never overruns.
    @usableFromInline let end: UnsafeMutablePointer<UInt8>
    /// The numbers written lately (``JSONNumberMemo``), when the caller keeps them.
    @usableFromInline let memo: UnsafeMutablePointer<JSONNumberMemo.Entry>?

    /// The most bytes ``number(_:)`` writes (`-2.2250738585072014e-308` is 24; the memo's copy
    /// stores 16 whatever the text's length).
    @inlinable static var maximumNumberBytes: Int { 32 }
    /// The most bytes ``integer(_:)`` or ``unsigned(_:)`` write.
    @inlinable static var maximumIntegerBytes: Int { 21 }
    /// The most bytes ``string(_:)`` writes for `s`: quotes and every byte escaped as `\u00XX`.
    @inlinable @inline(__always) static func maximumStringBytes(_ s: String) -> Int { 2 + 6 * s.utf8.count }

    /// A writer for the `capacity` bytes at `cursor`.
    @inlinable @inline(__always) init(
        cursor: UnsafeMutablePointer<UInt8>, capacity: Int, memo: UnsafeMutablePointer<JSONNumberMemo.Entry>? = nil
    ) {
        self.cursor = cursor
        self.end = cursor + capacity
        self.memo = memo
    }

    /// Stops the line unless `n` more bytes fit: a check and a branch never taken (~3
    /// instructions a field, docs/PERFORMANCE.md section 1).
    @inlinable @inline(__always) func room(_ n: Int) {
        precondition(end - cursor >= n, "handyd bug: JSON line longer than its bound")
    }

    /// Appends the bytes `body` writes, at most `bound` of them (checked by each write), to `bytes`: one allocation for a
    /// new line, none when `bytes` has room (the daemon reuses one line buffer). The bytes go
    /// straight into the array's spare capacity (no zero fill, no trimming afterwards).
    /// `memo`: numbers written lately, kept by the caller from line to line (``JSONNumberMemo``).
    @inline(__always)
    @usableFromInline static func append(
        to bytes: inout [UInt8], bound: Int, memo: JSONNumberMemo? = nil, _ body: (inout JSONWriter) -> Void
    ) {
        // The entries' address read here, once: the closure then holds no reference to retain.
        let entries = memo?.entries
        bytes.append(addingCapacity: bound) { span in
            span.withUnsafeMutableBufferPointer { buffer, count in
                let base = buffer.baseAddress! + count
                var w = JSONWriter(cursor: base, capacity: bound, memo: entries)
                body(&w)
                count += w.cursor - base
            }
        }
    }

    // MARK: raw output

    @inlinable @inline(__always) mutating func put(_ b: UInt8) {
        cursor.initialize(to: b)
        cursor += 1
    }

    /// Writes a literal: a key with its separator (`,"scale":`) or punctuation.
    @inlinable @inline(__always) mutating func putRaw(_ s: StaticString) {
        // A literal chosen at run time (a gesture's or phase's name, a line's separator) has a
        // length the compiler does not know, and its copy was a call to memcpy (~13 a frame).
        // A key written as such has a known length: `copy` folds to one of its branches.
        putCopy(from: UnsafeRawPointer(s.utf8Start), count: s.utf8CodeUnitCount)
    }

    /// Writes `n` bytes from `from`. Up to 16: two overlapping loads and stores of 8 (or 4)
    /// bytes, inside the source, where a call to memcpy is ~30 instructions for a few bytes.
    @inlinable @inline(__always) mutating func putCopy(from: UnsafeRawPointer, count n: Int) {
        let to = UnsafeMutableRawPointer(cursor)
        if n >= 8 && n <= 16 {
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            to.storeBytes(
                of: from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(
                of: from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4, as: UInt32.self)
        } else {
            cursor.update(from: from.assumingMemoryBound(to: UInt8.self), count: n)
        }
        cursor += n
    }

    // MARK: checked writes (each key literal carries its leading comma)

    /// Writes one byte.
    @inlinable @inline(__always) mutating func byte(_ b: UInt8) { room(1); put(b) }
    /// Writes a literal: a key with its separator (`,"scale":`) or punctuation.
    @inlinable @inline(__always) mutating func raw(_ s: StaticString) { room(s.utf8CodeUnitCount); putRaw(s) }
    @inlinable @inline(__always) mutating func number(_ v: Double) { room(Self.maximumNumberBytes); putNumber(v) }
    @inlinable @inline(__always) mutating func integer(_ v: Int) { room(Self.maximumIntegerBytes); putInteger(v) }
    @inlinable @inline(__always) mutating func unsigned(_ v: UInt64) { room(Self.maximumIntegerBytes); putUnsigned(v) }
    /// `s` quoted, with JSON's escapes.
    @inlinable @inline(__always) mutating func string(_ s: String) { room(Self.maximumStringBytes(s)); putString(s) }

    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: Double) {
        room(key.utf8CodeUnitCount + Self.maximumNumberBytes)
        putRaw(key)
        putNumber(value)
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: Double?) {
        if let value { field(key, value) }
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: Int) {
        room(key.utf8CodeUnitCount + Self.maximumIntegerBytes)
        putRaw(key)
        putInteger(value)
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: Int?) {
        if let value { field(key, value) }
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: UInt64) {
        room(key.utf8CodeUnitCount + Self.maximumIntegerBytes)
        putRaw(key)
        putUnsigned(value)
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: String) {
        room(key.utf8CodeUnitCount + Self.maximumStringBytes(value))
        putRaw(key)
        putString(value)
    }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }
    /// A string field whose value may have been quoted once for many lines (see ``putString(_:quoted:)``).
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: String, quoted: JSONQuotedString?) {
        room(key.utf8CodeUnitCount)
        putRaw(key)
        putString(value, quoted: quoted)
    }
    /// A protocol name (`"pinch"`, `"left"`): plain ASCII, never escaped.
    @inlinable @inline(__always) mutating func field(_ key: StaticString, name: StaticString) {
        room(key.utf8CodeUnitCount + name.utf8CodeUnitCount + 2)
        putRaw(key)
        put(UInt8(ascii: "\""))
        putRaw(name)
        put(UInt8(ascii: "\""))
    }
    /// The most bytes a point's object writes: `{"x":`, `,"y":`, `}` and two numbers.
    @inlinable static var maximumPointBytes: Int { 11 + 2 * maximumNumberBytes }
    @inlinable @inline(__always) mutating func field(_ key: StaticString, _ value: WirePoint?) {
        guard let value else { return }
        room(key.utf8CodeUnitCount + Self.maximumPointBytes)
        putRaw(key)
        putPoint(value)
    }
    @inlinable @inline(__always) mutating func putPoint(_ v: WirePoint) {
        putRaw("{\"x\":")
        putNumber(v.x)
        putRaw(",\"y\":")
        putNumber(v.y)
        put(UInt8(ascii: "}"))
    }
    @inlinable mutating func points<P: WirePointFields>(_ values: [P]) {
        byte(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            room(1 + Self.maximumPointBytes)
            if i > 0 { put(UInt8(ascii: ",")) }
            putPoint(WirePoint(x: v.x, y: v.y))
        }
        byte(UInt8(ascii: "]"))
    }
    @inlinable mutating func occlusion<P: WirePointFields, Q: WirePointFields>(
        _ key: StaticString, _ corners: (polygon: [P], polygonMm: [Q]), source: String? = nil
    ) {
        raw(key)
        raw("{\"polygon\":")
        points(corners.polygon)
        raw(",\"polygonMm\":")
        points(corners.polygonMm)
        occlusionSource(source)
        byte(UInt8(ascii: "}"))
    }

    /// An occlusion's `,"source":…` (a region built while the device had hovering contacts).
    @inlinable mutating func occlusionSource(_ source: String?) {
        guard let source else { return }
        if source == "hover" { raw(",\"source\":\"hover\"") } else { field(",\"source\":", source) }
    }
    @usableFromInline mutating func field(_ key: StaticString, _ values: [Int]?) {
        guard let values else { return }
        raw(key)
        byte(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            room(1 + Self.maximumIntegerBytes)
            if i > 0 { put(UInt8(ascii: ",")) }
            putInteger(v)
        }
        byte(UInt8(ascii: "]"))
    }

    // MARK: values

    /// A double as JSONEncoder writes it: Swift's shortest round-trip form, `2` not `2.0`.
    /// With a memo, a number written lately is copied from it, and a number printed is kept there.
    /// The lookup and the copy are inlined (about half the numbers are found, and a call would
    /// double their cost); printing stays out of line.
    @inlinable @inline(__always) mutating func putNumber(_ v: Double) {
        guard let memo else { return printNumber(v, keepingIn: nil) }
        let bits = v.bitPattern
        let e = memo + JSONNumberMemo.slot(bits)
        guard e.pointee.bits == bits else { return printNumber(v, keepingIn: e) }
        // All 16 bytes, whatever the text's length: the number's bound has room for them, and
        // the next write starts at the text's end.
        let to = UnsafeMutableRawPointer(cursor)
        to.storeBytes(of: e.pointee.head, as: UInt64.self)
        to.storeBytes(of: e.pointee.tail, toByteOffset: 8, as: UInt64.self)
        cursor += e.pointee.count
    }

    /// Prints `v` (see ``putNumber(_:)``) and keeps its text in `entry` when it fits.
    @usableFromInline @inline(never)
    mutating func printNumber(_ v: Double, keepingIn entry: UnsafeMutablePointer<JSONNumberMemo.Entry>?) {
        let start = cursor
        let a = v.magnitude
        // Nearly every value on the wire: below 10^6 with at most 6 decimals (the wire rounds
        // to 1…5, times are in µs). Not below 10^-3, where `description` switches to exponents; 0 is whole.
        if !(a < 1e6 && (a >= 1e-3 || a == 0) && sixDecimals(v, magnitude: a)) { otherNumber(v, magnitude: a) }
        if let entry {
            let count = cursor - start
            if count <= JSONNumberMemo.longestText {
                // The 16 bytes from the text's start, past its end too: within the number's bound,
                // and only `count` of them are ever used.
                let from = UnsafeRawPointer(start)
                entry.pointee = JSONNumberMemo.Entry(
                    bits: v.bitPattern, head: from.loadUnaligned(as: UInt64.self),
                    tail: from.loadUnaligned(fromByteOffset: 8, as: UInt64.self), count: count)
            }
        }
    }

    /// ``putNumber(_:)`` for a value with more than 6 decimals or out of the common range: out of line,
    /// so the common path keeps the cursor in a register and saves no registers for these calls.
    @usableFromInline @inline(never)
    mutating func otherNumber(_ v: Double, magnitude a: Double) {
        if a < 1e6, a >= 1e-3, nineDecimals(v, magnitude: a) { return }
        guard v.isFinite else {
            if v.isNaN { putRaw("\"nan\"") } else if v < 0 { putRaw("\"-inf\"") } else { putRaw("\"inf\"") }
            return
        }
        if a >= 1e6 && a < 1e15 {
            // Whole numbers below 10^15 print as integers, as JSONEncoder does.
            let i = Int64(v)
            if Double(i) == v {
                putInteger(Int(i))
                return
            }
            if a < 1e9, shortDecimal(v, magnitude: a) { return }
        }
        var s = v.description
        s.withUTF8 { u in
            // JSONEncoder drops a trailing ".0" (only reachable here for e.g. "1e+16", never, but kept exact).
            let n =
                u.count > 2 && u[u.count - 2] == UInt8(ascii: ".") && u[u.count - 1] == UInt8(ascii: "0")
                ? u.count - 2 : u.count
            cursor.update(from: u.baseAddress!, count: n)
            cursor += n
        }
    }

    /// Writes `v` (`a` = |v| below 10^6) as `[-]int[.frac]` with the fewest decimals (0…6) that
    /// parse back to `v`, and returns true; false when 6 decimals are not enough. The argument is
    /// ``nineDecimals(_:magnitude:)``'s with 10^6 for 10^9 (two candidates 10^-6 apart cannot both
    /// round to `v` either). The six decimals are written whole, two digits a store, and the
    /// trailing zeros taken back: cheaper than finding them by division first (~80 instructions a
    /// number instead of ~114, docs/PERFORMANCE.md section 5).
    @inline(__always)
    @usableFromInline mutating func sixDecimals(_ v: Double, magnitude a: Double) -> Bool {
        // The nearest integer to a·10^6 (< 10^12 < 2^51) by adding 2^52, where a double's spacing is
        // 1: the sum is that integer plus 2^52, exactly, and its low bits are the integer. Rounding
        // to nearest instead of `+ 0.5` and truncating changes nothing: a·10^6 is within 2.3·10^-4 of
        // the candidate when there is one. No conversion, so none of its range checks.
        let shifted = a * 1e6 + 0x1p52
        guard (shifted - 0x1p52) / 1e6 == a else { return false }
        let n = shifted.bitPattern &- (0x1p52 as Double).bitPattern
        var p = cursor
        if v.sign == .minus { p.initialize(to: UInt8(ascii: "-")); p += 1 }  // "-0" for -0.0, as JSONEncoder
        let whole = n / 1_000_000
        let frac = n &- whole &* 1_000_000
        let pairs = UnsafeRawPointer(Self.digitPairs.utf8Start)
        if whole < 10 {
            p.initialize(to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole)); p += 1
        } else if whole < 100 {
            UnsafeMutableRawPointer(p).storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: Int(whole) &* 2, as: UInt16.self), as: UInt16.self);
            p += 2
        } else if whole < 1000 {
            // Millimetres and mm/s are often 100…999: a digit and a pair here, without the call
            // and loop of `unsigned`.
            let hundreds = whole / 100
            p.initialize(to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: hundreds))
            UnsafeMutableRawPointer(p + 1).storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: Int(whole &- hundreds &* 100) &* 2, as: UInt16.self),
                as: UInt16.self)
            p += 3
        } else {
            cursor = p
            putUnsigned(whole)
            p = cursor
        }
        if frac != 0 {
            p.initialize(to: UInt8(ascii: ".")); p += 1
            let hi = frac / 10_000, lo = frac &- hi &* 10_000, mid = lo / 100
            let raw = UnsafeMutableRawPointer(p)
            raw.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(hi) &* 2, as: UInt16.self), as: UInt16.self)
            raw.storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: Int(mid) &* 2, as: UInt16.self), toByteOffset: 2,
                as: UInt16.self)
            raw.storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: Int(lo &- mid &* 100) &* 2, as: UInt16.self), toByteOffset: 4,
                as: UInt16.self)
            p += 6
            // Two zeros at a time, then one: stops at a digit, frac is not 0.
            while UnsafeRawPointer(p - 2).loadUnaligned(as: UInt16.self) == Self.twoZeros { p -= 2 }
            if p[-1] == UInt8(ascii: "0") { p -= 1 }
        }
        cursor = p
        return true
    }

    /// Writes `v` (`a` = |v| below 10^6) as `[-]int[.frac]` with the fewest decimals (0…9) that
    /// parse back to `v`, and returns true; false when 9 decimals are not enough.
    ///
    /// Why it matches `description` (Swift's shortest round-trip digits, closest on ties): for
    /// `10^-3 ≤ |v| < 10^6` description uses positional notation; a candidate `n / 10^9` (n and 10^9
    /// exact doubles, n < 10^15 < 2^50, the division correctly rounded) equals `v` exactly when
    /// the text `n·10^-9` parses to `v`; if a shorter text n₀·10^-d₀ parses to `v`, then
    /// n₀·10^(9-d₀) is this same candidate (the same real number), so its trailing zeros give the
    /// shortest text; and two candidates 10^-9 apart cannot both round to `v` there, so those
    /// digits are the only — hence the closest — shortest ones. `a·10^9` is within a quarter of n,
    /// so `+ 0.5` and truncation find it. The tests compare it with description.
    @inline(__always)
    @usableFromInline mutating func nineDecimals(_ v: Double, magnitude a: Double) -> Bool {
        // Int64, not UInt64: on x86-64 the unsigned conversions take a dozen instructions each way.
        let signed = Int64(a * 1e9 + 0.5)
        guard Double(signed) / 1e9 == a else { return false }
        let n = UInt64(bitPattern: signed)  // ≥ 0; unsigned for the divisions below
        if v.sign == .minus { put(UInt8(ascii: "-")) }  // "-0" for -0.0, as JSONEncoder
        let whole = n / 1_000_000_000
        if whole < 10 { put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole)) } else { putUnsigned(whole) }
        var frac = n &- whole &* 1_000_000_000
        if frac == 0 { return true }
        // Drop the trailing zeros (at most 8) before writing: 4, 2, 1 at a time, 8 at once.
        var decimals = 9
        if frac % 100_000_000 == 0 {
            frac /= 100_000_000
            decimals = 1
        } else {
            if frac % 10_000 == 0 { frac /= 10_000; decimals = 5 }
            if frac % 100 == 0 { frac /= 100; decimals -= 2 }
            if frac % 10 == 0 { frac /= 10; decimals -= 1 }
        }
        put(UInt8(ascii: "."))
        fixedDigits(frac, count: decimals)
        return true
    }

    /// Writes `v` as `[-]int.frac` with the fewest decimals d (1…9) for which int.frac parses back
    /// to `v`, and returns true; false when no such d exists (then `Double.description` decides).
    /// For `10^6 ≤ |v| < 10^9`, where n at 9 decimals would pass 10^15; the argument is
    /// ``nineDecimals(_:magnitude:)``'s, one d at a time.
    @inline(__always)
    @usableFromInline mutating func shortDecimal(_ v: Double, magnitude a: Double) -> Bool {
        var scale = 10.0
        var scaleInt: Int64 = 10
        for decimals in 1...9 {
            let s = a * scale
            if s >= 1e15 { return false }
            let n = Int64(s + 0.5)
            if Double(n) / scale == a {
                if v < 0 { put(UInt8(ascii: "-")) }
                putUnsigned(UInt64(n / scaleInt))
                put(UInt8(ascii: "."))
                fixedDigits(UInt64(n % scaleInt), count: decimals)
                return true
            }
            scale *= 10
            scaleInt *= 10
        }
        return false
    }

    /// "00" as one 16-bit load sees it (a literal: a stored static is checked for initialisation at each use).
    @inlinable @inline(__always) static var twoZeros: UInt16 { 0x3030 }

    /// "00" "01" … "99": two digits per division.
    @inlinable static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// `value` in exactly `count` digits, zero-padded on the left.
    @inlinable @inline(__always) mutating func fixedDigits(_ value: UInt64, count: Int) {
        let pairs = Self.digitPairs.utf8Start
        var rest = value
        var i = count
        while i >= 2 {  // written from the last digits
            let k = Int(rest % 100) &* 2
            rest /= 100
            i -= 2
            cursor[i] = pairs[k]
            cursor[i + 1] = pairs[k + 1]
        }
        if i == 1 { cursor[0] = UInt8(ascii: "0") &+ UInt8(rest % 10) }
        cursor += count
    }

    @usableFromInline mutating func putInteger(_ v: Int) {
        if v < 0 {
            put(UInt8(ascii: "-"))
            putUnsigned(UInt64(v.magnitude))
        } else {
            putUnsigned(UInt64(v))
        }
    }

    /// Whether any of the 8 bytes in `w` is a control character, `"` or `\` (never false when one
    /// is: each test is exact for "some byte", though it may flag the wrong one).
    @inlinable @inline(__always) static func mayNeedEscaping(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let below32 = (w &- ones &* 0x20) & ~w & high
        let q = w ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & high
        let b = w ^ (ones &* 0x5C)
        let backslash = (b &- ones) & ~b & high
        return (below32 | quote | backslash) != 0
    }

    @usableFromInline mutating func putUnsigned(_ v: UInt64) {
        if v < 10 { put(UInt8(ascii: "0") &+ UInt8(v)); return }
        if v < 100 { fixedDigits(v, count: 2); return }
        var digits = 3
        var limit: UInt64 = 1000
        while digits < 20 && v >= limit { digits += 1; limit &*= 10 }
        fixedDigits(v, count: digits)
    }

    /// `s`, or `quoted`'s bytes when they are `s`'s (the same string: one comparison of its
    /// storage, then a copy).
    @inlinable @inline(__always) mutating func putString(_ s: String, quoted: JSONQuotedString?) {
        guard let quoted, quoted.string == s else { string(s); return }
        quoted.bytes.withUnsafeBufferPointer { b in
            room(b.count)
            putCopy(from: UnsafeRawPointer(b.baseAddress!), count: b.count)
        }
    }

    @usableFromInline mutating func putString(_ s: String) {
        put(UInt8(ascii: "\""))
        // In place: `var s = s; s.withUTF8` retained and released the string for every field.
        if s.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var s = s
            s.withUTF8 { escaped($0) }
        }
        put(UInt8(ascii: "\""))
    }

    /// `u` with JSON's escapes, without quotes.
    @inlinable @inline(__always) mutating func escaped(_ u: UnsafeBufferPointer<UInt8>) {
        // Up to the first 8 bytes that may need escaping, copied at once: a device id is
        // written on every line (~10 instructions per byte one by one, docs/PERFORMANCE.md).
        var clean = 0
        if u.count >= 8, let base = u.baseAddress {
            while clean + 8 <= u.count,
                !Self.mayNeedEscaping(UnsafeRawPointer(base + clean).loadUnaligned(as: UInt64.self))
            {
                clean += 8
            }
            if clean > 0 {
                cursor.update(from: base, count: clean)
                cursor += clean
            }
        }
        for c in u[clean...] {
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { put(c); continue }
            put(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(c)
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x08: put(UInt8(ascii: "b"))
            case 0x0C: put(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                putRaw("u00")
                put(hex.utf8Start[Int(c >> 4)])
                put(hex.utf8Start[Int(c & 0xF)])
            }
        }
    }
}

extension GestureKind {
    /// The raw value as a literal (no String on the hot path), from ``traits``.
    @inlinable @inline(__always) var literal: StaticString { traits.literal }
}

extension GesturePhase {
    @inlinable var literal: StaticString {
        switch self {
        case .began: "began"
        case .changed: "changed"
        case .ended: "ended"
        case .cancelled: "cancelled"
        case .recognized: "recognized"
        }
    }
}

extension Hand {
    @inlinable var literal: StaticString {
        switch self {
        case .left: "left"
        case .right: "right"
        case .unknown: "unknown"
        }
    }
}

extension Side {
    @inlinable var literal: StaticString {
        switch self {
        case .left: "left"
        case .right: "right"
        case .unknown: "unknown"
        }
    }
}

extension SwipeDirection {
    @inlinable var literal: StaticString {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        }
    }
}

extension DisplayEdge {
    @inlinable var literal: StaticString {
        switch self {
        case .left: "left"
        case .right: "right"
        case .top: "top"
        case .bottom: "bottom"
        }
    }
}

/// A string as a JSON value (quoted, escaped), made once for a string that many lines carry: the
/// device id is on every gesture and touches line, and escaped byte by byte it cost ~200
/// instructions a line (docs/PERFORMANCE.md section 5).
public struct JSONQuotedString: Sendable {
    /// The string it was made from.
    public let string: String
    @usableFromInline let bytes: [UInt8]

    public init(_ string: String) {
        self.string = string
        var bytes: [UInt8] = []
        JSONWriter.append(to: &bytes, bound: JSONWriter.maximumStringBytes(string)) { $0.string(string) }
        self.bytes = bytes
    }
}

extension GestureEventFields {
    /// An upper bound on the length of this event's line, summed over the fields present, so a
    /// typical line's buffer (~700 bytes) stays within malloc's small-size cache (glibc's tcache
    /// ends at 1032 bytes; a bound over all 30 fields was ~1,300 bytes and took the slow path).
    var maximumLineBytes: Int { withUnsafePointer(to: self) { Self.maximumLineBytes(at: $0) } }

    // The terms of a line's bound, by field. `,"rotationVelocity":` is the longest key with its separator.
    @inlinable static var keyBytes: Int { 20 }
    @inlinable static var numberBytes: Int { keyBytes + JSONWriter.maximumNumberBytes }
    @inlinable static var integerBytes: Int { keyBytes + JSONWriter.maximumIntegerBytes }
    @inlinable static var pointBytes: Int { keyBytes + 2 * JSONWriter.maximumNumberBytes + 11 }  // {"x":…,"y":…}
    @inlinable static var nameBytes: Int { keyBytes + 14 }  // "touch-flick" and quotes
    /// `rightHandProbability`: its key with separator (24 bytes, longer than ``keyBytes``) and a number.
    @inlinable static var rightHandProbabilityBytes: Int { 24 + JSONWriter.maximumNumberBytes }
    /// type, gesture, phase, id, time, the closing brace and newline, the device's key.
    @inlinable static var alwaysBytes: Int { 20 + 2 * nameBytes + integerBytes + numberBytes + 4 + keyBytes }

    /// ``maximumLineBytes`` of the event at `e`, read where it lies (see ``writeLine(at:quotedDevice:into:)``).
    @inlinable @inline(__always) static func maximumLineBytes(at e: UnsafePointer<Self>) -> Int {
        let number = numberBytes, integer = integerBytes, point = pointBytes, name = nameBytes
        var n = alwaysBytes + growingBytes(at: e)
        if e.pointee.fingers != nil { n += integer }
        if e.pointee.touch != nil { n += integer }
        if Self.wireCentroid(e) != nil { n += point }
        if Self.wireCentroidMm(e) != nil { n += point }
        if Self.wireScale(e) != nil { n += number }
        if Self.wireScaleVelocity(e) != nil { n += number }
        if Self.wireSpanMm(e) != nil { n += number }
        if e.pointee.hand != nil { n += name }
        if e.pointee.handConfidence != nil { n += number }
        if e.pointee.rightHandProbability != nil { n += rightHandProbabilityBytes }
        if e.pointee.clearSide != nil { n += name }
        if Self.wireRotation(e) != nil { n += number }
        if Self.wireRotationVelocity(e) != nil { n += number }
        if Self.wireTranslation(e) != nil { n += point }
        if Self.wireTranslationMm(e) != nil { n += point }
        if Self.wireVelocity(e) != nil { n += point }
        if e.pointee.direction != nil { n += name }
        if e.pointee.edge != nil { n += name }
        if e.pointee.taps != nil { n += integer }
        if Self.wirePosition(e) != nil { n += point }
        if Self.wirePositionMm(e) != nil { n += point }
        if Self.wireDuration(e) != nil { n += number }
        if Self.wireGlideMm(e) != nil { n += point }
        if Self.wireGlideScale(e) != nil { n += number }
        if Self.wireGlideRotation(e) != nil { n += number }
        return n
    }

    /// The fields whose size grows with their content: the device id, the touches, the region's
    /// corners, the reason.
    @inlinable @inline(__always) static func growingBytes(at e: UnsafePointer<Self>) -> Int {
        var n = JSONWriter.maximumStringBytes(e.pointee.device)
        if let touches = e.pointee.touches { n += keyBytes + 2 + touches.count * (JSONWriter.maximumIntegerBytes + 1) }
        if Self.hasOcclusion(e) {
            let occlusion = Self.occlusionCorners(e)
            // 30: the keys and braces; 20: `,"source":"model"`.
            n += keyBytes + 50 + (occlusion.polygon.count + occlusion.polygonMm.count) * (pointBytes - keyBytes + 1)
        }
        if let reason = e.pointee.reason { n += keyBytes + JSONWriter.maximumStringBytes(reason) }
        return n
    }

    /// The bound to write the event at `e` into `bytes` with: when `bytes` has room for a bound
    /// that counts every field of a fixed largest size whether present or not (~1.7 KB), that one,
    /// which looks only at the four fields that grow with their content; otherwise the sum over
    /// the fields present (``maximumLineBytes``), which a new array is allocated at. The daemon's
    /// batches reserve room for their lines at once, so they take the first: asking each
    /// optional cost ~90 instructions an event.
    @inlinable @inline(__always) static func lineBound(at e: UnsafePointer<Self>, appendingTo bytes: [UInt8]) -> Int {
        let n = everyFixedField + growingBytes(at: e)
        return bytes.capacity - bytes.count >= n ? n : maximumLineBytes(at: e)
    }

    /// ``maximumLineBytes(at:)`` with every fixed-size field present: fingers, touch, taps;
    /// centroid(Mm), translation(Mm), velocity, position(Mm), glideMm; scale, scaleVelocity,
    /// spanMm, handConfidence, rotation, rotationVelocity, duration, glideScale, glideRotation;
    /// hand, clearSide, direction, edge; rightHandProbability.
    @inlinable @inline(__always) static var everyFixedField: Int {
        alwaysBytes + 3 * integerBytes + 8 * pointBytes + 9 * numberBytes + 4 * nameBytes + rightHandProbabilityBytes
    }

    /// Appends `{"type":"gesture",...}\n` (keys after `type` in sorted order, as JSONEncoder's `.sortedKeys`).
    @inline(__always) func writeLine(into bytes: inout [UInt8]) {
        withUnsafePointer(to: self) { Self.writeLine(at: $0, quotedDevice: nil, into: &bytes) }
    }

    /// Appends the line of the event at `e`, read field by field where it lies. Passed by value,
    /// or read out of an array by its subscript, an event is copied whole first (~460 bytes, a
    /// retain and a release of each reference-counted field): ~1,000 instructions a frame in the
    /// guest (docs/PERFORMANCE.md section 5). `quotedDevice`: the device id made once (used when
    /// it is the event's). `memo`: numbers written lately (``JSONNumberMemo``).
    @inlinable @inline(__always) static func writeLine(
        at e: UnsafePointer<Self>, quotedDevice: JSONQuotedString?, memo: JSONNumberMemo? = nil,
        into bytes: inout [UInt8]
    ) {
        JSONWriter.append(to: &bytes, bound: lineBound(at: e, appendingTo: bytes), memo: memo) { w in
            writeLine(at: e, quotedDevice: quotedDevice, into: &w)
        }
    }

    /// Appends the lines of all `events`, one after the other, into one stretch of `bytes` sized
    /// once for them all, and where each line ends in `bytes` to `ends`. Line by line, each paid
    /// its own bound, the array's uniqueness check and the writer's setup (~100 instructions an
    /// event). Not generic over what is appended for a line: across modules it ran unspecialized.
    @inlinable @inline(__always) static func writeLines(
        _ events: UnsafeBufferPointer<Self>, quotedDevice: JSONQuotedString?,
        memo: JSONNumberMemo?, into bytes: inout [UInt8], ends: inout [Int]
    ) {
        guard let first = events.baseAddress, !events.isEmpty else { return }
        // As `lineBound(at:appendingTo:)`, for the lot: the cheap bound where the buffer has room.
        var bound = 0
        for k in events.indices { bound += everyFixedField + growingBytes(at: first + k) }
        if bytes.capacity - bytes.count < bound {
            bound = 0
            for k in events.indices { bound += maximumLineBytes(at: first + k) }
        }
        let start = bytes.count
        JSONWriter.append(to: &bytes, bound: bound, memo: memo) { w in
            let begin = w.cursor
            for k in events.indices {
                writeLine(at: first + k, quotedDevice: quotedDevice, into: &w)
                ends.append(start + (w.cursor - begin))
            }
        }
    }

    /// Writes the line of the event at `e` with `w`.
    @inlinable @inline(__always) static func writeLine(
        at e: UnsafePointer<Self>, quotedDevice: JSONQuotedString?, into w: inout JSONWriter
    ) {
        w.raw("{\"type\":\"gesture\"")
        w.field(",\"centroid\":", Self.wireCentroid(e))
        w.field(",\"centroidMm\":", Self.wireCentroidMm(e))
        if let clearSide = e.pointee.clearSide { w.field(",\"clearSide\":", name: clearSide.literal) }
        w.field(",\"device\":", e.pointee.device, quoted: quotedDevice)
        if let direction = e.pointee.direction { w.field(",\"direction\":", name: direction.literal) }
        w.field(",\"duration\":", Self.wireDuration(e))
        if let edge = e.pointee.edge { w.field(",\"edge\":", name: edge.literal) }
        w.field(",\"fingers\":", e.pointee.fingers)
        w.field(",\"gesture\":", name: e.pointee.gesture.literal)
        w.field(",\"glideMm\":", Self.wireGlideMm(e))
        w.field(",\"glideRotation\":", Self.wireGlideRotation(e))
        w.field(",\"glideScale\":", Self.wireGlideScale(e))
        if let hand = e.pointee.hand { w.field(",\"hand\":", name: hand.literal) }
        w.field(",\"handConfidence\":", e.pointee.handConfidence)
        w.field(",\"id\":", e.pointee.id)
        // Each reference-counted field asked first, read only when present: read out of the
        // pointer, even a nil one is a retain and a release.
        if Self.hasOcclusion(e) {
            w.occlusion(",\"occlusion\":", Self.occlusionCorners(e), source: Self.occlusionSource(e))
        }
        w.field(",\"phase\":", name: e.pointee.phase.literal)
        writeFields(fromPositionOf: e, lineFields: true, into: &w)
        w.raw("}\n")
    }

    /// The fields from `position` to `velocity`, in sorted order: the last ones of both the full
    /// line and the compact object, which leaves out `time` and the mm twins (`lineFields` false).
    @inlinable @inline(__always)
    static func writeFields(fromPositionOf e: UnsafePointer<Self>, lineFields: Bool, into w: inout JSONWriter) {
        w.field(",\"position\":", Self.wirePosition(e))
        if lineFields { w.field(",\"positionMm\":", Self.wirePositionMm(e)) }
        if e.pointee.reason != nil { w.field(",\"reason\":", e.pointee.reason) }
        // The compact object writes it beside `handConfidence`, only where it carries the hand.
        if lineFields { w.field(",\"rightHandProbability\":", e.pointee.rightHandProbability) }
        w.field(",\"rotation\":", Self.wireRotation(e))
        w.field(",\"rotationVelocity\":", Self.wireRotationVelocity(e))
        w.field(",\"scale\":", Self.wireScale(e))
        w.field(",\"scaleVelocity\":", Self.wireScaleVelocity(e))
        w.field(",\"spanMm\":", Self.wireSpanMm(e))
        w.field(",\"taps\":", e.pointee.taps)
        if lineFields { w.field(",\"time\":", Self.wireTime(e)) }
        w.field(",\"touch\":", e.pointee.touch)
        if e.pointee.touches != nil { w.field(",\"touches\":", e.pointee.touches) }
        w.field(",\"translation\":", Self.wireTranslation(e))
        if lineFields { w.field(",\"translationMm\":", Self.wireTranslationMm(e)) }
        w.field(",\"velocity\":", Self.wireVelocity(e))
    }
}

extension WireTouch {
    /// An upper bound on the length of this touch's object: keys (< 150 bytes), 11 numbers, the id, the names.
    var maximumBytes: Int {
        150 + 11 * JSONWriter.maximumNumberBytes + JSONWriter.maximumIntegerBytes
            + JSONWriter.maximumStringBytes(phase) + JSONWriter.maximumStringBytes(tool)
    }
}

extension JSONWriter {
    /// One touch's object; `mm`: with `xMm`/`yMm` (the full form) or without (the compact form).
    /// Read where it lies: passed by value, each touch was copied (its strings retained and released).
    mutating func touch(at t: UnsafePointer<WireTouch>, mm: Bool) {
        field("{\"id\":", t.pointee.id)
        field(",\"majorMm\":", t.pointee.majorMm)
        field(",\"minorMm\":", t.pointee.minorMm)
        field(",\"orientation\":", t.pointee.orientation)
        // The phase and the tool are nearly always these names: two equal small strings compare
        // by their bits, and the quoted literal is copied (~20 instructions instead of ~120 for
        // `string`, which reads the string's bytes and checks each for escaping).
        if t.pointee.phase == "moved" { raw(",\"phase\":\"moved\"") } else { field(",\"phase\":", t.pointee.phase) }
        field(",\"pressure\":", t.pointee.pressure)
        if t.pointee.tool == "finger" { raw(",\"tool\":\"finger\"") } else { field(",\"tool\":", t.pointee.tool) }
        field(",\"vxMm\":", t.pointee.vxMm)
        field(",\"vyMm\":", t.pointee.vyMm)
        field(",\"x\":", t.pointee.x)
        if mm { field(",\"xMm\":", t.pointee.xMm) }
        field(",\"y\":", t.pointee.y)
        if mm { field(",\"yMm\":", t.pointee.yMm) }
        byte(UInt8(ascii: "}"))
    }
}

extension WireHover {
    /// An upper bound on the length of this hovering contact's object: keys (< 120 bytes), 5
    /// numbers, 3 integers, the phase.
    var maximumBytes: Int {
        120 + 5 * JSONWriter.maximumNumberBytes + 3 * JSONWriter.maximumIntegerBytes
            + JSONWriter.maximumStringBytes(phase)
    }
}

extension JSONWriter {
    /// One hovering contact's object; `mm`: with `xMm`/`yMm` (the full form) or without (compact).
    mutating func hover(_ h: WireHover, mm: Bool) {
        field("{\"distance\":", h.distance)
        field(",\"distanceNormalized\":", h.distanceNormalized)
        field(",\"id\":", h.id)
        field(",\"phase\":", h.phase)
        if let touch = h.touch { field(",\"touch\":", touch) }
        field(",\"x\":", h.x)
        if mm, let xMm = h.xMm { field(",\"xMm\":", xMm) }
        field(",\"y\":", h.y)
        if mm, let yMm = h.yMm { field(",\"yMm\":", yMm) }
        byte(UInt8(ascii: "}"))
    }

    /// `,"hovers":[…]` (nothing when `hovers` is empty).
    mutating func hovers(_ hovers: [WireHover], mm: Bool) {
        guard !hovers.isEmpty else { return }
        raw(",\"hovers\":[")
        for i in hovers.indices {
            if i > 0 { byte(UInt8(ascii: ",")) }
            hover(hovers[i], mm: mm)
        }
        byte(UInt8(ascii: "]"))
    }
}

extension [WireHover] {
    /// An upper bound on the bytes of `,"hovers":[…]`.
    var maximumBytes: Int { reduce(12) { $0 + 1 + $1.maximumBytes } }
}

extension TouchesMessage {
    /// Appends `{"type":"touches","device":…,"time":…,"touches":[…]}\n` (and `,"hovers":[…]`
    /// after the touches when the message has some).
    func writeLine(into bytes: inout [UInt8], quotedDevice: JSONQuotedString? = nil, memo: JSONNumberMemo? = nil) {
        // The touches read where they lie (see `writeCompactTouches(into:)`).
        touches.withUnsafeBufferPointer { touches in
            var bound = 80 + JSONWriter.maximumStringBytes(device) + JSONWriter.maximumNumberBytes
            for i in touches.indices { bound += 1 + touches[i].maximumBytes }
            if let hovers { bound += hovers.maximumBytes }
            JSONWriter.append(to: &bytes, bound: bound, memo: memo) { w in
                w.raw("{\"type\":\"touches\"")
                w.field(",\"device\":", device, quoted: quotedDevice)
                w.field(",\"time\":", time)
                w.raw(",\"touches\":[")
                for i in touches.indices {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.touch(at: touches.baseAddress! + i, mm: true)
                }
                // Only a hover subscriber's message has them: the others' lines are as before.
                if let hovers {
                    w.byte(UInt8(ascii: "]"))
                    w.hovers(hovers, mm: true)
                    w.raw("}\n")
                } else {
                    w.raw("]}\n")
                }
            }
        }
    }
}
