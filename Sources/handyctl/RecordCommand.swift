import ArgumentParser
import Foundation
import HandyCore
import HandyInput
import HandyRecording

#if canImport(Glibc)
import Glibc
#endif

/// `handyctl record`: writes a live evdev device's events to an evemu file, like `evemu-record`.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a touchscreen's events in evemu format, for replay, plots and bug reports.",
        discussion: """
            Opens DEVICE (an evdev node such as /dev/input/event5; --auto takes the first \
            touchscreen udev knows, as handyd would) read-only, writes its description (N:/I:/P:/B:/A: \
            lines, as evemu-describe) and then every event as an E: line with the kernel's \
            CLOCK_MONOTONIC timestamp. Needs read access to the node (root, or the input group). \
            The device is not grabbed: the desktop and handyd keep seeing it.

            Each frame (up to its SYN_REPORT) is written as it completes, so the file is a valid \
            recording even if the recording is interrupted. Ctrl-C (SIGINT) or SIGTERM stops cleanly; \
            so do --duration and the device being unplugged. A summary goes to stderr.

            The file replays with `handyctl replay`, draws with `handyctl plot`, plays into a \
            virtual device with `handyctl inject` and with evemu-play.

            Examples:
              sudo handyctl record --auto -o bug.evemu
              sudo handyctl record /dev/input/event5 --duration 10 -o pinch.evemu
              handyctl replay --summary bug.evemu && handyctl plot bug.evemu -o bug.svg
            """
    )

    @Argument(help: ArgumentHelp("The evdev node to record, e.g. /dev/input/event5.", valueName: "DEVICE"))
    var device: String?

    @Flag(
        name: .long,
        help: "Record the first touchscreen udev lists (ID_INPUT_TOUCHSCREEN or HANDYD_DEVICE, not HANDYD_IGNORE).")
    var auto = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (default: standard output).", valueName: "FILE"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "S"))
    var duration: Double?

    /// Tests: take the events of a recording instead of a live device (no kernel needed), through
    /// the same writer and stop handling.
    @Option(name: .long, help: .hidden)
    var fromRecording: String?

    func validate() throws {
        let sources = [device != nil, auto, fromRecording != nil].filter { $0 }.count
        if sources != 1 { throw ValidationError("name one DEVICE, or --auto") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    func run() throws {
        let path = output ?? "/dev/stdout"
        StopRequest.install()
        let summary: String
        do throws(RecordFailure) {
            if let fromRecording {
                summary = try recordFile(fromRecording, to: path)
            } else {
                summary = try recordLive(to: path)
            }
        } catch {
            StandardStream.error("handyctl record: \(error.message)")
            throw ExitCode.failure
        }
        StandardStream.error(summary)
    }

    struct RecordFailure: Error { var message: String }

    private func recordLive(to path: String) throws(RecordFailure) -> String {
        let node: String
        if let device {
            node = device
        } else {
            let discovery: UdevDiscovery
            do { discovery = try UdevDiscovery() } catch { throw RecordFailure(message: "udev: \(error)") }
            guard let first = discovery.enumerateTouchscreens().first else {
                throw RecordFailure(
                    message: "--auto: udev lists no touchscreen (see `handyctl devices`, or name the node)")
            }
            node = first.devnode
        }
        let evdev: EvdevDevice
        do { evdev = try EvdevDevice(path: node) } catch { throw RecordFailure(message: "\(error)") }
        let recorder = try makeRecorder(path, evdev.description, source: node)
        StandardStream.error(
            "handyctl record: recording \(node) (\(evdev.description.name)) to \(output ?? "standard output"); Ctrl-C stops"
        )

        let deadline = duration.map { EvdevDevice.monotonicNow().advanced(byMilliseconds: $0 * 1000) }
        var why = "interrupted"
        var writeError: RecordingError?
        loop: while true {
            if StopRequest.isRequested { why = "interrupted"; break }
            var timeoutMs: Int32 = 500
            if let deadline {
                let left = deadline.milliseconds(since: EvdevDevice.monotonicNow())
                if left <= 0 { why = "duration reached"; break }
                timeoutMs = Int32(min(500, left.rounded(.up)))
            }
            var fds = [
                pollfd(fd: evdev.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: StopRequest.readFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                throw RecordFailure(message: "poll: \(String(cString: strerror(errno)))")
            }
            if fds[1].revents != 0 { why = "interrupted"; break }
            guard fds[0].revents != 0 else { continue }
            let status: DrainStatus
            do {
                status = try evdev.drain { event in
                    guard writeError == nil else { return }
                    do throws(RecordingError) { try recorder.record(event) } catch { writeError = error }
                }
            } catch {
                why = "read error: \(error)"
                break loop
            }
            if let writeError { throw RecordFailure(message: "\(writeError)") }
            if status == .gone { why = "device unplugged"; break }
        }
        return try finish(recorder, why: why)
    }

    private func recordFile(_ file: String, to path: String) throws(RecordFailure) -> String {
        let recording: Recording
        do { recording = try Recording.load(path: file) } catch { throw RecordFailure(message: "\(error)") }
        let recorder = try makeRecorder(path, recording.description, source: file)
        var why = "end of recording"
        for event in recording.events {
            if StopRequest.isRequested { why = "interrupted"; break }
            do { try recorder.record(event) } catch { throw RecordFailure(message: "\(error)") }
        }
        return try finish(recorder, why: why)
    }

    private func makeRecorder(_ path: String, _ description: DeviceDescription, source: String) throws(RecordFailure)
        -> EvemuRecorder
    {
        let comment = "recorded by handyctl record from \(source)"
        do { return try EvemuRecorder(path: path, description: description, comment: comment) } catch {
            throw RecordFailure(message: "\(error)")
        }
    }

    private func finish(_ recorder: EvemuRecorder, why: String) throws(RecordFailure) -> String {
        do { try recorder.close() } catch { throw RecordFailure(message: "\(error)") }
        return
            "handyctl record: \(why); \(recorder.frameCount) frames, \(recorder.eventCount) events in \(output ?? "standard output")"
    }
}

/// SIGINT/SIGTERM → a byte on a pipe, so the poll loop wakes up and stops between frames
/// (the self-pipe trick: write(2) is async-signal-safe, Swift code in a handler is not).
enum StopRequest {
    nonisolated(unsafe) private static var fds: [CInt] = [-1, -1]

    static var readFD: CInt { fds[0] }

    static func install() {
        var pair: [CInt] = [-1, -1]
        guard pipe(&pair) == 0 else { return }
        for fd in pair { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        fds = pair
        writeFD = pair[1]
        let handler: @convention(c) (CInt) -> Void = { _ in
            var byte: UInt8 = 1
            _ = write(StopRequest.writeFD, &byte, 1)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    nonisolated(unsafe) private static var writeFD: CInt = -1

    /// True once a signal arrived (checked without blocking).
    static var isRequested: Bool {
        guard fds[0] >= 0 else { return false }
        var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }
}
