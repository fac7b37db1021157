import Foundation
import HandyProtocol
import HandyRecording
import HandySynthetic
import HandyTestSupport
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#endif

/// The real handyd replaying the misbehaving-device recordings (Tests/Fixtures/misbehaving/) and
/// a 10 k frames/s storm: it stays up, reports no bug, and a subscriber receives exactly what the
/// pipeline model produces (every touch frame and gesture phase, in order, nothing dropped).
/// What a device that vanishes does on the wire is checked on a real kernel in
/// scripts/vm/guest/misbehaving_guest.py; the pipeline side in MisbehavingDeviceTests.
@Suite(.serialized)
struct MisbehavingReplayTests {
    static let names = [
        "tracking-id-jump.evemu", "slot-beyond-range.evemu", "values-beyond-range.evemu",
        "missing-syn-report.evemu", "vanish-mid-frame.evemu", "syn-dropped.evemu", "time-goes-back.evemu",
    ]

    /// Replays `path` to one touches subscriber and checks it receives the model's sequence.
    func replayDeliversEverything(_ path: String, timeoutSeconds: Double = 20) throws -> Int {
        signal(SIGPIPE, SIG_IGN)
        let expected = try ExpectedOutput(recordingPath: path)
        let daemon = try DaemonProcess(arguments: ["--replay", path, "--wait-clients", "1"])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello = try client.readMessage() else { Issue.record("first message is not hello"); return 0 }
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        var received: [ExpectedOutput.Item] = []
        var health: [DeviceMessage.Event] = []
        while received.count < expected.sequence.count {
            guard let m = try client.readMessage(timeoutSeconds: timeoutSeconds) else { break }
            // Health reports (a kernel drop) are the device's, beside the model's sequence.
            if case .device(let d) = m, d.health != nil { health.append(d.event); continue }
            if let item = m.expectedItem { received.append(item) } else { Issue.record("unexpected \(m)") }
        }
        let drops = expected.resyncs
        #expect(
            health.filter { $0 == .dropped }.isEmpty == (drops == 0), "\(path): health \(health), \(drops) SYN_DROPPED")
        #expect(received == expected.sequence, "\(path)")
        try client.send(#"{"type":"status"}"# + "\n")
        var status: StatusMessage?
        while let m = try client.readMessage() {
            if case .status(let s) = m { status = s; break }
            if case .device(let d) = m, d.health != nil { continue }
            Issue.record("more than the model: \(m)")
        }
        #expect(status?.frames == UInt64(expected.touches.count))
        #expect(status?.drops == 0)
        #expect(daemon.process.isRunning, "handyd died replaying \(path)")
        #expect(!daemon.log.contains("handyd bug"), "\(path): \(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
        return expected.touches.count
    }

    @Test(arguments: names) func misbehavingRecordingReplaysCompletely(_ name: String) throws {
        let frames = try replayDeliversEverything(fixture("misbehaving/" + name))
        #expect(frames > 10)
    }

    /// The fault each recording holds (Tests/Fixtures/misbehaving/README.md) is told to the
    /// journal as a warning naming the device and the fault.
    static let faults = [
        "tracking-id-jump.evemu": "tracking ids replaced without a lift",
        "slot-beyond-range.evemu": "slot numbers beyond its slots",
        "values-beyond-range.evemu": "axis values beyond their range",
        "missing-syn-report.evemu": "frames without SYN_REPORT",
        "syn-dropped.evemu": "SYN_DROPPED", "time-goes-back.evemu": "event times earlier than the one before",
    ]

