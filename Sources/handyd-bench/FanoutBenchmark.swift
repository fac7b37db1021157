import Foundation
import HandyCore
@_spi(Benchmarks) import HandyDaemon
import HandyProtocol
import HandySynthetic
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Figure 2: frame → subscriber latency through the daemon's real server code.
///
/// In this process: the real ``UnixSocketListener`` (NIO, one event loop, as `runDaemon` builds it) on a
/// temporary Unix socket, the real ``InputLoop`` delivering to the real ``Broadcaster``, and a
/// ``PacedSource`` in place of the evdev device: a pacer thread writes one byte per frame into a
/// pipe (as the kernel makes an evdev node readable), the source stamps CLOCK_MONOTONIC and hands
/// the frame's events to a ``GesturePipeline``. N subscribers are plain POSIX sockets, each read by
/// its own blocking thread, which stamps CLOCK_MONOTONIC when `read()` returns the frame's last line.
/// Latency = that read stamp − the hand-off stamp, per subscriber and frame.
enum FanoutBenchmark {
    struct Result {
        var subscribers: Int
        var rateHz: Double
        var frames: Int
        /// Frames that produced at least one line (the ones with samples).
        var framesWithLines: Int
        var linesPerFrame: Double
        var bytesPerFrame: Double
        /// Every (subscriber, frame) latency, sorted, in nanoseconds.
        var latenciesNs: [Int64]
        /// Per frame, the latency until the LAST subscriber had read it, sorted.
        var lastSubscriberNs: [Int64]
        /// Per frame, the latency until `Broadcaster.publish` returned, sorted: every subscriber's
        /// `writev` has been issued, so this is the server's part of the latency; the rest is the
        /// subscribers' own wake-up and read.
        var writtenNs: [Int64]
        /// (subscriber, frame) pairs that never arrived.
        var missing: Int
        /// CPU time (CLOCK_THREAD_CPUTIME_ID) the event loop spent in `Broadcaster.publish`, per
        /// frame: the server's own cost, independent of how the readers were scheduled.
        var publishCpuNsPerFrame: Double
        /// CPU time of the input thread per frame (pipeline + hand-off), same clock.
        var inputCpuNsPerFrame: Double
    }

    /// The stream: two fingers pinching, turning and drifting (pinch, rotate and pan all report
    /// `changed` on every frame), frame `k` at `start + k ms` so a line's `time` names its frame.
    static func frames(count: Int) -> (description: DeviceDescription, frames: [[InputEvent]], indexOfK: [Int: Int]) {
        let screen = BenchStreams.screen
        // 1 s down, 0.1 s up, as many episodes as needed.
        var episodes = 0
        while Double(episodes) * 1.1 * 1000 < Double(count) * 1.2 + 2000 { episodes += 1 }
        let paths = BenchStreams.movingTogether(fingers: 2, episodes: episodes, downSeconds: 1.0, periodSeconds: 1.1)
        let stream = SyntheticStream(device: screen, frameRateHz: 1000, start: Timestamp(seconds: 100))
        let records = Array(stream.frameRecords(paths).prefix(count))
        var indexOfK: [Int: Int] = [:]
        for (i, r) in records.enumerated() { indexOfK[r.index] = i }
        return (screen.description, records.map(\.events), indexOfK)
    }

