import HandyCore
import HandyInput
import HandyProtocol
import HandySettings
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The machine's touchscreens: found through udev (enumeration + hotplug monitor), read through
/// libevdev. Event times are CLOCK_MONOTONIC (``EvdevDevice``), the same clock as
/// ``MonotonicInstant``, so a recognizer deadline is directly a poll() timeout.
public final class LiveSource: DeviceSource {
    final class OpenDevice {
        let evdev: EvdevDevice
        var configuration: DeviceConfiguration
        var pipeline: GesturePipeline
        var info: DeviceInfo
        /// What the journal was told about this device's protocol faults.
        var faults = DeviceFaultReport()
        /// Floods, kernel drops, stuck contacts, the last touch (docs/PROTOCOL.md "Device health").
        var health = DeviceHealthMonitor()
        /// The id ``DeviceIdentity`` gave before any `#2` suffix: a reload that changes it (a new
        /// HANDYD_ID) announces the device again under the new one.
        let baseID: String
        init(evdev: EvdevDevice, configuration: DeviceConfiguration, id: String, baseID: String, node: String) {
            self.evdev = evdev
            self.configuration = configuration
            self.baseID = baseID
            let geometry = configuration.geometry(for: evdev.description)
            // Thresholds were checked against their ranges when the properties were read; what
            // was refused is in configuration.problems (logged, and on the wire in info).
            self.pipeline = GesturePipeline(
                deviceID: id, description: evdev.description, geometry: geometry,
                configuration: configuration.thresholds, stuckAfterSeconds: configuration.stuckTouchSeconds,
                tracksHover: configuration.hover)
            self.info = LiveSource.info(
                id: id, node: node, evdev: evdev, geometry: geometry, problems: configuration.problems)
            self.info.hover = wireHover(pipeline.tracker)
        }
    }

    /// A touchscreen that is there but could not be opened (no permission, most often). It is
    /// listed (`readable: false`, with the reason and the fix) and opened again when the node's
    /// attributes change (inotify IN_ATTRIB: chmod, chgrp, an ACL) or udev reports a change.
    struct UnreadableDevice {
        var found: DiscoveredDevice
        var info: DeviceInfo
        let baseID: String
    }

    let discovery: UdevDiscovery
    let logger: Logger
    /// Every device's health counts, read by status and the metrics.
    let healthBoard: DeviceHealthBoard
    let journal: HealthJournal
    /// Ids of devices lost (gone without being asked) and not back yet.
    private var lostIDs: Set<String> = []
    /// Where a device's hand profile is looked for when HANDYD_HAND_PROFILE names none
    /// (``DeviceConfiguration/handProfileDirectory``); nil: nowhere.
    let handProfileDirectory: String?
    /// Keyed by device node.
    var devices: [String: OpenDevice] = [:] {
        // Polled on every turn of the input loop, changed only when a device comes or goes.
        didSet {
            pollDescriptors =
                [discovery.monitorFileDescriptor, attributeWatch.fileDescriptor]
                + devices.values.map { $0.evdev.fileDescriptor }
        }
    }
    /// A device's events read in one turn, at most: a device that sends without a pause (a storm,
    /// a broken panel) is read in turns with the others and the timers, and each turn's output is
    /// handed over, instead of one turn that ends only when it stops. A frame is 10–40 events.
    static let maximumEventsPerTurn = 4096
    /// When to try the unreadable devices again after a transient failure (``isTransient(_:)``).
    var transientRetryAt: MonotonicInstant?
    /// Devices (by descriptor) stopped at ``maximumEventsPerTurn`` with events left.
    private var unfinished: [Int32] = []
    /// Keyed by device id: the id the device's next gesture gets, kept when its pipeline is
    /// rebuilt (a reload) or it goes and comes back, so a gesture id is never reused for one
    /// device within a daemon run (docs/PROTOCOL.md). One entry per device id ever opened.
    private var nextGestureIDs: [String: UInt64] = [:]
    /// Keyed by device node.
    var unreadable: [String: UnreadableDevice] = [:]
    /// Watches the directories of the unreadable devices' nodes for attribute changes.
    let attributeWatch: NodeAttributeWatch

    public init(
        logger: Logger, handProfileDirectory: String? = DeviceConfiguration.handProfileDirectory,
        healthBoard: DeviceHealthBoard = DeviceHealthBoard()
    ) throws {
        self.handProfileDirectory = handProfileDirectory
        self.healthBoard = healthBoard
        self.journal = HealthJournal(logger: logger)
        do { discovery = try UdevDiscovery() } catch {
            throw DaemonError("cannot start udev discovery: \(error)")
        }
        attributeWatch = try NodeAttributeWatch(logger: logger)
        self.logger = logger
        pollDescriptors = [discovery.monitorFileDescriptor, attributeWatch.fileDescriptor]
    }

