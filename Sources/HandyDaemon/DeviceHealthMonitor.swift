import CLibsystemd
import HandyCore
import HandyProtocol
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// One open device's health, judged on the input thread after each turn that read it: stuck
/// contacts (from its pipeline), floods, kernel drops, the last touch. Each change becomes a
/// `device` message (docs/PROTOCOL.md "Device health"), a journal entry with structured fields
/// (``HealthJournal``) and new counts on the ``DeviceHealthBoard``. Cheap on a turn where nothing
/// changed: a few comparisons.
struct DeviceHealthMonitor {
    /// Events a second beyond which a device floods: a 10-finger frame at 1 kHz is ~50,000, and
    /// touchscreens report 60–240 frames a second.
    static let floodEventsPerSecond = 100_000.0 / 2
    /// A flood ends once a window stays under half the rate.
    static let floodWindowNanoseconds: Int64 = 1_000_000_000
    /// Kernel drops are reported at most this often (each message carries the total).
    static let dropReportNanoseconds: Int64 = 1_000_000_000
    /// The last touch reaches the board at most this often.
    static let touchPublishNanoseconds: Int64 = 1_000_000_000

    private var windowStart: MonotonicInstant?
    private var windowEvents = 0
    private(set) var flooding = false
    private var reportedDrops: UInt64 = 0
    private var lastDropReport: MonotonicInstant?
    private var lastTouchPublished: MonotonicInstant?
    private var reportedFaults: UInt64 = 0

    /// After a turn: `events` read, whether any frame had a touch down or changing, the tracker's
    /// SYN_DROPPED count, the stuck-contact changes the pipeline reported.
    mutating func afterTurn(
        now: MonotonicInstant, events: Int, touched: Bool, kernelDrops: UInt64, faults: UInt64,
        stuck: [StuckContactChange],
        info: DeviceInfo, board: DeviceHealthBoard, journal: HealthJournal, into notices: inout InputNotices
    ) {
        if touched, lastTouchPublished.map({ now.nanoseconds - $0.nanoseconds >= Self.touchPublishNanoseconds }) ?? true
        {
            lastTouchPublished = now
            board.touched(info.id, at: now)
        }
        for change in stuck { report(change, info: info, board: board, journal: journal, into: &notices) }
        if kernelDrops != reportedDrops,
            lastDropReport.map({ now.nanoseconds - $0.nanoseconds >= Self.dropReportNanoseconds }) ?? true
        {
            let new = kernelDrops &- reportedDrops
            reportedDrops = kernelDrops
            lastDropReport = now
            let health = board.update(info.id) { $0.kernelDrops &+= new }
            journal.send(
                .warning, "device dropped events in the kernel (SYN_DROPPED)", info: info, event: .dropped,
                health: health)
            notices.append(.health(DeviceMessage(event: .dropped, device: info, health: health)))
        }
        if faults != reportedFaults {
            reportedFaults = faults
            board.update(info.id) { $0.faults = faults }
        }
        guard events > 0 || windowStart != nil else { return }
        windowEvents += events
        let start = windowStart ?? now
        windowStart = start
        let elapsed = now.nanoseconds - start.nanoseconds
        guard elapsed >= Self.floodWindowNanoseconds else { return }
        let rate = Double(windowEvents) / (Double(elapsed) / 1e9)
        // A window goes on while events come or a flood is on (so a quiet spell can end it).
        (windowStart, windowEvents) = (events > 0 || flooding ? now : nil, 0)
        if !flooding, rate > Self.floodEventsPerSecond {
            flooding = true
            var health = board.update(info.id) { $0.floods &+= 1 }
            health.eventsPerSecond = rate.rounded()
            journal.send(
                .warning, "device floods: events far beyond any touchscreen's rate", info: info, event: .flood,
                health: health)
            notices.append(.health(DeviceMessage(event: .flood, device: info, health: health)))
        } else if flooding, rate < Self.floodEventsPerSecond / 2 {
            flooding = false
            journal.send(.notice, "device flood ended", info: info, event: nil, health: board.health(of: info.id))
        }
    }

    /// A stuck contact found or lifted.
    func report(
        _ change: StuckContactChange, info: DeviceInfo, board: DeviceHealthBoard, journal: HealthJournal,
        into notices: inout InputNotices
    ) {
        var health = board.update(info.id) { h in
            if change.kind == .stuck {
                h.stuckNow += 1; h.stuckContacts &+= 1
            } else {
                h.stuckNow = Swift.max(0, h.stuckNow - 1)
            }
        }
        health.touch = change.touchID
        health.xMm = rounded(change.positionMm.x, 2)
        health.yMm = rounded(change.positionMm.y, 2)
        health.seconds = rounded(change.kind == .stuck ? change.stillSeconds : change.stuckSeconds, 3)
        let event: DeviceMessage.Event = change.kind == .stuck ? .stuck : .unstuck
        journal.send(
            change.kind == .stuck ? .warning : .notice,
            change.kind == .stuck ? "contact stuck: left out of gesture recognition" : "stuck contact lifted",
            info: info, event: event, health: health)
        notices.append(.health(DeviceMessage(event: event, device: info, health: health)))
    }

