import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandyWire

/// Real recordings (Tests/Fixtures) through the same pipeline as the daemon and `handyctl replay`.
enum GestureFixtures {
    static func path(_ relative: String) -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative).path
    }

    struct Result {
        var frames: [TouchFrame] = []
        var gestures: [GestureEvent] = []
        var bugs: [String] = []
    }

    /// Replays a fixture; timers fire as events pass them and, at the end, 2 s after the last event.
    static func replay(_ relative: String, configuration: GestureConfiguration = .init()) throws -> Result {
        let recording = try Recording.load(path: path(relative))
        var pipeline = GesturePipeline(
            deviceID: "replay", description: recording.description, configuration: configuration)
        var out = PipelineOutput()
        for e in recording.events { pipeline.handle(e, into: &out) }
        if let last = recording.events.last {
            out.gestures += pipeline.advanceTime(to: last.time.advanced(byMilliseconds: 2000))
        }
        return Result(frames: out.frames, gestures: out.gestures.wireEvents, bugs: pipeline.arena.bugReports)
    }
}
