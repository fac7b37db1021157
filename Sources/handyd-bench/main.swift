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
    for start in [
        FileManager.default.currentDirectoryPath, URL(fileURLWithPath: #filePath).deletingLastPathComponent().path,
    ] {
        var url = URL(fileURLWithPath: start)
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
            url.deleteLastPathComponent()
        }
    }
    return FileManager.default.currentDirectoryPath
}

var figures: [Figure] = []
/// Figures that could not be measured: each is reported on stderr, and the exit status is 1, so a
/// script (CI runs `scripts/bench.sh --short`) cannot pass on a benchmark that did not run.
var failedFigures: [String] = []

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
    if real.isEmpty {
        FileHandle.standardError.write(Data("handyd-bench: no recordings under \(root)/Tests/Fixtures\n".utf8))
        failedFigures.append("pipeline real")
    }
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
            let f = Figure(
                name: "pipeline",
                values: [
                    ("framesPerSecond", fps.rounded()), ("nsPerFrame", 1e9 / fps),
                    ("allocationsPerFrame", allocs / Double(max(framesPerPass, 1))),
                    ("trackerAllocationsPerFrame", trackerAllocs / Double(max(framesPerPass, 1))),
                    ("gesturesPerFrame", Double(gestures) / Double(max(frames, 1))),
                    ("bytesPerFrame", Double(bytes) / Double(max(frames, 1))),
                    ("framesPerPass", Double(framesPerPass)),
                ], notes: [("stream", key), ("encodes", touches ? "gestures+touches" : "gestures")])
            figures.append(f)
            rows.append([
                label, touches ? "gestures+touches" : "gestures", formatted(fps), formatted(1e9 / fps, decimals: 1),
                formatted(allocs / Double(max(framesPerPass, 1)), decimals: 2),
                formatted(trackerAllocs / Double(max(framesPerPass, 1)), decimals: 2),
                formatted(Double(gestures) / Double(max(frames, 1)), decimals: 2), formatted(Double(framesPerPass)),
            ])
        }
    }
    print("\n1. Core pipeline (tracker + recognizers + JSON encoding), single thread")
    print(
        table(
            [
                "stream", "encodes", "frames/s", "ns/frame", "allocs/frame", "tracker allocs/frame", "gestures/frame",
                "frames/pass",
            ], rows))
}

