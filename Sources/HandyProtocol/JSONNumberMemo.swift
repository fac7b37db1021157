/// The text of numbers written lately, looked up by their bits, so a number that comes again is
/// copied instead of printed (~12 instructions instead of ~80).
///
/// A daemon's lines repeat many numbers: a frame's time on each of its lines, one centroid on
/// the pinch, rotate and pan of the same fingers (and its mm twin), a hand's confidence through a
/// whole gesture, zeros. Over the guest's stream and the fixtures' recordings about 45 % of the
/// numbers written were in a memo of this size (docs/PERFORMANCE.md section 5).
///
/// Direct-mapped, 128 entries of 32 bytes; an entry holds a number's bits and its text when the
/// text is at most 16 bytes. A number is found only under its exact bits, so `-0` and `0`, or two
/// NaNs, never share an entry: the bytes are those ``JSONWriter/number(_:)`` prints, always.
///
/// One writer at a time: not locked. The daemon keeps one per encoding storage, and a storage
/// moves between the input thread and an event loop only under `DeliveryWindow`'s lock, which
/// orders the writes of one thread before the reads of the next (hence `@unchecked Sendable`).
public final class JSONNumberMemo: @unchecked Sendable {
    @usableFromInline struct Entry {
        @usableFromInline var bits: UInt64
        /// The text's first 8 bytes and the next 8 (little-endian), of which `count` count.
        @usableFromInline var head: UInt64
        @usableFromInline var tail: UInt64
        @usableFromInline var count: Int
    }

    @inlinable static var entryCount: Int { 128 }
    /// The text kept in an entry, at most: a number's bound (``JSONWriter/maximumNumberBytes``, 32)
    /// leaves room to copy all 16 whatever the text's length.
    @inlinable static var longestText: Int { 16 }

    @usableFromInline let entries: UnsafeMutablePointer<Entry>

    public init() {
        entries = .allocate(capacity: Self.entryCount)
        // Every entry starts as 0 (the bits of +0.0) and its text "0": a true pair, so no entry is
        // ever empty or wrong.
        entries.initialize(
            repeating: Entry(bits: 0, head: UInt64(UInt8(ascii: "0")), tail: 0, count: 1), count: Self.entryCount)
    }

    deinit { entries.deallocate() }

    /// The entry for `bits`: Fibonacci hashing, whose top bits depend on all of a double's bits
    /// (the values differ mostly in their low mantissa bits).
    @inlinable @inline(__always) static func slot(_ bits: UInt64) -> Int {
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) &>> 57)
    }
}