    /// The udev monitor, the inotify instance and the open devices, kept with ``devices``.
    public private(set) var pollDescriptors: [Int32]

    public var wakeupTime: MonotonicInstant? {
        // A device stopped at the events' limit goes on at the next turn, without waiting.
        if !unfinished.isEmpty { return MonotonicInstant(nanoseconds: 0) }
        // Asked twice per turn of the input loop: a loop, not an array.
        var earliest: Timestamp?
        for device in devices.values {
            if let deadline = device.pipeline.nextDeadline, earliest.map({ deadline < $0 }) ?? true {
                earliest = deadline
            }
        }
        let timers = earliest.map { MonotonicInstant(deviceTime: $0) }
        guard let retry = transientRetryAt else { return timers }
        return timers.map { min($0, retry) } ?? retry
    }

    public func start(now: MonotonicInstant, into notices: inout InputNotices) {
        let found = discovery.enumerateTouchscreens()
        if found.isEmpty { logger.notice("no touchscreen found; waiting for one to be plugged in") }
        for device in found { open(device, into: &notices) }
    }

    public func service(now: MonotonicInstant, readable: [Int32], into notices: inout InputNotices) {
        if readable.contains(discovery.monitorFileDescriptor) {
            while let event = discovery.receive() { handle(event, into: &notices) }
            if discovery.takeEventsLost() {
                logger.warning("udev events lost (the monitor's buffer overflowed): looking at every device again")
                reconcile(into: &notices)
            }
        }
        if readable.contains(attributeWatch.fileDescriptor) { retryAfterAttributeChange(into: &notices) }
        if let retry = transientRetryAt, retry <= now {
            transientRetryAt = nil
            retryUnreadable(nodes: Array(unreadable.keys), into: &notices)
        }
        // The devices alone: iterated with their keys, each turn retained and released the node's
        // path; it is looked up again on the rare turn that needs it.
        // Rare (a device that did not pause): nil, no array, on every other turn.
        var resumed: [Int32]?
        if !unfinished.isEmpty {
            resumed = unfinished
            unfinished.removeAll()
        }
        for device in devices.values
        where readable.contains(device.evdev.fileDescriptor) || resumed?.contains(device.evdev.fileDescriptor) == true {
            let status: DrainStatus
            let id = device.info.id
            // Made in the arrays of an output delivered before (a turn reads one frame, most often).
            var output = notices.takeOutput()
            defer { notices.returnOutput(output) }
            var events = 0
            var touched = false
            var stuck: [StuckContactChange] = []
            do {
                status = try device.evdev.drain(maximumEvents: Self.maximumEventsPerTurn) { event in
                    device.pipeline.handle(event, into: &output)
                    events &+= 1
                    // One notice per event keeps each frame's gestures right after that frame.
                    if !output.isEmpty {
                        if !output.frames.isEmpty { touched = true }
                        if !output.stuckContacts.isEmpty { stuck += output.stuckContacts }
                        notices.append(.output(device: id, output))
                        output = notices.takeOutput()
                    }
                }
            } catch {
                logger.error(
                    "read failed, closing device",
                    metadata: ["device.path": "\(node(of: device))", "error": "\(error)"])
                status = .gone
            }
            device.faults.checkIfChanged(device.pipeline.tracker.counters, device: id, logger: logger)
            device.health.afterTurn(
                now: now, events: events, touched: touched, kernelDrops: device.pipeline.tracker.counters.resyncs,
                faults: device.pipeline.tracker.counters.faultCount,
                stuck: stuck, info: device.info, board: healthBoard, journal: journal, into: &notices)
            if status == .gone { close(node: node(of: device), lost: true, into: &notices) }
            if status == .more { unfinished.append(device.evdev.fileDescriptor) }
        }
        // Recognizer timeouts (tap, long press) that passed without new input.
        let deviceNow = Timestamp(microseconds: now.nanoseconds / 1000)
        for device in devices.values {
            guard let deadline = device.pipeline.nextDeadline, deadline <= deviceNow else { continue }
            var output = PipelineOutput()
            device.pipeline.advanceTime(to: deviceNow, into: &output)
            if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
            for change in output.stuckContacts {
                device.health.report(change, info: device.info, board: healthBoard, journal: journal, into: &notices)
            }
        }
    }

