import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic
import HandyWire

/// One input stream for the core pipeline: a device and its events.
struct BenchStream {
    var name: String
    var description: DeviceDescription
    var events: [InputEvent]
    /// Fingers in the stream (for the table).
    var fingers: String
}

/// Throughput of tracker + every recognizer + JSON encoding, single thread.
enum PipelineBenchmark {
    struct Result {
        var frames: Int
        var gestures: Int
        var bytes: Int
        var seconds: Double
    }

    /// One pass over `stream` through a fresh pipeline; encodes every gesture (and, if
    /// `touches`, every frame's `touches` message) as the daemon sends them.
    @inline(never)
    static func pass(_ stream: BenchStream, touches: Bool) -> (frames: Int, gestures: Int, bytes: Int) {
        var pipeline = GesturePipeline(deviceID: "bench", description: stream.description)
        var out = PipelineOutput()
        out.frames.reserveCapacity(4)
        out.gestures.reserveCapacity(16)
        var frames = 0, gestures = 0, bytes = 0
        // As the daemon's Broadcaster: one reused line buffer, each message encoded into it.
        var line: [UInt8] = []
        let quotedDevice = JSONQuotedString(pipeline.deviceID)
        let memo = JSONNumberMemo()
        var ends: [Int] = []
        for event in stream.events {
            pipeline.handle(event, into: &out)
            if out.isEmpty { continue }
            frames += out.frames.count
            gestures += out.gestures.count
            // An output's events in one pass, as the daemon's batches encode them.
            line.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            out.gestures.withUnsafeBufferPointer { events in
                JSONLines.encode(eventsIn: events, quotedDevice: quotedDevice, memo: memo, into: &line, ends: &ends)
            }
            bytes += line.count
            if touches {
                for f in out.frames {
                    line.removeAll(keepingCapacity: true)
                    JSONLines.encode(
                        f.wireMessage(device: pipeline.deviceID), quotedDevice: quotedDevice, memo: memo, into: &line)
                    bytes += line.count
                }
            }
            out.frames.removeAll(keepingCapacity: true)
            out.gestures.removeAll(keepingCapacity: true)
        }
        return (frames, gestures, bytes)
    }

    /// Runs passes for at least `minimumSeconds` (after one warm-up pass) and reports the totals.
    static func run(_ stream: BenchStream, touches: Bool, minimumSeconds: Double) -> Result {
        _ = pass(stream, touches: touches)
        let clock = ContinuousClock()
        var total = Result(frames: 0, gestures: 0, bytes: 0, seconds: 0)
        while total.seconds < minimumSeconds {
            var r = (frames: 0, gestures: 0, bytes: 0)
            let d = clock.measure { r = pass(stream, touches: touches) }
            total.frames += r.frames; total.gestures += r.gestures; total.bytes += r.bytes
            total.seconds += d.seconds
        }
        return total
    }

    /// Allocations per frame in steady state: one warm pass, then one counted pass.
    static func allocations(_ stream: BenchStream, touches: Bool) -> (perFrame: Double, frames: Int) {
        _ = pass(stream, touches: touches)
        let m = AllocationCounter.measure { pass(stream, touches: touches) }
        return (Double(m.allocations) / Double(max(m.result.frames, 1)), m.result.frames)
    }

    /// Allocations per frame in the tracker alone (no recognizers, no encoding), counted over a
    /// second pass of the same tracker so its buffers are warm.
    static func trackerAllocations(_ stream: BenchStream) -> Double {
        var tracker = TouchTracker(
            description: stream.description, geometry: DeviceGeometry(description: stream.description))
        for e in stream.events { _ = tracker.handle(e) }
        let m = AllocationCounter.measure { () -> Int in
            var frames = 0
            for e in stream.events where tracker.handle(e) != nil { frames += 1 }
            return frames
        }
        return Double(m.allocations) / Double(max(m.result, 1))
    }
}

/// The streams: real recordings from Tests/Fixtures, and synthetic N-finger streams.
enum BenchStreams {
    /// Every recording under Tests/Fixtures that loads (with its events), concatenated per device
    /// in file order; the caller runs each in turn and sums.
    static func fixtures(root: String) -> [BenchStream] {
        let fixtures = root + "/Tests/Fixtures"
        guard let walker = FileManager.default.enumerator(atPath: fixtures) else { return [] }
        var paths: [String] = []
        for case let p as String in walker {
            let lower = p.lowercased()
            if lower.hasSuffix(".events") || lower.hasSuffix(".evemu") || lower.hasSuffix(".yml")
                || lower.hasSuffix(".yaml")
            {
                paths.append(fixtures + "/" + p)
            }
        }
        var streams: [BenchStream] = []
        for path in paths.sorted() {
            guard let r = try? Recording.load(path: path), !r.events.isEmpty else { continue }
            streams.append(BenchStream(name: r.name, description: r.description, events: r.events, fingers: "real"))
        }
        return streams
    }

    /// The screen every synthetic stream of the bench is played on.
    static let screen = SyntheticTouchscreen.fullFeatured(slots: 10, widthMm: 300, heightMm: 200)

