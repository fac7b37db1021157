import HandyCore
import HandySynthetic

/// Runs events through a tracker and collects every frame.
func trackerFrames(_ tracker: inout TouchTracker, _ events: [InputEvent]) -> [TouchFrame] {
    var out: [TouchFrame] = []
    for e in events {
        if let f = tracker.handle(e) { out.append(f) }
    }
    return out
}

func trackerFrames(_ device: SyntheticTouchscreen, _ events: [InputEvent], geometry: DeviceGeometry? = nil) -> (
    frames: [TouchFrame], counters: TrackerCounters
) {
    var tracker = TouchTracker(description: device.description, geometry: geometry)
    let frames = trackerFrames(&tracker, events)
    return (frames, tracker.counters)
}

/// "id:phase" per touch, e.g. ["0:began", "1:moved"], for compact expectations.
func trackerPhases(_ frame: TouchFrame) -> [String] {
    frame.touches.map { "\($0.id):\($0.phase.rawValue)" }
}

func trackerEvent(_ time: Timestamp, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
    InputEvent(time: time, type: type, code: code, value: value)
}
func trackerAbs(_ code: UInt16, _ value: Int32, at time: Timestamp = Timestamp(seconds: 1)) -> InputEvent {
    InputEvent(time: time, type: EventType.abs, code: code, value: value)
}
func trackerSynReport(at time: Timestamp = Timestamp(seconds: 1)) -> InputEvent {
    InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0)
}
func trackerSynDropped(at time: Timestamp = Timestamp(seconds: 1)) -> InputEvent {
    InputEvent(time: time, type: EventType.syn, code: SynCode.dropped, value: 0)
}

func trackerApprox(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return Swift.abs(a - b) <= tolerance
}
