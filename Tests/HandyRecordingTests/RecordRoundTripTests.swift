import Foundation
import HandyCore
import HandyRecording
import HandyTestSupport
import Testing

/// Tracker frames of a recording: what "identical" means for a round trip.
func roundTripFrames(_ recording: Recording) -> [TouchFrame] {
    var tracker = TouchTracker(description: recording.description)
    return recording.events.compactMap { tracker.handle($0) }
}

@Suite("record → replay round trip")
struct RecordRoundTripTests {
    static let fixtures = [
        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-circle.events",
        "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
        "whot-evemu-devices/tablets/Wacom DTH2242 Finger.events",
        "libinput-record/atmel-1-finger-fast-taps.yml",
    ]

    @Test("EvemuRecorder writes a file that replays to identical frames", arguments: fixtures)
    func recorder(_ fixture: String) throws {
        let original = try Recording.load(path: FixturePaths.path(fixture))
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("recorded.evemu").path
        let recorder = try EvemuRecorder(path: out, description: original.description, comment: "test")
        for e in original.events { try recorder.record(e) }
        try recorder.close()

        let replayed = try Recording.load(path: out)
        #expect(replayed.description == original.description)
        #expect(replayed.events == original.events)
        let frames = roundTripFrames(original)
        #expect(!frames.isEmpty)
        #expect(roundTripFrames(replayed) == frames)
        #expect(recorder.frameCount == original.events.filter(\.isSynReport).count)
    }

    @Test("an interrupted recording ends on a whole frame and replays the frames it has")
    func interrupted() throws {
        let original = try Recording.load(path: FixturePaths.path(Self.fixtures[0]))
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("cut.evemu").path
        let recorder = try EvemuRecorder(path: out, description: original.description)
        // Stop half-way through a frame, without close(): as if the process were killed.
        let reports = original.events.indices.filter { original.events[$0].isSynReport }
        let cut = reports[reports.count / 2] + 2
        for e in original.events[..<cut] { try recorder.record(e) }

        let partial = try Recording.load(path: out)
        let whole = reports[reports.count / 2] + 1
        #expect(partial.events == Array(original.events[..<whole]))
        let expected = Array(roundTripFrames(original).prefix(reports.count / 2 + 1))
        #expect(roundTripFrames(partial) == expected)
        try recorder.close()
    }

    @Test("handyctl record --from-recording: the command's file replays to identical frames")
    func command() throws {
        let fixture = FixturePaths.path(Self.fixtures[0])
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("cmd.evemu").path
        let run = try HandyctlProcess.run(["record", "--from-recording", fixture, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        let original = try Recording.load(path: fixture)
        let replayed = try Recording.load(path: out)
        #expect(roundTripFrames(replayed) == roundTripFrames(original))
        #expect(run.stderr.contains("\(original.events.filter(\.isSynReport).count) frames"))
    }

    @Test("handyctl record on a missing device fails with one clear line")
    func missingDevice() throws {
        let run = try HandyctlProcess.run(["record", "/nonexistent/event99", "-o", "/dev/null"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent/event99"))
    }
}
