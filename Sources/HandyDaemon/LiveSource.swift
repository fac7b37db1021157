import HandyCore
import HandyInput
import HandyProtocol
import Logging

/// The machine's touchscreens: found through udev (enumeration + hotplug monitor), read through
/// libevdev. Event times are CLOCK_MONOTONIC (``EvdevDevice``), the same clock as
/// ``MonotonicInstant``, so a recognizer deadline is directly a poll() timeout.
public final class LiveSource: DeviceSource {
    final class OpenDevice {
        let evdev: EvdevDevice
        var configuration: DeviceConfiguration
        var pipeline: GesturePipeline
        var info: DeviceInfo
        init(evdev: EvdevDevice, configuration: DeviceConfiguration, id: String) {
            self.evdev = evdev
            self.configuration = configuration
            let geometry = configuration.geometry(for: evdev.description)
            // Thresholds were checked against their ranges when the properties were read; what
            // was refused is in configuration.problems (logged, and on the wire in info).
            self.pipeline = GesturePipeline(deviceID: id, description: evdev.description, geometry: geometry,
                                            configuration: configuration.thresholds)
            self.info = LiveSource.info(id: id, evdev: evdev, geometry: geometry, problems: configuration.problems)
        }
    }

    let discovery: UdevDiscovery
    let logger: Logger
    /// Keyed by device node.
    private var devices: [String: OpenDevice] = [:]

    public init(logger: Logger) throws {
        do { discovery = try UdevDiscovery() } catch {
            throw DaemonError("cannot start udev discovery: \(error)")
        }
        self.logger = logger
    }

    public var pollDescriptors: [Int32] {
        [discovery.monitorFileDescriptor] + devices.values.map { $0.evdev.fileDescriptor }
    }

    public var wakeupTime: MonotonicInstant? {
        devices.values.compactMap { $0.pipeline.nextDeadline }.min().map { MonotonicInstant(deviceTime: $0) }
    }

    public func start(now: MonotonicInstant, into notices: inout [InputNotice]) {
        let found = discovery.enumerateTouchscreens()
        if found.isEmpty { logger.notice("no touchscreen found; waiting for one to be plugged in") }
        for device in found { open(device, into: &notices) }
    }

    public func service(now: MonotonicInstant, readable: Set<Int32>, into notices: inout [InputNotice]) {
        if readable.contains(discovery.monitorFileDescriptor) {
            while let event = discovery.receive() { handle(event, into: &notices) }
        }
        for (node, device) in devices where readable.contains(device.evdev.fileDescriptor) {
            let status: DrainStatus
            let id = device.info.id
            do {
                status = try device.evdev.drain { event in
                    var output = PipelineOutput()
                    device.pipeline.handle(event, into: &output)
                    // One notice per event keeps each frame's gestures right after that frame.
                    if !output.isEmpty { notices.append(.output(device: id, output)) }
                }
            } catch {
                logger.error("read failed, closing device", metadata: ["device.path": "\(node)", "error": "\(error)"])
                status = .gone
            }
            if status == .gone { close(node: node, into: &notices) }
        }
        // Recognizer timeouts (tap, long press) that passed without new input.
        let deviceNow = Timestamp(microseconds: now.nanoseconds / 1000)
        for device in devices.values {
            guard let deadline = device.pipeline.nextDeadline, deadline <= deviceNow else { continue }
            var output = PipelineOutput()
            output.gestures = device.pipeline.advanceTime(to: deviceNow)
            if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
        }
    }

    public func reload(now: MonotonicInstant, into notices: inout [InputNotice]) {
        for (node, device) in devices {
            guard let current = discovery.device(devnode: node) else { continue }
            guard current.configuration != device.configuration else { continue }
            if current.isIgnored {
                logger.info("device now ignored", metadata: ["device.path": "\(node)"])
                close(node: node, into: &notices)
                continue
            }
            logProblems(current)
            // Geometry or thresholds changed: gestures in progress end (cancelled), then the new
            // configuration applies to the next touch.
            var output = device.pipeline.deviceRemoved(at: EvdevDevice.monotonicNow())
            let replacement = OpenDevice(evdev: device.evdev, configuration: current.configuration, id: device.info.id)
            devices[node] = replacement
            logOverrides(replacement, path: node)
            if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
            output = PipelineOutput()
            if replacement.info != device.info {
                notices.append(.removed(device.info))
                notices.append(.added(replacement.info))
            }
            logger.info("device configuration reloaded", metadata: ["device.path": "\(node)"])
        }
        // Devices that were ignored before may be wanted now.
        for device in discovery.enumerateTouchscreens() where devices[device.devnode] == nil {
            open(device, into: &notices)
        }
    }

    public func stop() {
        devices.removeAll()
    }

    // MARK: -

    private func handle(_ event: UdevEvent, into notices: inout [InputNotice]) {
        let node = event.device.devnode
        switch event.action {
        case .added:
            if devices[node] == nil { open(event.device, into: &notices) }
        case .removed:
            if devices[node] != nil { close(node: node, into: &notices) }
        case .changed:
            // Re-read this one device's configuration the same way SIGHUP does for all.
            reload(now: .now(), into: &notices)
        }
    }

    private func open(_ found: DiscoveredDevice, into notices: inout [InputNotice]) {
        guard !found.isIgnored else {
            logger.info("ignoring device (HANDYD_IGNORE)", metadata: ["device.path": "\(found.devnode)"])
            return
        }
        logProblems(found)
        let evdev: EvdevDevice
        do { evdev = try EvdevDevice(path: found.devnode) } catch {
            logger.warning("cannot open device", metadata: ["device.path": "\(found.devnode)", "error": "\(error)"])
            return
        }
        guard evdev.description.isMultitouch else {
            logger.info("not a multitouch device, skipping", metadata: ["device.path": "\(found.devnode)"])
            return
        }
        let device = OpenDevice(evdev: evdev, configuration: found.configuration, id: found.sysname)
        devices[found.devnode] = device
        logOverrides(device, path: found.devnode)
        notices.append(.added(device.info))
    }

    private func close(node: String, into notices: inout [InputNotice]) {
        guard let device = devices.removeValue(forKey: node) else { return }
        let output = device.pipeline.deviceRemoved(at: EvdevDevice.monotonicNow())
        if !output.isEmpty { notices.append(.output(device: device.info.id, output)) }
        notices.append(.removed(device.info))
    }

    private func logOverrides(_ device: OpenDevice, path: String) {
        let overrides = device.configuration.thresholdOverrides
        guard !overrides.isEmpty else { return }
        logger.info("threshold overrides", metadata: ["device.path": "\(path)", "overrides": "\(overrides)"])
    }

    private func logProblems(_ found: DiscoveredDevice) {
        for problem in found.configuration.problems {
            logger.warning("bad udev property, default used", metadata: ["device.path": "\(found.devnode)", "problem": "\(problem)"])
        }
    }

    static func info(id: String, evdev: EvdevDevice, geometry: DeviceGeometry, problems: [String] = []) -> DeviceInfo {
        let d = evdev.description
        return DeviceInfo(id: id, name: d.name, path: evdev.path, vendor: Int(d.vendor), product: Int(d.product),
                          slots: d.slotCount, widthMm: wireSizeMm(geometry.displayWidthMm),
                          heightMm: wireSizeMm(geometry.displayHeightMm), problems: wireProblems(problems))
    }
}
