import Foundation
import HandyCore
import HandyDaemon
import HandyRecording
import HandySynthetic

#if canImport(Glibc)
import Glibc
#endif

/// Figures 3 and 4: the real `handyd` binary as a separate process, observed through /proc.
enum DaemonProcessBenchmark {
    /// `handyd` beside this executable (the same build configuration), or `--handyd PATH`.
    static func handydPath(override: String?) -> String? {
        if let override { return FileManager.default.isExecutableFile(atPath: override) ? override : nil }
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let candidate = (me as NSString).deletingLastPathComponent + "/handyd"
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Writes an evemu recording of `seconds` of two fingers pinching, turning and drifting
    /// (1 s down, 0.2 s up, repeated) at `rateHz`; returns its path and its frame count.
    static func writeRecording(seconds: Double, rateHz: Double, directory: String) throws -> (path: String, frames: Int)
    {
        let screen = BenchStreams.screen
        var episodes = 0
        while Double(episodes) * 1.2 + 1.0 <= seconds { episodes += 1 }
        let paths = BenchStreams.movingTogether(fingers: 2, episodes: episodes, downSeconds: 1.0, periodSeconds: 1.2)
        let frames = SyntheticStream(device: screen, frameRateHz: rateHz).frames(paths)
        let path = directory + "/pinch-\(frames.count).evemu"
        let text = EvemuWriter.recording(
            description: screen.description, events: frames.flatMap { $0 },
            comment: "handyd-bench: two fingers pinching, turning, drifting")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, frames.count)
    }

    // MARK: figure 3

    struct IdleResult {
        var seconds: Double
        var wakeups: Int
        var cpuSeconds: Double
        var threads: Int
        /// Threads that woke at least once: name and wake-ups.
        var wakers: [(name: String, wakeups: Int)]
        /// VmRSS at the end (KiB): the daemon's resting size with one device and one client.
        var rssKiB: Int
    }

    /// Starts handyd replaying a short recording to one connected subscriber, waits until the
    /// replay and every recognizer timer are over, then counts context switches and CPU for `seconds`.
    static func idle(handyd: String, seconds: Double, directory: String) throws -> IdleResult {
        let recording = try writeRecording(seconds: 2.2, rateHz: 120, directory: directory)
        let socketPath = directory + "/idle.sock"
        let daemon = try DaemonProcess(
            handyd: handyd,
            arguments: [
                "--replay", recording.path, "--speed", "4", "--wait-clients", "1", "--socket", socketPath,
            ], logPath: directory + "/idle.log")
        defer { daemon.stop() }
        let client = try daemon.connect(socketPath: socketPath)
        defer { close(client) }
        UnixSocket.send(fd: client, "{\"type\":\"subscribe\",\"touches\":true}\n")
        let reader = Thread { drain(fd: client) }
        reader.start()
        // The replay lasts ~0.55 s; recognizer timers (tap, long press, momentum) end within ~1 s.
        usleep(2_500_000)
        let before = try ProcessSample(pid: daemon.pid)
        let start = MonotonicInstant.now().nanoseconds
        usleep(useconds_t(seconds * 1e6))
        let after = try ProcessSample(pid: daemon.pid)
        let elapsed = Double(MonotonicInstant.now().nanoseconds - start) / 1e9
        var wakers: [(String, Int)] = []
        var total = 0
        for (tid, a) in after.threads {
            let w = a.switches - (before.threads[tid]?.switches ?? 0)
            total += w
            if w > 0 { wakers.append((a.name, w)) }
        }
        return IdleResult(
            seconds: elapsed, wakeups: total, cpuSeconds: after.cpuSeconds - before.cpuSeconds,
            threads: after.threads.count, wakers: wakers.sorted { $0.1 > $1.1 },
            rssKiB: (try? ProcessSample.memoryKiB(pid: daemon.pid).rss) ?? 0)
    }

    // MARK: figure 4

