import HandyCore
import HandyInput
import HandyProtocol
import HandyRecording
import HandySettings
import Logging

/// Plays a recording as if it were a device, in real time (scaled by `speed`), through the same
/// ``GesturePipeline`` a live device uses. Device id `replay:<name>`, or
/// HANDYD_ID from ``Options/deviceProperties``.
///
/// Recording time maps to the monotonic clock as `start + (t - firstEventTime) / speed`; with
/// `loop`, each pass shifts the event times by the recording's length plus a pause, so the
/// pipeline sees time only moving forwards.
public final class ReplaySource: DeviceSource {
    public struct Options: Sendable {
        public var loop: Bool = false
        public var speed: Double = 1
        /// Wait for ``DeviceSource/release(now:)`` before the first event.
        public var startPaused: Bool = false
        /// The replayed device's properties, as udev would give a live one (`--device-property`):
        /// thresholds, calibration, size. Bad ones are logged and listed in the device's problems.
        public var deviceProperties: [String: String] = [:]
        public init(
            loop: Bool = false, speed: Double = 1, startPaused: Bool = false, deviceProperties: [String: String] = [:]
        ) {
            self.loop = loop; self.speed = speed; self.startPaused = startPaused;
            self.deviceProperties = deviceProperties
        }
    }

    /// Pause between two passes of a looped recording, so gestures of one pass end before the next.
    static let loopPauseMicroseconds: Int64 = 1_000_000
    /// At most this many outputs (about one per frame) per call of ``service(now:readable:into:)``.
    /// A replay that fell behind (a starved machine) catches up in batches of this size instead of
    /// one batch of everything due: each batch becomes one buffer per subscription, and one
    /// second of a busy recording at 4x was a megabyte that every client got at once (all dropped
    /// as too slow) and that the heap kept (docs/PERFORMANCE.md, memory). The input loop comes
    /// straight back while events are due, and the `DeliveryWindow` bounds the batches in flight.
    static let maximumOutputsPerService = 16

    public let info: DeviceInfo
    /// From ``Options/deviceProperties``.
    public let configuration: DeviceConfiguration
    let description: DeviceDescription
    let events: [InputEvent]
    let options: Options
    let logger: Logger
    private var pipeline: GesturePipeline
    private var index = 0
    /// Added to every recorded time in the current pass.
    private var shiftMicroseconds: Int64 = 0
    private var startedAt: MonotonicInstant?
    private let firstTime: Timestamp
    /// What the journal was told about the recording's protocol faults.
    private var faults = DeviceFaultReport()
    /// Stuck contacts, floods, kernel drops, the last touch (docs/PROTOCOL.md "Device health").
    private var health = DeviceHealthMonitor()
    let healthBoard: DeviceHealthBoard
    let journal: HealthJournal
    /// Passes begun over the end of the recording (looped), or 1 once a single pass is done.
    private(set) var passes = 0
    /// How far one looped pass reaches: from the first event to the latest (see init).
    private let passMicroseconds: Int64

    init(recording: Recording, options: Options, logger: Logger, healthBoard: DeviceHealthBoard = DeviceHealthBoard()) {
        let description = recording.description
        let events = recording.events
        let path = recording.path
        let configuration = DeviceConfiguration(properties: options.deviceProperties, origin: .replay)
        let geometry = configuration.geometry(for: description)
        self.configuration = configuration
        let id = configuration.id ?? recording.deviceID
        let pipeline = GesturePipeline(
            deviceID: id, description: description, geometry: geometry,
            configuration: configuration.thresholds, stuckAfterSeconds: configuration.stuckTouchSeconds,
            tracksHover: configuration.hover)
        self.pipeline = pipeline
        self.info = DeviceInfo(
            id: id, name: description.name, path: path,
            vendor: Int(description.vendor), product: Int(description.product), slots: description.trackedSlotCount,
            widthMm: wireSizeMm(geometry.displayWidthMm), heightMm: wireSizeMm(geometry.displayHeightMm),
            problems: wireProblems(configuration.problems), hover: wireHover(pipeline.tracker))
        self.description = description
        self.events = events
        self.options = options
        self.logger = logger
        self.healthBoard = healthBoard
        self.journal = HealthJournal(logger: logger)
        self.firstTime = events.first?.time ?? .zero
        // From the first event to the latest, never negative: a recording whose times go back (the
        // last before the first) would otherwise start each pass earlier than the one before,
        // always due at once, and loop without end.
        let latest = events.lazy.map(\.time.microseconds).max() ?? firstTime.microseconds
        let (span, overflow) = latest.subtractingReportingOverflow(firstTime.microseconds)
        self.passMicroseconds = overflow ? .max : max(0, span)
    }

    /// Loads a recording for replay (evemu, split `.desc`/`.events`, or libinput record).
    /// - Parameters:
    ///   - path: the recording.
    ///   - descPath: a device description overriding the recording's own (or the `.desc` found beside it).
    public static func load(
        path: String, descPath: String?, options: Options, logger: Logger,
        healthBoard: DeviceHealthBoard = DeviceHealthBoard()
    ) throws -> ReplaySource {
        let recording: Recording
        do { recording = try Recording.load(path: path, descriptionPath: descPath) } catch {
            throw DaemonError("cannot replay: \(error)")
        }
        guard !recording.events.isEmpty else { throw DaemonError("\(path): no events to replay") }
        guard options.speed > 0, options.speed.isFinite else { throw DaemonError("--speed must be a positive number") }
        return ReplaySource(recording: recording, options: options, logger: logger, healthBoard: healthBoard)
    }

