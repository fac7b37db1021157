import ArgumentParser
import Foundation
import HandyCore
import HandyInput
import HandyProtocol
import HandyRecording
import HandySettings
import HandyWire

/// `handyctl replay`: runs a recording through the daemon's per-device pipeline (tracker and
/// recognizers) and prints what a subscriber would receive, one JSON object per line.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an evemu or libinput-record recording through the touch tracker and gesture recognizers.",
        discussion: """
            Reads RECORDING (evemu: one file with its N:/I:/A: header, or an .events file whose \
            .desc sits beside it with its name as a prefix; or `libinput record` YAML, version 1) \
            and feeds its events to the same pipeline handyd runs on a live device. The \
            recording's kernel timestamps are the clock, so the output is the same on every run; \
            after the last event time advances by one second so pending timers (tap, long press) fire.

            Output, one JSON object per line as on the handyd socket:
              {"type":"gesture",...}  every gesture event (always)
              {"type":"touches",...}  every frame in which a touch began, moved, ended or was \
            cancelled (with --touches)
            With --summary, one JSON object with counts instead: frames, touches, the most \
            touches down at once, each touch's duration, gestures by kind and the tracker's \
            counters of bad input.

            The device id in the output is replay:<file name without extension>, or HANDYD_ID when \
            given with --device-property. A file that \
            cannot be read (missing, truncated, not a recording) prints one line on stderr and \
            exits with status 1.

            --device-property gives the replayed device a udev property as a live one would \
            have (thresholds, calibration, size; docs/DEVICES.md), to try a setting on a \
            recording. A bad value is printed on stderr and the default used, as handyd does.

            Examples:
              handyctl replay --touches "Tests/Fixtures/whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"
              handyctl replay --summary Tests/Fixtures/libinput-record/atmel-1-finger-fast-taps.yml
              handyctl replay --desc my-screen.desc capture.events
              handyctl replay --device-property HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250 capture.evemu
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Device description (.desc or any evemu file with a header); overrides the recording's own.",
            valueName: "FILE"))
    var desc: String?

    @Flag(name: .long, help: "Also print a {\"type\":\"touches\"} line for every frame with a change.")
    var touches = false

    @Flag(name: .long, help: "Print one JSON object with counts instead of the event lines.")
    var summary = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A udev property for the replayed device (repeatable), e.g. HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250.",
            valueName: "NAME=VALUE"))
    var deviceProperty: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A hand profile to apply (handyctl calibrate hand; wins over HANDYD_HAND_PROFILE). A bad one is an error.",
            valueName: "PATH"))
    var handProfile: String?

    @Argument(
        help: ArgumentHelp(
            "The recording: .evemu, .events (+ .desc beside it), or libinput record .yml.", valueName: "RECORDING"))
    var recording: String

    func validate() throws {
        do { _ = try DeviceConfiguration.properties(fromAssignments: deviceProperty) } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let properties = (try? DeviceConfiguration.properties(fromAssignments: deviceProperty)) ?? [:]
        let configuration = DeviceConfiguration(properties: properties, origin: .replay)
        // Like handyd's log: the problem, then the replay goes on with the default.
        for problem in configuration.problems { StandardStream.error("handyctl replay: \(problem)") }
        var profile: HandProfile?
        if let handProfile {
            profile = try LabelledFolder.profile(at: handProfile, command: "handyctl replay")
        } else if let path = configuration.handProfilePath {
            // As the daemon does: a bad profile is a warning, the default model is used.
            do { profile = try LabelledFolder.profile(at: path, command: "handyctl replay") } catch {
                StandardStream.error("handyctl replay: the default hand model is used")
            }
        }
        let loaded: Recording
        do {
            loaded = try Recording.load(path: recording, descriptionPath: desc)
        } catch {
            StandardStream.error("handyctl replay: \(error)")
            throw ExitCode.failure
        }
        var output = LineWriter()
        var statistics = ReplayStatistics()
        let deviceID = configuration.id ?? loaded.deviceID
        let result = Replay.run(loaded, configuration: configuration, handProfile: profile) { step in
            switch step {
            case .frame(let frame):
                statistics.record(frame)
                if touches && !summary && frame.hasChanges {
                    output.write(JSONLines.encode(.touches(frame.wireMessage(device: deviceID))))
                }
            case .gesture(let gesture):
                statistics.record(gesture)
                if !summary { output.write(JSONLines.encode(.gesture(gesture))) }
            }
        }
        if summary {
            output.write(statistics.summaryJSON(recording: loaded, counters: result.counters))
        }
        output.flush()
    }
}

/// Drives a ``GesturePipeline`` over a recording with the recording's own clock.
enum Replay {
    enum Step {
        case frame(TouchFrame)
        case gesture(GestureEvent)
    }

    struct Result {
        var counters: TrackerCounters
    }

    /// How far time advances after the last event, so every pending timer fires.
    static let trailingMicroseconds: Int64 = 1_000_000

    static func run(
        _ recording: Recording, configuration: DeviceConfiguration = .init(), handProfile: HandProfile? = nil,
        _ emit: (Step) -> Void
    ) -> Result {
        var pipeline = GesturePipeline(
            deviceID: configuration.id ?? recording.deviceID, description: recording.description,
            geometry: configuration.geometry(for: recording.description),
            configuration: configuration.thresholds, tracksHover: configuration.hover)
        if let handProfile { pipeline.arena.setHandProfile(handProfile) }
        for event in recording.events {
            // Timers due before this event fire first, in their own right, so their gestures come
            // out before the frame this event completes (as they would live).
            if let deadline = pipeline.nextDeadline, deadline <= event.time {
                for g in pipeline.advanceTime(to: event.time) { emit(.gesture(GestureEvent(g))) }
            }
            var out = PipelineOutput()
            pipeline.handle(event, into: &out)
            for frame in out.frames { emit(.frame(frame)) }
            for g in out.gestures { emit(.gesture(GestureEvent(g))) }
        }
        if let last = recording.events.last {
            for g in pipeline.advanceTime(to: last.time.advanced(byMicroseconds: trailingMicroseconds)) {
                emit(.gesture(GestureEvent(g)))
            }
        }
        return Result(counters: pipeline.tracker.counters)
    }
}

/// Counts for `--summary`.
struct ReplayStatistics {
    private(set) var frames = 0
    private(set) var changedFrames = 0
    private(set) var touchesBegan = 0
    private(set) var mostAtOnce = 0
    private(set) var finishedTouches: [TouchLife] = []
    /// Touches down now, with the time of the frame they began in.
    private var open: [Int: (life: TouchLife, since: Timestamp)] = [:]
    private(set) var gesturesByKind: [String: Int] = [:]
    private(set) var gestures = 0
    private var lastTime: Timestamp?

    struct TouchLife: Encodable {
        var id: Int
        var began: Double
        var durationMs: Double
        /// ended | cancelled | down (still down when the recording ends)
        var end: String
    }

    mutating func record(_ frame: TouchFrame) {
        frames += 1
        lastTime = frame.time
        if frame.hasChanges { changedFrames += 1 }
        mostAtOnce = max(mostAtOnce, frame.activeTouches.count)
        // Durations run from the frame a touch began in to the frame it finished in: frame (SYN_REPORT)
        // times are the one clock every touch shares.
        for touch in frame.touches {
            if touch.phase == .began {
                touchesBegan += 1
                open[touch.id] = (
                    TouchLife(id: touch.id, began: frame.time.seconds, durationMs: 0, end: "down"), frame.time
                )
            }
            if touch.phase.isFinished {
                let opened =
                    open.removeValue(forKey: touch.id)
                    ?? (
                        TouchLife(id: touch.id, began: touch.beganAt.seconds, durationMs: 0, end: "down"), touch.beganAt
                    )
                var life = opened.life
                life.durationMs = frame.time.milliseconds(since: opened.since)
                life.end = touch.phase.rawValue
                finishedTouches.append(life)
            }
        }
    }

    mutating func record(_ gesture: GestureEvent) {
        gestures += 1
        gesturesByKind[gesture.gesture.rawValue, default: 0] += 1
    }

    private struct Summary: Encodable {
        var type = "summary"
        var recording: [String]
        var device: String
        var name: String
        var format: String
        var events: Int
        var durationSeconds: Double
        var frames: Int
        var changedFrames: Int
        var touches: Int
        var mostAtOnce: Int
        var touchDurations: [TouchLife]
        var gestures: Int
        var gesturesByKind: [String: Int]
        var tracker: Counters
    }

    private struct Counters: Encodable {
        var frames, events, outOfRangeSlots, outOfRangeValues, reusedTrackingIDs, missingSynReports, droppedContacts,
            resyncs,
            earlierTimes, cancelledTouches: UInt64
    }

    func summaryJSON(recording: Recording, counters c: TrackerCounters) -> [UInt8] {
        // Touches still down at the end count up to the last frame, in the order they began (by id
        // when at once: the dictionary's order changes from run to run).
        var lives = finishedTouches
        for (life, since) in open.values.sorted(by: { ($0.since, $0.life.id) < ($1.since, $1.life.id) }) {
            var l = life
            if let lastTime { l.durationMs = lastTime.milliseconds(since: since) }
            lives.append(l)
        }
        let first = recording.events.first?.time ?? .zero
        let last = recording.events.last?.time ?? .zero
        let summary = Summary(
            recording: recording.sourcePaths, device: recording.deviceID, name: recording.description.name,
            format: recording.format.rawValue, events: recording.events.count,
            durationSeconds: rounded(last.seconds(since: first), 6), frames: frames, changedFrames: changedFrames,
            touches: touchesBegan, mostAtOnce: mostAtOnce, touchDurations: lives, gestures: gestures,
            gesturesByKind: gesturesByKind,
            tracker: Counters(
                frames: c.frames, events: c.events, outOfRangeSlots: c.outOfRangeSlots,
                outOfRangeValues: c.outOfRangeValues, reusedTrackingIDs: c.reusedTrackingIDs,
                missingSynReports: c.missingSynReports, droppedContacts: c.droppedContacts, resyncs: c.resyncs,
                earlierTimes: c.earlierTimes, cancelledTouches: c.cancelledTouches))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only finite numbers and strings: encoding cannot fail; an empty object keeps the line valid JSON.
        let body = (try? encoder.encode(summary)) ?? Data("{}".utf8)
        return [UInt8](body) + [UInt8(ascii: "\n")]
    }
}

/// Buffered stdout: a replay can print tens of thousands of lines.
struct LineWriter {
    private var buffer: [UInt8] = []

    mutating func write(_ line: [UInt8]) {
        buffer.append(contentsOf: line)
        if buffer.count >= 64 * 1024 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

enum StandardStream {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
