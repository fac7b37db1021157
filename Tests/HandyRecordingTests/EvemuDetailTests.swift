import Foundation
import HandyTestSupport
import Testing

@testable import HandyCore
@testable import HandyRecording

/// Details checked by hand against the files (line numbers and bytes quoted in each test).
@Suite("evemu reader details")
struct EvemuDetailTests {
    @Test("Wacom ISDv4 2fg-tap: .desc found beside the .events, bitmasks and events exact")
    func wacomTwoFingerTap() throws {
        let r = try Recording.load(
            path: FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"))
        let d = r.description
        // "B: 01 00 04 ..." is the 6th EV_KEY line: byte 41 = 0x04 -> bit 330 (BTN_TOUCH).
        #expect(d.supportedEvents[EventType.key] == [KeyCode.btnTouch])
        // "B: 03 03 00 00 00 00 80 e0 02": X, Y, MT_SLOT, MT_POSITION_X/Y, MT_TOOL_TYPE, MT_TRACKING_ID.
        #expect(d.supportedEvents[EventType.abs] == [0x00, 0x01, 0x2f, 0x35, 0x36, 0x37, 0x39])
        // "B: 00 0b": the event-type mask SYN, KEY, ABS; nothing else is listed.
        #expect(Set(d.supportedEvents.keys) == [EventType.syn, EventType.key, EventType.abs])
        #expect(d.supportedEvents[EventType.syn] == [0, 1, 2, 3])
        #expect(d.properties == [InputProperty.direct])
        #expect(d.absAxes[AbsCode.x] == AbsInfo(minimum: 0, maximum: 2776, fuzz: 4, flat: 0, resolution: 0))
        #expect(d.absAxes[AbsCode.mtToolType] == AbsInfo(minimum: 0, maximum: 1))
        #expect(d.slotCount == 2)
        #expect(d.usbID == "056a:00e6")
        #expect(r.sourcePaths.count == 2)

        let expected: [(Int64, UInt16, UInt16, Int32)] = [
            (1330496004684626, 3, 0x39, 7), (1330496004684629, 3, 0x35, 1488), (1330496004684630, 3, 0x36, 692),
            (1330496004684633, 3, 0x2f, 1), (1330496004684633, 3, 0x39, 8), (1330496004684635, 3, 0x35, 1287),
            (1330496004684636, 3, 0x36, 732), (1330496004684638, 1, 0x14a, 1), (1330496004684643, 3, 0x00, 1488),
            (1330496004684645, 3, 0x01, 692), (1330496004684655, 0, 0, 0),
            (1330496004716619, 3, 0x2f, 0), (1330496004716619, 3, 0x39, -1), (1330496004716622, 3, 0x2f, 1),
            (1330496004716622, 3, 0x39, -1), (1330496004716624, 1, 0x14a, 0), (1330496004716634, 0, 0, 0),
        ]
        #expect(
            r.events
                == expected.map { InputEvent(time: Timestamp(microseconds: $0.0), type: $0.1, code: $0.2, value: $0.3) }
        )
    }

