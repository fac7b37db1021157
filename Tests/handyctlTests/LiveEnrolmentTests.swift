import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

/// `handyctl calibrate hand --device ID` against a real daemon: a session of five right-hand then
/// five left-hand pinches (DISPEL's iPhone X attempts, one after another) replayed as a device,
/// the prompts answered by the end of standard input. The live enrolment writes each pinch as a
/// labelled recording and a profile that is the same file as the one fitted offline from the
/// original recordings (`calibrate hand --from`).
@Suite struct LiveEnrolmentTests {
    static let dispel = packageRoot.appendingPathComponent("Tests/Fixtures/realhands/dispel")

    /// The ten attempts, in order, and one evemu session holding them a second apart (each
    /// starting from slot 0, as a file of its own does), after a lead-in.
    static func session(in folder: URL) throws -> (originals: URL, session: URL) {
        let names = try FileManager.default.contentsOfDirectory(atPath: dispel.path).sorted()
        let files =
            names.filter { $0.hasPrefix("iphonex-right-") }.prefix(5)
            + names.filter { $0.hasPrefix("iphonex-left-") }.prefix(5)
        #expect(files.count == 10)
        let originals = folder.appendingPathComponent("originals")
        try FileManager.default.createDirectory(at: originals, withIntermediateDirectories: true)
        // A lead-in of 3 s (1 s at --speed 3) before the first pinch: the replay starts when
        // calibrate subscribes, and calibrate records a step only once it has read its Enter (here
        // the end of standard input, on a thread of its own). Without it, under load the first
        // frames of the first pinch came before that read and were left out of its recording.
        var header: [Substring] = [], events: [String] = ["E: 0.000000 0000 0000 0"]
        var start = 3.0
        for name in files {
            let text = try String(contentsOf: dispel.appendingPathComponent(name), encoding: .utf8)
            try text.write(to: originals.appendingPathComponent(name), atomically: true, encoding: .utf8)
            let lines = text.split(separator: "\n")
            if header.isEmpty { header = lines.filter { !$0.hasPrefix("E: ") && !$0.contains("handyd-label") } }
            let own = lines.filter { $0.hasPrefix("E: ") }.map { $0.split(separator: " ") }
            guard let first = own.first.flatMap({ Double($0[1]) }) else { continue }
            var last = start
            events.append(String(format: "E: %.6f 0003 002f 0", start))
            for e in own {
                last = start + (Double(e[1]) ?? first) - first
                events.append(String(format: "E: %.6f %@ %@ %@", last, String(e[2]), String(e[3]), String(e[4])))
            }
            start = last + 1
        }
        let session = folder.appendingPathComponent("session.evemu")
        try (header.joined(separator: "\n") + "\n" + events.joined(separator: "\n") + "\n").write(
            to: session, atomically: true, encoding: .utf8)
        return (originals, session)
    }

    @Test func aLiveEnrolmentGivesTheProfileTheRecordingsGiveOffline() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "enrol-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (originals, session) = try Self.session(in: folder)
        let daemon = try DaemonProcess(arguments: ["--replay", session.path, "--wait-clients", "1", "--speed", "3"])
        let live = folder.appendingPathComponent("live.json").path
        let calibrate = Process()
        calibrate.executableURL = URL(fileURLWithPath: MonitorTests.handyctl)
        calibrate.arguments = [
            "calibrate", "hand", "--device", "replay:session", "--socket", daemon.socketPath,
            "--pinches", "5", "--taps", "0", "-o", live,
        ]
        calibrate.standardInput = FileHandle.nullDevice
        let out = folder.appendingPathComponent("calibrate.out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        calibrate.standardOutput = try FileHandle(forWritingTo: out)
        calibrate.standardError = calibrate.standardOutput
        try calibrate.run()
        // The session lasts ~4 s at 3× speed; a broken enrolment fails here instead of waiting for ever.
        let deadline = Date().addingTimeInterval(60)
        while calibrate.isRunning && Date() < deadline { usleep(50_000) }
        if calibrate.isRunning { calibrate.terminate(); Issue.record("calibrate hand --device did not finish in 60 s") }
        calibrate.waitUntilExit()
        let said = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        #expect(calibrate.terminationStatus == 0, "\(said)\n\(daemon.stateForFailure)")
        #expect(
            said.contains("Step 1 of 2: with your RIGHT hand") && said.contains("Step 2 of 2: with your LEFT hand"),
            "\(said)")
        // Each pinch a labelled recording of its own.
        let recorded = try FileManager.default.contentsOfDirectory(atPath: live + ".recordings").filter {
            $0.hasSuffix(".evemu")
        }.sorted()
        #expect(recorded.count == 10 && recorded.filter { $0.contains("-right-") }.count == 5, "\(recorded)")
        let first = try String(contentsOfFile: live + ".recordings/" + (recorded.first ?? ""), encoding: .utf8)
        #expect(
            first.contains("# handyd-label: hand=right tier=positions source=calibrate:replay:session:step1"),
            "\(first.prefix(400))")
        // Offline, from the original recordings: the same profile, byte for byte.
        let offline = folder.appendingPathComponent("offline.json").path
        let run = try HandyctlProcess.run(
            [
                "calibrate", "hand", "--from", originals.path, "-o", offline,
                "--device-id", "replay:session",
            ], timeoutSeconds: 60)
        #expect(run.status == 0, "\(run.output)")
        let a = try String(contentsOfFile: live, encoding: .utf8),
            b = try String(contentsOfFile: offline, encoding: .utf8)
        #expect(a == b, "live:\n\(a)\noffline:\n\(b)")
        #expect(a.contains("\"pinches\" : 10"))
    }

    @Test func aLiveEnrolmentNeedsADeviceOrAFolder() throws {
        let run = try HandyctlProcess.run(["calibrate", "hand", "-o", "/tmp/x.json"], timeoutSeconds: 30)
        #expect(run.status == 64 && run.output.contains("--from DIR or --device ID"), "\(run.output)")
        let both = try HandyctlProcess.run(
            ["calibrate", "hand", "--from", "/tmp", "--device", "x", "-o", "/tmp/x.json"], timeoutSeconds: 30)
        #expect(both.status == 64, "\(both.output)")
    }
}
