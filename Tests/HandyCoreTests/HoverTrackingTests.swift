import HandySynthetic
import Testing

@testable import HandyCore

/// A frame and the tracker's hovering contacts after it (``TouchTracker/hovering``).
struct HoverFrame {
    var frame: TouchFrame
    var hovering: [HoverContact]
    var touches: [Touch] { frame.touches }
}

/// The frames `events` make, each with the hovering contacts the tracker held after it.
func hoverTrackerFrames(_ tracker: inout TouchTracker, _ events: [InputEvent]) -> [HoverFrame] {
    var out: [HoverFrame] = []
    for e in events {
        if let f = tracker.handle(e) { out.append(HoverFrame(frame: f, hovering: tracker.hovering)) }
    }
    return out
}

/// "id:phase" per hovering contact.
func hoverPhases(_ frame: HoverFrame) -> [String] { frame.hovering.map { "\($0.id):\($0.phase.rawValue)" } }

/// Hovering contacts (issue 55, item 1): tracked apart from the touches, with ids of their own.
@Suite struct HoverTrackingTests {
    /// A 4-slot screen whose ABS_MT_DISTANCE is `distance` (hid-multitouch declares 0…1).
    func screen(distance: AbsInfo = AbsInfo(minimum: 0, maximum: 1)) -> DeviceDescription {
        var description = SyntheticTouchscreen(mtProtocol: .slots(4)).description
        description.absAxes[AbsCode.mtDistance] = distance
        return description
    }

    func at(_ ms: Int64) -> Timestamp { Timestamp(microseconds: 1_000_000 + ms * 1000) }