    /// The node `device` is open under.
    private func node(of device: OpenDevice) -> String {
        devices.first { $0.value === device }?.key ?? device.info.node ?? ""
    }

    public func reload(now: MonotonicInstant, into notices: inout InputNotices) {
        for node in Array(devices.keys) {
            guard let current = discovery.device(devnode: node) else { continue }
            reconfigure(node: node, current: current, into: &notices)
        }
        // Devices that could not be read may be readable now; ignored ones may be wanted now.
        retryUnreadable(nodes: Array(unreadable.keys), into: &notices)
        for device in discovery.enumerateTouchscreens()
        where devices[device.devnode] == nil && unreadable[device.devnode] == nil {
            open(device, into: &notices)
        }
    }

    /// Applies `current` (the device's udev properties now) to the device open at `node`: nothing
    /// when its configuration is unchanged, closed when it is now ignored, else a new pipeline.
    private func reconfigure(node: String, current: DiscoveredDevice, into notices: inout InputNotices) {
        guard let device = devices[node] else { return }
        guard current.configuration != device.configuration else {
            // The same properties: the profile file may have changed all the same (a new enrolment).
            applyHandProfile(device)
            return
        }
        if current.isIgnored {
            logger.info("device now ignored", metadata: ["device.path": "\(node)"])
            close(node: node, into: &notices)
            return
        }
        logProblems(current)
        // Geometry or thresholds changed: gestures in progress end (cancelled), then the new
        // configuration applies to the next touch.
        let output = device.pipeline.deviceRemoved(at: EvdevDevice.monotonicNow())
        rememberGestureIDs(of: device)
        let baseID = current.stableID
        let id = baseID == device.baseID ? device.info.id : uniqueID(baseID, excludingNode: node)
        let replacement = OpenDevice(
            evdev: device.evdev, configuration: current.configuration, id: id,
            baseID: baseID, node: current.sysname)
        resumeGestureIDs(of: replacement)
        applyHandProfile(replacement)
        devices[node] = replacement
        logOverrides(replacement, path: node)
        if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
        if replacement.info != device.info {
            notices.append(.removed(device.info))
            notices.append(.added(replacement.info))
        }
        logger.info("device configuration reloaded", metadata: ["device.path": "\(node)"])
    }

    /// Reads the device's hand profile (again) and applies it: the next gesture's hand uses it.
    func applyHandProfile(_ device: OpenDevice) {
        let profile = HandProfileFile.load(
            configuration: device.configuration, deviceID: device.info.id,
            directory: handProfileDirectory, logger: logger)
        guard device.pipeline.arena.handProfile != profile else { return }
        device.pipeline.arena.setHandProfile(profile)
    }

    public func stop() {
        devices.removeAll()
        unreadable.removeAll()
        updateDirectoryWatches()
    }

    // MARK: -

    private func handle(_ event: UdevEvent, into notices: inout InputNotices) {
        let node = event.device.devnode
        switch event.action {
        case .added:
            if devices[node] == nil && unreadable[node] == nil { open(event.device, into: &notices) }
        case .removed:
            if devices[node] != nil { close(node: node, lost: true, into: &notices) }
            if let info = forgetUnreadable(node: node) { notices.append(.removed(info)) }
        case .changed:
            // This one device's configuration read again, as SIGHUP does for all: a `udevadm
            // trigger` after a rule edit sends one change per input device, each a lookup, not an
            // enumeration.
            let current = discovery.device(devnode: node) ?? event.device
            if devices[node] != nil {
                reconfigure(node: node, current: current, into: &notices)
            } else if unreadable[node] != nil {
                retryUnreadable(nodes: [node], into: &notices)
            } else if current.isHandydCandidate {
                // No longer ignored, or a candidate now.
                open(current, into: &notices)
            }
        }
    }

    /// After lost udev events: what is plugged in now, against what is open or listed. Gone ones
    /// close here; ``reload(now:into:)`` then opens new ones and reads every open one's
    /// configuration again.
    private func reconcile(into notices: inout InputNotices) {
        let present = Set(discovery.enumerateTouchscreens().map(\.devnode))
        for node in devices.keys.filter({ !present.contains($0) }) { close(node: node, into: &notices) }
        for node in unreadable.keys.filter({ !present.contains($0) }) {
            if let info = forgetUnreadable(node: node) { notices.append(.removed(info)) }
        }
        reload(now: .now(), into: &notices)
    }