if wanted("fanout") {
    // 1 kHz: four times the fastest touch controller (240 Hz), slow enough that a frame is out
    // before the next one comes, so this measures latency rather than a queue.
    let rateHz = Double(option("--fanout-rate") ?? "") ?? 1000
    let frames = short ? 300 : 10_000
    // A load that can be repeated (the figures above were taken beside other people's builds):
    // N processes spinning at the bench's own priority for the whole figure.
    let load = Int(option("--fanout-load") ?? "") ?? 0
    // The server's threads under SCHED_RR at this priority, as `handyd --realtime-priority` runs them.
    let realtime = option("--fanout-rr").flatMap { Int32($0) }
    // The subscribers' reader threads too (an application that is itself prioritised).
    let readersRealtime = option("--fanout-readers-rr").flatMap { Int32($0) }
    // The server's clients spread over this many event loops (`handyd --event-loops`).
    let fanoutLoops = option("--fanout-loops").flatMap { Int($0) } ?? 1
    let subscriberCounts =
        option("--fanout-subscribers").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1, 16, 64]
    let spinners = (0..<load).compactMap { _ -> Process? in
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "while :; do :; done"]
        return (try? p.run()) == nil ? nil : p
    }
    defer { for p in spinners { p.terminate(); p.waitUntilExit() } }
    if spinners.count < load { failedFigures.append("fanout load (\(spinners.count) of \(load) spinners started)") }
    var rows: [[String]] = []
    for subscribers in subscriberCounts {
        do {
            let r = try FanoutBenchmark.run(
                subscribers: subscribers, frames: frames, rateHz: rateHz,
                serverRealtimePriority: realtime, readerRealtimePriority: readersRealtime,
                loops: fanoutLoops)
            let us = { (ns: Int64) in Double(ns) / 1000 }
            figures.append(
                Figure(
                    name: "fanout",
                    values: [
                        ("subscribers", Double(subscribers)), ("rateHz", rateHz), ("frames", Double(r.frames)),
                        ("samples", Double(r.latenciesNs.count)), ("missing", Double(r.missing)),
                        ("linesPerFrame", r.linesPerFrame), ("bytesPerFrame", r.bytesPerFrame),
                        ("p50Us", us(percentile(r.latenciesNs, 0.5))), ("p99Us", us(percentile(r.latenciesNs, 0.99))),
                        ("maxUs", us(r.latenciesNs.last ?? 0)),
                        ("lastSubscriberP50Us", us(percentile(r.lastSubscriberNs, 0.5))),
                        ("lastSubscriberP99Us", us(percentile(r.lastSubscriberNs, 0.99))),
                        ("writtenP50Us", us(percentile(r.writtenNs, 0.5))),
                        ("writtenP99Us", us(percentile(r.writtenNs, 0.99))),
                        ("loadProcesses", Double(spinners.count)), ("serverRealtimePriority", Double(realtime ?? 0)),
                        ("readerRealtimePriority", Double(readersRealtime ?? 0)), ("eventLoops", Double(fanoutLoops)),
                        ("publishCpuUsPerFrame", r.publishCpuNsPerFrame / 1000),
                        ("inputCpuUsPerFrame", r.inputCpuNsPerFrame / 1000),
                    ]))
            rows.append([
                String(subscribers), formatted(rateHz), formatted(Double(r.framesWithLines)),
                formatted(r.linesPerFrame, decimals: 2), formatted(r.bytesPerFrame),
                formatted(us(percentile(r.latenciesNs, 0.5)), decimals: 1),
                formatted(us(percentile(r.latenciesNs, 0.99)), decimals: 1),
                formatted(us(r.latenciesNs.last ?? 0), decimals: 1),
                formatted(us(percentile(r.lastSubscriberNs, 0.99)), decimals: 1),
                formatted(us(percentile(r.writtenNs, 0.5)), decimals: 1),
                formatted(us(percentile(r.writtenNs, 0.99)), decimals: 1),
                String(r.missing),
                formatted(r.publishCpuNsPerFrame / 1000, decimals: 1),
                formatted(r.inputCpuNsPerFrame / 1000, decimals: 1),
            ])
        } catch {
            FileHandle.standardError.write(
                Data("handyd-bench: fanout with \(subscribers) subscribers: \(error)\n".utf8))
            failedFigures.append("fanout \(subscribers)")
        }
    }
    print(
        "\n2. Socket fan-out latency: frame handed to the pipeline -> subscriber has read its gesture lines (µs)"
            + (load > 0 ? ", beside \(spinners.count) spinning processes" : "")
            + (realtime.map { ", server threads SCHED_RR \($0)" } ?? "")
            + (readersRealtime.map { ", subscribers SCHED_RR \($0)" } ?? "")
            + (fanoutLoops > 1 ? ", \(fanoutLoops) event loops" : ""))
    print(
        table(
            [
                "subscribers", "frames/s", "frames", "lines/frame", "bytes/frame", "p50", "p99", "max",
                "p99 last subscriber",
                "written p50", "written p99", "missing",
                "publish CPU µs/frame", "input CPU µs/frame",
            ], rows))
}

