import HandySynthetic
import Testing

@testable import HandyCore

/// SYN_DROPPED, id reuse, out-of-range input, missing SYN_REPORT, unknown events, device removal.
@Suite struct TrackerFaultTests {
    let screen = SyntheticTouchscreen(mtProtocol: .slots(4), maxX: 1999, maxY: 999, resolution: 10)

    /// A moves for 0.2 s (slot 0); B rests 0…0.05 s (slot 1); C rests 0.07…0.3 s (slot 1 again).
    /// Every frame up to k20 has A's motion, so frame index = k there.
    func dropScenario() -> [[InputEvent]] {
        SyntheticStream(device: screen).frames([
            .line(fromMm: (20, 50), toMm: (60, 50), startSeconds: 0, durationSeconds: 0.2),
            .hold(atMm: (100, 50), startSeconds: 0, durationSeconds: 0.05),
            .hold(atMm: (150, 50), startSeconds: 0.07, durationSeconds: 0.23),
        ])
    }

    @Test func libevdevResyncCancelsTheLostTouchAndKeepsTheSurvivor() throws {
        let frames = dropScenario()
        #expect(frames.count == 22)  // k0…k20 (A moves every frame), then C's lift at k30
        // Frames 4…7 are lost: B's lift (frame 5) and C's start (frame 7) happen in the drop.
        let (out, counters) = trackerFrames(
            screen, SyntheticFault.libevdevSynDropped(frames, dropping: 4..<8).flatMap { $0 })
        let resyncIndex = try #require(out.firstIndex { $0.resynced })
        #expect(out.filter(\.resynced).count == 1)
        #expect(trackerPhases(out[resyncIndex - 1]) == ["0:moved", "1:stationary"])
        // libevdev ≥ 1.10 form: the terminating frame first, then the new state.
        #expect(trackerPhases(out[resyncIndex]) == ["0:stationary", "1:cancelled"])
        #expect(trackerPhases(out[resyncIndex + 1]) == ["0:moved", "1:began"])
        let c = out[resyncIndex + 1].touches[1]
        #expect(c.device.x == 1500)
        // B never ends as a lift; A keeps id 0 until its real lift.
        #expect(!out.contains { f in f.touches.contains { $0.phase == .ended && $0.device.x == 1000 } })
        #expect(out.flatMap(\.touches).filter { $0.phase == .ended }.map(\.id) == [0, 1])
        #expect(out.flatMap(\.touches).filter { $0.device.y == 500 && $0.id == 0 }.allSatisfy { $0.startMm.x < 21 })
        #expect(counters.resyncs == 1 && counters.cancelledTouches == 1)
        #expect(counters.reusedTrackingIDs == 0 && counters.missingSynReports == 0)
    }

    @Test func aLiftLostInTheDropIsACancel() throws {
        // Frames 4…5 lost: B's lift (N → −1 needs no terminating frame in libevdev's sync).
        let (out, counters) = trackerFrames(
            screen, SyntheticFault.libevdevSynDropped(dropScenario(), dropping: 4..<6).flatMap { $0 })
        let i = try #require(out.firstIndex { $0.resynced })
        #expect(trackerPhases(out[i]) == ["0:moved", "1:cancelled"])
        #expect(trackerPhases(out[i + 1]) == ["0:moved"])
        #expect(counters.cancelledTouches == 1)
    }