    struct MemoryResult {
        var subscribers: Int
        var frames: UInt64
        var events: UInt64
        var drops: UInt64
        var seconds: Double
        var speed: Double
        /// VmRSS (KiB) after the first `window` frames and after the last.
        var rssFirstKiB: Int
        var rssLastKiB: Int
        var window: UInt64
        /// VmHWM (KiB) at the end.
        var peakKiB: Int
        /// VmRSS (KiB) every `window` frames.
        var rssSeriesKiB: [Int]
        /// RssAnon (KiB) every `window` frames.
        var anonSeriesKiB: [Int]
        /// Stopped at the time limit before `frames` reached the target.
        var timedOut: Bool
        /// utime + stime of handyd while the frames were published.
        var cpuSeconds: Double
    }

    /// handyd replays a long two-finger recording in a loop at `speed` to `subscribers` reading
    /// clients (gestures + touches); RSS is sampled every `window` frames up to `frames`.
    static func memory(
        handyd: String, subscribers: Int, frames target: UInt64, window: UInt64, speed: Double,
        maximumSeconds: Double, directory: String
    ) throws -> MemoryResult {
        let recording = try writeRecording(seconds: 60, rateHz: 240, directory: directory)
        let socketPath = directory + "/memory.sock"
        // One more client than subscribers: the status connection that watches the frame count.
        let daemon = try DaemonProcess(
            handyd: handyd,
            arguments: [
                "--replay", recording.path, "--loop", "--speed", String(speed), "--wait-clients",
                String(subscribers + 1),
                "--max-clients", String(subscribers + 1), "--socket", socketPath,
            ], logPath: directory + "/memory.log")
        defer { daemon.stop() }
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<subscribers {
            let fd = try daemon.connect(socketPath: socketPath)
            fds.append(fd)
            UnixSocket.send(fd: fd, "{\"type\":\"subscribe\",\"touches\":true}\n")
        }
        // One reading thread per subscriber, as 64 client processes would have: on a shared
        // machine one thread for all 64 got too little CPU and every client was dropped as slow.
        for fd in fds {
            let reader = Thread { drain(fd: fd) }
            reader.stackSize = 256 << 10
            reader.start()
        }
        let status = try StatusConnection(fd: daemon.connect(socketPath: socketPath))
        UnixSocket.send(fd: status.fd, "{\"type\":\"subscribe\",\"gestures\":[]}\n")

        let start = MonotonicInstant.now().nanoseconds
        let cpuBefore = try ProcessSample.cpuSeconds(pid: daemon.pid)
        var series: [Int] = []
        var anonSeries: [Int] = []
        var timedOut = false
        var last = StatusCounts(frames: 0, events: 0, drops: 0)
        var nextMark = window
        while last.frames < target {
            usleep(20_000)
            guard daemon.isRunning else { throw BenchError("handyd exited: \(daemon.logTail())") }
            last = try status.query()
            while last.frames >= nextMark {
                let m = try ProcessSample.memoryKiB(pid: daemon.pid)
                series.append(m.rss)
                anonSeries.append(m.anon)
                nextMark += window
            }
            // Report what was reached rather than nothing (a slow, shared machine).
            if Double(MonotonicInstant.now().nanoseconds - start) / 1e9 > maximumSeconds { timedOut = true; break }
        }
        let seconds = Double(MonotonicInstant.now().nanoseconds - start) / 1e9
        let memory = try ProcessSample.memoryKiB(pid: daemon.pid)
        let cpu = try ProcessSample.cpuSeconds(pid: daemon.pid) - cpuBefore
        return MemoryResult(
            subscribers: subscribers, frames: last.frames, events: last.events, drops: last.drops,
            seconds: seconds, speed: speed, rssFirstKiB: series.first ?? memory.rss,
            rssLastKiB: series.last ?? memory.rss, window: window, peakKiB: memory.hwm, rssSeriesKiB: series,
            anonSeriesKiB: anonSeries, timedOut: timedOut,
            cpuSeconds: cpu)
    }