    /// What hid-multitouch sends for a Win8 panel with In Range: one tracking id while the finger
    /// comes into range (distance 1), lands (0), moves, rises (1) and leaves (-1).
    @Test func aFingerThatHoversLandsMovesAndLiftsIsOneHoverThenOneTouch() {
        var tracker = TouchTracker(description: screen())
        let frames = hoverTrackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 7, at: at(0)), trackerAbs(AbsCode.mtPositionX, 100, at: at(0)),
                trackerAbs(AbsCode.mtPositionY, 50, at: at(0)), trackerAbs(AbsCode.mtDistance, 1, at: at(0)),
                trackerSynReport(at: at(0)),
                trackerAbs(AbsCode.mtPositionX, 110, at: at(10)), trackerSynReport(at: at(10)),
                trackerAbs(AbsCode.mtDistance, 0, at: at(20)), trackerSynReport(at: at(20)),
                trackerAbs(AbsCode.mtPositionX, 130, at: at(30)), trackerSynReport(at: at(30)),
                trackerAbs(AbsCode.mtDistance, 1, at: at(40)), trackerSynReport(at: at(40)),
                trackerAbs(AbsCode.mtTrackingID, -1, at: at(50)), trackerSynReport(at: at(50)),
            ])
        #expect(frames.map { trackerPhases($0.frame) } == [[], [], ["0:began"], ["0:moved"], ["0:ended"], []])
        #expect(
            frames.map(hoverPhases) == [
                ["0:began"], ["0:hovering"], ["0:landed"], [], ["0:began"], ["0:ended"],
            ])
        // The touch begins at landing, where the contact was; the hover says which touch it became.
        #expect(frames[2].touches[0].beganAt == at(20) && frames[2].touches[0].device.x == 110)
        #expect(frames[2].hovering[0].touchID == 0 && frames[2].hovering[0].beganAt == at(0))
        #expect(frames[1].hovering[0].device == DevicePoint(x: 110, y: 50))
        #expect(frames[1].hovering[0].distance == 1 && frames[1].hovering[0].distanceNormalized == 1)
        #expect(frames[4].touches[0].time == at(40) && frames[5].hovering[0].time == at(50))
        #expect(tracker.counters.cancelledTouches == 0 && tracker.counters.reusedTrackingIDs == 0)
    }

    @Test func aHoverThatNeverLandsIsNeverATouch() {
        var tracker = TouchTracker(description: screen())
        let frames = hoverTrackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 3, at: at(0)), trackerAbs(AbsCode.mtDistance, 1, at: at(0)),
                trackerSynReport(at: at(0)),
                trackerAbs(AbsCode.mtPositionY, 80, at: at(10)), trackerSynReport(at: at(10)),
                trackerAbs(AbsCode.mtTrackingID, -1, at: at(20)), trackerSynReport(at: at(20)),
            ])
        #expect(frames.allSatisfy { $0.touches.isEmpty })
        #expect(frames.map(hoverPhases) == [["0:began"], ["0:hovering"], ["0:ended"]])
        #expect(tracker.activeTouchCount == 0 && !tracker.hasHover)
    }

    /// Hovers and touches count their ids apart: the first of each is 0.
    @Test func hoversAndTouchesHaveIDsOfTheirOwn() {
        var tracker = TouchTracker(description: screen(distance: AbsInfo(minimum: 0, maximum: 255)))
        let frames = hoverTrackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtSlot, 0), trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtDistance, 0),
                trackerAbs(AbsCode.mtSlot, 1), trackerAbs(AbsCode.mtTrackingID, 2), trackerAbs(AbsCode.mtDistance, 51),
                trackerAbs(AbsCode.mtSlot, 2), trackerAbs(AbsCode.mtTrackingID, 3), trackerAbs(AbsCode.mtDistance, 255),
                trackerSynReport(),
                trackerAbs(AbsCode.mtSlot, 1), trackerAbs(AbsCode.mtTrackingID, -1), trackerSynReport(),
                trackerAbs(AbsCode.mtSlot, 2), trackerAbs(AbsCode.mtDistance, 0), trackerSynReport(),
            ])
        #expect(
            frames.map { trackerPhases($0.frame) } == [["0:began"], ["0:stationary"], ["0:stationary", "1:began"]])
        #expect(frames.map(hoverPhases) == [["0:began", "1:began"], ["0:ended", "1:hovering"], ["1:landed"]])
        // 0…255: the distance as reported, and 0…1 over the axis.
        #expect(frames[0].hovering.map(\.distance) == [51, 255])
        #expect(frames[0].hovering.map(\.distanceNormalized) == [0.2, 1])
        #expect(frames[2].hovering[0].touchID == 1)
    }

    @Test func withoutTheAxisOrWithHoverTurnedOffNothingHovers() {
        let events = [
            trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtDistance, 1), trackerSynReport(),
            trackerAbs(AbsCode.mtDistance, 0), trackerSynReport(),
            trackerAbs(AbsCode.mtTrackingID, -1), trackerSynReport(),
        ]
        var off = TouchTracker(description: screen(), tracksHover: false)
        let offFrames = hoverTrackerFrames(&off, events)
        #expect(!off.tracksHover && offFrames.allSatisfy { $0.hovering.isEmpty })
        // Still never a touch while it hovers.
        #expect(offFrames.map { trackerPhases($0.frame) } == [[], ["0:began"], ["0:ended"]])
        var plain = TouchTracker(description: SyntheticTouchscreen(mtProtocol: .slots(4)).description)
        #expect(!plain.tracksHover)
        #expect(hoverTrackerFrames(&plain, events).allSatisfy { $0.hovering.isEmpty })
    }

    @Test func aResyncOrARemovalCancelsHovers() {
        var tracker = TouchTracker(description: screen())
        _ = hoverTrackerFrames(
            &tracker,
            [
                trackerAbs(AbsCode.mtTrackingID, 1), trackerAbs(AbsCode.mtDistance, 1), trackerSynReport(),
            ])
        // libevdev's resync: the slot has another tracking id now.
        let resync = hoverTrackerFrames(
            &tracker,
            [
                InputEvent(time: Timestamp(seconds: 1), type: EventType.syn, code: SynCode.dropped, value: 0),
                trackerAbs(AbsCode.mtTrackingID, 9), trackerSynReport(),
            ])
        #expect(resync.map(hoverPhases) == [["0:cancelled", "1:began"]])
        let removed = tracker.cancelAll(at: Timestamp(seconds: 2))
        #expect(
            removed?.touches.isEmpty == true
                && tracker.hovering.map { "\($0.id):\($0.phase.rawValue)" } == ["1:cancelled"])
        #expect(tracker.cancelAll(at: Timestamp(seconds: 3)) == nil)
    }
}

/// A hovering contact never causes a gesture (issue 55): random hovering contacts added to
/// streams of the synthetic family change no touch and no gesture, and alone make neither.
@Suite struct HoverNeverGesturesTests {
    static let device = SyntheticTouchscreen.fullFeatured(slots: 10, widthMm: 300, heightMm: 200)

