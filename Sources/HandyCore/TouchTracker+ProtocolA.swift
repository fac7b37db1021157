// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT, matched to the touches
// of the previous frame by distance.
extension TouchTracker {
    /// SYN_MT_REPORT: the pending protocol-A contact is complete.
    mutating func closeContact() {
        defer {
            pendingContact = RawContact()
            pendingContactHasValues = false
        }
        // An empty SYN_MT_REPORT (no contacts) or a contact without a position carries nothing.
        guard pendingContactHasValues, pendingContact.positionBits == 3, isTouching(pendingContact) else { return }
        guard contactCount < contacts.count else {
            counters.droppedContacts &+= 1
            return
        }
        contacts[contactCount] = pendingContact
        contactCount += 1
    }

    /// Protocol A: continues each touch with the nearest contact (greedy, closest pairs first,
    /// within ``maxContactJumpMm``); unmatched touches end, unmatched contacts begin.
    mutating func matchContacts(at time: Timestamp) {
        let n = contactCount
        for c in 0..<n {
            matchedContact[c] = false
            let cn = normalized(DevicePoint(x: contacts[c].x, y: contacts[c].y))
            contactMm[c] = PhysicalPoint(x: cn.x * displayWidthMm, y: cn.y * displayHeightMm)
        }
        for i in matchedTouch.indices { matchedTouch[i] = false }
        if matchedTouch.count < idStates.count {
            matchedTouch.append(contentsOf: repeatElement(false, count: idStates.count - matchedTouch.count))
        }
        let maxJumpSquared = maxContactJumpMm * maxContactJumpMm
        // Few contacts (≤ 10 on real hardware): repeated closest-pair search beats building a
        // sorted pair list and allocates nothing.
        while true {
            var best = Double.infinity
            var bestTouch = -1, bestContact = -1
            for id in idStates.indices where idStates[id] == .active && !matchedTouch[id] {
                let mm = touchesByID[id].mm
                for c in 0..<n where !matchedContact[c] {
                    let dx = contactMm[c].x - mm.x, dy = contactMm[c].y - mm.y
                    let d = dx * dx + dy * dy
                    if d < best { best = d; bestTouch = id; bestContact = c }
                }
            }
            guard bestTouch >= 0, best <= maxJumpSquared else { break }
            matchedTouch[bestTouch] = true
            matchedContact[bestContact] = true
            update(id: bestTouch, from: contacts[bestContact], at: time)
        }
        // Protocol A carries the whole state in every frame, so after SYN_DROPPED the contacts
        // that are still there continue; the ones gone were lost in the drop: cancelled.
        let gonePhase: TouchPhase = resyncedFrame ? .cancelled : .ended
        for id in idStates.indices where idStates[id] == .active && !matchedTouch[id] {
            finish(touchID: id, phase: gonePhase, at: time)
        }
        for c in 0..<n where !matchedContact[c] {
            _ = begin(from: contacts[c], at: time)
        }
    }
}