    @Test("Google Pixel Tablet: orientation, touch ellipse, pressure and resolution 11")
    func pixelTablet() throws {
        let r = try Recording.load(
            path: FixturePaths.path("aosp-frameworks-base/google_pixel_tablet_touchscreen.evemu"))
        let d = r.description
        #expect(r.descriptionPath == nil)
        #expect(d.absAxes[AbsCode.mtOrientation] == AbsInfo(minimum: -4096, maximum: 4096))
        #expect(d.absAxes[AbsCode.mtTouchMajor] == AbsInfo(minimum: 0, maximum: 2559, resolution: 11))
        #expect(d.absAxes[AbsCode.mtTouchMinor] == AbsInfo(minimum: 0, maximum: 1599, resolution: 11))
        #expect(d.absAxes[AbsCode.mtPressure] == AbsInfo(minimum: 0, maximum: 256))
        #expect(d.absAxes[AbsCode.mtToolType] == AbsInfo(minimum: 0, maximum: 2))
        // 3rd EV_KEY line "00 80 ..." -> byte 17 bit 7 = 143 (KEY_WAKEUP); 6th -> 330 (BTN_TOUCH).
        #expect(d.supportedEvents[EventType.key] == [143, KeyCode.btnTouch])
        #expect(d.isDirect && d.isMultitouch && d.usesSlots)
        // Values are written zero-padded ("0810"): still decimal.
        #expect(
            r.events[2] == InputEvent(time: Timestamp(microseconds: 1), type: 3, code: AbsCode.mtPositionX, value: 810))
        #expect(r.events.contains { $0.code == AbsCode.mtOrientation && $0.value == 3218 })
    }

    @Test("Wacom DTH2242: an .events file with its own header (evemu 1.0 A: lines without resolution)")
    func eventsFileWithHeader() throws {
        let r = try Recording.load(path: FixturePaths.path("whot-evemu-devices/tablets/Wacom DTH2242 Finger.events"))
        #expect(r.descriptionPath == nil)
        #expect(r.description.slotCount == 10)
        #expect(r.description.absAxes[AbsCode.mtWidthMinor] == AbsInfo(minimum: 0, maximum: 2556))
        #expect(r.description.absAxes[AbsCode.mtPositionX] == AbsInfo(minimum: 0, maximum: 4648, fuzz: 4))
        #expect(r.description.absAxes.values.allSatisfy { $0.resolution == 0 })
    }

    @Test("Dell Canvas: UTF-8 name, banner comments between header and events, trailing comments")
    func dellCanvas() throws {
        let r = try Recording.load(path: FixturePaths.path("whot-evemu-devices/tablets/dell_canvas_touch.evemu"))
        #expect(r.description.name == "Advanced Silicon S.A. CoolTouch® System")
        #expect(r.description.absAxes[AbsCode.x]?.resolution == 55)
        #expect(r.description.absAxes[AbsCode.y]?.resolution == 98)
        // "B: 04 20": MSC_TIMESTAMP (5).
        #expect(r.description.supportedEvents[EventType.msc] == [5])
        // First event line: "E: 0.000001 0003 0039 0000\t# EV_ABS / ABS_MT_TRACKING_ID   0".
        #expect(
            r.events.first
                == InputEvent(time: Timestamp(microseconds: 1), type: 3, code: AbsCode.mtTrackingID, value: 0))
    }

    @Test("N-Trig: protocol A (no slots, SYN_MT_REPORT), BTN_TOOL_DOUBLETAP, not INPUT_PROP_DIRECT")
    func nTrigProtocolA() throws {
        let r = try Recording.load(
            path: FixturePaths.path("whot-evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events"))
        let d = r.description
        #expect(!d.usesSlots)
        #expect(d.isMultitouch)
        #expect(d.slotCount == 0)
        #expect(d.properties.isEmpty)
        #expect(d.supportedEvents[EventType.key] == [KeyCode.btnTouch, KeyCode.btnToolDoubleTap])
        #expect(d.supportedEvents[EventType.msc] == [4])
        #expect(d.absAxes[AbsCode.mtTouchMajor] == AbsInfo(minimum: 0, maximum: 9600))
        #expect(!r.events.contains { $0.code == AbsCode.mtSlot || $0.code == AbsCode.mtTrackingID })
        // Two contacts in one frame: two SYN_MT_REPORTs before a SYN_REPORT somewhere.
        var reportsInFrame = 0, most = 0
        for e in r.events {
            if e.isSynMTReport { reportsInFrame += 1; most = max(most, reportsInFrame) }
            if e.isSynReport { reportsInFrame = 0 }
        }
        #expect(most == 2)
    }

    @Test("a .desc alone: a valid description with zero events")
    func descriptionOnly() throws {
        let r = try Recording.load(path: FixturePaths.path("whot-evemu-devices/touchscreens/ELAN Touchscreen.desc"))
        #expect(r.events.isEmpty)
        #expect(r.description.absAxes[AbsCode.mtTouchMajor] == AbsInfo(minimum: 0, maximum: 255, resolution: 1))
        #expect(r.description.absAxes[AbsCode.mtPositionX] == AbsInfo(minimum: 0, maximum: 3312, resolution: 10))
        #expect(
            try Recording.loadDescription(
                path: FixturePaths.path("whot-evemu-devices/touchscreens/ELAN Touchscreen.desc")) == r.description)
    }

    @Test("the longest matching .desc wins; --desc overrides")
    func descriptionLookup() throws {
        let plain = FixturePaths.path("xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-tap.events")
        let clickpad = FixturePaths.path(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.tap.events")
        #expect(
            Recording.findDescription(forEventsAt: plain).map { URL(fileURLWithPath: $0).lastPathComponent }
                == "SynPS2-Synaptics-TouchPad.desc")
        #expect(
            Recording.findDescription(forEventsAt: clickpad).map { URL(fileURLWithPath: $0).lastPathComponent }
                == "SynPS2-Synaptics-TouchPad-Clickpad.desc")
        // The clickpad has MT slots, the plain touchpad none.
        #expect(try Recording.load(path: clickpad).description.slotCount == 2)
        #expect(try Recording.load(path: plain).description.isMultitouch == false)

        let atmelDesc = FixturePaths.path("whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.desc")
        let overridden = try Recording.load(
            path: FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"),
            descriptionPath: atmelDesc)
        #expect(overridden.description.name == "Atmel maXTouch Touchscreen")
        #expect(overridden.descriptionPath == atmelDesc)
        #expect(overridden.events.count == 17)
    }

    @Test("in-memory evemu: comments anywhere, blank lines, CRLF, L:/S: lines")
    func inMemory() throws {
        let text = """
            # EVEMU 1.3
            # a comment before the name
            N: Test # Device
            I: 0003 0001 0002 0003\r
            P: 02
            P: 00 01
            B: 00 0b
            B: 03 00 00 00 00 00 80 60 02

            # comment between header lines
            A: 2f 0 4 0 0 0   # slots
            A: 35 0 1000 0 0 12
            A: 36 0 500 0 0 12
            A: 39 0 65535 0 0 0
            L: 00 1
            S: 00 0
            ################################
            E: 10.000001 0003 0039 1   # touch
            # comment between events
            E: 10.000002 0000 0000 0
            """ + "\n"
        let r = try Recording.parse(Array(text.utf8), path: "mem.evemu")
        #expect(r.description.name == "Test # Device")
        #expect(
            [r.description.bustype, r.description.vendor, r.description.product, r.description.version] == [3, 1, 2, 3])
        // The second P: line continues the mask: its 2nd byte is byte 2, bit 0 -> property 16.
        #expect(r.description.properties == [InputProperty.direct, 16])
        #expect(r.description.slotCount == 5)
        #expect(r.description.absAxes[AbsCode.mtPositionX]?.resolution == 12)
        #expect(
            r.events == [
                InputEvent(time: Timestamp(microseconds: 10_000_001), type: 3, code: AbsCode.mtTrackingID, value: 1),
                InputEvent(time: Timestamp(microseconds: 10_000_002), type: 0, code: 0, value: 0),
            ])
    }
}