    /// The family's device with ABS_MT_DISTANCE 0…`distanceMax`.
    static func hoverDescription(distanceMax: Int32) -> DeviceDescription {
        var d = device.description
        d.absAxes[AbsCode.mtDistance] = AbsInfo(minimum: 0, maximum: distanceMax)
        return d
    }

    /// `frames` (each ending in SYN_REPORT) with hovering contacts in `hoverSlots`: each frame, a
    /// free slot comes into range with probability 0.1, a hovering one leaves with 0.05, else it
    /// moves anywhere on the screen at a distance 1…`distanceMax` (never 0: it never lands).
    static func withHover(
        _ frames: [[InputEvent]], hoverSlots: Range<Int>, distanceMax: Int32, seed: UInt64
    ) -> (events: [InputEvent], hoverFrames: Int) {
        var random = SeededRandom(seed: seed)
        var trackingIDs = [Int32](repeating: -1, count: hoverSlots.count)
        var nextTrackingID: Int32 = 40_000
        var currentSlot: Int32 = 0
        var out: [InputEvent] = []
        var hoverFrames = 0
        for frame in frames {
            guard let time = frame.last?.time else { continue }
            func abs(_ code: UInt16, _ value: Int32) {
                out.append(InputEvent(time: time, type: EventType.abs, code: code, value: value))
            }
            for (k, slot) in hoverSlots.enumerated() {
                let roll = random.uniform(0, 1)
                if trackingIDs[k] < 0 {
                    guard roll < 0.1 else { continue }
                    nextTrackingID += 1
                    trackingIDs[k] = nextTrackingID
                    abs(AbsCode.mtSlot, Int32(slot))
                    abs(AbsCode.mtTrackingID, nextTrackingID)
                } else if roll < 0.05 {
                    trackingIDs[k] = -1
                    abs(AbsCode.mtSlot, Int32(slot))
                    abs(AbsCode.mtTrackingID, -1)
                    continue
                } else {
                    abs(AbsCode.mtSlot, Int32(slot))
                }
                abs(AbsCode.mtPositionX, Int32(random.uniform(0, Double(device.maxX))))
                abs(AbsCode.mtPositionY, Int32(random.uniform(0, Double(device.maxY))))
                abs(AbsCode.mtDistance, Int32(random.uniform(1, Double(distanceMax) + 1)))
            }
            if trackingIDs.contains(where: { $0 >= 0 }) { hoverFrames += 1 }
            // The stream's own events assume the slot it selected last is still selected.
            abs(AbsCode.mtSlot, currentSlot)
            for e in frame where e.type == EventType.abs && e.code == AbsCode.mtSlot { currentSlot = e.value }
            out.append(contentsOf: frame)
        }
        return (out, hoverFrames)
    }

    /// The family: two fingers pinching and turning, a tap, a double tap, a one-finger drag and a
    /// long press, one after another.
    static func family() -> [FingerPath] {
        func still(_ x: Double, _ y: Double, _ down: Double, _ up: Double) -> FingerPath {
            FingerPath(downSeconds: down, upSeconds: up) { _ in FingerSample(xMm: x, yMm: y, majorMm: 8) }
        }
        func line(_ from: (Double, Double), _ to: (Double, Double), _ down: Double, _ up: Double) -> FingerPath {
            FingerPath(downSeconds: down, upSeconds: up) { t in
                let u = Swift.min(Swift.max((t - down) / (up - down), 0), 1)
                return FingerSample(xMm: from.0 + (to.0 - from.0) * u, yMm: from.1 + (to.1 - from.1) * u, majorMm: 8)
            }
        }
        return [
            line((100, 100), (60, 90), 0, 0.6), line((140, 100), (190, 120), 0, 0.6),  // pinch out, turn
            still(150, 50, 1.0, 1.08),  // tap
            still(80, 150, 1.6, 1.66), still(80, 150, 1.8, 1.86),  // double tap
            line((50, 50), (200, 60), 2.4, 2.9),  // drag
            still(220, 150, 3.4, 4.4),  // long press
        ]
    }

