// Hovering contacts (protocol B on a device with ABS_MT_DISTANCE): a slot whose contact is above
// the device's touching distance holds a hovering contact, with an id of its own, instead of a
// touch. hid-multitouch keeps the tracking id while the distance goes 1 → 0, so a contact that
// lands keeps its slot: its hover ends `landed` and a touch begins in that frame. Called only
// where `tracksHover` is true, so a device without the axis runs none of this.
extension TouchTracker {
    /// Begins or updates the hovering contact of slot `s` from its raw values.
    mutating func hover(slot s: Int, from raw: RawContact, at time: Timestamp) {
        let existing = slotHoverIDs[s]
        let id: Int
        if existing >= 0 {
            id = Int(existing)
            hoversByID[id].phase = .hovering
        } else {
            id = allocateHoverID()
            slotHoverIDs[s] = Int32(id)
            hoversByID[id].id = id
            hoversByID[id].phase = .began
            hoversByID[id].beganAt = time
            hoversByID[id].touchID = nil
        }
        let p = DevicePoint(x: raw.x, y: raw.y)
        let n = normalized(p)
        hoversByID[id].device = p
        hoversByID[id].normalized = n
        hoversByID[id].mm = PhysicalPoint(x: n.x * displayWidthMm, y: n.y * displayHeightMm)
        hoversByID[id].distance = raw.distance
        hoversByID[id].distanceNormalized = normalizedDistance(raw.distance)
        hoversByID[id].time = time
    }

    /// Ends the hovering contact of slot `s`, if it has one: `landed` as touch `touchID`, `ended`
    /// (out of range) or `cancelled`. It keeps the values of the last frame it was in.
    mutating func finishHover(slot s: Int, phase: HoverPhase, touchID: Int? = nil, at time: Timestamp) {
        let existing = slotHoverIDs[s]
        guard existing >= 0 else { return }
        let id = Int(existing)
        slotHoverIDs[s] = -1
        hoversByID[id].phase = phase
        hoversByID[id].touchID = touchID
        hoversByID[id].time = time
        hoverStates[id] = .finishing
    }

    /// 0 at the touching distance (the axis's minimum), 1 at its maximum.
    @inline(__always) func normalizedDistance(_ d: Int32) -> Double {
        let extent = Double(distanceAxis.maximum) - Double(distanceAxis.minimum)
        guard extent > 0 else { return 1 }
        return Swift.min(1, Swift.max(0, (Double(d) - Double(distanceAxis.minimum)) / extent))
    }

    /// Lowest free hover id (ids finishing in this frame are not free yet).
    mutating func allocateHoverID() -> Int {
        for i in hoverStates.indices where hoverStates[i] == .free {
            hoverStates[i] = .active
            return i
        }
        hoversByID.append(Self.blankHover)
        hoverStates.append(.active)
        return hoverStates.count - 1
    }

    /// Every non-free hovering contact, ordered by id, into ``hovering``; frees finished ids.
    mutating func buildHovering() {
        var n = 0
        for id in hoverStates.indices {
            switch hoverStates[id] {
            case .free: continue
            case .active: break
            case .finishing: hoverStates[id] = .free
            }
            if n < hovering.count { hovering[n] = hoversByID[id] } else { hovering.append(hoversByID[id]) }
            n += 1
        }
        if hovering.count > n { hovering.removeLast(hovering.count - n) }
    }

    /// Cancels every hovering contact (resync, device removed).
    mutating func cancelEveryHover(at time: Timestamp) {
        for s in slotHoverIDs.indices { finishHover(slot: s, phase: .cancelled, at: time) }
    }

    /// True while some hovering contact is in range or finishing in the frame being built.
    var hasHover: Bool { hoverStates.contains { $0 != .free } }

    static let blankHover = HoverContact(
        id: 0, phase: .ended, device: DevicePoint(x: 0, y: 0), mm: .zero, normalized: NormalizedPoint(x: 0, y: 0),
        distance: 0, distanceNormalized: 0, beganAt: .zero, time: .zero)
}
