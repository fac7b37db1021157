import Foundation
import HandyRecording
import HandyTestSupport
import Testing

@testable import HandyCore

/// What one fixture really contains. The numbers were counted from the files themselves (a separate
/// script over the raw text: `E:` lines, SYN_REPORT / SYN_MT_REPORT events, ABS_MT_TRACKING_ID ≥ 0
/// events, first and last timestamps, the A: lines of the description), not from our reader.
struct Fact: Sendable, CustomTestStringConvertible {
    struct Range: Sendable, Equatable {
        var minimum: Int32
        var maximum: Int32
        var resolution: Int32
        init(_ minimum: Int32, _ maximum: Int32, res: Int32) {
            self.minimum = minimum
            self.maximum = maximum
            self.resolution = res
        }
    }

    var file: String
    var name: String
    var id: [UInt16]
    var properties: Set<UInt16>
    var axes: Int
    var events: Int
    var synReports: Int
    var mtReports: Int
    var trackingIDs: Int
    var firstUs: Int64
    var lastUs: Int64
    var mtX: Range?
    var mtY: Range?
    var slots: Int
    var descFile: String?

    init(
        _ file: String, name: String, id: [UInt16], properties: Set<UInt16>, axes: Int, events: Int, synReports: Int,
        mtReports: Int, trackingIDs: Int, firstUs: Int64, lastUs: Int64, mtX: Range?, mtY: Range?, slots: Int,
        descFile: String?
    ) {
        self.file = file; self.name = name; self.id = id; self.properties = properties; self.axes = axes
        self.events = events; self.synReports = synReports; self.mtReports = mtReports; self.trackingIDs = trackingIDs
        self.firstUs = firstUs; self.lastUs = lastUs; self.mtX = mtX; self.mtY = mtY; self.slots = slots;
        self.descFile = descFile
    }

    var testDescription: String { file }

