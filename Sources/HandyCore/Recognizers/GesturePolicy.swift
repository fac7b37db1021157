import HandyProtocol

/// The arena policy as data: which gestures may coexist, and the few switches of the seed library.
///
/// Stored as bit masks, so copying a configuration on the hot path costs no reference counting.
public struct GesturePolicy: Hashable, Sendable {
    /// Bit `index(a) * kinds + index(b)` set when a and b may coexist (both orders are set).
    private var pairsLow: UInt64 = 0
    private var pairsHigh: UInt64 = 0
    /// Bit n set when an n-finger tap waits for the double-tap timeout.
    private var tapWaitBits: UInt32 = 0

    /// Unordered pairs of gestures that may both be recognised in one touch sequence (from the
    /// first finger down to the last finger up). A gesture whose kind is not paired with every
    /// gesture already recognised in the sequence does not start until all fingers lift.
    /// Per-touch sub-gestures (`touch-*`) are a separate layer and are not governed by this table.
    public var simultaneous: Set<GesturePair> {
        get {
            var out = Set<GesturePair>()
            for a in GestureKind.allCases {
                for b in GestureKind.allCases where a != b && pairBit(a, b) { out.insert(GesturePair(a, b)) }
            }
            return out
        }
        set {
            pairsLow = 0; pairsHigh = 0
            for p in newValue { setPair(p.first, p.second); setPair(p.second, p.first) }
        }
    }
    /// Finger counts (1…31) whose tap waits for the double-tap timeout to pass, then reports once
    /// with the final `taps` count. Other finger counts report every tap at once (`taps` 1, then 2, ...).
    var tapWaitsForDoubleTapFingers: Set<Int> {
        get { Set((1...31).filter { tapWaitBits & (1 << UInt32($0)) != 0 }) }
        set { tapWaitBits = 0; for n in newValue where n >= 1 && n <= 31 { tapWaitBits |= 1 << UInt32(n) } }
    }
    /// A touch that becomes a palm cancels the gestures it took part in (reason `palm`).
    public var palmCancels: Bool
    /// Seed option: two-finger pan and rotate only move while a two-finger long press is held.
    var twoFingerLongPressGatesPanAndRotate: Bool

    /// A policy from its pairs and options.
    public init(
        simultaneous: Set<GesturePair>, tapWaitsForDoubleTapFingers: Set<Int> = [], palmCancels: Bool = true,
        twoFingerLongPressGatesPanAndRotate: Bool = false
    ) {
        self.palmCancels = palmCancels
        self.twoFingerLongPressGatesPanAndRotate = twoFingerLongPressGatesPanAndRotate
        self.simultaneous = simultaneous
        self.tapWaitsForDoubleTapFingers = tapWaitsForDoubleTapFingers
    }

    /// True when `a` and `b` may both be recognised in one sequence (a kind always coexists with itself).
    @inline(__always) public func allows(_ a: GestureKind, with b: GestureKind) -> Bool {
        a == b || pairBit(a, b)
    }

    /// True when an n-finger tap waits for the double-tap timeout.
    @inline(__always) public func tapWaits(fingers n: Int) -> Bool {
        n >= 1 && n <= 31 && tapWaitBits & (1 << UInt32(n)) != 0
    }

    @inline(__always) private func pairBit(_ a: GestureKind, _ b: GestureKind) -> Bool {
        let i = a.traits.index * GestureKind.allCases.count + b.traits.index
        return i < 64 ? pairsLow & (1 << UInt64(i)) != 0 : pairsHigh & (1 << UInt64(i - 64)) != 0
    }

    private mutating func setPair(_ a: GestureKind, _ b: GestureKind) {
        let i = a.traits.index * GestureKind.allCases.count + b.traits.index
        if i < 64 { pairsLow |= 1 << UInt64(i) } else { pairsHigh |= 1 << UInt64(i - 64) }
    }

    /// The kinds the ``simultaneous`` table governs (per-touch sub-gestures are a separate layer).
    package static let pairableKinds: [GestureKind] = GestureKind.allCases.filter { !$0.traits.isPerTouch }

    /// Parses `pinch+rotate,pinch+pan` (or `none`); nil when a name is unknown or not in
    /// ``pairableKinds`` (a pair the arena never consults would be a setting that does nothing).
    static func parsePairs(_ text: String) -> Set<GesturePair>? {
        if text.lowercased() == "none" { return [] }
        var out = Set<GesturePair>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let names = item.split(separator: "+", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            guard names.count == 2, let a = GestureKind(rawValue: names[0]), let b = GestureKind(rawValue: names[1]),
                pairableKinds.contains(a), pairableKinds.contains(b)
            else { return nil }
            out.insert(GesturePair(a, b))
        }
        return out
    }

    /// Parses finger counts `1,2` (1 … 10) or `none`; nil when malformed.
    static func parseFingerCounts(_ text: String) -> Set<Int>? {
        if text.lowercased() == "none" { return [] }
        var fingers = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let n = Int(String(part).trimmingSpaces), n > 0, n <= 10 else { return nil }
            fingers.insert(n)
        }
        return fingers
    }
}

/// An unordered pair of gesture kinds.
public struct GesturePair: Hashable, Sendable {
    /// The kind with the smaller raw value.
    public let first: GestureKind
    /// The other kind.
    public let second: GestureKind
    /// The pair of `a` and `b`, in either order.
    public init(_ a: GestureKind, _ b: GestureKind) {
        if a.rawValue <= b.rawValue { first = a; second = b } else { first = b; second = a }
    }
}