    private func open(_ found: DiscoveredDevice, into notices: inout InputNotices) {
        guard !found.isIgnored else {
            logger.info("ignoring device (HANDYD_IGNORE)", metadata: ["device.path": "\(found.devnode)"])
            return
        }
        logProblems(found)
        let baseID = found.stableID
        let evdev: EvdevDevice
        do { evdev = try EvdevDevice(path: found.devnode) } catch {
            markUnreadable(found, baseID: baseID, error: error, into: &notices)
            return
        }
        guard isTouchDevice(evdev, path: found.devnode) else { return }
        let device = OpenDevice(
            evdev: evdev, configuration: found.configuration, id: uniqueID(baseID, excludingNode: found.devnode),
            baseID: baseID, node: found.sysname)
        resumeGestureIDs(of: device)
        applyHandProfile(device)
        devices[found.devnode] = device
        logOverrides(device, path: found.devnode)
        announce(device, into: &notices)
    }

    /// Whether `evdev` is a multitouch device whose positions mean something; says why not in the
    /// journal (a warning for a device that declares itself broken: its rule or firmware needs a fix).
    func isTouchDevice(_ evdev: EvdevDevice, path: String) -> Bool {
        guard evdev.description.isMultitouch else {
            logger.info("not a multitouch device, skipping", metadata: ["device.path": "\(path)"])
            return false
        }
        if let problem = evdev.description.positionRangeProblem {
            logger.warning(
                "device's axes are broken, skipping", metadata: ["device.path": "\(path)", "problem": "\(problem)"])
            return false
        }
        return true
    }

    /// An open that failed for want of descriptors or memory (EMFILE, ENFILE, ENOMEM): no udev or
    /// permission event will come to say it may work now, so it is tried again on a timer.
    static func isTransient(_ error: InputError) -> Bool {
        error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOMEM
    }

    /// `lost`: the device went without being asked (unplug, USB reset, a read error), not ignored
    /// by a rule or stopped with the daemon.
    private func close(node: String, lost: Bool = false, into notices: inout InputNotices) {
        guard let device = devices.removeValue(forKey: node) else { return }
        let output = device.pipeline.deviceRemoved(at: EvdevDevice.monotonicNow())
        rememberGestureIDs(of: device)
        if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
        notices.append(.removed(device.info))
        if lost {
            lostIDs.insert(device.info.id)
            DeviceHealthMonitor.lost(device.info, board: healthBoard, journal: journal, into: &notices)
        }
    }

    /// Announces `device` (opened now), and says it is back when it was lost.
    func announce(_ device: OpenDevice, into notices: inout InputNotices) {
        notices.append(.added(device.info))
        if lostIDs.remove(device.info.id) != nil {
            DeviceHealthMonitor.back(device.info, board: healthBoard, journal: journal, into: &notices)
        }
    }

    /// Keeps where `device`'s gesture ids got to (after its last events: it is going or being rebuilt).
    private func rememberGestureIDs(of device: OpenDevice) {
        nextGestureIDs[device.info.id] = Swift.max(
            nextGestureIDs[device.info.id] ?? 1, device.pipeline.arena.nextGestureID)
    }

    /// A new pipeline for a device id seen before goes on from where its ids got to.
    func resumeGestureIDs(of device: OpenDevice) {
        guard let next = nextGestureIDs[device.info.id] else { return }
        device.pipeline.arena.nextGestureID = Swift.max(next, device.pipeline.arena.nextGestureID)
    }

    func logOverrides(_ device: OpenDevice, path: String) {
        let overrides = device.configuration.thresholdOverrides
        guard !overrides.isEmpty else { return }
        logger.info("threshold overrides", metadata: ["device.path": "\(path)", "overrides": "\(overrides)"])
    }

    private func logProblems(_ found: DiscoveredDevice) {
        for problem in found.configuration.problems {
            logger.warning(
                "bad udev property, default used",
                metadata: ["device.path": "\(found.devnode)", "problem": "\(problem)"])
        }
    }

    static func info(id: String, node: String?, evdev: EvdevDevice, geometry: DeviceGeometry, problems: [String] = [])
        -> DeviceInfo
    {
        let d = evdev.description
        return DeviceInfo(
            id: id, name: d.name, path: evdev.path, node: node, vendor: Int(d.vendor), product: Int(d.product),
            slots: d.trackedSlotCount, widthMm: wireSizeMm(geometry.displayWidthMm),
            heightMm: wireSizeMm(geometry.displayHeightMm), problems: wireProblems(problems))
    }
}