    static func run(
        subscribers: Int, frames count: Int, rateHz: Double, serverRealtimePriority: Int32? = nil,
        readerRealtimePriority: Int32? = nil, loops: Int = 1
    ) throws -> Result {
        let (description, frames, indexOfK) = Self.frames(count: count)
        let handoff = StampBuffer(count: frames.count)
        let logs = (0..<subscribers).map { _ in StampBuffer(count: frames.count) }
        var logger = Logger(label: "handyd-bench")
        logger.logLevel = .error

        // The server, built as runDaemon builds it (`loops`: `handyd --event-loops`, the
        // subscribers spread over them by NIO).
        let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
        defer { try? group.syncShutdownGracefully() }
        let broadcasters = BroadcasterGroup(group: group, limits: ServerLimits(), version: "bench", logger: logger)
        // The server's threads as `handyd --realtime-priority` runs them (every thread of the
        // daemon inherits the policy); the subscribers stay as they are.
        if let priority = serverRealtimePriority {
            for broadcaster in broadcasters.broadcasters {
                if let refused = try broadcaster.eventLoop.submit({ RealtimeScheduling.enter(priority: priority) })
                    .wait()
                {
                    throw BenchError("SCHED_RR \(priority): \(refused)")
                }
            }
        }
        let path = NSTemporaryDirectory() + "handyd-bench-\(getpid()).sock"
        let socket = try UnixSocketListener.start(
            address: .path(path, group: nil), broadcasters: broadcasters, group: group,
            logger: logger)

        // The input side: the real InputLoop, delivering exactly as runDaemon's closure does.
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(pipeFDs[0], F_SETFL, fcntl(pipeFDs[0], F_GETFL) | O_NONBLOCK)
        let source = PacedSource(readFD: pipeFDs[0], description: description, frames: frames, handoff: handoff)
        let publishCpu = StampBuffer(count: loops)
        // Per loop; a frame is written when the last loop has published it.
        let writtenByLoop = (0..<loops).map { _ in StampBuffer(count: frames.count) }
        // The frames whose gestures each delivered batch carries, in delivery order: found on the
        // input thread (only bytes cross to the loop) and stamped when the batch is published.
        let carriedByBatch = (0..<loops).map { _ in NIOLockedValueBox<[[Int]]>([]) }
        let publishStart = StampBuffer(count: loops)
        for (l, broadcaster) in broadcasters.broadcasters.enumerated() {
            let written = writtenByLoop[l], carriedByBatch = carriedByBatch[l]
            try broadcaster.eventLoop.submit {
                broadcaster.publishObserver = .init(
                    willPublish: { publishStart[l] = threadCpuNanoseconds() },
                    didPublish: {
                        publishCpu[l] += threadCpuNanoseconds() - publishStart[l]
                        let now = MonotonicInstant.now().nanoseconds
                        let carried = carriedByBatch.withLockedValue { $0.removeFirst() }
                        for index in carried where written[index] == 0 { written[index] = now }
                    })
            }.wait()
        }
        let loop = try InputLoop(sources: [source], logger: logger) { notices in
            var carried: [Int] = []
            for case .output(_, let output) in notices {
                for gesture in output.gestures {
                    if let index = indexOfK[frameNumber(seconds: gesture.time.seconds)] { carried.append(index) }
                }
            }
            for queue in carriedByBatch { queue.withLockedValue { $0.append(carried) } }
            // Delivered exactly as runDaemon's closure delivers.
            broadcasters.deliver(notices)
        }
        let inputDone = DispatchSemaphore(value: 0)
        let inputCpu = StampBuffer(count: 1)
        // Threads that asked for SCHED_RR and were refused: the figure would not be what it says.
        let refusals = StampBuffer(count: 1 + subscribers)
        let inputThread = Thread {
            if let priority = serverRealtimePriority, RealtimeScheduling.enter(priority: priority) != nil {
                refusals[0] = 1
            }
            loop.run(); inputCpu[0] = threadCpuNanoseconds(); inputDone.signal()
        }
        inputThread.stackSize = 8 << 20
        inputThread.start()

        // Subscribers: connected once hello arrived (the broadcaster registers before hello).
        var fds: [Int32] = []
        for _ in 0..<subscribers { fds.append(try connectAndReadHello(path: path)) }
        let readersDone = DispatchSemaphore(value: 0)
        let lineCounts = StampBuffer(count: subscribers * 2)
        for (s, fd) in fds.enumerated() {
            let log = logs[s]
            let t = Thread {
                // A subscriber that is itself prioritised (a kiosk app under SCHED_RR).
                if let priority = readerRealtimePriority, RealtimeScheduling.enter(priority: priority) != nil {
                    refusals[1 + s] = 1
                }
                let (lines, bytes) = readLines(fd: fd, log: log, indexOfK: indexOfK)
                lineCounts[2 * s] = Int64(lines)
                lineCounts[2 * s + 1] = Int64(bytes)
                readersDone.signal()
            }
            t.stackSize = 256 << 10
            t.start()
        }

        // Pace: one byte per frame at absolute times (a late frame is sent at once, not skipped).
        let periodNs = Int64((1e9 / rateHz).rounded())
        var next = MonotonicInstant.now().nanoseconds + 20_000_000
        var one: UInt8 = 1
        for _ in 0..<frames.count {
            sleepUntil(nanoseconds: next)
            _ = write(pipeFDs[1], &one, 1)
            next += periodNs
        }
        // Let the last frames arrive, then stop the way handyd stops (clients get `shutdown`, EOF).
        sleepUntil(nanoseconds: MonotonicInstant.now().nanoseconds + 200_000_000)
        loop.send(.stop)
        inputDone.wait()
        socket.stop()
        for _ in 0..<subscribers { readersDone.wait() }
        for fd in fds { close(fd) }
        close(pipeFDs[0]); close(pipeFDs[1])
        // Read after the threads signalled they finished (the semaphores order the accesses).
        let refused = (0...subscribers).filter { refusals[$0] != 0 }.count
        if refused > 0 { throw BenchError("SCHED_RR refused on \(refused) of the threads that asked for it") }

        // Samples: skip the first 50 frames (connection warm-up, first allocations).
        let warmup = min(50, frames.count / 10)
        var latencies: [Int64] = []
        var last: [Int64] = []
        var serverSide: [Int64] = []
        var missing = 0
        var framesWithLines = 0
        for i in warmup..<frames.count {
            var worst: Int64 = -1
            var any = false
            for log in logs {
                if log[i] > 0 {
                    latencies.append(log[i] - handoff[i]); worst = max(worst, log[i] - handoff[i]); any = true
                }
            }
            if any {
                framesWithLines += 1
                let written = writtenByLoop.map { $0[i] }
                if written.allSatisfy({ $0 > 0 }), let last = written.max() { serverSide.append(last - handoff[i]) }
                missing += logs.filter { $0[i] == 0 }.count
                last.append(worst)
            }
        }
        latencies.sort()
        last.sort()
        serverSide.sort()
        let totalLines = (0..<subscribers).reduce(0) { $0 + Int(lineCounts[2 * $1]) }
        let totalBytes = (0..<subscribers).reduce(0) { $0 + Int(lineCounts[2 * $1 + 1]) }
        return Result(
            subscribers: subscribers, rateHz: rateHz, frames: frames.count, framesWithLines: framesWithLines,
            linesPerFrame: Double(totalLines) / Double(subscribers * frames.count),
            bytesPerFrame: Double(totalBytes) / Double(subscribers * frames.count),
            latenciesNs: latencies, lastSubscriberNs: last, writtenNs: serverSide, missing: missing,
            publishCpuNsPerFrame: Double((0..<loops).reduce(Int64(0)) { $0 + publishCpu[$1] }) / Double(frames.count),
            inputCpuNsPerFrame: Double(inputCpu[0]) / Double(frames.count))
    }