    static func run(_ description: DeviceDescription, _ events: [InputEvent]) -> (
        frames: [HoverFrame], gestures: [CoreGestureEvent]
    ) {
        var pipeline = GesturePipeline(deviceID: "hover", description: description)
        var output = PipelineOutput()
        var frames: [HoverFrame] = []
        var gestures: [CoreGestureEvent] = []
        for e in events {
            pipeline.handle(e, into: &output)
            // One event completes one frame at most: the tracker's hovering contacts are that frame's.
            frames += output.frames.map { HoverFrame(frame: $0, hovering: pipeline.tracker.hovering) }
            gestures += output.gestures
            output.empty()
        }
        gestures += pipeline.advanceTime(to: Timestamp(seconds: 60))
        return (frames, gestures)
    }

    @Test(arguments: [(Int32(1), UInt64(1)), (1, 2), (255, 3), (255, 4)])
    func randomHoverChangesNoTouchAndNoGesture(distanceMax: Int32, seed: UInt64) {
        let frames = SyntheticStream(device: Self.device).frames(Self.family())
        let description = Self.hoverDescription(distanceMax: distanceMax)
        let plain = Self.run(description, frames.flatMap { $0 })
        let hover = Self.withHover(frames, hoverSlots: 6..<10, distanceMax: distanceMax, seed: seed)
        let hovered = Self.run(description, hover.events)
        // The family makes gestures of every kind, and the hover was there through many frames.
        #expect(Set(plain.gestures.map(\.gesture)).count >= 4)
        #expect(hover.hoverFrames > frames.count / 2)
        #expect(hovered.frames.contains { !$0.hovering.isEmpty })
        // The same gestures; only the covered region (and the clear side read from it) may come
        // from the hovering fingers near a gesture's (HoverOcclusionTests).
        #expect(hovered.gestures.map(\.withoutRegion) == plain.gestures.map(\.withoutRegion))
        #expect(plain.gestures.allSatisfy { $0.occlusionSource == nil })
        #expect(hovered.gestures.contains { $0.occlusionSource != nil })
        #expect(hovered.frames.map(\.touches) == plain.frames.map(\.touches))
        // Every hovering contact stayed one: none landed.
        #expect(hovered.frames.allSatisfy { $0.hovering.allSatisfy { $0.phase != .landed && $0.touchID == nil } })
    }

    @Test func hoverAloneMakesNoTouchAndNoGesture() {
        let none = SyntheticStream(device: Self.device, emitsUnchangedFrames: true).frames([
            FingerPath(downSeconds: 0, upSeconds: 3) { _ in FingerSample(xMm: 10, yMm: 10) }
        ])
        // Only the frames' times: the finger's own events are dropped.
        let times = none.compactMap { frame in
            frame.last.map { [InputEvent(time: $0.time, type: EventType.syn, code: SynCode.report, value: 0)] }
        }
        let hover = Self.withHover(times, hoverSlots: 0..<10, distanceMax: 1, seed: 9)
        let out = Self.run(Self.hoverDescription(distanceMax: 1), hover.events)
        #expect(none.count > 100 && out.frames.contains { $0.hovering.count >= 3 })
        #expect(out.frames.allSatisfy { $0.touches.isEmpty })
        #expect(out.gestures.isEmpty)
    }
}

extension CoreGestureEvent {
    /// The event without what hovering fingers may give it: its covered region and the clear side
    /// read from it, and, for a one-finger event (a one-finger gesture, a per-touch one), its hand
    /// (HoverHandednessTests). Everything else must be the same with hover as without.
    var withoutRegion: CoreGestureEvent {
        var e = self
        e.occlusion = nil
        e.occlusionSource = nil
        e.clearSide = nil
        if e.touch != nil || (e.fingers ?? 1) <= 1 {
            e.hand = nil
            e.handConfidence = nil
            e.rightHandProbability = nil
        }
        return e
    }
}

/// The covered region from hovering fingers (issue 55, item 3): while hovering contacts lie near a
/// gesture's fingers, `occlusion` is built from them with the hand model and says `source` hover;
/// with hover elsewhere, the model's region as without hover, `source` model; without hover, no
/// source and the region of before.
@Suite struct HoverOcclusionTests {
    static let device = HoverNeverGesturesTests.device

    /// A right-hand pinch at (150, 100) mm, two fingers 40 mm apart spreading to 70 mm.
    static func pinch() -> [FingerPath] {
        func line(_ from: (Double, Double), _ to: (Double, Double)) -> FingerPath {
            FingerPath(downSeconds: 0, upSeconds: 0.6) { t in
                let u = Swift.min(Swift.max(t / 0.6, 0), 1)
                return FingerSample(xMm: from.0 + (to.0 - from.0) * u, yMm: from.1 + (to.1 - from.1) * u, majorMm: 8)
            }
        }
        return [line((130, 100), (115, 90)), line((170, 100), (185, 110))]
    }