    @Test(arguments: faults.keys.sorted()) func aFaultOfTheDeviceIsLogged(_ name: String) throws {
        let daemon = try DaemonProcess(arguments: ["--replay", fixture("misbehaving/" + name)])
        let deadline = Date().addingTimeInterval(20)
        while !daemon.log.contains("replay finished") && Date() < deadline { usleep(50_000) }
        let warnings = daemon.log.split(separator: "\n").filter { $0.contains("device breaks the multitouch protocol") }
        let fault = Self.faults[name]!
        #expect(
            warnings.contains { $0.contains(fault) && $0.contains("device.id=replay:" + name.dropLast(6)) },
            "\(name): \(warnings)")
        // Once per kind of fault at this size (a few in a recording): not a line per event.
        #expect(warnings.count <= Self.faults.count, "\(name): \(warnings)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
    }

    /// 5 001 frames in 0.5 s (10 k frames/s), each moving both fingers: the subscriber asking for
    /// touches gets every frame and every gesture phase. The client counts touches lines without
    /// decoding them (a debug-built decoder would fall behind and be dropped as a slow client,
    /// which is the daemon's rule, not a loss).
    @Test func aStormOfTenThousandFramesPerSecondReachesTheSubscriberWhole() throws {
        signal(SIGPIPE, SIG_IGN)
        // As in MisbehavingDeviceTests.stormPinch, half as long: every frame moves a finger. Half a
        // second keeps handyd's start (reading the 1 MB file) quick in a ThreadSanitizer build.
        let screen = SyntheticTouchscreen(mtProtocol: .slots(10), maxX: 65535, maxY: 32767, resolution: 300)
        let events = SyntheticStream(device: screen, frameRateHz: 10_000).events([
            .line(fromMm: (60, 30), toMm: (80, 45), startSeconds: 0, durationSeconds: 0.5),
            .line(fromMm: (160, 90), toMm: (140, 75), startSeconds: 0, durationSeconds: 0.5),
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handyd-storm-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("storm.evemu").path
        try EvemuWriter.recording(description: screen.description, events: events).write(
            toFile: path, atomically: true, encoding: .utf8)
        let expected = try ExpectedOutput(recordingPath: path)
        #expect(expected.touches.count == 5_001)

        // The whole storm (~10 MB of lines) fits the client's queue, so a test process starved of CPU
        // on a loaded machine is not dropped as a slow client: this test is about the device.
        let daemon = try DaemonProcess(arguments: [
            "--replay", path, "--wait-clients", "1", "--client-queue-bytes", "\(64 << 20)",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello = try client.readMessage() else { Issue.record("first message is not hello"); return }
        let started = Date()
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        var touches: UInt64 = 0
        var gestures: [String: Int] = [:]
        var gestureCount = 0
        let touchesPrefix = Array(#"{"type":"touches""#.utf8)
        func field(_ name: String, _ line: String) -> Substring {
            guard let r = line.range(of: "\"\(name)\":\"") else { return "" }
            return line[r.upperBound...].prefix { $0 != "\"" }
        }
        while touches < UInt64(expected.touches.count) || gestureCount < expected.gestures.count {
            guard
                let line = try client.readLine(countingAndSkipping: touchesPrefix, count: &touches, timeoutSeconds: 30)
            else {
                Issue.record("disconnected after \(touches) touches, \(gestureCount) gestures")
                break
            }
            guard line.hasPrefix(#"{"type":"gesture""#) else { Issue.record("unexpected \(line.prefix(200))"); break }
            gestures["\(field("gesture", line)) \(field("phase", line))", default: 0] += 1
            gestureCount += 1
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(touches == UInt64(expected.touches.count))
        #expect(gestures == Dictionary(expected.gestures.map { ($0.description, 1) }, uniquingKeysWith: +))
        try client.send(#"{"type":"status"}"# + "\n")
        guard case .status(let status)? = try client.readMessage() else { Issue.record("no status reply"); return }
        #expect(status.frames == 5_001 && status.drops == 0)
        #expect(!daemon.log.contains("handyd bug"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
        print(
            "misbehaving storm replay: \(touches) touches lines and \(gestureCount) gesture lines in \(String(format: "%.2f", seconds)) s"
        )
    }

    /// A recording's header rewritten: `line` (an `A:` line of tracking-id-jump.evemu) replaced.
    func fixtureWithAxis(_ line: String, replacing old: String, name: String) throws -> String {
        let text = try String(contentsOfFile: fixture("misbehaving/tracking-id-jump.evemu"), encoding: .utf8)
        #expect(text.contains(old + "\n"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("handyd-\(name)-\(getpid()).evemu")
            .path
        try text.replacingOccurrences(of: old + "\n", with: line + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A device declaring 2³¹ slots is announced with the 256 the tracker keeps, not 2147483648
    /// (a client sizing a table by `slots` would have tried to allocate 2³¹ entries).
    @Test func theDeviceMessageGivesTheSlotsTracked() throws {
        let path = try fixtureWithAxis("A: 2f 0 2147483647 0 0 0", replacing: "A: 2f 0 9 0 0 0", name: "slots")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try DaemonProcess(arguments: ["--replay", path, "--wait-clients", "1"])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello) = try client.readMessage() else {
            Issue.record("first message is not hello"); return
        }
        #expect(hello.devices.map(\.slots) == [DeviceDescription.maxTrackedSlots])
        #expect(DeviceDescription.maxTrackedSlots == 256)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
    }

    /// An axis whose range is empty cannot place a touch: the replay is refused with the axis
    /// named and a non-zero exit, as a live device is skipped (libinput refuses it too).
    @Test func aRecordingWhosePositionRangeIsEmptyIsRefusedByName() throws {
        let path = try fixtureWithAxis("A: 35 1919 1919 0 0 10", replacing: "A: 35 0 1919 0 0 10", name: "empty-range")
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let daemon = try DaemonProcess(arguments: ["--replay", path])
            Issue.record("handyd replays it: \(daemon.log)")
        } catch let error as HarnessError {
            #expect(error.description.contains("exited early"), "\(error)")
            #expect(
                error.description.contains("ABS_MT_POSITION_X has an empty range (minimum 1919, maximum 1919)"),
                "\(error)")
        }
    }

    /// Regression (issue 8): `handyd --replay` trapped converting a recording's time offset to
    /// nanoseconds when its events span more than 292 years (or sit near Int64.max µs). Now the
    /// far event is simply never due: the first frame arrives, the daemon stays up and answers.
    @Test(arguments: [["0.000000", "9000000000000.000000"], ["9223372036854.000000", "9223372036854.700000"]])
    func aRecordingSpanningCenturiesDoesNotCrashTheReplay(_ times: [String]) throws {
        signal(SIGPIPE, SIG_IGN)
        let header = try String(contentsOfFile: fixture("misbehaving/tracking-id-jump.evemu"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-span-\(getpid())-\(times[0]).evemu"
        ).path
        try
            (header + "\nE: \(times[0]) 0003 0039 5\nE: \(times[0]) 0003 0035 100\nE: \(times[0]) 0000 0000 0\n"
            + "E: \(times[1]) 0003 0039 -1\nE: \(times[1]) 0000 0000 0\n").write(
                toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let daemon = try DaemonProcess(arguments: ["--replay", path, "--wait-clients", "1"])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello = try client.readMessage() else { Issue.record("first message is not hello"); return }
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        guard case .touches(let first)? = try client.readMessage() else { Issue.record("no first frame"); return }
        #expect(first.touches.map(\.phase) == ["began"])
        usleep(300_000)
        try client.send(#"{"type":"status"}"# + "\n")
        var status: StatusMessage?
        while let m = try client.readMessage() { if case .status(let s) = m { status = s; break } }
        #expect(status?.frames == 1)
        #expect(daemon.process.isRunning, "handyd died: \(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 10) == 0)
    }
}
