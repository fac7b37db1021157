import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandyWire

/// Runs `body` on a thread with an 8 MiB stack and waits for it.
package func onLargeStack<T>(_ body: @escaping () throws -> T) throws -> T {
    nonisolated(unsafe) var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) let work = body
    let thread = Thread {
        result = Result { try work() }
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    done.wait()
    return try result!.get()
}

/// What a subscriber should receive for a recording: the recording run through the same
/// GesturePipeline in-process, one event at a time, as the daemon's replay does.
package struct ExpectedOutput {
    package var deviceID: String
    package var touches: [TouchesMessage] = []
    /// Gestures as (kind, phase): timer-driven gestures fire from the daemon's clock, so their
    /// `time` fields may differ slightly from this model's.
    package var gestures: [GestureKey] = []
    /// The full sequence, touches and gestures interleaved as on the wire.
    package var sequence: [Item] = []
    /// SYN_DROPPED resyncs in the recording (each reported as a kernel drop).
    package var resyncs: UInt64 = 0

    package struct GestureKey: Hashable, CustomStringConvertible {
        package init(gesture: GestureKind, phase: GesturePhase) { self.gesture = gesture; self.phase = phase }
        package var gesture: GestureKind
        package var phase: GesturePhase
        package var description: String { "\(gesture.rawValue) \(phase.rawValue)" }
    }
    package enum Item: Hashable { case touches(TouchesMessage), gesture(GestureKey) }

    /// - Parameter configuration: the thresholds the daemon is expected to use (`--device-property`).
    package init(recordingPath: String, configuration: GestureConfiguration = .init()) throws {
        self = try onLargeStack { try ExpectedOutput(computing: recordingPath, configuration: configuration) }
    }

    private init(computing recordingPath: String, configuration: GestureConfiguration) throws {
        let recording = try Recording.load(path: recordingPath)
        deviceID = recording.deviceID
        // Without the stuck-contact timer: touches still down at the end would be stuck 30 s later,
        // long after a test has compared what came (the recordings here are shorter than that).
        var pipeline = GesturePipeline(
            deviceID: deviceID, description: recording.description, configuration: configuration,
            stuckAfterSeconds: 0)
        for event in recording.events {
            var output = PipelineOutput()
            pipeline.handle(event, into: &output)
            append(output)
        }
        // Timers still pending after the last event fire later in the daemon.
        var guardCount = 0
        while let deadline = pipeline.nextDeadline, guardCount < 100 {
            guardCount += 1
            var output = PipelineOutput()
            output.gestures = pipeline.advanceTime(to: deadline)
            append(output)
        }
        resyncs = pipeline.tracker.counters.resyncs
    }

    private mutating func append(_ output: PipelineOutput) {
        for frame in output.frames where frame.hasChanges {
            let m = frame.wireMessage(device: deviceID)
            touches.append(m)
            sequence.append(.touches(m))
        }
        for g in output.gestures {
            let key = GestureKey(gesture: g.gesture, phase: g.phase)
            gestures.append(key)
            sequence.append(.gesture(key))
        }
    }
}

extension ServerMessage {
    /// The item of ``ExpectedOutput`` this message corresponds to, nil for other messages.
    package var expectedItem: ExpectedOutput.Item? {
        switch self {
        case .touches(let m): .touches(m)
        case .gesture(let g): .gesture(.init(gesture: g.gesture, phase: g.phase))
        default: nil
        }
    }
}
