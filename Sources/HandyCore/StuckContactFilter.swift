/// A contact that stays down without moving is taken out of gesture recognition: water on the
/// glass, a ghost from interference, a failing controller. Kiosk operators report one such contact
/// taking away every multi-finger gesture (a 35-second long press, no pinch) until a reboot.
///
/// A touch is **stuck** once it has stayed within ``slopMm`` of where it last settled for
/// ``stuckAfterSeconds``. From then on the arena sees it cancelled (gestures holding it cancel) and
/// never again: the other fingers pinch, pan and tap as if it were not there. It stays stuck until it
/// lifts or is cancelled (moving again does not bring it back: the arena cannot be given half a
/// touch's life), and each change is reported once (``StuckContactChange``). Subscribers' touches
/// frames still carry it: they show what the glass reports.
///
/// Pure and on the events' clock like the recognizers: the moment a touch becomes stuck is a
/// deadline (``nextDeadline``) that fires on an idle device too, and a replay gives the same result.
public struct StuckContactFilter: Sendable {
    /// How long a contact must stay still to be stuck; 0 turns the filter off.
    public var stuckAfterSeconds: Double
    /// How far a contact may drift and still be still (the gestures' touch slop).
    var slopMm: Double

    /// Watched touches, indexed by touch id (ids are small: the lowest free one is reused).
    private var watched: [Watched] = []
    /// The earliest moment a watched touch that is not stuck yet becomes stuck.
    public private(set) var nextDeadline: Timestamp?
    /// Touches stuck now.
    public private(set) var stuckCount = 0
    /// Stuck touches that lifted in the frame last observed: the arena must not see their lift.
    private var releasedInFrame: [Int] = []

    private struct Watched: Sendable {
        var active = false
        var anchorMm = PhysicalPoint(x: 0, y: 0)
        var stillSince = Timestamp(microseconds: 0)
        var stuckAt: Timestamp?
    }

    /// A filter leaving out contacts still (within `slopMm`) for `stuckAfterSeconds`; 0 turns it off.
    public init(stuckAfterSeconds: Double, slopMm: Double) {
        self.stuckAfterSeconds = stuckAfterSeconds.isFinite ? Swift.max(0, stuckAfterSeconds) : 0
        self.slopMm = slopMm
    }

    var isEnabled: Bool { stuckAfterSeconds > 0 }
    private var stuckAfterMicroseconds: Int64 { Int64(stuckAfterSeconds * 1_000_000) }
    /// When a still touch becomes stuck, saturated: a recording's times may lie anywhere in 64 bits.
    private func stuckTime(of w: Watched) -> Int64 {
        Timestamp.saturatingSum(w.stillSince.microseconds, stuckAfterMicroseconds)
    }

    /// Reads one frame of the tracker; true when the arena must get ``withoutStuck(_:)`` of it
    /// instead of the frame itself (some touch is stuck, or a stuck one lifted in it). A stuck
    /// touch that lifts (or is cancelled) is reported in `changes`.
    package mutating func observe(_ frame: TouchFrame, changes: inout [StuckContactChange]) -> Bool {
        if !releasedInFrame.isEmpty { releasedInFrame.removeAll(keepingCapacity: true) }
        var highestID = -1
        for touch in frame.touches where touch.id > highestID { highestID = touch.id }
        if highestID >= watched.count { watched += Array(repeating: Watched(), count: highestID + 1 - watched.count) }
        let slop2 = slopMm * slopMm
        var moved = false
        // Through the buffer: indexed by the array, each access checked its uniqueness and bounds.
        watched.withUnsafeMutableBufferPointer { w in
            for touch in frame.touches {
                let id = touch.id
                guard w[id].active else {
                    if !touch.phase.isFinished {
                        w[id] = Watched(active: true, anchorMm: touch.mm, stillSince: frame.time)
                        moved = true
                    }
                    continue
                }
                if touch.phase.isFinished {
                    w[id].active = false
                    moved = true
                    if let stuckAt = w[id].stuckAt {
                        stuckCount -= 1
                        releasedInFrame.append(id)
                        changes.append(
                            StuckContactChange(
                                kind: .released, touchID: id, time: frame.time, positionMm: touch.mm,
                                stillSeconds: frame.time.seconds - w[id].stillSince.seconds,
                                stuckSeconds: frame.time.seconds - stuckAt.seconds))
                    }
                    continue
                }
                // A touch that did not move keeps its anchor; a stuck one stays stuck.
                guard touch.phase != .stationary, w[id].stuckAt == nil else { continue }
                let dx = touch.mm.x - w[id].anchorMm.x, dy = touch.mm.y - w[id].anchorMm.y
                if dx * dx + dy * dy > slop2 {
                    w[id].anchorMm = touch.mm
                    w[id].stillSince = frame.time
                    moved = true
                }
            }
        }
        if moved { refreshDeadline() }
        return stuckCount > 0 || !releasedInFrame.isEmpty
    }

