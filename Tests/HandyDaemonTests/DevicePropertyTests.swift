import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandyTestSupport
import HandyWire
import Testing

@testable import HandyDaemon

/// `handyd --replay F --device-property NAME=VALUE`: the replayed device takes the settings a live
/// one takes from udev, and a bad one is a problem on the device (hello, `handyctl devices`, the
/// log) with the default used (issue 13).
@Suite(.serialized)
struct DevicePropertyTests {
    /// Nine one-finger taps; the touches last 82-96 ms, two of them 110 ms.
    static let fastTaps = "whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"

    /// Everything a subscriber with touches receives, until a status reply marks the end.
    static func receiveAll(_ client: LineClient, count: Int) throws -> [ExpectedOutput.Item] {
        var received: [ExpectedOutput.Item] = []
        while received.count < count {
            guard let m = try client.readMessage() else { break }
            if let item = m.expectedItem { received.append(item) } else { Issue.record("unexpected \(m)") }
        }
        try client.send(#"{"type":"status"}"# + "\n")
        while let m = try client.readMessage() {
            if case .status = m { break }
            if let item = m.expectedItem { received.append(item) }
        }
        return received
    }

    @Test func aThresholdPropertyChangesWhatTheDaemonRecognises() throws {
        var shorter = GestureConfiguration()
        #expect(shorter.applyOverrides(["tap-timeout-ms": "100"]) == [])
        let expected = try ExpectedOutput(recordingPath: fixture(Self.fastTaps), configuration: shorter)
        let plain = try ExpectedOutput(recordingPath: fixture(Self.fastTaps))
        // The model itself: the two 110 ms touches are no taps with a 100 ms timeout.
        #expect(plain.gestures.filter { $0.gesture == .tap }.count == 9)
        #expect(expected.gestures.filter { $0.gesture == .tap }.count == 7)

        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(Self.fastTaps), "--wait-clients", "1",
            "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=100",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else { Issue.record("no hello"); return }
        #expect(hello.devices.count == 1 && hello.devices.first?.problems == nil)
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        #expect(try Self.receiveAll(client, count: expected.sequence.count) == expected.sequence)
        #expect(!daemon.log.contains("handyd bug"))
    }

    /// `hand-minimum-confidence` through the property a udev rule sets: the demo's first pinch, a
    /// right hand at 0.999 (0.951 before the confidence was calibrated per situation), is published
    /// `unknown` (confidence 0, clearSide unknown) under 1, its rightHandProbability kept.
    @Test func aHandMinimumConfidencePropertyWithholdsTheHandButNotItsProbability() throws {
        let demo = packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let plain = try onLargeStack { try Self.pinchEvents(demo, configuration: GestureConfiguration()) }
        let first = try #require(plain.first)
        let p = try #require(first.rightHandProbability)
        #expect(first.hand == .right && (first.handConfidence ?? 1) < 1 && p == first.handConfidence)

        let daemon = try DaemonProcess(arguments: [
            "--replay", demo, "--wait-clients", "1",
            "--device-property", "HANDYD_HAND_MINIMUM_CONFIDENCE=1",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else { Issue.record("no hello"); return }
        #expect(hello.devices.count == 1 && hello.devices.first?.problems == nil)
        try client.send(#"{"type":"subscribe","gestures":["pinch"]}"# + "\n")
        var received: [GestureEvent] = []
        while received.count < plain.count, let m = try client.readMessage() {
            if case .gesture(let g) = m { received.append(g) }
        }
        #expect(received.count == plain.count)
        let pinch = received.filter { $0.id == first.id }
        #expect(
            !pinch.isEmpty
                && pinch.allSatisfy {
                    $0.hand == .unknown && $0.handConfidence == 0 && $0.rightHandProbability == p
                        && ($0.clearSide == .unknown || $0.clearSide == nil)
                }, "\(pinch.prefix(2))")
        #expect(pinch.contains { $0.clearSide == .unknown })
        // Every pinch of the demo is below 1: none is published with a hand, each keeps its P.
        #expect(
            received.allSatisfy { $0.hand == .unknown }
                && received.map(\.rightHandProbability) == plain.map(\.rightHandProbability))
        #expect(!daemon.log.contains("handyd bug"))
    }

    /// The pinch events of a recording run through the pipeline in-process.
    static func pinchEvents(_ path: String, configuration: GestureConfiguration) throws -> [GestureEvent] {
        let recording = try Recording.load(path: path)
        var pipeline = GesturePipeline(
            deviceID: recording.deviceID, description: recording.description, configuration: configuration)
        var events: [GestureEvent] = []
        for event in recording.events {
            var output = PipelineOutput()
            pipeline.handle(event, into: &output)
            events += output.gestures.filter { $0.gesture == .pinch }.wireEvents
        }
        return events
    }

    @Test func anIdPropertyNamesTheReplayedDevice() throws {
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(Self.fastTaps), "--wait-clients", "1",
            "--device-property", "HANDYD_ID=front-screen",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else { Issue.record("no hello"); return }
        #expect(hello.devices.map(\.id) == ["front-screen"])
        // A subscription filter names it by that id, and its gestures carry it.
        try client.send(#"{"type":"subscribe","devices":["front-screen"]}"# + "\n")
        var device: String?
        while device == nil, let m = try client.readMessage() {
            if case .gesture(let g) = m { device = g.device }
        }
        #expect(device == "front-screen")
    }

    /// A device reports hover (hello's `hover`, "hover" in `handyctl devices`) when it declares
    /// ABS_MT_DISTANCE on protocol B (the Atmel maXTouch does, the EP0430M09 not) and
    /// HANDYD_HOVER=0 does not turn it off (issue 55).
    @Test(arguments: [
        (fastTaps, [String](), true), (fastTaps, ["HANDYD_HOVER=0"], false), (twoFingerFixture, [], false),
    ])
    func hoverIsReportedForADeviceWithTheAxisUnlessTurnedOff(
        _ recording: String, _ properties: [String], _ reportsHover: Bool
    ) throws {
        let daemon = try DaemonProcess(
            arguments: ["--replay", fixture(recording), "--wait-clients", "1"]
                + properties.flatMap { ["--device-property", $0] })
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else { Issue.record("no hello"); return }
        #expect(hello.devices.count == 1 && hello.devices.first?.problems == nil)
        #expect(hello.devices.first?.hover == (reportsHover ? true : nil), "\(recording) \(properties)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: handyctlBinary)
        process.arguments = ["devices", "--socket", daemon.socketPath]
        let run = try runToCompletion(process)
        let line = run.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(run.status == 0)
        #expect(line.split(separator: "\t").contains("hover") == reportsHover, "\(line)")
    }

    @Test func aBadPropertyIsAProblemOnTheDeviceAndTheDefaultIsUsed() throws {
        let expected = try ExpectedOutput(recordingPath: fixture(twoFingerFixture))
        // The fixture holds both fingers 0.51 s: the default 500 ms long press is recognised.
        #expect(expected.gestures.contains(.init(gesture: .longPress, phase: .began)))
        let problems = [
            "HANDYD_SIZE_MM=\"wide\": expected \"width height\", each 1 … 10000 mm; using the kernel's resolution (or the 250 mm guess)",
            "HANDYD_THRESHOLD_LONG_PRESS_MS=\"1e300\": out of range, accepted 1 … 60000 ms; using 500 ms",
        ]
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(twoFingerFixture), "--wait-clients", "1",
            "--device-property", "HANDYD_THRESHOLD_LONG_PRESS_MS=1e300",
            "--device-property", "HANDYD_SIZE_MM=wide",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello)? = try client.readMessage() else { Issue.record("no hello"); return }
        #expect(hello.devices.first?.problems == problems)

        // handyctl devices shows them under the device.
        let handyctl = URL(fileURLWithPath: handyctlBinary)
        let process = Process()
        process.executableURL = handyctl
        process.arguments = ["devices", "--socket", daemon.socketPath]
        let run = try runToCompletion(process)
        let text = run.stdoutText
        #expect(run.status == 0)
        #expect(text.split(separator: "\n").dropFirst().map(String.init) == problems.map { "\tproblem: \($0)" })

        // The replay runs with the defaults, long press included, and the daemon lives on.
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        #expect(try Self.receiveAll(client, count: expected.sequence.count) == expected.sequence)
        for problem in problems { #expect(daemon.log.contains(problem), "not logged: \(problem)") }
        #expect(!daemon.log.contains("handyd bug"))
    }

    @Test func devicePropertyNeedsReplayAndNameEqualsValue() throws {
        for arguments in [
            ["--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250"],
            ["--replay", fixture(twoFingerFixture), "--device-property", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: handydBinary)
            process.arguments = ["--socket", "/nonexistent/handyd.sock"] + arguments
            let run = try runToCompletion(process)
            let text = run.stderrText
            #expect(run.status == 64, "\(arguments): \(text)")
            #expect(text.contains("--device-property"), "\(text)")
        }
    }
}

/// The daemon's own conversions of device times and sizes saturate instead of trapping: a deadline
/// a configured delay after a late timestamp is "never" (LiveSource multiplied µs by 1000 unchecked).
@Test func deviceTimesAndSizesNeverTrapTheDaemon() {
    #expect(MonotonicInstant(deviceTime: Timestamp(microseconds: .max)).nanoseconds == .max)
    #expect(MonotonicInstant(deviceTime: Timestamp(microseconds: .min)).nanoseconds == .min)
    #expect(MonotonicInstant(deviceTime: Timestamp(microseconds: 1_500)).nanoseconds == 1_500_000)
    #expect(wireSizeMm(.infinity) == nil && wireSizeMm(.nan) == nil && wireSizeMm(123.456) == 123.5)
}