    /// Connects to the server (retrying while it starts) and reads up to the end of `hello`.
    static func connectAndReadHello(path: String) throws -> Int32 {
        let deadline = MonotonicInstant.now().nanoseconds + 10_000_000_000
        while true {
            let fd = try UnixSocket.connect(path: path)
            if fd >= 0 {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
                return fd
            }
            guard MonotonicInstant.now().nanoseconds < deadline else { throw BenchError("cannot connect to \(path)") }
            usleep(10_000)
        }
    }

    /// Reads until EOF; for each read, stamps every frame whose line it completed.
    static func readLines(fd: Int32, log: StampBuffer, indexOfK: [Int: Int]) -> (lines: Int, bytes: Int) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var pending: [UInt8] = []
        var lines = 0, bytes = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            let now = MonotonicInstant.now().nanoseconds
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += n
            var lineStart = 0
            for i in 0..<n where buffer[i] == UInt8(ascii: "\n") {
                pending.append(contentsOf: buffer[lineStart..<i])
                lineStart = i + 1
                lines += 1
                if let k = frameNumber(pending), let index = indexOfK[k] { log[index] = now }
                pending.removeAll(keepingCapacity: true)
            }
            pending.append(contentsOf: buffer[lineStart..<n])
        }
        return (lines, bytes)
    }

    /// The frame `k` at `seconds` on the stream's clock (``frames(count:)``: frame k at 100 s + k ms).
    static func frameNumber(seconds: Double) -> Int { Int(((seconds - 100) * 1000).rounded()) }

    /// The frame `k` of a line from its `"time":100.123`.
    static func frameNumber(_ line: [UInt8]) -> Int? {
        let key = Array("\"time\":".utf8)
        guard line.count > key.count else { return nil }
        for start in 0...(line.count - key.count) where line[start] == key[0] {
            guard line[start..<(start + key.count)].elementsEqual(key) else { continue }
            var end = start + key.count
            while end < line.count, line[end] != UInt8(ascii: ","), line[end] != UInt8(ascii: "}") { end += 1 }
            guard let seconds = Double(String(decoding: line[(start + key.count)..<end], as: UTF8.self)) else {
                return nil
            }
            return frameNumber(seconds: seconds)
        }
        return nil
    }
}