    static let all: [Fact] = [
        Fact(
            "aosp-frameworks-base/google_pixel_tablet_touchscreen.evemu", name: "NVTCapacitiveTouchScreen",
            id: [0x001c, 0x0603, 0x7806, 0x0100], properties: [1], axes: 10,
            events: 116, synReports: 26, mtReports: 0, trackingIDs: 1, firstUs: 1, lastUs: 207943,
            mtX: Range(0, 1599, res: 11), mtY: Range(0, 2559, res: 11), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger double-center-circle.events",
            name: "Wacom Bamboo 16FG 4x5 Finger", id: [0x0003, 0x056a, 0x00de, 0x0100], properties: [0], axes: 7,
            events: 3344, synReports: 419, mtReports: 0, trackingIDs: 2, firstUs: 1338280591517526,
            lastUs: 1338280595959454,
            mtX: Range(0, 4096, res: 0), mtY: Range(0, 4096, res: 0), slots: 16,
            descFile: "Wacom Bamboo 16FG 4x5 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger double-tap.events",
            name: "Wacom Bamboo 16FG 4x5 Finger", id: [0x0003, 0x056a, 0x00de, 0x0100], properties: [0], axes: 7,
            events: 32, synReports: 5, mtReports: 0, trackingIDs: 2, firstUs: 1338280519670913,
            lastUs: 1338280519774923,
            mtX: Range(0, 4096, res: 0), mtY: Range(0, 4096, res: 0), slots: 16,
            descFile: "Wacom Bamboo 16FG 4x5 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger double-top-swipe.events",
            name: "Wacom Bamboo 16FG 4x5 Finger", id: [0x0003, 0x056a, 0x00de, 0x0100], properties: [0], axes: 7,
            events: 1336, synReports: 187, mtReports: 0, trackingIDs: 2, firstUs: 1338280604083283,
            lastUs: 1338280606137251,
            mtX: Range(0, 4096, res: 0), mtY: Range(0, 4096, res: 0), slots: 16,
            descFile: "Wacom Bamboo 16FG 4x5 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger.desc", name: "Wacom Bamboo 16FG 4x5 Finger",
            id: [0x0003, 0x056a, 0x00de, 0x0100], properties: [0], axes: 7,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 4096, res: 0), mtY: Range(0, 4096, res: 0), slots: 16, descFile: nil),
        Fact(
            "whot-evemu-devices/tablets/Wacom DTH2242 Finger.events", name: "Wacom DTH2242 Finger",
            id: [0x0003, 0x056a, 0x005d, 0x0005], properties: [1], axes: 10,
            events: 16593, synReports: 2025, mtReports: 0, trackingIDs: 66, firstUs: 1369413358008095,
            lastUs: 1369413382137926,
            mtX: Range(0, 4648, res: 0), mtY: Range(0, 2556, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-double-tap.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 21, synReports: 3, mtReports: 0, trackingIDs: 2, firstUs: 1330496011108581,
            lastUs: 1330496011168591,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 17, synReports: 2, mtReports: 0, trackingIDs: 2, firstUs: 1330496004684626,
            lastUs: 1330496004716634,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.desc", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: nil),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-circle.events",
            name: "Wacom ISDv4 E6 Finger", id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 1137, synReports: 129, mtReports: 0, trackingIDs: 2, firstUs: 1330496218975187,
            lastUs: 1330496220455178,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events",
            name: "Wacom ISDv4 E6 Finger", id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 545, synReports: 83, mtReports: 0, trackingIDs: 2, firstUs: 1330496036188415,
            lastUs: 1330496037348417,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-tap-center.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 20, synReports: 4, mtReports: 0, trackingIDs: 2, firstUs: 1330495944185030,
            lastUs: 1330495944417034,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-top-swipe.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 1144, synReports: 145, mtReports: 0, trackingIDs: 2, firstUs: 1330495970996848,
            lastUs: 1330495972908845,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-center-circle.events",
            name: "Wacom ISDv4 E6 Finger", id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 412, synReports: 84, mtReports: 0, trackingIDs: 1, firstUs: 1330495984096761,
            lastUs: 1330495984976764,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-center-scroll.events",
            name: "Wacom ISDv4 E6 Finger", id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 239, synReports: 63, mtReports: 0, trackingIDs: 1, firstUs: 1330496028304473,
            lastUs: 1330496029128471,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-tap-center.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 10, synReports: 2, mtReports: 0, trackingIDs: 1, firstUs: 1330495931101111,
            lastUs: 1330495931125122,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-top-swipe.events", name: "Wacom ISDv4 E6 Finger",
            id: [0x0003, 0x056a, 0x00e6, 0x0139], properties: [1], axes: 7,
            events: 441, synReports: 110, mtReports: 0, trackingIDs: 1, firstUs: 1330495962164908,
            lastUs: 1330495963404910,
            mtX: Range(0, 2776, res: 0), mtY: Range(0, 1569, res: 0), slots: 2, descFile: "Wacom ISDv4 E6 Finger.desc"),
        Fact(
            "whot-evemu-devices/tablets/dell_canvas_touch.evemu", name: "Advanced Silicon S.A. CoolTouch® System",
            id: [0x0003, 0x2575, 0x0204, 0x0111], properties: [1], axes: 6,
            events: 5363, synReports: 450, mtReports: 0, trackingIDs: 12, firstUs: 1, lastUs: 13865196,
            mtX: Range(0, 32767, res: 55), mtY: Range(0, 32767, res: 98), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchpads/CyPS2 Cypress Trackpad.three_finger_press.events",
            name: "CyPS/2 Cypress Trackpad", id: [0x0011, 0x0002, 0x0011, 0x0001], properties: [2, 3], axes: 9,
            events: 342, synReports: 46, mtReports: 0, trackingIDs: 3, firstUs: 1382570977035628,
            lastUs: 1382570977765258,
            mtX: Range(0, 1600, res: 16), mtY: Range(0, 900, res: 15), slots: 2, descFile: nil),
        Fact(
            "whot-evemu-devices/touchpads/CyPS2 Cypress Trackpad.three_finger_tap.events",
            name: "CyPS/2 Cypress Trackpad", id: [0x0011, 0x0002, 0x0011, 0x0001], properties: [2, 3], axes: 9,
            events: 48, synReports: 6, mtReports: 0, trackingIDs: 2, firstUs: 1382570952534113,
            lastUs: 1382570952639684,
            mtX: Range(0, 1600, res: 16), mtY: Range(0, 900, res: 15), slots: 2, descFile: nil),
        Fact(
            "whot-evemu-devices/touchpads/CyPS2 Cypress Trackpad.two_finger_press.events",
            name: "CyPS/2 Cypress Trackpad", id: [0x0011, 0x0002, 0x0011, 0x0001], properties: [2, 3], axes: 9,
            events: 278, synReports: 37, mtReports: 0, trackingIDs: 2, firstUs: 1382570965735216,
            lastUs: 1382570966307635,
            mtX: Range(0, 1600, res: 16), mtY: Range(0, 900, res: 15), slots: 2, descFile: nil),
        Fact(
            "whot-evemu-devices/touchpads/CyPS2 Cypress Trackpad.two_finger_tap.events",
            name: "CyPS/2 Cypress Trackpad", id: [0x0011, 0x0002, 0x0011, 0x0001], properties: [2, 3], axes: 9,
            events: 70, synReports: 8, mtReports: 0, trackingIDs: 2, firstUs: 1382570926338731,
            lastUs: 1382570926446729,
            mtX: Range(0, 1600, res: 16), mtY: Range(0, 900, res: 15), slots: 2, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events",
            name: "Atmel maXTouch Touchscreen", id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 8,
            events: 502, synReports: 150, mtReports: 0, trackingIDs: 1, firstUs: 1, lastUs: 2199870,
            mtX: Range(0, 799, res: 0), mtY: Range(0, 479, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
            name: "Atmel maXTouch Touchscreen", id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 8,
            events: 84, synReports: 18, mtReports: 0, trackingIDs: 9, firstUs: 1, lastUs: 1934008,
            mtX: Range(0, 799, res: 0), mtY: Range(0, 479, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events",
            name: "Atmel maXTouch Touchscreen", id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 8,
            events: 64, synReports: 16, mtReports: 0, trackingIDs: 2, firstUs: 1, lastUs: 824236,
            mtX: Range(0, 799, res: 0), mtY: Range(0, 479, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events",
            name: "Atmel maXTouch Touchscreen", id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 8,
            events: 309, synReports: 31, mtReports: 0, trackingIDs: 4, firstUs: 1, lastUs: 566590,
            mtX: Range(0, 799, res: 0), mtY: Range(0, 479, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.desc", name: "Atmel maXTouch Touchscreen",
            id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 8,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 799, res: 0), mtY: Range(0, 479, res: 0), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/ELAN Touchscreen.desc", name: "ELAN Touchscreen",
            id: [0x0003, 0x04f3, 0x010c, 0x0110], properties: [1], axes: 11,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 3312, res: 10), mtY: Range(0, 1872, res: 10), slots: 10, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/EP0430M09.1-finger-drag-up-down.events", name: "EP0430M09",
            id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 6,
            events: 735, synReports: 183, mtReports: 0, trackingIDs: 1, firstUs: 1, lastUs: 1433975,
            mtX: Range(0, 1279, res: 0), mtY: Range(0, 767, res: 0), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/EP0430M09.2-finger-scroll-down.events", name: "EP0430M09",
            id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 6,
            events: 695, synReports: 98, mtReports: 0, trackingIDs: 2, firstUs: 1, lastUs: 754659,
            mtX: Range(0, 1279, res: 0), mtY: Range(0, 767, res: 0), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/EP0430M09.2-fingers-touch-release.events", name: "EP0430M09",
            id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 6,
            events: 58, synReports: 14, mtReports: 0, trackingIDs: 2, firstUs: 1, lastUs: 527810,
            mtX: Range(0, 1279, res: 0), mtY: Range(0, 767, res: 0), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", name: "EP0430M09",
            id: [0x0018, 0x0000, 0x0000, 0x0000], properties: [1], axes: 6,
            events: 1091, synReports: 104, mtReports: 0, trackingIDs: 4, firstUs: 1, lastUs: 1173668,
            mtX: Range(0, 1279, res: 0), mtY: Range(0, 767, res: 0), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/EP0430M09.desc", name: "EP0430M09", id: [0x0018, 0x0000, 0x0000, 0x0000],
            properties: [1], axes: 6,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 1279, res: 0), mtY: Range(0, 767, res: 0), slots: 5, descFile: nil),
        Fact(
            "whot-evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0000], properties: [], axes: 8,
            events: 955, synReports: 107, mtReports: 106, trackingIDs: 0, firstUs: 1357751027090934,
            lastUs: 1357751028658042,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: "N-Trig MultiTouch.desc"),
        Fact(
            "whot-evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events",
            name: "N-Trig MultiTouch", id: [0x0003, 0x1b96, 0x0001, 0x0000], properties: [], axes: 8,
            events: 2203, synReports: 219, mtReports: 267, trackingIDs: 0, firstUs: 1357751031716015,
            lastUs: 1357751034709837,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: "N-Trig MultiTouch.desc"),
        Fact(
            "whot-evemu-devices/touchscreens/N-Trig MultiTouch.desc", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0000], properties: [], axes: 8,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: nil),
        Fact(
            "xorg-integration-tests/tablets/N-Trig-MultiTouch.desc", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0110], properties: [], axes: 8,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: nil),
        Fact(
            "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_begin.events", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0110], properties: [], axes: 8,
            events: 11, synReports: 1, mtReports: 1, trackingIDs: 0, firstUs: 1327542640244087,
            lastUs: 1327542640244253,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: "N-Trig-MultiTouch.desc"),
        Fact(
            "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_end.events", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0110], properties: [], axes: 8,
            events: 3, synReports: 1, mtReports: 0, trackingIDs: 0, firstUs: 1327542642244253, lastUs: 1327542642244253,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: "N-Trig-MultiTouch.desc"),
        Fact(
            "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_update.events", name: "N-Trig MultiTouch",
            id: [0x0003, 0x1b96, 0x0001, 0x0110], properties: [], axes: 8,
            events: 22, synReports: 2, mtReports: 2, trackingIDs: 0, firstUs: 1327542640244087,
            lastUs: 1327542640244453,
            mtX: Range(0, 9600, res: 0), mtY: Range(0, 7200, res: 0), slots: 0, descFile: "N-Trig-MultiTouch.desc"),
        Fact(
            "xorg-integration-tests/tablets/n4.desc", name: "touch_dev", id: [0x0000, 0x0000, 0x0000, 0x0000],
            properties: [1], axes: 6,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(0, 1535, res: 0), mtY: Range(0, 2559, res: 0), slots: 10, descFile: nil),
        Fact(
            "xorg-integration-tests/tablets/n4.events", name: "touch_dev", id: [0x0000, 0x0000, 0x0000, 0x0000],
            properties: [1], axes: 6,
            events: 4953, synReports: 577, mtReports: 0, trackingIDs: 12, firstUs: 75280046, lastUs: 83146093,
            mtX: Range(0, 1535, res: 0), mtY: Range(0, 2559, res: 0), slots: 10, descFile: "n4.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.desc",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x01b1], properties: [0, 2], axes: 9,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: Range(1472, 5472, res: 0), mtY: Range(1408, 4448, res: 0), slots: 2, descFile: nil),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.tap.events",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x01b1], properties: [0, 2], axes: 9,
            events: 259, synReports: 52, mtReports: 0, trackingIDs: 2, firstUs: 1344928516752778,
            lastUs: 1344928518779449,
            mtX: Range(1472, 5472, res: 0), mtY: Range(1408, 4448, res: 0), slots: 2,
            descFile: "SynPS2-Synaptics-TouchPad-Clickpad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.two-finger-scroll-down.events",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x01b1], properties: [0, 2], axes: 9,
            events: 332, synReports: 43, mtReports: 0, trackingIDs: 2, firstUs: 1344928693630556,
            lastUs: 1344928694980792,
            mtX: Range(1472, 5472, res: 0), mtY: Range(1408, 4448, res: 0), slots: 2,
            descFile: "SynPS2-Synaptics-TouchPad-Clickpad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.two-finger-scroll-up.events",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x01b1], properties: [0, 2], axes: 9,
            events: 260, synReports: 32, mtReports: 0, trackingIDs: 2, firstUs: 1344928726631398,
            lastUs: 1344928727571704,
            mtX: Range(1472, 5472, res: 0), mtY: Range(1408, 4448, res: 0), slots: 2,
            descFile: "SynPS2-Synaptics-TouchPad-Clickpad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-tap.events", name: "SynPS/2 Synaptics TouchPad",
            id: [0x0011, 0x0002, 0x0007, 0x0fb1], properties: [0], axes: 4,
            events: 97, synReports: 38, mtReports: 0, trackingIDs: 0, firstUs: 1342706774229564,
            lastUs: 1342706775194729,
            mtX: nil, mtY: nil, slots: 0, descFile: "SynPS2-Synaptics-TouchPad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-two-finger-scroll-down.events",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x0fb1], properties: [0], axes: 4,
            events: 251, synReports: 77, mtReports: 0, trackingIDs: 0, firstUs: 1342689762491899,
            lastUs: 1342689764064606,
            mtX: nil, mtY: nil, slots: 0, descFile: "SynPS2-Synaptics-TouchPad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-two-finger-scroll-up.events",
            name: "SynPS/2 Synaptics TouchPad", id: [0x0011, 0x0002, 0x0007, 0x0fb1], properties: [0], axes: 4,
            events: 310, synReports: 96, mtReports: 0, trackingIDs: 0, firstUs: 1342689756333815,
            lastUs: 1342689758191572,
            mtX: nil, mtY: nil, slots: 0, descFile: "SynPS2-Synaptics-TouchPad.desc"),
        Fact(
            "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad.desc", name: "SynPS/2 Synaptics TouchPad",
            id: [0x0011, 0x0002, 0x0007, 0x0fb1], properties: [0], axes: 4,
            events: 0, synReports: 0, mtReports: 0, trackingIDs: 0, firstUs: 0, lastUs: 0,
            mtX: nil, mtY: nil, slots: 0, descFile: nil),
    ]
}

