import HandyProtocol

/// What one event (or one timer) produced.
public struct PipelineOutput: Sendable {
    /// The touch frames made, in order.
    public var frames: [TouchFrame] = []
    /// The gesture events made, in order.
    public var gestures: [CoreGestureEvent] = []
    /// Contacts found stuck, and stuck ones lifted (``StuckContactFilter``): the device's health.
    public var stuckContacts: [StuckContactChange] = []
    /// The hovering contacts after each frame that has some (``TouchTracker/hovering``), in
    /// frame order: only on a device that reports hover, so empty elsewhere. Apart from the
    /// frames, which no recognizer reads them with.
    public var hovering: [FrameHovering] = []
    /// An empty output.
    public init() {}
    /// True when no frame, gesture or stuck-contact change was made.
    public var isEmpty: Bool { frames.isEmpty && gestures.isEmpty && stuckContacts.isEmpty }
    /// Empties the arrays and keeps their room (each only when not empty: an empty array's
    /// `removeAll(keepingCapacity:)` still costs a call).
    public mutating func empty() {
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !gestures.isEmpty { gestures.removeAll(keepingCapacity: true) }
        if !stuckContacts.isEmpty { stuckContacts.removeAll(keepingCapacity: true) }
        if !hovering.isEmpty { hovering.removeAll(keepingCapacity: true) }
    }
}

/// The hovering contacts after one frame of a ``PipelineOutput``.
public struct FrameHovering: Hashable, Sendable {
    /// The frame's index in ``PipelineOutput/frames``.
    public var frame: Int
    /// ``TouchTracker/hovering`` after it: in range, or leaving it in this frame.
    public var contacts: [HoverContact]
    /// The hovering contacts after frame `frame`.
    public init(frame: Int, contacts: [HoverContact]) {
        self.frame = frame
        self.contacts = contacts
    }
}

/// The per-device chain the daemon and `handyctl replay` both run: events → ``TouchTracker`` →
/// ``StuckContactFilter`` → ``GestureArena``. Pure: time comes from the events and from
/// ``advanceTime(to:into:)``.
public struct GesturePipeline: Sendable {
    /// The device's id, carried by every event.
    public let deviceID: String
    /// Events to touch frames.
    public var tracker: TouchTracker
    /// Leaves contacts that stay still too long out of recognition.
    public var stuckContacts: StuckContactFilter
    /// Touch frames to gesture events.
    public var arena: GestureArena

    /// A contact still this long is left out of recognition unless the device says otherwise
    /// (HANDYD_STUCK_TOUCH_S, docs/DEVICES.md).
    public static let defaultStuckAfterSeconds = 30.0

    /// A pipeline for one device; `geometry` nil is the description's own (kernel resolution or the fallback).
    public init(
        deviceID: String, description: DeviceDescription, geometry: DeviceGeometry? = nil,
        configuration: GestureConfiguration = .init(), stuckAfterSeconds: Double = defaultStuckAfterSeconds,
        tracksHover: Bool = true
    ) {
        let geometry = geometry ?? DeviceGeometry(description: description)
        self.deviceID = deviceID
        self.tracker = TouchTracker(description: description, geometry: geometry, tracksHover: tracksHover)
        let configuration = configuration.applying(geometry)
        self.stuckContacts = StuckContactFilter(stuckAfterSeconds: stuckAfterSeconds, slopMm: configuration.touchSlopMm)
        self.arena = GestureArena(deviceID: deviceID, geometry: geometry, configuration: configuration)
    }

    /// Feeds one event, appending any completed frame and its gestures to `output`.
    public mutating func handle(_ event: InputEvent, into output: inout PipelineOutput) {
        // Timers due before this event fire first, so replays match live behaviour.
        if let deadline = arena.nextDeadline, deadline <= event.time {
            advanceTime(to: event.time, into: &output)
        } else if let stuckAt = stuckContacts.nextDeadline, stuckAt <= event.time {
            advanceTime(to: event.time, into: &output)
        }
        guard let frame = tracker.handle(event) else { return }
        output.frames.append(frame)
        if tracker.tracksHover {
            if !tracker.hovering.isEmpty {
                output.hovering.append(FrameHovering(frame: output.frames.count - 1, contacts: tracker.hovering))
            }
            arena.noteHovering(tracker.hovering)
        }
        guard stuckContacts.isEnabled else {
            // Straight into the caller's array: no per-frame array of events (docs/PERFORMANCE.md).
            arena.handle(frame, into: &output.gestures)
            return
        }
        guard stuckContacts.observe(frame, changes: &output.stuckContacts) else {
            arena.handle(frame, into: &output.gestures)
            return
        }
        let kept = stuckContacts.withoutStuck(frame)
        // A frame that held only stuck touches is nothing to the arena (unless it ends a resync).
        if kept.touches.isEmpty && !frame.touches.isEmpty && !kept.resynced { return }
        arena.handle(kept, into: &output.gestures)
    }

    /// Delivers timers up to `time` (the daemon calls this when ``nextDeadline`` passes): the
    /// recognizers' and the moments contacts become stuck, in time order.
    public mutating func advanceTime(to time: Timestamp, into output: inout PipelineOutput) {
        while let stuckAt = stuckContacts.nextDeadline, stuckAt <= time {
            if let deadline = arena.nextDeadline, deadline <= stuckAt {
                arena.advanceTime(to: stuckAt, into: &output.gestures)
            }
            guard
                let frame = stuckContacts.fire(
                    at: stuckAt, current: tracker.stationaryFrame(at: stuckAt),
                    changes: &output.stuckContacts)
            else { break }
            arena.handle(frame, into: &output.gestures)
        }
        arena.advanceTime(to: time, into: &output.gestures)
    }

    /// Delivers timers up to `time`, returning the gestures only (callers that do not report health).
    public mutating func advanceTime(to time: Timestamp) -> [CoreGestureEvent] {
        var output = PipelineOutput()
        advanceTime(to: time, into: &output)
        return output.gestures
    }

    /// The earliest timer: a recognizer's, or the moment a contact becomes stuck.
    public var nextDeadline: Timestamp? {
        guard let stuckAt = stuckContacts.nextDeadline else { return arena.nextDeadline }
        guard let deadline = arena.nextDeadline else { return stuckAt }
        return Swift.min(stuckAt, deadline)
    }

    /// The device is gone: cancel its touches and gestures.
    public mutating func deviceRemoved(at time: Timestamp) -> PipelineOutput {
        var out = PipelineOutput()
        stuckContacts.reset()
        // Cancel gestures first so subscribers see the real reason, then the touches.
        out.gestures.append(contentsOf: arena.cancelAll(at: time, reason: "device-removed"))
        if let frame = tracker.cancelAll(at: time) {
            out.frames.append(frame)
            if !tracker.hovering.isEmpty {
                out.hovering.append(FrameHovering(frame: out.frames.count - 1, contacts: tracker.hovering))
            }
            out.gestures.append(contentsOf: arena.handle(frame))
        }
        return out
    }
}