if wanted("idle") || wanted("memory") {
    if let handyd = DaemonProcessBenchmark.handydPath(override: option("--handyd")) {
        let directory = NSTemporaryDirectory() + "handyd-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if wanted("idle") {
            do {
                let r = try DaemonProcessBenchmark.idle(handyd: handyd, seconds: short ? 1.5 : 10, directory: directory)
                let wakers = r.wakers.map { "\($0.name)=\($0.wakeups)" }.joined(separator: " ")
                figures.append(
                    Figure(
                        name: "idle",
                        values: [
                            ("seconds", r.seconds), ("wakeups", Double(r.wakeups)),
                            ("wakeupsPerSecond", Double(r.wakeups) / r.seconds),
                            ("cpuSeconds", r.cpuSeconds), ("threads", Double(r.threads)), ("rssKiB", Double(r.rssKiB)),
                        ], notes: [("source", "replay finished, 1 subscriber"), ("wakers", wakers)]))
                print("\n3. Idle cost of handyd (replay device finished, one subscriber connected)")
                print(
                    table(
                        ["seconds", "wake-ups", "wake-ups/s", "CPU s", "threads", "RSS (KiB)", "threads that woke"],
                        [
                            [
                                formatted(r.seconds, decimals: 1), String(r.wakeups),
                                formatted(Double(r.wakeups) / r.seconds, decimals: 2),
                                formatted(r.cpuSeconds, decimals: 3), String(r.threads), formatted(Double(r.rssKiB)),
                                wakers.isEmpty ? "none" : wakers,
                            ]
                        ]))
            } catch {
                FileHandle.standardError.write(Data("handyd-bench: idle: \(error)\n".utf8))
                failedFigures.append("idle")
            }
        }
        if wanted("memory") {
            do {
                let frames: UInt64 = option("--memory-frames").flatMap { UInt64($0) } ?? (short ? 2_000 : 1_000_000)
                let window: UInt64 = max(frames / (short ? 4 : 10), 1)
                let speed = Double(option("--memory-speed") ?? "") ?? 4
                let maximumSeconds = Double(option("--memory-seconds") ?? "") ?? (short ? 60 : 1800)
                let r = try DaemonProcessBenchmark.memory(
                    handyd: handyd, subscribers: 64, frames: frames, window: window,
                    speed: speed, maximumSeconds: maximumSeconds, directory: directory)
                figures.append(
                    Figure(
                        name: "memory",
                        values: [
                            ("subscribers", Double(r.subscribers)), ("frames", Double(r.frames)),
                            ("events", Double(r.events)),
                            ("drops", Double(r.drops)), ("seconds", r.seconds),
                            ("framesPerSecond", Double(r.frames) / r.seconds),
                            ("speed", r.speed), ("windowFrames", Double(r.window)),
                            ("rssFirstWindowKiB", Double(r.rssFirstKiB)), ("rssLastWindowKiB", Double(r.rssLastKiB)),
                            ("peakRssKiB", Double(r.peakKiB)), ("cpuSeconds", r.cpuSeconds),
                            ("anonFirstWindowKiB", Double(r.anonSeriesKiB.first ?? 0)),
                            ("anonLastWindowKiB", Double(r.anonSeriesKiB.last ?? 0)),
                            ("timedOut", r.timedOut ? 1 : 0),
                            ("cpuMicrosecondsPerFrame", r.cpuSeconds * 1e6 / Double(max(r.frames, 1))),
                        ],
                        notes: [
                            ("rssSeriesKiB", r.rssSeriesKiB.map(String.init).joined(separator: " ")),
                            ("anonSeriesKiB", r.anonSeriesKiB.map(String.init).joined(separator: " ")),
                        ]))
                print(
                    "\n4. Memory of handyd: 64 subscribers (gestures + touches), looped replay at \(formatted(r.speed))x"
                )
                print(
                    table(
                        [
                            "subscribers", "frames", "frames/s", "drops",
                            "RSS after first \(formatted(Double(r.window))) (KiB)",
                            "RSS at last (KiB)", "peak RSS (KiB)", "anon first/last (KiB)", "mapped at last (KiB)",
                            "CPU µs/frame",
                        ],
                        [
                            [
                                String(r.subscribers), formatted(Double(r.frames)),
                                formatted(Double(r.frames) / r.seconds), String(r.drops),
                                formatted(Double(r.rssFirstKiB)), formatted(Double(r.rssLastKiB)),
                                formatted(Double(r.peakKiB)),
                                "\(formatted(Double(r.anonSeriesKiB.first ?? 0))) / \(formatted(Double(r.anonSeriesKiB.last ?? 0)))",
                                formatted(Double(r.rssLastKiB - (r.anonSeriesKiB.last ?? 0))),
                                formatted(r.cpuSeconds * 1e6 / Double(max(r.frames, 1)), decimals: 1),
                            ]
                        ]))
            } catch {
                FileHandle.standardError.write(Data("handyd-bench: memory: \(error)\n".utf8))
                failedFigures.append("memory")
            }
        }
    } else if let named = option("--handyd") {
        FileHandle.standardError.write(Data("handyd-bench: --handyd \(named): not an executable file\n".utf8))
        failedFigures.append("idle/memory")
    } else {
        print(
            "\n3./4. skipped: no handyd beside handyd-bench (build it: swift build -c release --product handyd) and no --handyd PATH"
        )
    }
}

print("")
for f in figures { print(f.jsonLine) }
if !failedFigures.isEmpty {
    FileHandle.standardError.write(Data("handyd-bench: not measured: \(failedFigures.joined(separator: ", "))\n".utf8))
    exit(1)
}
