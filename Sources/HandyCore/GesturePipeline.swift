import HandyProtocol

/// What one event (or one timer) produced.
public struct PipelineOutput: Sendable {
    public var frames: [TouchFrame] = []
    public var gestures: [GestureEvent] = []
    /// Contacts found stuck, and stuck ones lifted (``StuckContactFilter``): the device's health.
    public var stuckContacts: [StuckContactChange] = []
    public init() {}
    public var isEmpty: Bool { frames.isEmpty && gestures.isEmpty && stuckContacts.isEmpty }
    /// Empties the arrays and keeps their room (each only when not empty: an empty array's
    /// `removeAll(keepingCapacity:)` still costs a call).
    public mutating func empty() {
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !gestures.isEmpty { gestures.removeAll(keepingCapacity: true) }
        if !stuckContacts.isEmpty { stuckContacts.removeAll(keepingCapacity: true) }
    }
}

/// The per-device chain the daemon and `handyctl replay` both run: events → ``TouchTracker`` →
/// ``StuckContactFilter`` → ``GestureArena``. Pure: time comes from the events and from
/// ``advanceTime(to:into:)``.
public struct GesturePipeline: Sendable {
    public let deviceID: String
    public var tracker: TouchTracker
    public var stuckContacts: StuckContactFilter
    public var arena: GestureArena

    /// A contact still this long is left out of recognition unless the device says otherwise
    /// (HANDYD_STUCK_TOUCH_S, docs/DEVICES.md).
    public static let defaultStuckAfterSeconds = 30.0

    public init(
        deviceID: String, description: DeviceDescription, geometry: DeviceGeometry? = nil,
        configuration: GestureConfiguration = .init(), stuckAfterSeconds: Double = defaultStuckAfterSeconds
    ) {
        let geometry = geometry ?? DeviceGeometry(description: description)
        self.deviceID = deviceID
        self.tracker = TouchTracker(description: description, geometry: geometry)
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
    public mutating func advanceTime(to time: Timestamp) -> [GestureEvent] {
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
            out.gestures.append(contentsOf: arena.handle(frame))
        }
        return out
    }
}

extension TouchFrame {
    /// The wire form of this frame (`{"type":"touches",...}`).
    public func wireMessage(device: String) -> TouchesMessage {
        var touches: [WireTouch] = []
        return wireMessage(device: device, reusing: &touches)
    }

    /// The wire form of this frame, its touches made in `scratch` (whatever it held is replaced): a caller that
    /// encodes frame after frame keeps one array instead of allocating one per frame.
    public func wireMessage(device: String, reusing scratch: inout [WireTouch]) -> TouchesMessage {
        // Overwritten in place, then trimmed: emptied first, every frame paid the generic
        // `removeAll(keepingCapacity:)` before the same number of touches came back.
        var n = 0
        for t in touches {
            if n < scratch.count { scratch[n] = t.wireTouch } else { scratch.append(t.wireTouch) }
            n += 1
        }
        if scratch.count > n { scratch.removeLast(scratch.count - n) }
        return TouchesMessage(time: time.seconds, device: device, touches: scratch)
    }
}

extension Touch {
    var wireTouch: WireTouch {
        // Rounded inline (`inlineRounded`): eight libm calls a touch were ~10 % of making it.
        @inline(__always) get {
            WireTouch(
                id: id, phase: phase.rawValue, tool: tool.rawValue,
                x: inlineRounded(normalized.x, 100_000), y: inlineRounded(normalized.y, 100_000),
                xMm: inlineRounded(mm.x, 100), yMm: inlineRounded(mm.y, 100),
                majorMm: majorMm.map { inlineRounded($0, 100) }, minorMm: minorMm.map { inlineRounded($0, 100) },
                orientation: orientation.map { inlineRounded($0, 10_000) },
                pressure: pressure.map { inlineRounded($0, 10_000) },
                vxMm: inlineRounded(velocity.x, 10), vyMm: inlineRounded(velocity.y, 10))
        }
    }
}

/// `rounded(v, d)` with `scale` = 10^d, the rounding done in a few inline instructions instead of
/// a call to libm's `round` (which `Double.rounded()` is, without SSE4.1: the baseline x86-64 the
/// package builds for). Bit for bit the same (WireRoundingTests). The recognizers' `wireRounded`
/// rounds the same way; the larger inline code there first cost more than the calls it saved,
/// until the code around it stopped making the compiler copy the arena's context
/// (docs/PERFORMANCE.md section 5).
@inline(__always) func inlineRounded(_ v: Double, _ scale: Double) -> Double {
    nearestOrAwayFromZero(v * scale) / scale
}

/// `v.rounded()` (to the nearest integer, a tie away from zero), bit for bit.
@inline(__always) func nearestOrAwayFromZero(_ v: Double) -> Double {
    let a = v.magnitude
    // From 2^52 on every double is whole; NaN fails the test and comes back as it is.
    guard a < 0x1p52 else { return v }
    // Adding 2^52 leaves a spacing of 1: the sum is rounded to the nearest integer, a tie to even
    // (2^52 is even, so as `a` itself would be). No fast-math, so the compiler keeps both steps.
    var r = (a + 0x1p52) - 0x1p52
    // `a - r` is exact (`r` is 0, or within a factor 2 of `a`): a tie that went down to even goes
    // up, away from zero, instead.
    if a - r == 0.5 { r += 1 }
    // The sign of `v`: -0.3 gives -0.0 as `rounded()` does (and the wire writes "-0").
    return Double(signOf: v, magnitudeOf: r)
}

/// Rounds to `digits` decimals so the JSON stays short and stable across platforms.
@inline(__always) public func rounded(_ v: Double, _ digits: Int) -> Double {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    return (v * p).rounded() / p
}
