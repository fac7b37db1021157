import HandyCore
import HandyInput
import HandyProtocol
import HandySettings
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The devices that are there but cannot be opened (no permission, most often): listed with the
/// reason and the fix, and tried again when their node's attributes change
/// (``NodeAttributeWatch``), when udev reports a change, or every few seconds after a transient failure.
extension LiveSource {
    /// How often unreadable devices are tried again after a transient failure.
    static let transientRetrySeconds = 5.0

    /// Lists a device that could not be opened, with the reason and the fix, and watches its node's directory.
    func markUnreadable(_ found: DiscoveredDevice, baseID: String, error: InputError, into notices: inout InputNotices)
    {
        let node = found.devnode
        if Self.isTransient(error), transientRetryAt == nil {
            transientRetryAt = MonotonicInstant.now().adding(nanoseconds: Int64(Self.transientRetrySeconds * 1e9))
        }
        let fix = Self.fix(for: error, node: node)
        let id = unreadable[node]?.info.id ?? uniqueID(baseID, excludingNode: node)
        let info = DeviceInfo(
            id: id, name: found.name, path: node, node: found.sysname,
            problems: wireProblems(found.configuration.problems),
            readable: false, reason: error.description, fix: fix)
        // Said when it changes, not at every retry (a transient failure is tried every few seconds).
        if unreadable[node]?.info != info {
            var metadata: Logger.Metadata = ["device.path": "\(node)", "device.id": "\(id)", "error": "\(error)"]
            if let fix { metadata["fix"] = "\(fix)" }
            logger.warning(
                Self.isTransient(error)
                    ? "touchscreen present but cannot be read now; will try again"
                    : "touchscreen present but cannot be read; will open it when its permissions change",
                metadata: metadata)
        }
        if var known = unreadable[node] {
            guard known.info != info else { return }
            known.info = info
            known.found = found
            unreadable[node] = known
        } else {
            unreadable[node] = UnreadableDevice(found: found, info: info, baseID: baseID)
            updateDirectoryWatches()
        }
        notices.append(.added(info))
    }

    /// Tries again to open each unreadable node whose attributes changed (``NodeAttributeWatch``).
    func retryAfterAttributeChange(into notices: inout InputNotices) {
        let changed = attributeWatch.changedPaths()
        retryUnreadable(nodes: unreadable.keys.filter(changed.contains), into: &notices)
    }

    /// Watches exactly the directories that hold an unreadable device's node.
    func updateDirectoryWatches() { attributeWatch.watchDirectories(of: unreadable.keys) }

    /// Opens again the unreadable devices at `nodes`, with their current udev properties.
    func retryUnreadable(nodes: [String], into notices: inout InputNotices) {
        for node in nodes.sorted() {
            guard let known = unreadable[node] else { continue }
            let found = discovery.device(devnode: node) ?? known.found
            if found.isIgnored {
                if let info = forgetUnreadable(node: node) { notices.append(.removed(info)) }
                logger.info("ignoring device (HANDYD_IGNORE)", metadata: ["device.path": "\(node)"])
                continue
            }
            let evdev: EvdevDevice
            do { evdev = try EvdevDevice(path: node) } catch {
                markUnreadable(found, baseID: found.stableID, error: error, into: &notices)
                continue
            }
            forgetUnreadable(node: node)
            guard isTouchDevice(evdev, path: node) else {
                notices.append(.removed(known.info))
                continue
            }
            let baseID = found.stableID
            let id = baseID == known.baseID ? known.info.id : uniqueID(baseID, excludingNode: node)
            if id != known.info.id { notices.append(.removed(known.info)) }
            let device = OpenDevice(
                evdev: evdev, configuration: found.configuration, id: id, baseID: baseID, node: found.sysname)
            resumeGestureIDs(of: device)
            applyHandProfile(device)
            devices[node] = device
            logOverrides(device, path: node)
            logger.info("device readable now", metadata: ["device.path": "\(node)", "device.id": "\(id)"])
            // Same id: clients see the device announced again, now readable.
            announce(device, into: &notices)
        }
    }

    /// Forgets an unreadable device (and its directory's watch if it was the last one there);
    /// returns what was announced for it.
    @discardableResult
    func forgetUnreadable(node: String) -> DeviceInfo? {
        guard let gone = unreadable.removeValue(forKey: node) else { return nil }
        updateDirectoryWatches()
        return gone.info
    }

    /// `base`, or `base#2`… when another device (open or not) already has it.
    func uniqueID(_ base: String, excludingNode node: String) -> String {
        var taken = Set(devices.filter { $0.key != node }.map(\.value.info.id))
        for (other, device) in unreadable where other != node { taken.insert(device.info.id) }
        return DeviceIdentity.unique(base, among: taken)
    }

    /// What an operator can do when a node cannot be opened.
    static func fix(for error: InputError, node: String) -> String? {
        if Self.isTransient(error) {
            return
                "handyd has no file descriptor or memory to spare (\(error.errno == ENOMEM ? "out of memory" : "too many open files")); "
                + "it tries again every \(Int(Self.transientRetrySeconds)) s"
        }
        guard error.isPermissionDenied else { return nil }
        var info = stat()
        guard stat(node, &info) == 0 else { return nil }
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
        let mode = String(info.st_mode & 0o777, radix: 8)
        let retry = "handyd opens it as soon as its permissions change"
        if info.st_mode & S_IRGRP != 0 {
            return "\(node) is readable by group \(group) (mode \(mode)): run handyd as a member of \(group) "
                + "(usermod -aG \(group) USER, then log in again), or under systemd with SupplementaryGroups=\(group) "
                + "and DeviceAllow=char-input r, as systemd/handyd.service has for input; \(retry)"
        }
        return "\(node) has mode \(mode), group \(group): its group may not read it. Give input devices to the "
            + "input group (a udev rule: SUBSYSTEM==\"input\", KERNEL==\"event*\", GROUP=\"input\", MODE=\"0660\"; "
            + "Debian's default rules do) and run handyd in that group (SupplementaryGroups=input, as "
            + "systemd/handyd.service has); \(retry)"
    }
}
