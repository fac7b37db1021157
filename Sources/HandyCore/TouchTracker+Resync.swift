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
        cancelEveryContact(at: time)
    }
}
