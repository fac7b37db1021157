import Foundation
import HandyCore
import HandyRecording
import HandyTestSupport
import Testing

/// Regression (issue 8, found probing the extreme times the fuzz harness uses): `handyctl replay`
/// trapped on a well-formed recording whose timestamps sit near the end of Int64 microseconds (its
/// trailing timer overflowed).
@Suite struct ExtremeTimeRegressionTests {
    static func recording(times: [String]) throws -> String {
        let header = try String(
            contentsOfFile: FixturePaths.path("misbehaving/tracking-id-jump.evemu"), encoding: .utf8
        )
        .split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        let body = """
            E: \(times[0]) 0003 0039 5
            E: \(times[0]) 0003 0035 100
            E: \(times[0]) 0000 0000 0
            E: \(times[1]) 0003 0039 -1
            E: \(times[1]) 0000 0000 0

            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-extreme-\(getpid())-\(times[1]).evemu"
        ).path
        try (header + "\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [["9223372036854.000000", "9223372036854.700000"], ["0.000000", "9000000000000.000000"]])
    func handyctlReplaysExtremeTimes(_ times: [String]) throws {
        let path = try Self.recording(times: times)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try Recording.load(path: path)
        #expect(loaded.events.count == 5)
        let run = try HandyctlProcess.run(["replay", "--touches", path])
        #expect(run.status == 0, "\(run.stderr)")
        // The touch begins and ends; the file's times come through unchanged.
        let text = String(decoding: run.stdout, as: UTF8.self)
        #expect(text.contains(#""phase":"began""#) && text.contains(#""phase":"ended""#))
    }
}