    @Test func resyncWithANewTrackingIDInOneFrame() {
        // libevdev before 1.10: the changed tracking id comes without a −1 first.
        var tracker = TouchTracker(description: screen.description)
        let t1 = Timestamp(seconds: 1), t2 = Timestamp(seconds: 2), t3 = Timestamp(seconds: 3)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 5, at: t1), trackerAbs(AbsCode.mtPositionX, 100, at: t1),
                trackerAbs(AbsCode.mtPositionY, 100, at: t1),
                trackerAbs(AbsCode.mtSlot, 1, at: t1), trackerAbs(AbsCode.mtTrackingID, 6, at: t1),
                trackerAbs(AbsCode.mtPositionX, 300, at: t1), trackerSynReport(at: t1),
                trackerSynDropped(at: t2), trackerAbs(AbsCode.mtSlot, 0, at: t2),
                trackerAbs(AbsCode.mtTrackingID, 7, at: t2), trackerAbs(AbsCode.mtPositionX, 700, at: t2),
                trackerAbs(AbsCode.mtSlot, 1, at: t2), trackerAbs(AbsCode.mtPositionX, 350, at: t2),
                trackerSynReport(at: t2),
                trackerSynReport(at: t3),
            ])
        #expect(
            out.map(trackerPhases) == [
                ["0:began", "1:began"], ["0:cancelled", "1:moved", "2:began"], ["1:stationary", "2:stationary"],
            ])
        #expect(out.map(\.resynced) == [false, true, false])
        // The cancelled touch keeps its last known position, the new one has the synced values.
        #expect(out[1].touches[0].device == DevicePoint(x: 100, y: 100))
        #expect(out[1].touches[2].device == DevicePoint(x: 700, y: 100))
        #expect(tracker.counters.reusedTrackingIDs == 0)
    }

    @Test func resyncWithoutChangesOnlyFlagsTheFrame() {
        var tracker = TouchTracker(description: screen.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 5), trackerAbs(AbsCode.mtPositionX, 100), trackerSynReport(),
                trackerSynDropped(), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:stationary"]])
        #expect(out[1].resynced && out[1].hasChanges)
        #expect(tracker.counters.cancelledTouches == 0)
    }

    @Test func rawKernelDropDiscardsThePartialFrameAndCancelsEverything() throws {
        var frames = dropScenario()
        frames += SyntheticStream(device: screen, start: Timestamp(seconds: 200)).frames([
            .hold(atMm: (5, 5), startSeconds: 0, durationSeconds: 0.01)
        ])
        let events = SyntheticFault.kernelSynDropped(frames, dropping: 4..<8).flatMap { $0 }
        var tracker = TouchTracker(description: screen.description, synDroppedHandling: .discardUntilReport)
        let out = trackerFrames(&tracker, events)
        let i = try #require(out.firstIndex { $0.resynced })
        #expect(trackerPhases(out[i]) == ["0:cancelled", "1:cancelled"])
        // A and C are down but unknown: nothing until a new contact (the later finger) begins.
        let after = out[(i + 1)...].filter { !$0.touches.isEmpty }
        #expect(after.map(trackerPhases) == [["0:began"], ["0:ended"]])
        #expect(after.first?.touches.first?.device == DevicePoint(x: 50, y: 50))
        #expect(
            tracker.counters.resyncs == 1 && tracker.counters.cancelledTouches == 2
                && tracker.counters.discardedEvents > 0)
        #expect(!out.contains { f in f.touches.contains { $0.phase == .ended && $0.device.x == 1000 } })
    }

    @Test func trackingIDReusedWithoutLiftCancelsTheOldTouch() {
        let frames = SyntheticStream(device: screen).frames([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.03),  // tracking id 0, slot 0
            .hold(atMm: (30, 10), startSeconds: 0.05, durationSeconds: 0.03),  // tracking id 1, slot 0
        ])
        let (out, counters) = trackerFrames(screen, SyntheticFault.removingLift(ofTrackingID: 0, frames).flatMap { $0 })
        #expect(out.map(trackerPhases) == [["0:began"], ["0:stationary"], ["0:cancelled", "1:began"], ["1:ended"]])
        #expect(out[2].touches[1].device == DevicePoint(x: 300, y: 100))
        #expect(counters.reusedTrackingIDs == 1 && counters.cancelledTouches == 1)
        #expect(out[2].resynced == false)
    }

    /// What `device` messages announce (and the tracker allocates) is the declared slot count up
    /// to 256: a hostile ABS_MT_SLOT maximum of 2³¹−1 declares 2³¹ slots.
    @Test func theSlotsTrackedAreTheDeclaredOnesUpTo256() {
        func device(slotMaximum: Int32?) -> DeviceDescription {
            var axes: [UInt16: AbsInfo] = [
                AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 99),
                AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 99),
            ]
            if let slotMaximum { axes[AbsCode.mtSlot] = AbsInfo(minimum: 0, maximum: slotMaximum) }
            return DeviceDescription(name: "slots", absAxes: axes)
        }
        let hostile = device(slotMaximum: .max)
        #expect(hostile.slotCount == 2_147_483_648 && hostile.trackedSlotCount == 256)
        #expect(device(slotMaximum: 9).trackedSlotCount == 10 && device(slotMaximum: 255).trackedSlotCount == 256)
        #expect(device(slotMaximum: nil).trackedSlotCount == 0)
        // The tracker has exactly those: slot 255 begins a touch, slot 256 is out of range.
        var tracker = TouchTracker(description: hostile)
        let t = Timestamp(seconds: 1)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtSlot, 255, at: t), trackerAbs(AbsCode.mtTrackingID, 1, at: t),
                trackerAbs(AbsCode.mtPositionX, 5, at: t),
                trackerAbs(AbsCode.mtSlot, 256, at: t), trackerAbs(AbsCode.mtTrackingID, 2, at: t),
                trackerSynReport(at: t),
            ])
        #expect(out.map(trackerPhases) == [["0:began"]])
        #expect(tracker.counters.outOfRangeSlots == 1)
    }

    @Test func outOfRangeSlotsAreIgnoredAndCounted() {
        var frames = SyntheticStream(device: screen).frames([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.02)
        ])
        frames = SyntheticFault.inserting(SyntheticFault.contactInSlot(7), intoFrame: 0, frames)
        frames = SyntheticFault.inserting(SyntheticFault.contactInSlot(-3, trackingID: 12), intoFrame: 1, frames)
        frames = SyntheticFault.inserting(
            SyntheticFault.contactInSlot(Int32.max, trackingID: Int32.max), intoFrame: 1, frames)
        let (out, counters) = trackerFrames(screen, frames.flatMap { $0 })
        #expect(out.map(trackerPhases) == [["0:began"], ["0:ended"]])
        #expect(counters.outOfRangeSlots == 3)
    }

    @Test func outOfRangeValuesAreClampedAndCounted() throws {
        let full = SyntheticTouchscreen.fullFeatured(slots: 2, widthMm: 100, heightMm: 50, unitsPerMm: 10)
        var frames = SyntheticStream(device: full).frames([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.02, pressure: 0.5)
        ])
        frames = SyntheticFault.replacingValues(of: AbsCode.mtPositionX, inFrame: 0, with: Int32.min, frames)
        frames = SyntheticFault.replacingValues(of: AbsCode.mtPositionY, inFrame: 0, with: Int32.max, frames)
        frames = SyntheticFault.replacingValues(of: AbsCode.mtPressure, inFrame: 0, with: 100_000, frames)
        // beyond max: 360° devices do that
        frames = SyntheticFault.inserting([trackerAbs(AbsCode.mtOrientation, 300)], intoFrame: 0, frames)
        let (out, counters) = trackerFrames(full, frames.flatMap { $0 })
        let t = try #require(out.first?.touches.first)
        #expect(t.device == DevicePoint(x: 0, y: 499))
        #expect(t.pressure == 1)
        #expect(trackerApprox(t.orientation, 300.0 / 90 * Double.pi / 2))
        #expect(counters.outOfRangeValues == 3)
    }

    @Test func negativeTrackingIDsOtherThanMinusOneAreLifts() {
        var tracker = TouchTracker(description: screen.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 3), trackerSynReport(), trackerAbs(AbsCode.mtTrackingID, Int32.min),
                trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:ended"]])
    }

    @Test func missingSynReportBetweenBeginAndLift() {
        let frames = SyntheticStream(device: screen).frames([
            .hold(atMm: (10, 10), startSeconds: 0, durationSeconds: 0.01)
        ])
        #expect(frames.count == 2)
        let (out, counters) = trackerFrames(
            screen, SyntheticFault.removingSynReport(afterFrame: 0, frames).flatMap { $0 })
        #expect(out.map(trackerPhases) == [["0:began"], ["0:ended"]])
        #expect(counters.missingSynReports == 1 && counters.frames == 2)
    }

    @Test func missingSynReportBetweenTwoTrackingIDsInOneSlot() {
        var tracker = TouchTracker(description: screen.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtPositionX, 100),
                trackerAbs(AbsCode.mtTrackingID, 2), trackerAbs(AbsCode.mtPositionX, 200), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"], ["0:cancelled", "1:began"]])
        #expect(tracker.counters.missingSynReports == 1 && tracker.counters.reusedTrackingIDs == 1)
    }

    @Test func unknownEventsAreCountedAndIgnored() {
        var tracker = TouchTracker(description: screen.description)
        let out = trackerFrames(
            &tracker,
            [
                trackerEvent(.zero, 0x1e, 0, 1), trackerEvent(.zero, EventType.abs, 0x45, 1),
                trackerEvent(.zero, EventType.syn, 9, 0),
                trackerEvent(.zero, EventType.msc, 5, 77), trackerAbs(AbsCode.mtTrackingID, 1), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [["0:began"]])
        #expect(tracker.counters.unknownEvents == 3 && tracker.counters.events == 6)
    }

    @Test func cancelAllOnDeviceRemoval() {
        var tracker = TouchTracker(description: screen.description)
        _ = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtSlot, 1), trackerAbs(AbsCode.mtTrackingID, 2),
                trackerSynReport(),
            ])
        let cancelled = tracker.cancelAll(at: Timestamp(seconds: 5))
        #expect(cancelled.map(trackerPhases) == ["0:cancelled", "1:cancelled"])
        #expect(tracker.cancelAll(at: Timestamp(seconds: 6)) == nil)
        // Stale slots stay quiet; a new contact begins normally.
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtPositionX, 9), trackerSynReport(), trackerAbs(AbsCode.mtTrackingID, 3),
                trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [[], ["0:began"]])
        #expect(tracker.counters.cancelledTouches == 2)
    }

    @Test func arbitraryEventsNeverTrap() {
        // Deterministic pseudo-random events over every type/code/value corner.
        for device in [
            screen, SyntheticTouchscreen(mtProtocol: .contacts), SyntheticTouchscreen(mtProtocol: .singleTouch),
            .fullFeatured(),
        ] {
            var tracker = TouchTracker(description: device.description)
            var state: UInt64 = 0x9E3779B97F4A7C15
            let values: [Int32] = [Int32.min, -2, -1, 0, 1, 2, 5, 100, 4095, 65535, Int32.max]
            for _ in 0..<20_000 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let type = UInt16([0, 0, 1, 3, 3, 3, 3, 4, 0x1f][Int(state >> 60) % 9])
                let code = UInt16(truncatingIfNeeded: (state >> 20) % (type == 3 ? 0x42 : 5))
                let value = values[Int((state >> 40) % UInt64(values.count))]
                // Mostly ordered times, sometimes the extremes of Int64.
                let micros: Int64 = state % 97 == 0 ? Int64.max : state % 89 == 0 ? Int64.min : Int64(state >> 44)
                _ = tracker.handle(
                    InputEvent(time: Timestamp(microseconds: micros), type: type, code: code, value: value))
            }
            #expect(tracker.counters.events == 20_000)
            _ = tracker.cancelAll(at: .zero)
            #expect(tracker.activeTouchCount == 0)
        }
    }
}