    public var pollDescriptors: [Int32] { [] }

    public var wakeupTime: MonotonicInstant? {
        guard startedAt != nil else { return nil }
        var next: MonotonicInstant?
        if index < events.count { next = monotonic(deviceTime: shifted(events[index].time)) }
        if let deadline = pipeline.nextDeadline {
            let d = monotonic(deviceTime: deadline)
            next = next.map { min($0, d) } ?? d
        }
        return next
    }

    /// The replayed device's hand profile: HANDYD_HAND_PROFILE from ``Options/deviceProperties``
    /// (no default file: a replay is not the kiosk's device). Read at start and on every reload.
    private func applyHandProfile() {
        let profile = HandProfileFile.load(
            configuration: configuration, deviceID: info.id, directory: nil, logger: logger)
        if profile != pipeline.arena.handProfile { pipeline.arena.setHandProfile(profile) }
    }

    public func reload(now: MonotonicInstant, into notices: inout InputNotices) {
        applyHandProfile()
    }

    public func start(now: MonotonicInstant, into notices: inout InputNotices) {
        applyHandProfile()
        for problem in configuration.problems {
            logger.warning(
                "bad --device-property, default used", metadata: ["device.id": "\(info.id)", "problem": "\(problem)"])
        }
        if !configuration.applied.isEmpty {
            logger.info(
                "device properties", metadata: ["device.id": "\(info.id)", "properties": "\(configuration.applied)"])
        }
        notices.append(.added(info))
        logger.info(
            "replaying",
            metadata: [
                "device.id": "\(info.id)", "replay.events": "\(events.count)",
                "replay.loop": "\(options.loop)", "replay.speed": "\(options.speed)",
                "replay.paused": "\(options.startPaused)",
            ])
        if !options.startPaused { startedAt = now }
    }

    public func release(now: MonotonicInstant) {
        if startedAt == nil { startedAt = now }
    }

    public func service(now: MonotonicInstant, readable: [Int32], into notices: inout InputNotices) {
        guard startedAt != nil else { return }
        var output = notices.takeOutput()
        defer { notices.returnOutput(output) }
        let limit = notices.count + Self.maximumOutputsPerService
        var behind = false
        var eventCount = 0
        var touched = false
        var stuck: [StuckContactChange] = []
        passes: while true {
            while index < events.count {
                if notices.count >= limit { behind = true; break passes }
                let event = events[index]
                let time = shifted(event.time)
                guard monotonic(deviceTime: time) <= now else { break }
                var shiftedEvent = event
                shiftedEvent.time = time
                pipeline.handle(shiftedEvent, into: &output)
                index += 1
                eventCount &+= 1
                // One notice per event that produced something keeps each frame's gestures
                // right after that frame on the wire.
                if !output.isEmpty {
                    if !output.frames.isEmpty { touched = true }
                    if !output.stuckContacts.isEmpty { stuck += output.stuckContacts }
                    notices.append(.output(device: info.id, output))
                    output = notices.takeOutput()
                }
            }
            guard index == events.count, options.loop else { break }
            // Next pass: continue after the last event plus a pause.
            passes += 1
            let length = passMicroseconds
            shiftMicroseconds = Timestamp.saturatingSum(
                shiftMicroseconds, Timestamp.saturatingSum(length, Self.loopPauseMicroseconds))
            index = 0
            logger.debug("replay pass finished", metadata: ["replay.passes": "\(passes)"])
            if monotonic(deviceTime: shifted(events[0].time)) > now { break }
        }
        faults.checkIfChanged(pipeline.tracker.counters, device: info.id, logger: logger)
        if index == events.count, !options.loop, passes == 0 {
            passes = 1
            logger.info("replay finished", metadata: ["device.id": "\(info.id)"])
        }
        // Timers run up to `now` only once every event before `now` is in: firing them earlier
        // would put a timeout before events that came first.
        if !behind, let deadline = pipeline.nextDeadline, monotonic(deviceTime: deadline) <= now {
            pipeline.advanceTime(to: deviceTime(monotonic: now), into: &output)
        }
        stuck += output.stuckContacts
        if !output.isEmpty { notices.append(.output(device: info.id, output)) }
        health.afterTurn(
            now: now, events: eventCount, touched: touched, kernelDrops: pipeline.tracker.counters.resyncs,
            faults: pipeline.tracker.counters.faultCount,
            stuck: stuck, info: info, board: healthBoard, journal: journal, into: &notices)
    }

    public func stop() {}

    private func shifted(_ t: Timestamp) -> Timestamp { t.advanced(byMicroseconds: shiftMicroseconds) }

    private func monotonic(deviceTime t: Timestamp) -> MonotonicInstant {
        let start = startedAt ?? MonotonicInstant(nanoseconds: .max / 2)
        // In Double and saturated: a recording may hold any 64-bit times (issue 8: a file spanning
        // 292+ years trapped here); beyond Int64 the event is simply "never".
        let offsetNs = (Double(t.microseconds) - Double(firstTime.microseconds)) * 1000 / options.speed
        return start.adding(nanoseconds: Timestamp.saturating(offsetNs))
    }

    private func deviceTime(monotonic m: MonotonicInstant) -> Timestamp {
        let start = startedAt ?? m
        let us = (Double(m.nanoseconds) - Double(start.nanoseconds)) / 1000 * options.speed
        return firstTime.advanced(byMicroseconds: Timestamp.saturating(us))
    }
}
