import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySettings
import HandyTestSupport
import Testing

@testable import HandyDaemon

/// A device's hand profile in the daemon (HANDYD_HAND_PROFILE, docs/DEVICES.md): applied to the
/// replayed device, read again on SIGHUP, and a bad one a warning while the device keeps serving
/// gestures with the default model. Every read has a deadline (LineClient's, and the log waits).
@Suite(.serialized)
struct HandProfileDaemonTests {
    static let demo = packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path

    /// A profile that leans every pinch far to the left hand.
    static let leftLeaning = """
        {"version":1,"device":"demo","pinch":{"scale":1,"bias":-8,"minimumConfidence":0.6},"pinches":10,"taps":0,
         "enrolled":{"leftPinches":5,"rightPinches":5,"leftTaps":0,"rightTaps":0,"leftAccuracy":1,"rightAccuracy":1}}
        """

    static func pinches(_ daemon: DaemonProcess, _ client: LineClient, count: Int) throws -> [GestureEvent] {
        try client.send(#"{"type":"subscribe","gestures":["pinch"]}"# + "\n")
        var received: [GestureEvent] = []
        while received.count < count, let m = try client.readMessage(timeoutSeconds: 20) {
            if case .gesture(let g) = m { received.append(g) }
        }
        #expect(received.count == count, "\(daemon.stateForFailure)")
        return received
    }

    static func waitForLog(_ daemon: DaemonProcess, _ text: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if daemon.log.contains(text) { return true }
            usleep(20_000)
        }
        return daemon.log.contains(text)
    }

    static func plainPinches() throws -> [GestureEvent] {
        try onLargeStack { try DevicePropertyTests.pinchEvents(demo, configuration: GestureConfiguration()) }
    }

    @Test(arguments: ["corrupt", "version", "missing"])
    func aBadProfileIsAWarningAndTheDeviceKeepsServing(kind: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("front.json").path
        switch kind {
        case "corrupt": try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        case "version": try Data(#"{"version": 2}"#.utf8).write(to: URL(fileURLWithPath: path))
        default: break
        }
        let plain = try Self.plainPinches()
        #expect(plain.count > 10)
        let daemon = try DaemonProcess(arguments: [
            "--replay", Self.demo, "--wait-clients", "1",
            "--device-property", "HANDYD_HAND_PROFILE=\(path)",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else {
            Issue.record("no hello: \(daemon.stateForFailure)"); return
        }
        #expect(hello.devices.count == 1 && hello.devices.first?.problems == nil)
        let received = try Self.pinches(daemon, client, count: plain.count)
        // The default model: the same hands and probabilities as without a profile.
        #expect(
            received.map(\.hand) == plain.map(\.hand)
                && received.map(\.rightHandProbability) == plain.map(\.rightHandProbability))
        let log = daemon.log
        #expect(log.contains("bad hand profile, default model used") && log.contains("profile.file=\(path)"), "\(log)")
        let problem =
            kind == "corrupt"
            ? "corrupt JSON"
            : kind == "version"
                ? "version 2: this handyd reads version 1 profiles only"
                : "cannot read it: No such file or directory"
        #expect(log.contains(problem), "\(log)")
        #expect(!log.contains("handyd bug"))
    }

    /// A good profile applies to every pinch; SIGHUP reads the file again.
    @Test func aProfileAppliesAndAReloadReadsItAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("front.json").path
        let plain = try Self.plainPinches()
        #expect(plain.contains { $0.hand == .right })

        // No file yet: a warning, the default model; then the file appears and SIGHUP reads it.
        let daemon = try DaemonProcess(arguments: [
            "--replay", Self.demo, "--wait-clients", "1",
            "--device-property", "HANDYD_HAND_PROFILE=\(path)",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello? = try client.readMessage() else {
            Issue.record("no hello: \(daemon.stateForFailure)"); return
        }
        #expect(Self.waitForLog(daemon, "bad hand profile"), "\(daemon.log)")
        try Data(Self.leftLeaning.utf8).write(to: URL(fileURLWithPath: path))
        daemon.signal(SIGHUP)
        #expect(Self.waitForLog(daemon, "hand profile applied"), "\(daemon.log)")
        let received = try Self.pinches(daemon, client, count: plain.count)
        // Every pinch left; where the default said right, the profile overrules it at the floor 0.6.
        #expect(
            received.allSatisfy { $0.hand == .left && ($0.rightHandProbability ?? 1) <= 0.4 }, "\(received.map(\.hand))"
        )
        for (r, p) in zip(received, plain) where p.hand == .right {
            #expect(r.handConfidence == 0.6 && r.rightHandProbability == 0.4, "\(r)")
        }
        #expect(received.map(\.id) == plain.map(\.id), "the same pinches, only their hand changed")
        #expect(!daemon.log.contains("handyd bug"))
    }
}
