import Foundation
import HandyRecording
import HandyTestSupport
import Testing

@testable import HandyCore

/// A libinput record file and the evemu files it was made from (libinput-record/README.md).
struct RecordPair: Sendable, CustomTestStringConvertible {
    var yaml: String
    var evemuEvents: String
    /// The .desc the events take their device from; nil when the .events file has its own header.
    var evemuDesc: String?
    /// Counted in the YAML: `[sec, usec, type, code, value]` rows, `- evdev:` frames, last row's time.
    var events: Int
    var frames: Int
    var lastUs: Int64
    var testDescription: String { yaml }

    static let all: [RecordPair] = [
        RecordPair(
            yaml: "libinput-record/atmel-2-fingers-touch-release.yml",
            evemuEvents: "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events",
            evemuDesc: nil,
            events: 64, frames: 16, lastUs: 843_693),
        RecordPair(
            yaml: "libinput-record/atmel-1-finger-fast-taps.yml",
            evemuEvents: "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
            evemuDesc: nil,
            events: 84, frames: 18, lastUs: 1_973_518),
        RecordPair(
            yaml: "libinput-record/wacom-isdv4-2fg-tap.yml",
            evemuEvents: "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events",
            evemuDesc: "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.desc",
            events: 17, frames: 2, lastUs: 36_112),
        RecordPair(
            yaml: "libinput-record/wacom-isdv4-double-center-scroll.yml",
            evemuEvents: "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events",
            evemuDesc: "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.desc",
            events: 545, frames: 83, lastUs: 1_294_690),
    ]
}

@Suite("libinput record reader")
struct LibinputRecordTests {
    @Test("reads every libinput-record fixture", arguments: RecordPair.all)
    func reads(_ pair: RecordPair) throws {
        let r = try Recording.load(path: FixturePaths.path(pair.yaml))
        #expect(r.format == .libinputRecord)
        #expect(r.events.count == pair.events)
        #expect(r.events.filter(\.isSynReport).count == pair.frames)
        // libinput record's clock starts at the first event.
        #expect(r.events.first?.time == .zero)
        #expect(r.events.last?.time.microseconds == pair.lastUs)
        #expect(r.description.isDirect)
        #expect(r.description.usesSlots)
    }

    @Test("the same gesture in evemu and libinput record gives the same events and device", arguments: RecordPair.all)
    func sameAsEvemu(_ pair: RecordPair) throws {
        let yaml = try Recording.load(path: FixturePaths.path(pair.yaml))
        let evemu = try Recording.load(path: FixturePaths.path(pair.evemuEvents))
        #expect(
            evemu.descriptionPath.map { URL(fileURLWithPath: $0).lastPathComponent }
                == pair.evemuDesc.map { URL(fileURLWithPath: $0).lastPathComponent })

        // Same type/code/value sequence; only the clock differs (replayed in real time, so not by a
        // constant offset, but both are non-decreasing and frames line up one to one).
        #expect(
            yaml.events.map { [Int($0.type), Int($0.code), Int($0.value)] }
                == evemu.events.map { [Int($0.type), Int($0.code), Int($0.value)] })
        #expect(zip(yaml.events, yaml.events.dropFirst()).allSatisfy { $0.time <= $1.time })

        let a = yaml.description, b = evemu.description
        #expect(a.name == b.name)
        #expect([a.bustype, a.vendor, a.product, a.version] == [b.bustype, b.vendor, b.product, b.version])
        #expect(a.properties == b.properties)
        #expect(a.supportedEvents == b.supportedEvents)
        #expect(Set(a.absAxes.keys) == Set(b.absAxes.keys))
        for (code, info) in b.absAxes {
            // The uinput device lost ABS_X/Y fuzz (4 in the .desc, 0 in the YAML); ranges and resolution survive.
            #expect(a.absAxes[code]?.minimum == info.minimum)
            #expect(a.absAxes[code]?.maximum == info.maximum)
            #expect(a.absAxes[code]?.resolution == info.resolution)
        }
    }

    @Test("Wacom ISDv4 YAML: id, absinfo, codes, properties exactly as written")
    func wacomDetails() throws {
        let r = try Recording.load(path: FixturePaths.path("libinput-record/wacom-isdv4-2fg-tap.yml"))
        let d = r.description
        #expect(d.name == "Wacom ISDv4 E6 Finger")
        // id: [3, 1386, 230, 313]
        #expect([d.bustype, d.vendor, d.product, d.version] == [3, 1386, 230, 313])
        #expect(d.absAxes[AbsCode.x] == AbsInfo(minimum: 0, maximum: 2776))
        #expect(d.absAxes[AbsCode.mtTrackingID] == AbsInfo(minimum: 0, maximum: 65535))
        #expect(d.supportedEvents[EventType.key] == [KeyCode.btnTouch])
        #expect(d.properties == [InputProperty.direct])
        #expect(r.events[0] == InputEvent(time: .zero, type: 3, code: AbsCode.mtTrackingID, value: 7))
        #expect(
            r.events[12]
                == InputEvent(time: Timestamp(microseconds: 36_112), type: 3, code: AbsCode.mtTrackingID, value: -1))
    }

    @Test("in-memory YAML: libinput: entries skipped, quoted strings, flow mappings, several devices")
    func inMemory() throws {
        let text = """
            # libinput record
            version: 1
            ndevices: 2
            libinput:
              version: "1.22.1"
            system:
              dmi: "dmi:bvn#x:y"
            devices:
            - node: /dev/input/event3
              evdev:
                # Name: ignored comment
                name: "Touch \\"Q\\" # not a comment"
                id: [3, 1, 2, 3]
                codes:
                  0: [0, 1, 2, 3] # EV_SYN
                  3: [47, 53, 54, 57]
                absinfo:
                  47: [0, 4, 0, 0, 0]
                  53: [0, 1000, 0, 0, 12]
                  54: [0, 500, 0, 0, 12]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
              udev:
                properties:
                - ID_INPUT=1
              quirks:
              events:
              - evdev:
                - [  5,      1,   3,  57,  1] # EV_ABS
                - [  5,      1,   0,   0,  0]
              - libinput:
                - {time: 0.0, type: "TOUCH_DOWN", slot: 0, point: [1.5, 2.0]}
              - evdev:
                - [  5,  10001,   3,  57, -1]
                - [  5,  10001,   0,   0,  0]
            - node: /dev/input/event4
              evdev:
                name: "Other"
                id: [3, 9, 9, 9]
              events:
            """ + "\n"
        let r = try Recording.parse(Array(text.utf8), path: "mem.yml")
        #expect(r.description.name == "Touch \"Q\" # not a comment")
        #expect(r.description.slotCount == 5)
        #expect(r.description.absAxes[AbsCode.mtPositionY] == AbsInfo(minimum: 0, maximum: 500, resolution: 12))
        #expect(
            r.events == [
                InputEvent(time: Timestamp(microseconds: 5_000_001), type: 3, code: AbsCode.mtTrackingID, value: 1),
                InputEvent(time: Timestamp(microseconds: 5_000_001), type: 0, code: 0, value: 0),
                InputEvent(time: Timestamp(microseconds: 5_010_001), type: 3, code: AbsCode.mtTrackingID, value: -1),
                InputEvent(time: Timestamp(microseconds: 5_010_001), type: 0, code: 0, value: 0),
            ])
    }
}