/// Stands in for an evdev device: each byte in the pipe is one frame; its events go through the
/// real ``GesturePipeline`` right after the hand-off stamp.
final class PacedSource: DeviceSource {
    let readFD: Int32
    let info: DeviceInfo
    private var pipeline: GesturePipeline
    private let frames: [[InputEvent]]
    private let handoff: StampBuffer
    private var next = 0

    init(readFD: Int32, description: DeviceDescription, frames: [[InputEvent]], handoff: StampBuffer) {
        self.readFD = readFD
        self.pollDescriptors = [readFD]
        self.info = DeviceInfo(id: "bench:paced", name: description.name)
        self.pipeline = GesturePipeline(deviceID: info.id, description: description)
        self.frames = frames
        self.handoff = handoff
    }

    let pollDescriptors: [Int32]
    var wakeupTime: MonotonicInstant? { nil }

    func start(now: MonotonicInstant, into notices: inout InputNotices) { notices.append(.added(info)) }

    func service(now: MonotonicInstant, readable: [Int32], into notices: inout InputNotices) {
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = read(readFD, &bytes, bytes.count)
        guard n > 0 else { return }
        for _ in 0..<n where next < frames.count {
            handoff[next] = MonotonicInstant.now().nanoseconds
            var output = PipelineOutput()
            for event in frames[next] { pipeline.handle(event, into: &output) }
            if !output.isEmpty { notices.append(.output(device: info.id, output)) }
            next += 1
        }
    }

    func stop() {}
}

/// A fixed array of CLOCK_MONOTONIC stamps (0 = none) shared with one writer thread; read only
/// after that thread signalled it finished (the semaphore orders the accesses).
final class StampBuffer: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Int64>
    init(count: Int) {
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0)
    }
    deinit { storage.deallocate() }
    subscript(i: Int) -> Int64 {
        get { storage[i] }
        set { storage[i] = newValue }
    }
}

/// Plain POSIX Unix-socket client calls (the subscribers are deliberately not NIO).
enum UnixSocket {
    /// A connected socket, or -1 if nobody listens (yet); throws only if the path cannot be used.
    static func connect(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd); throw BenchError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 { close(fd); return -1 }
        return fd
    }

    /// Writes all of `text`.
    static func send(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}

/// CPU time of the calling thread.
func threadCpuNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Sleeps until CLOCK_MONOTONIC reaches `nanoseconds` (absolute, so pacing does not drift).
func sleepUntil(nanoseconds: Int64) {
    var ts = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// A benchmark that could not run (printed, the other figures carry on).
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Exact percentile of sorted samples (nearest rank).
func percentile(_ sorted: [Int64], _ p: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
