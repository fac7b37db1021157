import HandyInput
import HandySettings
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#endif

/// The real kernel path: uinput → evdev node → libevdev. Skips where /dev/uinput is missing
/// (the build host) unless HANDYD_REQUIRE_UINPUT=1 (the qemu guest, scripts/vm/run-guest-tests.sh).
@Suite(.serialized, .enabled(if: KernelGate.runUinput, "needs /dev/uinput (run scripts/vm/run-guest-tests.sh)"))
struct KernelEvdevTests {
    @Test func descriptionReadBackFromTheKernel() throws {
        let wanted = touchscreenDescription(name: uniqueName("describe"))
        let ui = try UInputDevice(description: wanted)
        defer { ui.close() }
        let node = try ui.waitForDevnode()
        #expect(node.hasPrefix("/dev/input/event"))
        let dev = try EvdevDevice(path: node)
        let d = dev.description
        #expect(d.name == wanted.name)
        #expect(d.vendor == 0x1234 && d.product == 0x5678 && d.bustype == 0x06)
        #expect(d.properties == [InputProperty.direct])
        #expect(d.slotCount == 10)
        #expect(d.isDirect && d.isMultitouch && d.usesSlots)
        #expect(d.has(type: EventType.key, code: KeyCode.btnTouch))
        #expect(d.absAxes[AbsCode.mtPositionX]?.maximum == 1919)
        #expect(d.absAxes[AbsCode.mtPositionY]?.maximum == 1079)
        #expect(d.absAxes[AbsCode.mtPositionX]?.resolution == 10)
        #expect(d.absAxes[AbsCode.mtTrackingID]?.maximum == 65535)
        #expect(Set(d.absAxes.keys) == Set(wanted.absAxes.keys))
        #expect(d.supportedEvents[EventType.abs] == Set(wanted.absAxes.keys))
        // The kernel's geometry: positions 0…1919 at 10 units/mm span 191.9 mm.
        let g = DeviceConfiguration().geometry(for: d)
        #expect(g.hasKernelResolution && abs(g.sensorWidthMm - 191.9) < 1e-9)
    }

    /// A drain with a limit stops there with `.more` while events are left, even those already in
    /// libevdev's queue (where poll does not see them), and the next drains go on in order.
    @Test func aLimitedDrainStopsWithMoreAndGoesOn() throws {
        let ui = try UInputDevice(description: touchscreenDescription(name: uniqueName("limited")))
        defer { ui.close() }
        let dev = try EvdevDevice(path: try ui.waitForDevnode())
        var a = Contact(trackingID: 200, x: 100, y: 200)
        try writeFrame(ui, [0: a], btnTouch: 1)
        for _ in 1...20 {
            a.x += 7
            try writeFrame(ui, [0: a])
        }
        try writeFrame(ui, [0: nil], btnTouch: 0)
        // Everything is written before the first read: libevdev reads it all into its queue at once.
        _ = waitReadable(dev.fileDescriptor, timeoutMs: 5000)
        var whole: [InputEvent] = []
        var statuses: [DrainStatus] = []
        for _ in 0..<100 {
            var got = 0
            let status = try dev.drain(maximumEvents: 5) {
                whole.append($0); got += 1
            }
            statuses.append(status)
            #expect(got <= 5)
            if status != .more { break }
        }
        // 22 frames: the first 5 events (slot, id, x, y, BTN_TOUCH), then x and SYN 20 times, ...
        let reports = whole.filter { $0.type == EventType.syn && $0.code == SynCode.report }.count
        #expect(reports == 22, "\(reports) frames read, statuses \(statuses)")
        #expect(statuses.dropLast().allSatisfy { $0 == .more } && statuses.last == .open, "\(statuses)")
        #expect(statuses.count >= whole.count / 5, "\(statuses.count) drains for \(whole.count) events")
        #expect(whole.map(\.time) == whole.map(\.time).sorted())
    }