    /// `frames` with still hovering fingers in slots 8, 9, … at `pointsMm` (distance 1) from the
    /// first frame to the last, leaving after it.
    static func withHover(_ frames: [[InputEvent]], at pointsMm: [(Double, Double)]) -> [InputEvent] {
        var out: [InputEvent] = []
        var currentSlot: Int32 = 0
        for (n, frame) in frames.enumerated() {
            guard let time = frame.last?.time else { continue }
            func abs(_ code: UInt16, _ value: Int32) {
                out.append(InputEvent(time: time, type: EventType.abs, code: code, value: value))
            }
            for (k, p) in pointsMm.enumerated() {
                abs(AbsCode.mtSlot, Int32(8 + k))
                if n == 0 {
                    let d = device.devicePoint(xMm: p.0, yMm: p.1)
                    abs(AbsCode.mtTrackingID, Int32(50_000 + k))
                    abs(AbsCode.mtPositionX, d.x)
                    abs(AbsCode.mtPositionY, d.y)
                    abs(AbsCode.mtDistance, 1)
                }
            }
            abs(AbsCode.mtSlot, currentSlot)
            for e in frame where e.type == EventType.abs && e.code == AbsCode.mtSlot { currentSlot = e.value }
            out.append(contentsOf: frame)
        }
        return out
    }

    /// The pinch events' regions, each with its source.
    static func regions(_ gestures: [CoreGestureEvent]) -> [(polygonMm: [PhysicalPoint], source: OcclusionSource?)] {
        gestures.filter { $0.gesture == .pinch && $0.occlusion != nil }.map {
            ($0.occlusion?.polygonMm ?? [], $0.occlusionSource)
        }
    }

    /// Whether `p` lies inside the convex polygon `corners` (either winding), or on its edge.
    static func contains(_ corners: [PhysicalPoint], _ p: PhysicalPoint) -> Bool {
        var sign = 0.0
        for i in corners.indices {
            let a = corners[i], b = corners[(i + 1) % corners.count]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if Swift.abs(cross) < 1e-9 { continue }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }

    @Test func hoveringFingersBesideAPinchMakeItsRegionAndFarOnesDoNot() {
        let frames = SyntheticStream(device: Self.device).frames(Self.pinch())
        let description = HoverNeverGesturesTests.hoverDescription(distanceMax: 1)
        let plain = HoverNeverGesturesTests.run(description, frames.flatMap { $0 })
        // Middle and ring finger above the glass beside the pinch (the hand's), 40-60 mm off.
        let beside = [(205.0, 120.0), (215.0, 140.0)]
        let near = HoverNeverGesturesTests.run(description, Self.withHover(frames, at: beside))
        // A finger of another hand, far from the pinch.
        let far = HoverNeverGesturesTests.run(description, Self.withHover(frames, at: [(20.0, 20.0)]))

        let plainRegions = Self.regions(plain.gestures), nearRegions = Self.regions(near.gestures)
        let farRegions = Self.regions(far.gestures)
        #expect(plainRegions.count >= 2 && plainRegions.allSatisfy { $0.source == nil })
        #expect(nearRegions.count >= 2 && nearRegions.allSatisfy { $0.source == .hover })
        // The hovering fingers lie in the region built from them, not in the model's.
        for region in nearRegions {
            #expect(beside.allSatisfy { Self.contains(region.polygonMm, PhysicalPoint(x: $0.0, y: $0.1)) })
        }
        #expect(!beside.allSatisfy { Self.contains(plainRegions[0].polygonMm, PhysicalPoint(x: $0.0, y: $0.1)) })
        // Far away: the model's region, said to be the model's.
        #expect(farRegions.allSatisfy { $0.source == .model })
        #expect(farRegions.map(\.polygonMm) == plainRegions.map(\.polygonMm))
        // Only the region changed.
        #expect(near.gestures.map(\.withoutRegion) == plain.gestures.map(\.withoutRegion))
        #expect(far.gestures.map(\.withoutRegion) == plain.gestures.map(\.withoutRegion))
    }
}