    /// The device went away without being asked (unplug, USB reset, a read error).
    static func lost(
        _ info: DeviceInfo, board: DeviceHealthBoard, journal: HealthJournal, into notices: inout InputNotices
    ) {
        let health = board.update(info.id) {
            $0.losses &+= 1; $0.stuckNow = 0
        }
        journal.send(.warning, "device lost", info: info, event: .lost, health: health)
        notices.append(.health(DeviceMessage(event: .lost, device: info, health: health)))
    }

    /// A lost device came back under its id.
    static func back(
        _ info: DeviceInfo, board: DeviceHealthBoard, journal: HealthJournal, into notices: inout InputNotices
    ) {
        let health = board.health(of: info.id)
        journal.send(.notice, "device back", info: info, event: .back, health: health)
        notices.append(.health(DeviceMessage(event: .back, device: info, health: health)))
    }
}

/// Device health in the journal: one entry per change with structured fields (`HANDYD_DEVICE_ID=`,
/// `HANDYD_HEALTH=`, the counts), so `journalctl HANDYD_HEALTH=stuck` or a log shipper finds them
/// without parsing text. The same line goes to the daemon's logger (stderr) too, unless stderr
/// is itself the journal (under systemd) and the structured entry was taken: one entry per change.
struct HealthJournal: Sendable {
    enum Priority: Int32 { case warning = 4, notice = 5 }

    let logger: Logger
    /// Whether to write to the journal's socket (only where there is one: under systemd).
    let toJournal: Bool
    /// Whether stderr is a stream into the journal (systemd's JOURNAL_STREAM names it).
    let stderrIsTheJournal: Bool

    init(
        logger: Logger, toJournal: Bool = HealthJournal.journalIsThere,
        stderrIsTheJournal: Bool = HealthJournal.stderrIsAJournalStream
    ) {
        self.logger = logger
        self.toJournal = toJournal
        self.stderrIsTheJournal = stderrIsTheJournal
    }

    static var journalIsThere: Bool { access("/run/systemd/journal/socket", F_OK) == 0 }

    /// systemd sets JOURNAL_STREAM to "DEVICE:INODE" of the stream it connected stdout/stderr to;
    /// stderr is that stream when its fstat(2) says the same (systemd.exec(5)).
    static var stderrIsAJournalStream: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        var st = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &st) == 0 else {
            return false
        }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    func send(
        _ priority: Priority, _ message: String, info: DeviceInfo, event: DeviceMessage.Event?, health: DeviceHealth
    ) {
        var fields: [(String, String)] = [("HANDYD_DEVICE_ID", info.id), ("HANDYD_DEVICE_NAME", info.name)]
        if let node = info.node { fields.append(("HANDYD_DEVICE_NODE", node)) }
        if let event { fields.append(("HANDYD_HEALTH", event.rawValue)) }
        if let touch = health.touch { fields.append(("HANDYD_TOUCH", "\(touch)")) }
        if let seconds = health.seconds { fields.append(("HANDYD_SECONDS", "\(seconds)")) }
        if let rate = health.eventsPerSecond { fields.append(("HANDYD_EVENTS_PER_SECOND", "\(rate)")) }
        fields += [
            ("HANDYD_STUCK_NOW", "\(health.stuckNow)"), ("HANDYD_STUCK_CONTACTS", "\(health.stuckContacts)"),
            ("HANDYD_LOSSES", "\(health.losses)"), ("HANDYD_KERNEL_DROPS", "\(health.kernelDrops)"),
            ("HANDYD_FLOODS", "\(health.floods)"),
        ]
        var metadata: Logger.Metadata = [:]
        for (k, v) in fields { metadata[String(k.lowercased().map { $0 == "_" ? "." : $0 })] = "\(v)" }
        let sent =
            toJournal
            && Self.sendToJournal(
                [
                    "MESSAGE=handyd: \(message) (\(info.id))", "PRIORITY=\(priority.rawValue)",
                    "SYSLOG_IDENTIFIER=handyd",
                ]
                    + fields.map { "\($0.0)=\($0.1)" })
        if sent && stderrIsTheJournal { return }
        logger.log(level: priority == .warning ? .warning : .notice, "\(message)", metadata: metadata)
    }

    /// sd_journal_sendv: one iovec per `FIELD=value`, all pointing into one buffer. Whether the
    /// journal took it.
    static func sendToJournal(_ entries: [String]) -> Bool {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for entry in entries {
            let start = bytes.count
            bytes += entry.utf8
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { raw in
            let vectors = ranges.map { iovec(iov_base: raw.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(vectors, Int32(vectors.count)) == 0
        }
    }
}
