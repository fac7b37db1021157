import Foundation
import HandyRecording
import Testing

@testable import HandyCore

/// The tracker over real recordings (Tests/Fixtures). Expected numbers were counted from the files
/// themselves (ABS_MT_TRACKING_ID assignments and −1s per slot, SYN_MT_REPORTs per frame).
@Suite struct TrackerRecordingTests {
    static func fixture(_ relative: String) -> String {
        // Tests/HandyCoreTests/<this file> → package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative).path
    }

    struct Summary {
        var frames: [TouchFrame] = []
        var counters = TrackerCounters()
        var began: [Touch] { frames.flatMap(\.touches).filter { $0.phase == .began } }
        var ended: [Touch] { frames.flatMap(\.touches).filter { $0.phase == .ended } }
        var cancelled: [Touch] { frames.flatMap(\.touches).filter { $0.phase == .cancelled } }
        var mostAtOnce: Int { frames.map { $0.touches.count }.max() ?? 0 }
    }

    static func run(_ relative: String) throws -> Summary {
        let recording = try Recording.load(path: fixture(relative))
        var tracker = TouchTracker(description: recording.description)
        var s = Summary()
        for e in recording.events {
            if let f = tracker.handle(e) { s.frames.append(f) }
        }
        s.counters = tracker.counters
        return s
    }

    static func expectClean(_ s: Summary) {
        let c = s.counters
        #expect(c.outOfRangeSlots == 0 && c.outOfRangeValues == 0 && c.reusedTrackingIDs == 0)
        #expect(c.missingSynReports == 0 && c.resyncs == 0 && c.cancelledTouches == 0 && c.unknownEvents == 0)
        #expect(s.cancelled.isEmpty)
    }