    /// `fingers` fingers spread round a circle that grows (or, every other episode, shrinks),
    /// turns and drifts, so pinch, rotate and pan all run: down for `downSeconds` at the start of
    /// each `periodSeconds`, `episodes` times. Shared by figures 1, 2 and 3.
    static func movingTogether(fingers: Int, episodes: Int, downSeconds: Double, periodSeconds: Double) -> [FingerPath]
    {
        var paths: [FingerPath] = []
        for e in 0..<episodes {
            let start = Double(e) * periodSeconds
            let direction = e % 2 == 0 ? 1.0 : -1.0
            for f in 0..<fingers {
                let phase = 2 * Double.pi * Double(f) / Double(fingers)
                paths.append(
                    FingerPath(downSeconds: start, upSeconds: start + downSeconds) { t in
                        let u = min(max((t - start) / downSeconds, 0), 1)
                        let radius = 20 + 25 * u * direction + (direction < 0 ? 25 : 0)
                        let angle = phase + 0.8 * u * direction
                        let cx = 150 + 30 * u * direction, cy = 100.0
                        return FingerSample(
                            xMm: cx + radius * cos(angle), yMm: cy + radius * sin(angle), majorMm: 8, pressure: 0.5)
                    })
            }
        }
        return paths
    }

    /// `fingers` fingers on a 10-finger screen moving together (``movingTogether``), 2 s down
    /// then 0.3 s up, `episodes` times, at `rateHz`.
    static func synthetic(fingers: Int, episodes: Int, rateHz: Double = 240) -> BenchStream {
        let paths = movingTogether(fingers: fingers, episodes: episodes, downSeconds: 2.0, periodSeconds: 2.3)
        let stream = SyntheticStream(device: screen, frameRateHz: rateHz)
        return BenchStream(
            name: "synthetic-\(fingers)", description: screen.description,
            events: stream.events(paths), fingers: String(fingers))
    }
}

/// A fixed amount of work for instruction counting (`valgrind --tool=callgrind`), where a
/// time-bound run would count a varying number of passes: `passes` passes over one stream, and a
/// hash of every encoded byte so a change to the output (on streams no fixture covers) shows.
enum PipelineProfile {
    /// `--profile NAME[,touches] [--passes N]`: NAME is `real`, `synthetic-2`, `synthetic-5` or `synthetic-10`.
    static func run(_ spec: String, passes: Int, root: String) {
        let parts = spec.split(separator: ",").map(String.init)
        let touches = parts.contains("touches")
        let name = parts.first ?? "synthetic-2"
        let streams: [BenchStream]
        if name == "real" {
            streams = BenchStreams.fixtures(root: root)
        } else if name.hasPrefix("synthetic-"), let n = Int(name.dropFirst("synthetic-".count)) {
            streams = [BenchStreams.synthetic(fingers: n, episodes: 40)]
        } else {
            print("handyd-bench: unknown stream \(name) (real, synthetic-N)")
            return
        }
        // The counted passes (callgrind: --toggle-collect='*PipelineBenchmark*pass*'), then one
        // hashed pass, outside them.
        var frames = 0, gestures = 0, bytes = 0
        for _ in 0..<passes {
            for s in streams {
                let r = PipelineBenchmark.pass(s, touches: touches)
                frames += r.frames; gestures += r.gestures; bytes += r.bytes
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for s in streams { _ = hashedPass(s, touches: touches, hash: &hash) }
        print(
            "profile stream=\(name) touches=\(touches) passes=\(passes) frames=\(frames) gestures=\(gestures) bytes=\(bytes) fnv1a=\(String(hash, radix: 16))"
        )
    }

    /// ``PipelineBenchmark/pass(_:touches:)`` that also folds every encoded byte into `hash`: the
    /// lines written as the daemon writes them (a number memo kept throughout), which must be the
    /// bytes of the message form (`encode(.gesture(g))`, whose hash the docs quote).
    @inline(never)
    static func hashedPass(_ stream: BenchStream, touches: Bool, hash: inout UInt64) -> (
        frames: Int, gestures: Int, bytes: Int
    ) {
        var pipeline = GesturePipeline(deviceID: "bench", description: stream.description)
        var out = PipelineOutput()
        var frames = 0, gestures = 0, bytes = 0
        let quotedDevice = JSONQuotedString(pipeline.deviceID)
        let memo = JSONNumberMemo()
        var line: [UInt8] = []
        var ends: [Int] = []
        func fold(_ line: [UInt8]) {
            bytes += line.count
            for b in line { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        }
        for event in stream.events {
            pipeline.handle(event, into: &out)
            if out.isEmpty { continue }
            frames += out.frames.count
            gestures += out.gestures.count
            line.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            out.gestures.withUnsafeBufferPointer { events in
                JSONLines.encode(eventsIn: events, quotedDevice: quotedDevice, memo: memo, into: &line, ends: &ends)
            }
            fold(line)
            if touches {
                for f in out.frames {
                    line.removeAll(keepingCapacity: true)
                    JSONLines.encode(
                        f.wireMessage(device: pipeline.deviceID), quotedDevice: quotedDevice, memo: memo, into: &line)
                    fold(line)
                }
            }
            out.frames.removeAll(keepingCapacity: true)
            out.gestures.removeAll(keepingCapacity: true)
        }
        return (frames, gestures, bytes)
    }
}
