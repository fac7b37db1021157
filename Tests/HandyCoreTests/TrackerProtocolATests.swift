import HandyCore
import HandySynthetic
import Testing

@Suite struct TrackerProtocolATests {
    let screen = SyntheticTouchscreen(
        mtProtocol: .contacts, maxX: 1999, maxY: 999, resolution: 10, emulatesPointer: false)

    @Test func nearestNeighbourFollowsCrossingFingersWhateverTheContactOrder() throws {
        let stream = SyntheticStream(device: screen, reversesContactOrderOnOddFrames: true)
        let events = stream.events([
            .line(fromMm: (20, 50), toMm: (80, 53), startSeconds: 0, durationSeconds: 0.5),  // A: rightwards
            // B: leftwards, passes 3 mm from A
            .line(fromMm: (80, 56), toMm: (20, 53), startSeconds: 0, durationSeconds: 0.5),
            .hold(atMm: (150, 20), startSeconds: 0.2, durationSeconds: 0.1),  // C appears and leaves
        ])
        let (frames, counters) = trackerFrames(screen, events)
        #expect(frames.count == 51)
        #expect(trackerPhases(frames[0]) == ["0:began", "1:began"])
        #expect(frames[0].touches.map(\.device.x) == [200, 800])
        #expect(trackerPhases(frames[20]) == ["0:moved", "1:moved", "2:began"])
        #expect(trackerPhases(frames[30]) == ["0:moved", "1:moved", "2:ended"])
        #expect(trackerPhases(frames[50]) == ["0:ended", "1:ended"])
        for (previous, frame) in zip(frames, frames.dropFirst()) {
            let a0 = try #require(previous.touches.first { $0.id == 0 }),
                a1 = try #require(frame.touches.first { $0.id == 0 })
            let b0 = try #require(previous.touches.first { $0.id == 1 }),
                b1 = try #require(frame.touches.first { $0.id == 1 })
            #expect(a1.device.x >= a0.device.x && b1.device.x <= b0.device.x, "ids swapped at \(frame.time)")
        }
        #expect(frames.allSatisfy { $0.touches.count == Set($0.touches.map(\.id)).count })
        #expect(counters.droppedContacts == 0)
    }

    @Test func aContactTooFarAwayBeginsANewTouch() {
        var tracker = TouchTracker(description: screen.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtPositionX, 200), trackerAbs(AbsCode.mtPositionY, 500),
                trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0), trackerSynReport(),
                trackerAbs(AbsCode.mtPositionX, 1500), trackerAbs(AbsCode.mtPositionY, 500),
                trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0), trackerSynReport(),
                // 30 mm: within the default 40 mm jump.
                trackerAbs(AbsCode.mtPositionX, 1800), trackerAbs(AbsCode.mtPositionY, 500),
                trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:ended", "1:began"], ["1:moved"]])
    }

    @Test func contactsWithoutPositionAndAnOmittedLastMTReport() {
        var tracker = TouchTracker(description: screen.description)
        let mt = trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtPositionX, 200), mt,  // no y: ignored
                mt,  // empty
                // last SYN_MT_REPORT omitted
                trackerAbs(AbsCode.mtPositionX, 900), trackerAbs(AbsCode.mtPositionY, 100), trackerSynReport(),
                mt, trackerSynReport(),  // all lifted
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:ended"]])
        #expect(out[0].touches[0].device == DevicePoint(x: 900, y: 100))
    }

    @Test func moreContactsThanCapacityAreCounted() {
        var tracker = TouchTracker(
            description: screen.description, synDroppedHandling: .resyncEventsFollow, maxContacts: 2)
        let mt = trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0)
        var events: [InputEvent] = []
        for i in 0..<3 {
            events += [trackerAbs(AbsCode.mtPositionX, Int32(100 + 500 * i)), trackerAbs(AbsCode.mtPositionY, 100), mt]
        }
        events.append(trackerSynReport())
        let out = trackerFrames(&tracker, events)
        #expect(out.map(trackerPhases) == [["0:began", "1:began"]])
        #expect(tracker.counters.droppedContacts == 1)
    }
}

@Suite struct TrackerProtocolAResyncTests {
    @Test func contactsGoneAfterSynDroppedAreCancelled() {
        let screen = SyntheticTouchscreen(
            mtProtocol: .contacts, maxX: 1999, maxY: 999, resolution: 10, emulatesPointer: false)
        var tracker = TouchTracker(description: screen.description)
        let mt = trackerEvent(.zero, EventType.syn, SynCode.mtReport, 0)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtPositionX, 200), trackerAbs(AbsCode.mtPositionY, 500), mt,
                trackerAbs(AbsCode.mtPositionX, 1500), trackerAbs(AbsCode.mtPositionY, 500), mt, trackerSynReport(),
                trackerSynDropped(),
                trackerAbs(AbsCode.mtPositionX, 210), trackerAbs(AbsCode.mtPositionY, 500), mt, trackerSynReport(),
                trackerAbs(AbsCode.mtPositionX, 220), trackerAbs(AbsCode.mtPositionY, 500), mt, trackerSynReport(),
                mt, trackerSynReport(),
            ])
        #expect(
            out.map(trackerPhases) == [["0:began", "1:began"], ["0:moved", "1:cancelled"], ["0:moved"], ["0:ended"]])
        #expect(out.map(\.resynced) == [false, true, false, false])
    }

    @Test func singleTouchLiftLearntFromAResyncIsACancel() {
        let st = SyntheticTouchscreen(mtProtocol: .singleTouch, maxX: 999, maxY: 999, resolution: 5)
        var tracker = TouchTracker(description: st.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerEvent(.zero, EventType.key, KeyCode.btnTouch, 1), trackerAbs(AbsCode.x, 10), trackerSynReport(),
                trackerSynDropped(), trackerEvent(.zero, EventType.key, KeyCode.btnTouch, 0), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:cancelled"]])
    }
}
