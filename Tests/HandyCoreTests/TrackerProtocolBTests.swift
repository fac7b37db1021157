import HandySynthetic
import Testing

@testable import HandyCore

@Suite struct TrackerProtocolBTests {
    /// 2000 × 1000 units at 10 units/mm: a 200 × 100 mm screen.
    let screen = SyntheticTouchscreen(mtProtocol: .slots(4), maxX: 1999, maxY: 999, resolution: 10)

    @Test func phasesAndLowestFreeStableIDs() {
        let stream = SyntheticStream(device: screen, emitsUnchangedFrames: true)
        let events = stream.events([
            .hold(atMm: (10, 20), startSeconds: 0, durationSeconds: 0.05),  // A
            .line(fromMm: (50, 50), toMm: (60, 50), startSeconds: 0.01, durationSeconds: 0.03),  // B
            .hold(atMm: (100, 80), startSeconds: 0.06, durationSeconds: 0.02),  // C
        ])
        let (frames, counters) = trackerFrames(screen, events)
        #expect(
            frames.map(trackerPhases) == [
                ["0:began"],
                ["0:stationary", "1:began"],
                ["0:stationary", "1:moved"],
                ["0:stationary", "1:moved"],
                ["0:stationary", "1:ended"],
                ["0:ended"],
                ["0:began"],  // C takes the lowest free id
                ["0:stationary"],
                ["0:ended"],
            ])
        #expect(frames.map(\.hasChanges) == [true, true, true, true, true, true, true, false, true])
        #expect(counters.frames == 9)
        #expect(counters.cancelledTouches == 0 && counters.reusedTrackingIDs == 0 && counters.missingSynReports == 0)
        // B's end keeps its last position (frame 3: 50 + 10·2/3 mm).
        let bEnd = frames[4].touches[1]
        #expect(bEnd.device.x == 567)
        #expect(frames[4].activeTouches.map(\.id) == [0])
        #expect(bEnd.beganAt == stream.time(ofFrame: 1) && bEnd.time == stream.time(ofFrame: 4))
        #expect(trackerApprox(bEnd.startMm.x, 50))  // 500 units at 10 units/mm
    }

    @Test func idFreedInAFrameIsNotReusedInThatFrame() {
        let stream = SyntheticStream(device: screen)
        let events = stream.events([
            .hold(atMm: (10, 20), startSeconds: 0, durationSeconds: 0.03),  // A: id 0, lifts at frame 3
            .hold(atMm: (30, 20), startSeconds: 0, durationSeconds: 0.10),  // B: id 1
            .hold(atMm: (50, 20), startSeconds: 0.03, durationSeconds: 0.03),  // C: down at frame 3 → id 2
            .hold(atMm: (70, 20), startSeconds: 0.04, durationSeconds: 0.01),  // D: frame 4 → id 0
        ])
        let (frames, _) = trackerFrames(screen, events)
        #expect(
            frames.map(trackerPhases) == [
                ["0:began", "1:began"],
                ["0:ended", "1:stationary", "2:began"],
                ["0:began", "1:stationary", "2:stationary"],
                ["0:ended", "1:stationary", "2:stationary"],
                ["1:stationary", "2:ended"],
                ["1:ended"],
            ])
        // Touches are ordered by id in every frame.
        for f in frames { #expect(f.touches.map(\.id) == f.touches.map(\.id).sorted()) }
    }

    @Test func millimetresAndNormalisedWithResolution() throws {
        var tracker = TouchTracker(description: screen.description)
        let t0 = Timestamp(seconds: 1)
        let frames = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 42, at: t0), trackerAbs(AbsCode.mtPositionX, 1000, at: t0),
                trackerAbs(AbsCode.mtPositionY, 250, at: t0),
                trackerSynReport(at: t0),
            ])
        let t = try #require(frames.first?.touches.first)
        #expect(t.id == 0 && t.phase == .began && t.device == DevicePoint(x: 1000, y: 250))
        #expect(tracker.geometry.hasKernelResolution)
        #expect(t.normalized == NormalizedPoint(x: 1000.0 / 1999, y: 250.0 / 999))
        #expect(trackerApprox(t.mm.x, 100) && trackerApprox(t.mm.y, 25))  // (value - min) / resolution
        #expect(t.startMm == t.mm && t.velocity == .zero && t.beganAt == t0)
        #expect(t.majorMm == nil && t.orientation == nil && t.pressure == nil && t.tool == .finger)
    }

    @Test func millimetresFallBackWhenResolutionIsZero() throws {
        // 1000 × 500 units, no resolution: min…max is 250 mm wide, square units → 999/250 units/mm.
        let noRes = SyntheticTouchscreen(mtProtocol: .slots(2), maxX: 999, maxY: 499, resolution: 0, touchMajorMax: 255)
        let events = SyntheticStream(device: noRes).events([
            .hold(atMm: (40, 20), startSeconds: 0, durationSeconds: 0.01, majorMm: 10)
        ])
        let (frames, _) = trackerFrames(noRes, events)
        let t = try #require(frames.first?.touches.first)
        #expect(t.device == DevicePoint(x: 160, y: 80))
        #expect(trackerApprox(t.mm.x, 160.0 / 999 * 250) && trackerApprox(t.mm.y, 80.0 / 999 * 250))
        // 10 mm is 39.96 units, sent as 40.
        #expect(trackerApprox(t.majorMm, 40.0 / 999 * 250) && trackerApprox(t.minorMm, 40.0 / 999 * 250))
        #expect(!DeviceGeometry(description: noRes.description).hasKernelResolution)
    }

    @Test func stationaryFrameStillEmittedAndEmptyFrames() {
        var tracker = TouchTracker(description: screen.description)
        let a = tracker.handle(trackerSynReport())
        #expect(a?.touches.isEmpty == true && a?.hasChanges == false)
        _ = trackerFrames(
            &tracker, [trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtPositionX, 10), trackerSynReport()])
        let b = tracker.handle(trackerSynReport(at: Timestamp(seconds: 2)))
        #expect(b.map(trackerPhases) == ["0:stationary"])
        #expect(b?.hasChanges == false)
        #expect(b?.touches.first?.time == Timestamp(seconds: 2))
    }

    @Test func newContactInAFreshSlotKeepsThatSlotsPreviousValues() {
        // The kernel filters repeated values per slot, so a new contact at the same x sends only y.
        var tracker = TouchTracker(description: screen.description)
        let f = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtPositionX, 300),
                trackerAbs(AbsCode.mtPositionY, 400), trackerSynReport(),
                trackerAbs(AbsCode.mtTrackingID, -1), trackerSynReport(),
                trackerAbs(AbsCode.mtTrackingID, 2), trackerAbs(AbsCode.mtPositionY, 500), trackerSynReport(),
            ])
        #expect(f[2].touches.first?.device == DevicePoint(x: 300, y: 500))
    }

    @Test(arguments: [1.0, -1.0])
    func velocityOnAConstantSpeedPath(direction: Double) {
        // 100 mm/s along x for 1 s at 100 Hz.
        let from = (x: 100.0 - 50 * direction, y: 50.0), to = (x: 100.0 + 50 * direction, y: 50.0)
        let events = SyntheticStream(device: screen).events([
            .line(fromMm: from, toMm: to, startSeconds: 0, durationSeconds: 1)
        ])
        let (frames, _) = trackerFrames(screen, events)
        let touches = frames.compactMap(\.touches.first)
        #expect(touches.first?.velocity == .zero)
        // The geometry maps 2000 units to 200 mm through (span - 1), so 100 mm/s of input reads as 100·2000/1999.
        let expected = 100.0 * 2000 / 1999 * direction
        for t in touches.dropFirst(10).dropLast(2) {
            #expect(Swift.abs(t.velocity.x - expected) < 1.5, "velocity \(t.velocity.x) at \(t.time)")
            #expect(Swift.abs(t.velocity.y) < 1e-9)
        }
    }

    @Test func pressureEllipseOrientationAndPalm() throws {
        let full = SyntheticTouchscreen.fullFeatured(slots: 5)  // 20 units/mm, orientation ±90, pressure 0…255
        let path = FingerPath(keyframes: [
            (0, FingerSample(xMm: 50, yMm: 50, majorMm: 8, minorMm: 6, orientation: Double.pi / 4, pressure: 0.5)),
            (0.02, FingerSample(xMm: 50, yMm: 50, majorMm: 8, minorMm: 6, orientation: Double.pi / 4, pressure: 0.5)),
            (
                0.03,
                FingerSample(
                    xMm: 50, yMm: 50, majorMm: 30, minorMm: 20, orientation: -Double.pi / 2, pressure: 1, tool: .palm)
            ),
            (
                0.05,
                FingerSample(
                    xMm: 50, yMm: 50, majorMm: 30, minorMm: 20, orientation: -Double.pi / 2, pressure: 1, tool: .palm)
            ),
        ])
        let (frames, _) = trackerFrames(full, SyntheticStream(device: full).events([path]))
        let first = try #require(frames.first?.touches.first)
        #expect(first.tool == .finger)
        #expect(trackerApprox(first.majorMm, 8) && trackerApprox(first.minorMm, 6))
        #expect(trackerApprox(first.orientation, Double.pi / 4))
        #expect(trackerApprox(first.pressure, 128.0 / 255))
        let palm = try #require(frames.first { $0.touches.first?.tool == .palm }?.touches.first)
        #expect(trackerApprox(palm.majorMm, 30) && trackerApprox(palm.minorMm, 20))
        #expect(trackerApprox(palm.orientation, -Double.pi / 2) && trackerApprox(palm.pressure, 1))
        #expect(palm.id == first.id)
    }

    @Test func orientationWithAZeroOneRangeIsNil() {
        let flag = SyntheticTouchscreen(mtProtocol: .slots(2), orientationRange: 0...1)
        var tracker = TouchTracker(description: flag.description)
        let f = trackerFrames(
            &tracker, [trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtOrientation, 1), trackerSynReport()])
        #expect(f.first?.touches.first?.orientation == nil)
        let quarter = SyntheticTouchscreen(mtProtocol: .slots(2), orientationRange: 0...255)
        var t2 = TouchTracker(description: quarter.description)
        let g = trackerFrames(
            &t2, [trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtOrientation, 255), trackerSynReport()])
        #expect(trackerApprox(g.first?.touches.first?.orientation, Double.pi / 2))
    }

    @Test func calibrationRotationTurnsPositionsAndOrientation() throws {
        let full = SyntheticTouchscreen.fullFeatured(slots: 2, widthMm: 200, heightMm: 100, unitsPerMm: 10)
        let geometry = DeviceGeometry(description: full.description, calibration: .rotated90)
        #expect(trackerApprox(geometry.calibrationRotation, Double.pi / 2))
        var tracker = TouchTracker(description: full.description, geometry: geometry)
        // Sensor (500, 500) of 2000 × 1000: normalised (500/1999, 500/999) → display (1 − y, x).
        let f = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtPositionX, 500),
                trackerAbs(AbsCode.mtPositionY, 500),
                trackerAbs(AbsCode.mtOrientation, 0), trackerSynReport(),
                trackerAbs(AbsCode.mtOrientation, 45), trackerSynReport(),
                trackerAbs(AbsCode.mtOrientation, -30), trackerSynReport(),
            ])
        let t = try #require(f.first?.touches.first)
        #expect(trackerApprox(t.normalized.x, 1 - 500.0 / 999) && trackerApprox(t.normalized.y, 500.0 / 1999))
        // The display is 99.9 mm wide and 199.9 mm high after the rotation (min…max at 10 units/mm).
        #expect(trackerApprox(t.mm.x, (1 - 500.0 / 999) * 99.9) && trackerApprox(t.mm.y, 50))
        // Along the sensor's Y → along the display's X; π/4 + π/2 wraps to −π/4 (an ellipse is symmetric).
        #expect(trackerApprox(t.orientation, Double.pi / 2))
        #expect(trackerApprox(f[1].touches.first?.orientation, -Double.pi / 4))
        #expect(trackerApprox(f[2].touches.first?.orientation, Double.pi / 2 - Double.pi / 6))
    }

    @Test func singleTouchDevice() {
        let st = SyntheticTouchscreen(mtProtocol: .singleTouch, maxX: 999, maxY: 999, resolution: 5)
        let events = SyntheticStream(device: st).events([
            .line(fromMm: (10, 10), toMm: (20, 10), startSeconds: 0, durationSeconds: 0.03),
            .hold(atMm: (100, 100), startSeconds: 0.1, durationSeconds: 0.02),
        ])
        let (frames, counters) = trackerFrames(st, events)
        // The hold sends nothing between its down and up frames (unchanged values are not sent).
        #expect(
            frames.map(trackerPhases) == [["0:began"], ["0:moved"], ["0:moved"], ["0:ended"], ["0:began"], ["0:ended"]])
        #expect(frames.first?.touches.first?.device == DevicePoint(x: 50, y: 50))
        #expect(counters.unknownEvents == 0)
    }
}

