import HandyCore
import HandyProtocol
import HandyRecording
import HandyWire

/// One touch's life (put down → lifted or lost) as the tracker saw it, for drawing.
public struct TouchTrace: Sendable, Equatable {
    /// One tracker frame's view of the touch.
    public struct Sample: Sendable, Equatable {
        public var time: Timestamp
        public var mm: PhysicalPoint
        public var majorMm: Double?
        public var minorMm: Double?
        /// Radians, kernel convention (0 = along Y, clockwise positive), display frame.
        public var orientation: Radians?
    }

    /// The touch's small stable id (reused by later touches once this one is lifted).
    public var id: Int
    /// Position of this trace among all traces of the recording, in the order they began.
    public var index: Int
    public var tool: TouchTool
    public var samples: [Sample]
    /// `ended` or `cancelled`; nil when the touch is still down at the end of the recording.
    public var end: TouchPhase?

    public var beganAt: Timestamp { samples.first?.time ?? .zero }
    public var lastTime: Timestamp { samples.last?.time ?? .zero }

    /// Position at `time`, interpolated linearly between the samples around it (clamped to the ends).
    public func position(at time: Timestamp) -> PhysicalPoint? {
        guard let first = samples.first else { return nil }
        if time <= first.time { return first.mm }
        for (a, b) in zip(samples, samples.dropFirst()) where b.time >= time {
            let spanUs = Double(b.time.microseconds - a.time.microseconds)
            guard spanUs > 0 else { return b.mm }
            let f = Double(time.microseconds - a.time.microseconds) / spanUs
            return a.mm + (b.mm - a.mm) * f
        }
        return samples.last?.mm
    }

    /// The sample in force at `time`: the last one at or before it.
    public func sample(at time: Timestamp) -> Sample? {
        samples.last { $0.time <= time } ?? samples.first
    }
}

/// Everything a plot shows of one recording: the device surface, every touch's trace and every
/// gesture event the pipeline produced, on the recording's own clock.
/// One hovering contact's life above the glass (a device that reports hover): where it was, and
/// how it ended (`landed` as a touch, `ended` out of range, `cancelled`; nil while still in range).
public struct HoverTrace: Sendable, Equatable {
    /// Its own small id (not a touch's).
    public var id: Int
    public var samples: [PhysicalPoint]
    public var times: [Timestamp]
    public var end: HoverPhase?
    public init(id: Int, samples: [PhysicalPoint] = [], times: [Timestamp] = [], end: HoverPhase? = nil) {
        self.id = id
        self.samples = samples
        self.times = times
        self.end = end
    }
}

public struct PlotData: Sendable {
    public var deviceName: String
    /// Display size in mm (kernel resolution, or handyd's fallback when the device reports none).
    public var widthMm: Double
    public var heightMm: Double
    public var hasKernelResolution: Bool
    /// First and last event times: the timeline's range.
    public var startTime: Timestamp
    public var endTime: Timestamp
    /// Every touch life, in the order they began.
    public var traces: [TouchTrace]
    /// Every gesture event, in the order the pipeline emitted them.
    public var gestures: [GestureEvent]
    /// Every hovering contact's life, in the order they came into range (empty without hover).
    public var hoverTraces: [HoverTrace] = []

    public init(
        deviceName: String, widthMm: Double, heightMm: Double, hasKernelResolution: Bool,
        startTime: Timestamp, endTime: Timestamp, traces: [TouchTrace], gestures: [GestureEvent]
    ) {
        self.deviceName = deviceName
        self.widthMm = widthMm
        self.heightMm = heightMm
        self.hasKernelResolution = hasKernelResolution
        self.startTime = startTime
        self.endTime = endTime
        self.traces = traces
        self.gestures = gestures
    }

    /// How far time advances after the last event so pending timers (tap, long press) fire; the
    /// same second `handyctl replay` allows.
    public static let trailingMicroseconds: Int64 = 1_000_000

