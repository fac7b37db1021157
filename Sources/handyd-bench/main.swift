import Foundation
import HandyCore

// handyd-bench: performance figures for docs/PERFORMANCE.md.
//   swift run -c release handyd-bench [--short] [--only pipeline,...] [--root PATH]
// Prints a table per benchmark and one JSON line per figure (lines starting with `{"bench":`).

let arguments = Array(CommandLine.arguments.dropFirst())
let short = arguments.contains("--short")
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let only = option("--only").map { Set($0.split(separator: ",").map(String.init)) }
func wanted(_ bench: String) -> Bool { only?.contains(bench) ?? true }

/// The package root: --root, else the first folder up from here (or from this source file) with Package.swift.
func packageRoot() -> String {
    if let r = option("--root") { return r }
    for start in [FileManager.default.currentDirectoryPath, URL(fileURLWithPath: #filePath).deletingLastPathComponent().path] {
        var url = URL(fileURLWithPath: start)
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
            url.deleteLastPathComponent()
        }
    }
    return FileManager.default.currentDirectoryPath
}

var figures: [Figure] = []

// Instruction counting (docs/PERFORMANCE.md, section 1): a fixed number of passes, no timing.
if let spec = option("--profile") {
    PipelineProfile.run(spec, passes: option("--passes").flatMap { Int($0) } ?? 1, root: packageRoot())
    exit(0)
}

if wanted("pipeline") {
    let seconds = short ? 0.2 : 2.0
    let root = packageRoot()
    let real = BenchStreams.fixtures(root: root)
    let episodes = short ? 4 : 40
    let synthetic = [2, 5, 10].map { BenchStreams.synthetic(fingers: $0, episodes: episodes) }
    if real.isEmpty { FileHandle.standardError.write(Data("handyd-bench: no recordings under \(root)/Tests/Fixtures\n".utf8)) }
    print("allocation counter: \(AllocationCounter.works ? "working" : "NOT WORKING (allocation figures are 0)")")

    var rows: [[String]] = []
    for touches in [false, true] {
        let groups: [(String, String, [BenchStream])] =
            [("real", "real (\(real.count) files)", real)] + synthetic.map { ($0.name, $0.name, [$0]) }
        for (key, label, streams) in groups where !streams.isEmpty {
            var frames = 0, gestures = 0, bytes = 0, time = 0.0, allocs = 0.0, trackerAllocs = 0.0
            for s in streams {
                let r = PipelineBenchmark.run(s, touches: touches, minimumSeconds: seconds / Double(streams.count))
                frames += r.frames; gestures += r.gestures; bytes += r.bytes; time += r.seconds
                let a = PipelineBenchmark.allocations(s, touches: touches)
                allocs += a.perFrame * Double(a.frames)
                trackerAllocs += PipelineBenchmark.trackerAllocations(s) * Double(a.frames)
            }
            let framesPerPass = streams.reduce(0) { $0 + PipelineBenchmark.pass($1, touches: false).frames }
            let fps = Double(frames) / time
            let f = Figure(name: "pipeline", values: [
                ("framesPerSecond", fps.rounded()), ("nsPerFrame", 1e9 / fps),
                ("allocationsPerFrame", allocs / Double(max(framesPerPass, 1))),
                ("trackerAllocationsPerFrame", trackerAllocs / Double(max(framesPerPass, 1))),
                ("gesturesPerFrame", Double(gestures) / Double(max(frames, 1))),
                ("bytesPerFrame", Double(bytes) / Double(max(frames, 1))),
                ("framesPerPass", Double(framesPerPass)),
            ], notes: [("stream", key), ("encodes", touches ? "gestures+touches" : "gestures")])
            figures.append(f)
            rows.append([label, touches ? "gestures+touches" : "gestures", formatted(fps), formatted(1e9 / fps, decimals: 1),
                         formatted(allocs / Double(max(framesPerPass, 1)), decimals: 2),
                         formatted(trackerAllocs / Double(max(framesPerPass, 1)), decimals: 2),
                         formatted(Double(gestures) / Double(max(frames, 1)), decimals: 2), formatted(Double(framesPerPass))])
        }
    }
    print("\n1. Core pipeline (tracker + recognizers + JSON encoding), single thread")
    print(table(["stream", "encodes", "frames/s", "ns/frame", "allocs/frame", "tracker allocs/frame", "gestures/frame", "frames/pass"], rows))
}

print("")
for f in figures { print(f.jsonLine) }
