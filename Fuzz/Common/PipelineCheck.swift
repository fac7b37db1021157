import HandyCore
import HandyProtocol
import HandyWire

// Shared by the fuzz harnesses that end in the gesture pipeline (Pipeline, EvemuReader,
// LibinputRecordReader, DeviceConfiguration): runs events through what the daemon runs per device and traps on any
// broken invariant, so libFuzzer reports it as a crash with the input that caused it.

/// Reads fuzz input front to back; past the end every read is 0, so any input is a valid program.
struct FuzzBytes {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var remaining: Int { Swift.max(0, bytes.count - index) }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    mutating func int32() -> Int32 {
        Int32(bitPattern: UInt32(uint16()) | UInt32(uint16()) << 16)
    }

    /// Mostly ordinary values, sometimes the corners that break arithmetic.
    mutating func interestingInt32() -> Int32 {
        let corners: [Int32] = [
            0, 1, -1, 2, 100, 4095, 32767, 65535, Int32.max, Int32.min, Int32.max - 1, Int32.min + 1,
        ]
        let selector = byte()
        if selector < 16 { return corners[Int(selector) % corners.count] }
        if selector < 32 { return int32() }
        return Int32(Int16(bitPattern: uint16()))
    }
}

/// What one run of the pipeline saw, and the invariants it must keep.
struct PipelineCheck {
    private var pipeline: GesturePipeline
    /// Continuous gestures that began and have not ended or been cancelled.
    private var open: Set<UInt64> = []
    private var closed: Set<UInt64> = []
    private var lineBuffer: [UInt8] = []
    private(set) var lastTime = Timestamp.zero

    init(
        description: DeviceDescription, synDroppedHandling: TouchTracker.SynDroppedHandling = .resyncEventsFollow,
        geometry: DeviceGeometry? = nil, configuration: GestureConfiguration = .init()
    ) {
        pipeline = GesturePipeline(
            deviceID: "fuzz", description: description, geometry: geometry, configuration: configuration)
        if synDroppedHandling != .resyncEventsFollow {
            pipeline.tracker = TouchTracker(description: description, synDroppedHandling: synDroppedHandling)
        }
    }

    mutating func feed(_ event: InputEvent) {
        var output = PipelineOutput()
        pipeline.handle(event, into: &output)
        lastTime = event.time
        check(output)
    }

    /// Fires timers up to `time`, as the daemon's loop does when a deadline passes.
    mutating func advance(to time: Timestamp) {
        guard let deadline = pipeline.nextDeadline, deadline <= time else { return }
        var output = PipelineOutput()
        output.gestures = pipeline.advanceTime(to: time)
        check(output)
    }

    /// The device goes away: afterwards nothing may be left open.
    mutating func finish(at time: Timestamp) {
        advance(to: time)
        check(pipeline.deviceRemoved(at: time))
        guard pipeline.tracker.activeTouchCount == 0 else {
            fatalError("fuzz invariant: \(pipeline.tracker.activeTouchCount) touches still active after deviceRemoved")
        }
        guard open.isEmpty else {
            fatalError("fuzz invariant: gestures \(open.sorted()) began but never ended or were cancelled")
        }
    }

    private mutating func check(_ output: PipelineOutput) {
        for frame in output.frames {
            var ids = Set<Int>()
            for touch in frame.touches where !ids.insert(touch.id).inserted {
                fatalError("fuzz invariant: touch id \(touch.id) twice in one frame")
            }
            encodeLine(.touches(frame.wireMessage(device: "fuzz")))
        }
        for gesture in output.gestures {
            guard !closed.contains(gesture.id) else {
                fatalError(
                    "fuzz invariant: gesture \(gesture.id) \(gesture.gesture.rawValue) \(gesture.phase.rawValue) after it ended"
                )
            }
            switch gesture.phase {
            case .began:
                guard open.insert(gesture.id).inserted else {
                    fatalError("fuzz invariant: gesture \(gesture.id) began twice")
                }
            case .changed:
                guard open.contains(gesture.id) else {
                    fatalError("fuzz invariant: gesture \(gesture.id) changed before it began")
                }
            case .ended, .cancelled:
                guard open.remove(gesture.id) != nil else {
                    fatalError("fuzz invariant: gesture \(gesture.id) \(gesture.phase.rawValue) without began")
                }
                closed.insert(gesture.id)
            case .recognized:
                closed.insert(gesture.id)
            }
            encodeLine(.gesture(GestureEvent(gesture)))
        }
    }

    /// Every line the daemon would send must be exactly one line of UTF-8.
    private mutating func encodeLine(_ message: ServerMessage) {
        lineBuffer.removeAll(keepingCapacity: true)
        JSONLines.encode(message, into: &lineBuffer)
        guard lineBuffer.last == UInt8(ascii: "\n"),
            lineBuffer.firstIndex(of: UInt8(ascii: "\n")) == lineBuffer.count - 1
        else {
            fatalError("fuzz invariant: \(message.typeName) line is not exactly one line")
        }
        guard String(validating: lineBuffer, as: UTF8.self) != nil else {
            fatalError("fuzz invariant: \(message.typeName) line is not UTF-8")
        }
    }
}

/// Runs a parsed recording through the pipeline the way a replay does (events in file order,
/// timers when their deadline passes), then removes the device.
func runRecording(_ description: DeviceDescription, _ events: [InputEvent], limit: Int = 1024) {
    var check = PipelineCheck(description: description)
    for event in events.prefix(limit) {
        check.feed(event)
    }
    check.finish(at: check.lastTime)
}
