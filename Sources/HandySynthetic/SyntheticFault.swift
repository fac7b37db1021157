import HandyCore

/// Faults to inject into synthetic streams (lists of frames as ``SyntheticStream/frames(_:)``
/// returns them, each ending with SYN_REPORT). Each returns the changed frame list; a frame index
/// out of range leaves the stream unchanged.
public enum SyntheticFault {
    /// SYN_DROPPED as the input layer hands it over after a libevdev resync: frames
    /// `dropped` are lost and replaced by SYN_DROPPED followed by the sync events that bring the
    /// state from before the drop to after it, then SYN_REPORT, in libevdev's order: changed keys
    /// and plain axes; then, for slots whose tracking id changed from one contact to another, a −1
    /// each in a terminating frame of its own (closed by SYN_REPORT); then every changed slot value;
    /// then ABS_MT_SLOT back to the current slot.
    public static func libevdevSynDropped(_ frames: [[InputEvent]], dropping dropped: Range<Int>) -> [[InputEvent]] {
        guard dropped.lowerBound >= 0, dropped.upperBound <= frames.count, !dropped.isEmpty else { return frames }
        let before = SlotStateReplay(frames[..<dropped.lowerBound])
        let after = SlotStateReplay(frames[..<dropped.upperBound])
        let time = frames[dropped.lowerBound].first?.time ?? .zero
        var sync: [InputEvent] = [InputEvent(time: time, type: EventType.syn, code: SynCode.dropped, value: 0)]
        var emittedSlot = before.currentSlot
        func abs(_ code: UInt16, _ value: Int32) {
            if code == AbsCode.mtSlot { emittedSlot = Int(value) }
            sync.append(InputEvent(time: time, type: EventType.abs, code: code, value: value))
        }
        // Keys and plain axes first (libevdev syncs them before the slots).
        for (code, v) in after.other.sorted(by: { $0.key < $1.key }) where before.other[code] != v {
            let type = UInt16(truncatingIfNeeded: code >> 16)
            sync.append(InputEvent(time: time, type: type, code: UInt16(truncatingIfNeeded: code & 0xffff), value: v))
        }
        let slots = Swift.max(before.slots.count, after.slots.count)
        var terminated = false
        for s in 0..<slots {
            let old = before.value(slot: s, code: AbsCode.mtTrackingID) ?? -1
            let new = after.value(slot: s, code: AbsCode.mtTrackingID) ?? -1
            // Only N → M needs terminating; N → −1 is an ordinary update below.
            if old != -1 && new != -1 && old != new {
                abs(AbsCode.mtSlot, Int32(s))
                abs(AbsCode.mtTrackingID, -1)
                terminated = true
            }
        }
        if terminated { sync.append(InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0)) }
        for s in 0..<slots {
            var changes: [(UInt16, Int32)] = []
            let oldID = before.value(slot: s, code: AbsCode.mtTrackingID) ?? -1
            let newID = after.value(slot: s, code: AbsCode.mtTrackingID) ?? -1
            // After a termination the slot is "new": send its tracking id again.
            if newID != oldID { changes.append((AbsCode.mtTrackingID, newID)) }
            for (code, v) in after.slots[s].sorted(by: { $0.key < $1.key }) where code != AbsCode.mtTrackingID {
                if before.value(slot: s, code: code) != v { changes.append((code, v)) }
            }
            if !changes.isEmpty {
                abs(AbsCode.mtSlot, Int32(s))
                for (c, v) in changes { abs(c, v) }
            }
        }
        if after.currentSlot != emittedSlot { abs(AbsCode.mtSlot, Int32(after.currentSlot)) }
        sync.append(InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0))
        var out = Array(frames[..<dropped.lowerBound])
        out.append(sync)
        out.append(contentsOf: frames[dropped.upperBound...])
        return out
    }

    /// SYN_DROPPED as the kernel puts it in a raw stream (and a recording): frames `dropped` are
    /// lost; SYN_DROPPED is followed by the second half of the last lost frame, up to its SYN_REPORT
    /// (a partial frame the reader must discard).
    public static func kernelSynDropped(_ frames: [[InputEvent]], dropping dropped: Range<Int>) -> [[InputEvent]] {
        guard dropped.lowerBound >= 0, dropped.upperBound <= frames.count, !dropped.isEmpty else { return frames }
        let last = frames[dropped.upperBound - 1]
        let time = frames[dropped.lowerBound].first?.time ?? .zero
        var partial = [InputEvent(time: time, type: EventType.syn, code: SynCode.dropped, value: 0)]
        partial.append(contentsOf: last[(last.count / 2)...])
        var out = Array(frames[..<dropped.lowerBound])
        out.append(partial)
        out.append(contentsOf: frames[dropped.upperBound...])
        return out
    }

    /// Removes the lift (ABS_MT_TRACKING_ID −1) of the contact with kernel tracking id `trackingID`,
    /// so the next contact in its slot reuses the slot without a lift.
    public static func removingLift(ofTrackingID trackingID: Int32, _ frames: [[InputEvent]]) -> [[InputEvent]] {
        var slot = 0
        var ids: [Int: Int32] = [:]
        return frames.map { frame in
            frame.filter { e in
                guard e.type == EventType.abs else { return true }
                if e.code == AbsCode.mtSlot { slot = Int(e.value); return true }
                if e.code == AbsCode.mtTrackingID {
                    defer { ids[slot] = e.value }
                    if e.value == -1 && ids[slot] == trackingID { ids[slot] = trackingID; return false }
                }
                return true
            }
        }
    }

    /// Removes the SYN_REPORT that closes frame `index`, merging it with the next frame.
    public static func removingSynReport(afterFrame index: Int, _ frames: [[InputEvent]]) -> [[InputEvent]] {
        guard index >= 0, index + 1 < frames.count else { return frames }
        var out = frames
        var merged = out[index].filter { !$0.isSynReport }
        merged.append(contentsOf: out[index + 1])
        out[index] = merged
        out.remove(at: index + 1)
        return out
    }

    /// Inserts `events` into frame `index`, just before its SYN_REPORT.
    public static func inserting(_ events: [InputEvent], intoFrame index: Int, _ frames: [[InputEvent]])
        -> [[InputEvent]]
    {
        guard frames.indices.contains(index) else { return frames }
        var out = frames
        var frame = out[index]
        let at = frame.lastIndex(where: { $0.isSynReport }) ?? frame.count
        let time = frame.first?.time ?? .zero
        frame.insert(
            contentsOf: events.map {
                var e = $0; e.time = time; return e
            }, at: at)
        out[index] = frame
        return out
    }

    /// Events that touch slot `slot` (meant to be beyond the device's range) with a new contact,
    /// then return to `returnToSlot`.
    public static func contactInSlot(
        _ slot: Int32, trackingID: Int32 = 9999, x: Int32 = 10, y: Int32 = 10, returnToSlot: Int32 = 0
    ) -> [InputEvent] {
        [
            (AbsCode.mtSlot, slot), (AbsCode.mtTrackingID, trackingID), (AbsCode.mtPositionX, x),
            (AbsCode.mtPositionY, y), (AbsCode.mtSlot, returnToSlot),
        ]
        .map { InputEvent(time: .zero, type: EventType.abs, code: $0.0, value: $0.1) }
    }

    /// Replaces the value of every event with `code` (type EV_ABS) in frame `index` by `value`
    /// (e.g. a position beyond the axis maximum, or Int32.min).
    public static func replacingValues(of code: UInt16, inFrame index: Int, with value: Int32, _ frames: [[InputEvent]])
        -> [[InputEvent]]
    {
        guard frames.indices.contains(index) else { return frames }
        var out = frames
        out[index] = out[index].map { e in
            guard e.type == EventType.abs && e.code == code else { return e }
            var c = e
            c.value = value
            return c
        }
        return out
    }
}

/// Protocol-B state after a list of frames, computed independently of the tracker (for building
/// sync events).
struct SlotStateReplay {
    var slots: [[UInt16: Int32]] = []
    var currentSlot = 0
    /// Non-MT state: (type << 16 | code) → value (ABS_X/Y, BTN_TOUCH, ...).
    var other: [UInt32: Int32] = [:]

    init<S: Sequence>(_ frames: S) where S.Element == [InputEvent] {
        for frame in frames {
            for e in frame {
                if e.type == EventType.abs && e.code == AbsCode.mtSlot {
                    currentSlot = Swift.max(0, Int(e.value))
                } else if e.type == EventType.abs && e.code >= AbsCode.mtTouchMajor && e.code <= AbsCode.max {
                    while slots.count <= currentSlot { slots.append([:]) }
                    slots[currentSlot][e.code] = e.value
                } else if e.type == EventType.abs || e.type == EventType.key {
                    other[UInt32(e.type) << 16 | UInt32(e.code)] = e.value
                }
            }
        }
    }

    func value(slot: Int, code: UInt16) -> Int32? { slot < slots.count ? slots[slot][code] : nil }
}