    /// `frame` without the stuck touches and the stuck ones that lifted in it (after ``observe(_:changes:)``).
    func withoutStuck(_ frame: TouchFrame) -> TouchFrame {
        var kept = frame
        kept.touches.removeAll { touch in isStuck(touch.id) || releasedInFrame.contains(touch.id) }
        return kept
    }

    /// ``observe(_:changes:)``, then the frame the arena gets.
    package mutating func filter(_ frame: TouchFrame, changes: inout [StuckContactChange]) -> TouchFrame {
        observe(frame, changes: &changes) ? withoutStuck(frame) : frame
    }

    /// Marks every touch whose still time ends by `time` stuck, reporting each in `changes`, and
    /// returns the frame that tells the arena they are gone: `current` (the tracker's touches now,
    /// stationary) with the newly stuck ones cancelled and the ones stuck before left out. Nil when
    /// none became stuck.
    ///
    /// A watched touch missing from `current` ended in the frame the tracker is building (the timer
    /// fired between that frame's events, whose times may differ in a broken recording): it is
    /// forgotten, not stuck, so the arena sees its end in that frame like any touch's (one stuck
    /// before stays stuck: its end in that frame is its release). Made stuck, it was in no frame
    /// the arena got, its end was kept from the arena as a stuck touch's, and a per-touch pan on it
    /// never ended (found by the Pipeline fuzzer).
    package mutating func fire(at time: Timestamp, current: TouchFrame, changes: inout [StuckContactChange])
        -> TouchFrame?
    {
        var newlyStuck: [Int] = []
        for i in watched.indices where watched[i].active && watched[i].stuckAt == nil {
            guard let touch = current.touches.first(where: { $0.id == i }) else {
                watched[i].active = false
                continue
            }
            guard stuckTime(of: watched[i]) <= time.microseconds else { continue }
            let becameStuck = Timestamp(microseconds: stuckTime(of: watched[i]))
            watched[i].stuckAt = becameStuck
            stuckCount += 1
            newlyStuck.append(i)
            changes.append(
                StuckContactChange(
                    kind: .stuck, touchID: i, time: becameStuck, positionMm: touch.mm,
                    stillSeconds: stuckAfterSeconds, stuckSeconds: 0))
        }
        refreshDeadline()
        guard !newlyStuck.isEmpty else { return nil }
        var frame = current
        frame.time = time
        frame.touches = current.touches.compactMap { touch in
            if newlyStuck.contains(touch.id) {
                var cancelled = touch
                cancelled.phase = .cancelled
                cancelled.time = time
                return cancelled
            }
            return isStuck(touch.id) ? nil : touch
        }
        return frame
    }

    /// Forgets every touch (the device was removed or reconfigured: its touches are cancelled).
    package mutating func reset() {
        watched.removeAll(keepingCapacity: true)
        releasedInFrame.removeAll(keepingCapacity: true)
        stuckCount = 0
        nextDeadline = nil
    }

    private func isStuck(_ id: Int) -> Bool { id < watched.count && watched[id].active && watched[id].stuckAt != nil }

    private mutating func refreshDeadline() {
        guard isEnabled else { nextDeadline = nil; return }
        var earliest: Int64?
        for w in watched where w.active && w.stuckAt == nil {
            let t = stuckTime(of: w)
            if earliest.map({ t < $0 }) ?? true { earliest = t }
        }
        nextDeadline = earliest.map { Timestamp(microseconds: $0) }
    }
}

/// A touch that became stuck, or a stuck touch that lifted (``StuckContactFilter``).
public struct StuckContactChange: Hashable, Sendable {
    /// What happened to the touch.
    public enum Kind: String, Hashable, Sendable {
        /// Still for the threshold: left out of gesture recognition from now on.
        case stuck
        /// A stuck touch lifted (or was cancelled).
        case released
    }
    /// What happened to the touch.
    public var kind: Kind
    /// The touch's id, as in the touches frames.
    public var touchID: Int
    /// When it became stuck (still since then minus the threshold), or when it lifted.
    public var time: Timestamp
    /// Where it is, mm in the display frame.
    public var positionMm: PhysicalPoint
    /// How long it had stayed still: the threshold when it becomes stuck; at the lift, the whole time.
    public var stillSeconds: Double
    /// How long it was left out of recognition (0 when it becomes stuck).
    public var stuckSeconds: Double

    /// A change from its fields.
    public init(
        kind: Kind, touchID: Int, time: Timestamp, positionMm: PhysicalPoint, stillSeconds: Double, stuckSeconds: Double
    ) {
        (self.kind, self.touchID, self.time, self.positionMm) = (kind, touchID, time, positionMm)
        (self.stillSeconds, self.stuckSeconds) = (stillSeconds, stuckSeconds)
    }
}