    @Test func twoFingerFramesArriveInOrderOnTheMonotonicClock() throws {
        let ui = try UInputDevice(description: touchscreenDescription(name: uniqueName("frames")))
        defer { ui.close() }
        let dev = try EvdevDevice(path: try ui.waitForDevnode())
        let before = EvdevDevice.monotonicNow()

        var expected: [[Int: Contact]] = []
        var a = Contact(trackingID: 100, x: 100, y: 200)
        var b = Contact(trackingID: 101, x: 500, y: 600)
        try writeFrame(ui, [0: a, 1: b], btnTouch: 1)
        expected.append([0: a, 1: b])
        for i in 1...5 {
            a.x += 10; b.x -= 10; b.y += Int32(i)
            try writeFrame(ui, [0: a, 1: b])
            expected.append([0: a, 1: b])
        }
        try writeFrame(ui, [0: nil])
        expected.append([1: b])
        try writeFrame(ui, [1: nil], btnTouch: 0)
        expected.append([:])

        var model = SlotModel()
        var events: [InputEvent] = []
        let status = try readUntil(dev, into: &model, events: &events) { $0.frames.count >= expected.count }
        let after = EvdevDevice.monotonicNow()
        #expect(status == .open)
        #expect(model.frames == expected)
        #expect(!model.sawDropped)
        #expect(events.filter { $0.type == EventType.key && $0.code == KeyCode.btnTouch }.map(\.value) == [1, 0])
        // Event times come from CLOCK_MONOTONIC, the clock the daemon arms timers on.
        for e in events {
            #expect(e.time >= before && e.time <= after, "event \(e) outside [\(before), \(after)]")
        }
        #expect(events.map(\.time) == events.map(\.time).sorted())
        // libevdev's own state agrees.
        #expect(dev.slotValue(slot: 0, code: AbsCode.mtTrackingID) == -1)
        #expect(dev.slotValue(slot: 1, code: AbsCode.mtTrackingID) == -1)
        #expect(dev.value(type: EventType.key, code: KeyCode.btnTouch) == 0)
        // Nothing more pending.
        var extra = 0
        #expect(try dev.drain { _ in extra += 1 } == .open)
        #expect(extra == 0)
    }

    @Test func overflowGivesSynDroppedThenAResyncToTheKernelState() throws {
        let ui = try UInputDevice(description: touchscreenDescription(name: uniqueName("dropped")))
        defer { ui.close() }
        let dev = try EvdevDevice(path: try ui.waitForDevnode())

        // Far more events than evdev's per-client buffer holds (a few hundred to a few thousand
        // for 10 slots), written without reading.
        var a = Contact(trackingID: 7, x: 10, y: 10)
        var b = Contact(trackingID: 8, x: 1000, y: 500)
        try writeFrame(ui, [0: a, 1: b], btnTouch: 1)
        for i in 0..<3000 {
            a.x = Int32(10 + i % 1800); b.y = Int32(500 + i % 500)
            try writeFrame(ui, [0: a, 1: b])
        }
        // Final kernel state: slot 0 lifted, slot 1 still down at a known place, a third finger in slot 4.
        let bFinal = Contact(trackingID: 8, x: 777, y: 333)
        let c = Contact(trackingID: 9, x: 1500, y: 900)
        try writeFrame(ui, [0: nil, 1: bFinal, 4: c])

        var model = SlotModel()
        var events: [InputEvent] = []
        let status = try readUntil(dev, into: &model, events: &events) {
            $0.slots == [1: bFinal, 4: c] && $0.sawDropped
        }
        #expect(status == .open)
        #expect(model.sawDropped)
        let droppedAt = try #require(events.firstIndex { $0.isSynDropped })
        // The sync events end in a SYN_REPORT, and the frame it closes is the kernel's state now.
        let syncEnd = try #require(events[droppedAt...].firstIndex { $0.isSynReport })
        var replay = SlotModel()
        for e in events[...syncEnd] { replay.apply(e) }
        #expect(replay.slots == [1: bFinal, 4: c])
        // Only one overflow in this run, and nothing after the resync frame changed anything.
        #expect(events.filter(\.isSynDropped).count == 1)
        #expect(model.slots == [1: bFinal, 4: c])
        #expect(dev.slotValue(slot: 0, code: AbsCode.mtTrackingID) == -1)
        #expect(dev.slotValue(slot: 1, code: AbsCode.mtPositionX) == 777)
        #expect(dev.slotValue(slot: 4, code: AbsCode.mtTrackingID) == 9)
        // Far fewer events were delivered than written (the overflow really happened).
        #expect(events.count < 3000 * 5)
    }