    /// Runs `recording` through a ``GesturePipeline`` (the daemon's per-device chain) and collects
    /// what it produced.
    public init(recording: Recording, configuration: GestureConfiguration = .init()) {
        let geometry = DeviceGeometry(description: recording.description)
        var pipeline = GesturePipeline(
            deviceID: recording.deviceID, description: recording.description,
            geometry: geometry, configuration: configuration)
        var collector = TraceCollector()
        var gestures: [GestureEvent] = []
        var hovers = HoverTraceCollector()
        for event in recording.events {
            // Timers due before this event fire first, as they would live.
            if let deadline = pipeline.nextDeadline, deadline <= event.time {
                gestures += pipeline.advanceTime(to: event.time).wireEvents
            }
            var out = PipelineOutput()
            pipeline.handle(event, into: &out)
            for frame in out.frames { collector.add(frame) }
            for h in out.hovering { hovers.add(h.contacts) }
            gestures += out.gestures.wireEvents
        }
        let start = recording.events.first?.time ?? .zero
        var end = recording.events.last?.time ?? .zero
        if let last = recording.events.last {
            let trailing = pipeline.advanceTime(to: last.time.advanced(byMicroseconds: Self.trailingMicroseconds))
                .wireEvents
            gestures += trailing
            // Stretch the timeline only as far as a timer-fired gesture needs.
            if let latest = trailing.map(\.time).max() { end = max(end, Timestamp(seconds: latest)) }
        }
        self.init(
            deviceName: recording.description.name, widthMm: geometry.displayWidthMm,
            heightMm: geometry.displayHeightMm, hasKernelResolution: geometry.hasKernelResolution,
            startTime: start, endTime: end, traces: collector.finish(), gestures: gestures)
        hoverTraces = hovers.finish()
    }
}

/// Builds ``HoverTrace``s from the hovering contacts after each frame: `began` opens one,
/// `landed`/`ended`/`cancelled` closes it.
struct HoverTraceCollector {
    private var open: [Int: Int] = [:]
    private var traces: [HoverTrace] = []

    mutating func add(_ contacts: [HoverContact]) {
        for c in contacts {
            let index: Int
            if c.phase == .began || open[c.id] == nil {
                if let stale = open[c.id] { traces[stale].end = traces[stale].end ?? .cancelled }
                traces.append(HoverTrace(id: c.id))
                index = traces.count - 1
                open[c.id] = index
            } else {
                index = open[c.id]!
            }
            traces[index].samples.append(c.mm)
            traces[index].times.append(c.time)
            switch c.phase {
            case .landed, .ended, .cancelled:
                traces[index].end = c.phase
                open[c.id] = nil
            case .began, .hovering: break
            }
        }
    }

    func finish() -> [HoverTrace] { traces }
}

/// Builds ``TouchTrace``s from tracker frames: a `began` opens a trace, `ended`/`cancelled` closes it.
struct TraceCollector {
    private var open: [Int: TouchTrace] = [:]
    private var done: [TouchTrace] = []
    private var count = 0

    mutating func add(_ frame: TouchFrame) {
        for touch in frame.touches {
            let sample = TouchTrace.Sample(
                time: frame.time, mm: touch.mm, majorMm: touch.majorMm,
                minorMm: touch.minorMm, orientation: touch.orientation)
            if touch.phase == .began || open[touch.id] == nil {
                // A trace for the same id still open means its end was never seen: close it as lost.
                if var stale = open.removeValue(forKey: touch.id) {
                    stale.end = .cancelled
                    done.append(stale)
                }
                open[touch.id] = TouchTrace(id: touch.id, index: count, tool: touch.tool, samples: [sample], end: nil)
                count += 1
            } else {
                // Stationary samples too: interpolation between samples must not invent motion.
                open[touch.id]?.samples.append(sample)
            }
            if touch.phase.isFinished, var trace = open.removeValue(forKey: touch.id) {
                trace.end = touch.phase
                trace.tool = touch.tool
                done.append(trace)
            }
        }
    }

    func finish() -> [TouchTrace] {
        (done + open.values).sorted { $0.index < $1.index }
    }
}