@Suite("Every evemu fixture reads as what it contains")
struct EvemuFixtureTests {
    @Test("fixture facts", arguments: Fact.all)
    func fixture(_ fact: Fact) throws {
        let recording = try Recording.load(path: FixturePaths.path(fact.file))
        let d = recording.description
        #expect(recording.format == .evemu)
        #expect(d.name == fact.name)
        #expect([d.bustype, d.vendor, d.product, d.version] == fact.id)
        #expect(d.properties == fact.properties)
        #expect(d.isDirect == fact.properties.contains(InputProperty.direct))
        #expect(d.absAxes.count == fact.axes)
        #expect(d.slotCount == fact.slots)
        #expect(d.usesSlots == (fact.slots > 0))
        #expect(
            d.absAxes[AbsCode.mtPositionX].map { Fact.Range($0.minimum, $0.maximum, res: $0.resolution) } == fact.mtX)
        #expect(
            d.absAxes[AbsCode.mtPositionY].map { Fact.Range($0.minimum, $0.maximum, res: $0.resolution) } == fact.mtY)
        // Every axis is also a supported EV_ABS code.
        #expect(Set(d.absAxes.keys).isSubset(of: d.supportedEvents[EventType.abs] ?? []))

        let events = recording.events
        #expect(events.count == fact.events)
        #expect(events.filter(\.isSynReport).count == fact.synReports)
        #expect(events.filter(\.isSynMTReport).count == fact.mtReports)
        #expect(
            events.filter { $0.type == EventType.abs && $0.code == AbsCode.mtTrackingID && $0.value >= 0 }.count
                == fact.trackingIDs)
        if fact.events > 0 {
            #expect(events.first?.time.microseconds == fact.firstUs)
            #expect(events.last?.time.microseconds == fact.lastUs)
            // Kernel timestamps never go backwards within one device.
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        }
        #expect(recording.descriptionPath.map { URL(fileURLWithPath: $0).lastPathComponent } == fact.descFile)
        #expect(
            recording.deviceID == "replay:" + URL(fileURLWithPath: fact.file).deletingPathExtension().lastPathComponent)
    }
}