    @Test func unplugGivesGone() throws {
        let ui = try UInputDevice(description: touchscreenDescription(name: uniqueName("unplug")))
        let dev = try EvdevDevice(path: try ui.waitForDevnode())
        try writeFrame(ui, [0: Contact(trackingID: 1, x: 5, y: 5)], btnTouch: 1)
        ui.close()
        #expect(ui.devnode == nil)
        var model = SlotModel()
        var events: [InputEvent] = []
        let status = try readUntil(dev, into: &model, events: &events) { _ in false }
        #expect(status == .gone)
        // Writing after close is a typed error, not a crash.
        #expect(throws: InputError.self) { try ui.write(type: EventType.syn, code: SynCode.report, value: 0) }
    }
}

/// udev: enumeration and the monitor see a uinput touchscreen with the properties rules give it.
/// Needs systemd-udevd (qemu-run.sh --udev).
@Suite(
    .serialized,
    .enabled(if: KernelGate.runUdev, "needs /dev/uinput and systemd-udevd (run scripts/vm/run-guest-tests.sh)"))
struct KernelUdevTests {
    @Test func monitorAndEnumerationFollowHotplug() throws {
        let udev = try UdevDiscovery()
        let ui = try UInputDevice(description: touchscreenDescription(name: uniqueName("hotplug")))
        var closed = false
        defer { if !closed { ui.close() } }
        let node = try ui.waitForDevnode()

        let added = try waitForUdev(udev) { $0.device.devnode == node && $0.action == .added && isEvent($0, of: ui) }
        #expect(added.device.properties["ID_INPUT_TOUCHSCREEN"] == "1")
        #expect(added.device.sysname == String(node.split(separator: "/").last!))
        #expect(added.device.syspath.hasSuffix("/" + added.device.sysname))
        #expect(added.device.isHandydCandidate && !added.device.isIgnored)
        // The name comes from udev (the parent inputN), without opening the node; a uinput device
        // has no ID_PATH or ID_SERIAL, so its stable id is the name "@virtual", never the node.
        #expect(added.device.name == ui.description.name)
        #expect(added.device.stableID == DeviceIdentity.id(name: ui.description.name, properties: [:]))
        #expect(added.device.stableID.hasSuffix("@virtual") && !added.device.stableID.contains("event"))
        if KernelGate.testRulesInstalled {
            #expect(added.device.properties["HANDYD_DEVICE"] == "1", "udev/70-handyd.rules did not tag it")
        }

        let listed = udev.enumerateTouchscreens()
        #expect(listed.contains { $0.devnode == node })
        #expect(udev.device(devnode: node)?.properties["ID_INPUT_TOUCHSCREEN"] == "1")

        // The discovered node opens and reads as the same device.
        let dev = try EvdevDevice(path: added.device.devnode)
        #expect(dev.description.name == ui.description.name)

        ui.close()
        closed = true
        let removed = try waitForUdev(udev) {
            $0.device.devnode == node && $0.action == .removed && isEvent($0, of: ui)
        }
        #expect(removed.device.sysname == added.device.sysname)
        #expect(!udev.enumerateTouchscreens().contains { $0.devnode == node })
    }

