// After SYN_DROPPED: either libevdev's resync events follow (the device's state now, then a
// SYN_REPORT), or, reading the raw kernel, nothing does and the tracker cancels what was active.
extension TouchTracker {
    mutating func beginResync() {
        counters.resyncs &+= 1
        resyncedFrame = true
        switch synDroppedHandling {
        case .discardUntilReport:
            discarding = true
        case .resyncEventsFollow:
            if !resyncing {
                resyncing = true
                for i in slots.indices { slots[i].trackingIDAtDrop = slots[i].trackingID }
            }
        }
        // Half-read protocol-A contacts are unreliable after a drop.
        contactCount = 0
        pendingContact = RawContact()
        pendingContactHasValues = false
    }

    /// After a raw-kernel SYN_DROPPED: everything active is cancelled; slots holding a contact stay
    /// ignored until they get a new tracking id (or a lift).
    mutating func finishDiscardResync(at time: Timestamp) -> TouchFrame? {
        for i in slots.indices {
            if slots[i].touchID >= 0 {
                finish(touchID: Int(slots[i].touchID), phase: .cancelled, at: time)
                slots[i].touchID = -1
            }
            if slots[i].trackingID >= 0 { slots[i].stale = true }
            slots[i].startedThisFrame = false
        }
        if singleTouchID >= 0 {
            finish(touchID: Int(singleTouchID), phase: .cancelled, at: time)
            singleTouchID = -1
        }
        for id in idStates.indices where idStates[id] == .active {
            finish(touchID: id, phase: .cancelled, at: time)
        }
        return buildFrame(at: time)
    }
}