@Suite struct TrackerBufferTests {
    @Test func frameBufferIsReusedAndKeptFramesStayIntact() {
        let screen = SyntheticTouchscreen(mtProtocol: .slots(10), maxX: 1999, maxY: 999, resolution: 10)
        let events = SyntheticStream(device: screen).events([
            .line(fromMm: (10, 10), toMm: (110, 10), startSeconds: 0, durationSeconds: 1),
            .line(fromMm: (10, 60), toMm: (110, 60), startSeconds: 0, durationSeconds: 1),
        ])
        // Dropping each frame before the next SYN_REPORT: the same storage every time (no allocation).
        var tracker = TouchTracker(description: screen.description)
        var addresses = Set<UInt>()
        var count = 0
        for e in events {
            if let f = tracker.handle(e), f.touches.count == 2 {
                count += 1
                _ = f.touches.withUnsafeBufferPointer { addresses.insert(UInt(bitPattern: $0.baseAddress)) }
            }
        }
        #expect(count == 101 && addresses.count == 1)  // k0 (began) … k100 (both ended)
        // Keeping frames: each keeps its own values (copy on write).
        var keeper = TouchTracker(description: screen.description)
        let kept = trackerFrames(&keeper, events)
        #expect(kept[0].touches[0].device.x == 100 && kept[1].touches[0].device.x == 110)
    }
}

@Suite struct TrackerHoverTests {
    @Test func hoveringContactsAreNotTouches() {
        var description = SyntheticTouchscreen(mtProtocol: .slots(2)).description
        description.absAxes[AbsCode.mtDistance] = AbsInfo(minimum: 0, maximum: 10)
        var tracker = TouchTracker(description: description)
        let out = trackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtPositionX, 100),
                trackerAbs(AbsCode.mtDistance, 5), trackerSynReport(),
                trackerAbs(AbsCode.mtDistance, 0), trackerSynReport(),
                trackerAbs(AbsCode.mtDistance, 3), trackerSynReport(),
                trackerAbs(AbsCode.mtDistance, 0), trackerAbs(AbsCode.mtPositionX, 120), trackerSynReport(),
                trackerAbs(AbsCode.mtTrackingID, -1), trackerSynReport(),
            ])
        #expect(out.map(trackerPhases) == [[], ["0:began"], ["0:ended"], ["0:began"], ["0:ended"]])
        #expect(out[3].touches.first?.device.x == 120)
        #expect(tracker.counters.cancelledTouches == 0)
    }
}