    /// Reads and discards until EOF.
    static func drain(fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
        }
    }
}

/// The counters of a `status` reply.
struct StatusCounts {
    var frames: UInt64
    var events: UInt64
    var drops: UInt64
}

/// A client that asks for `status` and reads the reply (it subscribed to nothing else).
final class StatusConnection {
    let fd: Int32
    private var pending: [UInt8] = []
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    func query() throws -> StatusCounts {
        UnixSocket.send(fd: fd, "{\"type\":\"status\"}\n")
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    object["type"] as? String == "status"
                else { continue }
                func count(_ key: String) -> UInt64 { (object[key] as? NSNumber)?.uint64Value ?? 0 }
                return StatusCounts(frames: count("frames"), events: count("events"), drops: count("drops"))
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw BenchError("status connection closed") }
            pending.append(contentsOf: buffer[..<n])
        }
    }
}

/// A `handyd` child process with its stderr in a log file.
final class DaemonProcess {
    let process = Process()
    let logPath: String
    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    init(handyd: String, arguments: [String], logPath: String) throws {
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: handyd)
        process.arguments = arguments + ["--log-level", "notice"]
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
    }

    /// Connects once the socket accepts, and reads `hello`.
    func connect(socketPath: String) throws -> Int32 {
        let deadline = MonotonicInstant.now().nanoseconds + 30_000_000_000
        while true {
            guard isRunning else { throw BenchError("handyd exited: \(logTail())") }
            let fd = try UnixSocket.connect(path: socketPath)
            if fd >= 0 {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
                return fd
            }
            guard MonotonicInstant.now().nanoseconds < deadline else {
                throw BenchError("handyd never listened on \(socketPath)")
            }
            usleep(20_000)
        }
    }

    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(600))
    }

    /// SIGTERM, then SIGKILL after 5 s.
    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }
}

/// What /proc says about a process at one moment.
struct ProcessSample {
    struct ThreadSample {
        var name: String
        /// voluntary + nonvoluntary context switches: each is one time the thread left the CPU,
        /// i.e. (for a sleeping daemon) one wake-up.
        var switches: Int
    }
    var threads: [Int: ThreadSample] = [:]
    /// utime + stime of the whole process.
    var cpuSeconds: Double

    init(pid: Int32) throws {
        let taskDirectory = "/proc/\(pid)/task"
        for entry in try FileManager.default.contentsOfDirectory(atPath: taskDirectory) {
            guard let tid = Int(entry),
                let status = try? String(contentsOfFile: "\(taskDirectory)/\(entry)/status", encoding: .utf8)
            else { continue }
            let fields = Self.fields(status)
            threads[tid] = ThreadSample(
                name: fields["Name"] ?? "?",
                switches: (Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0)
                    + (Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0))
        }
        cpuSeconds = try Self.cpuSeconds(pid: pid)
    }

    /// utime + stime from /proc/PID/stat (fields 14 and 15, after the parenthesised name).
    static func cpuSeconds(pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw BenchError("bad /proc/\(pid)/stat") }
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        // rest[0] is field 3 (state): utime is field 14 → rest[11], stime → rest[12].
        guard rest.count > 12, let u = Double(rest[11]), let s = Double(rest[12]) else {
            throw BenchError("bad /proc/\(pid)/stat")
        }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS, VmHWM and RssAnon (the heap and stacks, without the mapped program and libraries) in KiB.
    static func memoryKiB(pid: Int32) throws -> (rss: Int, hwm: Int, anon: Int) {
        let fields = Self.fields(try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))
        func kib(_ key: String) -> Int { Int(fields[key]?.split(separator: " ").first ?? "") ?? 0 }
        return (kib("VmRSS"), kib("VmHWM"), kib("RssAnon"))
    }

    static func fields(_ status: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in status.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }
}