    @Test(arguments: [
        "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
        "libinput-record/atmel-1-finger-fast-taps.yml",
    ])
    func atmelFastTapsAreNineSeparateTouches(path: String) throws {
        let s = try Self.run(path)
        #expect(s.frames.count == 18)
        #expect(s.began.count == 9 && s.ended.count == 9)
        #expect(s.mostAtOnce == 1)
        #expect(s.began.allSatisfy { $0.id == 0 })
        // Every tap is one began frame and one ended frame.
        #expect(
            s.frames.map { $0.touches.first?.phase }
                == Array(repeating: [TouchPhase.began, .ended], count: 9).flatMap { $0 })
        Self.expectClean(s)
    }

    @Test(arguments: [
        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events",
        "libinput-record/wacom-isdv4-2fg-tap.yml",
    ])
    func wacomTwoFingerTapHasTwoConcurrentTouches(path: String) throws {
        let s = try Self.run(path)
        #expect(s.frames.map(trackerPhases) == [["0:began", "1:began"], ["0:ended", "1:ended"]])
        // Wacom ISDv4 reports a resolution: positions are real mm, both on the screen.
        for t in s.frames[0].touches {
            #expect(t.normalized.x >= 0 && t.normalized.x <= 1 && t.normalized.y >= 0 && t.normalized.y <= 1)
        }
        Self.expectClean(s)
    }

    @Test func wacomDTH2242HasTenAtOnce() throws {
        let s = try Self.run("whot-evemu-devices/tablets/Wacom DTH2242 Finger.events")
        #expect(s.frames.count == 2025)
        #expect(s.began.count == 66 && s.ended.count == 66)
        #expect(s.mostAtOnce == 10)
        #expect(s.frames.contains { $0.activeTouches.map(\.id) == Array(0..<10) })
        #expect(s.frames.allSatisfy { $0.touches.allSatisfy { $0.id < 10 } })
        #expect(s.frames.last?.activeTouches.isEmpty == true)
        Self.expectClean(s)
    }

    @Test func nTrigIsProtocolAMatchedByNearestNeighbour() throws {
        let path = "whot-evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events"
        let recording = try Recording.load(path: Self.fixture(path))
        #expect(!recording.description.usesSlots && recording.description.isMultitouch)
        #expect(TouchTracker(description: recording.description).layout == .contacts)
        let s = try Self.run(path)
        // 219 frames: one finger at (1588, 6097); from frame 93 a second at (7197, 2070), listed
        // first in the frame; at frame 142 the first lifts; the last frame has no contact.
        #expect(s.frames.count == 219)
        #expect(s.began.map(\.id) == [0, 1] && s.ended.map(\.id) == [0, 1])
        #expect(s.frames[0].touches.first?.device == DevicePoint(x: 1588, y: 6097))
        let second = try #require(s.frames.firstIndex { $0.touches.count == 2 })
        #expect(second == 93)
        #expect(s.frames[93].touches.first { $0.id == 1 }?.device == DevicePoint(x: 7197, y: 2070))
        #expect(s.frames[93].touches.first { $0.id == 1 }?.phase == .began)
        #expect(s.frames[142].touches.map(\.phase) == [.ended, s.frames[142].touches[1].phase])
        #expect(s.frames[142].touches[1].phase != .ended)
        #expect(trackerPhases(s.frames[218]) == ["1:ended"])
        // Touch 0 stays at the left finger, touch 1 at the right one.
        for f in s.frames {
            for t in f.touches {
                #expect(t.id == 0 ? t.device.x < 2000 : t.device.x > 7000)
            }
        }
        // ABS_MT_ORIENTATION is 0…1 on N-Trig (a flag, not an angle); no resolution → fallback mm.
        #expect(s.frames[0].touches[0].orientation == nil)
        #expect(s.frames[0].touches[0].majorMm != nil)
        Self.expectClean(s)
    }

    /// The Pixel Tablet recording comes with what Android's InputReader made of it (AOSP test data):
    /// per frame, the same raw position, and the same pressure (value / max) and orientation
    /// (value / max · π/2, clockwise from vertical, as the kernel and Android both define it).
    @Test func pixelTabletMatchesAndroidsInputReader() throws {
        let s = try Self.run("aosp-frameworks-base/google_pixel_tablet_touchscreen.evemu")
        let json = try Data(
            contentsOf: URL(
                fileURLWithPath: Self.fixture("aosp-frameworks-base/google_pixel_tablet_touchscreen_events.json")))
        let cases = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        let android = try #require(cases.first?["events"] as? [[String: Any]])
        #expect(android.count == 26 && s.frames.count == 26)
        let actions = ["DOWN": TouchPhase.began, "MOVE": .moved, "UP": .ended]
        for (frame, event) in zip(s.frames, android) {
            let axes = try #require(event["axes"] as? [String: Double])
            let t = try #require(frame.touches.first)
            #expect(frame.touches.count == 1)
            #expect(actions[event["action"] as? String ?? ""] == t.phase)
            #expect(Double(t.device.x) == axes["AXIS_X"] && Double(t.device.y) == axes["AXIS_Y"])
            // Android's values are Float: compare to its precision.
            #expect(trackerApprox(t.pressure, axes["AXIS_PRESSURE"] ?? -1, 1e-6))
            #expect(trackerApprox(t.orientation, axes["AXIS_ORIENTATION"] ?? -1, 1e-6))
            // TOUCH_MAJOR/MINOR in device units, 11 units/mm.
            #expect(trackerApprox(t.majorMm.map { $0 * 11 }, axes["AXIS_TOUCH_MAJOR"] ?? -1, 1e-9))
            #expect(trackerApprox(t.minorMm.map { $0 * 11 }, axes["AXIS_TOUCH_MINOR"] ?? -1, 1e-9))
        }
        Self.expectClean(s)
    }

    /// Every recording of a multitouch device goes through without a fault counted or a touch left behind.
    @Test(arguments: [
        "whot-evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger double-center-circle.events",
        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events",
        "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events",
        "whot-evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events",
        "whot-evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events",
        "whot-evemu-devices/touchpads/CyPS2 Cypress Trackpad.three_finger_press.events",
        "xorg-integration-tests/tablets/n4.events",
        "libinput-record/atmel-2-fingers-touch-release.yml",
        "libinput-record/wacom-isdv4-double-center-scroll.yml",
    ])
    func recordingsEndWithNoTouchLeft(path: String) throws {
        let s = try Self.run(path)
        #expect(!s.frames.isEmpty)
        #expect(s.began.count == s.ended.count)
        #expect(s.frames.last?.activeTouches.isEmpty == true)
        Self.expectClean(s)
    }
}
