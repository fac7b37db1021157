import Foundation
import HandyCore
import HandyRecording
import HandyTestSupport
import Testing

/// What `EvemuWriter` writes, the reader reads back unchanged (description and every event).
@Suite("EvemuWriter round trip")
struct EvemuWriterRoundTripTests {
    static let recordings = Fact.all.map(\.file) + RecordPair.all.map(\.yaml)

    @Test("write then read gives the same recording", arguments: recordings)
    func roundTrip(_ file: String) throws {
        let original = try Recording.load(path: FixturePaths.path(file))
        let text = EvemuWriter.recording(
            description: original.description, events: original.events, comment: "round trip of \(file)")
        let back = try Recording.parse(Array(text.utf8), path: "roundtrip.evemu")
        #expect(back.description == original.description)
        #expect(back.events == original.events)
    }

    @Test("the event-type mask lists every type the device has")
    func typeMask() throws {
        // N-Trig: SYN, KEY, ABS and MSC ("B: 00 1b" in its .desc).
        let nTrig = try Recording.loadDescription(
            path: FixturePaths.path("whot-evemu-devices/touchscreens/N-Trig MultiTouch.desc"))
        let header = EvemuWriter.header(for: nTrig)
        #expect(header.contains("\nB: 00 1b 00 00 00 00 00 00 00\n"))
    }
}