    /// Events the monitor's socket had no room for are noticed (ENOBUFS), so the daemon looks at
    /// every device again instead of missing a plug or an unplug.
    @Test func aMonitorThatOverflowedSaysSo() throws {
        let small = try UdevDiscovery(receiveBufferBytes: 2048)
        let watcher = try UdevDiscovery()
        #expect(!small.takeEventsLost())
        // 24 touchscreens plugged while nobody reads the small monitor: their events (a few per
        // device, a kilobyte or more each) overflow its buffer.
        let made = try (0..<24).map { i in
            try UInputDevice(description: touchscreenDescription(name: uniqueName("overflow\(i)")))
        }
        defer { for ui in made { ui.close() } }
        let nodes = try made.map { try $0.waitForDevnode() }
        // Once udev has announced them all (on the watcher's roomy buffer), the small one is full.
        _ = try waitForUdev(
            watcher, timeoutSeconds: 60, all: nodes.map { node in { $0.device.devnode == node && $0.action == .added } }
        )
        var read = 0
        while small.receive() != nil { read += 1 }
        #expect(small.takeEventsLost(), "\(read) events read and none lost, with a 2 KiB buffer for 24 devices")
        #expect(!small.takeEventsLost(), "asking clears it")
        // Looking again finds every one of them.
        let listed = Set(small.enumerateTouchscreens().map(\.devnode))
        #expect(nodes.allSatisfy { listed.contains($0) })
    }

    @Test func aNonTouchscreenIsNotReported() throws {
        let udev = try UdevDiscovery()
        // A plain keyboard-like device: no ABS axes, not a touchscreen.
        let keys = DeviceDescription(name: uniqueName("keys"), supportedEvents: [EventType.key: [30, 31, 32]])
        let ui = try UInputDevice(description: keys)
        defer { ui.close() }
        let node = try ui.waitForDevnode()
        // Wait for a later touchscreen's add: udev handles devices in order, so by then the
        // keyboard's add has been processed and must have been filtered out.
        let marker = try UInputDevice(description: touchscreenDescription(name: uniqueName("marker")))
        defer { marker.close() }
        let markerNode = try marker.waitForDevnode()
        var seenKeyboard = false
        _ = try waitForUdev(udev) { e in
            // Only "add": a late "remove" of an earlier test's device may carry the same reused node.
            if isEvent(e, of: ui) { seenKeyboard = true }
            return e.device.devnode == markerNode && e.action == .added && isEvent(e, of: marker)
        }
        #expect(!seenKeyboard)
        #expect(!udev.enumerateTouchscreens(includingIgnored: true).contains { $0.devnode == node })
    }

    /// scripts/vm/99-handyd-test.rules sets HANDYD_IGNORE and configuration on devices
    /// named "handyd-test ignored*" / "handyd-test configured*".
    @Test(.enabled(if: KernelGate.testRulesInstalled || KernelGate.required))
    func ignoredAndConfiguredDevicesThroughRealRules() throws {
        #expect(KernelGate.testRulesInstalled, "HANDYD_TEST_RULES=1 not set: the test rules are not installed")
        let udev = try UdevDiscovery()
        let ignoredUI = try UInputDevice(description: touchscreenDescription(name: uniqueName("ignored")))
        defer { ignoredUI.close() }
        let configuredUI = try UInputDevice(description: touchscreenDescription(name: uniqueName("configured")))
        defer { configuredUI.close() }
        let ignoredNode = try ignoredUI.waitForDevnode()
        let configuredNode = try configuredUI.waitForDevnode()

        // Both adds, in either order (udevd may finish the second device first).
        let both = try waitForUdev(
            udev,
            all: [
                { $0.device.devnode == ignoredNode && $0.action == .added && isEvent($0, of: ignoredUI) },
                { $0.device.devnode == configuredNode && $0.action == .added && isEvent($0, of: configuredUI) },
            ])
        let (ignored, configured) = (both[0], both[1])
        #expect(ignored.device.isIgnored)
        #expect(!configured.device.isIgnored)
        #expect(configured.device.configuration.calibration == .rotated90)
        #expect(configured.device.configuration.sizeMm?.width == 300)
        #expect(configured.device.configuration.sizeMm?.height == 170)
        #expect(configured.device.configuration.thresholdOverrides == ["tap-timeout-ms": "250"])
        #expect(configured.device.configuration.problems.isEmpty)

        let listed = udev.enumerateTouchscreens().map(\.devnode)
        #expect(!listed.contains(ignoredNode))
        #expect(listed.contains(configuredNode))
        #expect(udev.enumerateTouchscreens(includingIgnored: true).map(\.devnode).contains(ignoredNode))
    }
}
