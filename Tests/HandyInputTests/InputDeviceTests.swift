import HandyCore
import HandyInput
import Testing

/// HandyInput's own parts without a kernel device: udev's flags, typed errors, the clock.
@Suite struct InputDeviceTests {
    @Test func discoveredDeviceUsesItsName() {
        let d = DiscoveredDevice(
            sysname: "event7", devnode: "/dev/input/event7", syspath: "/sys/x", name: "Touch Panel",
            properties: ["ID_PATH": "platform-3f204000.i2c"])
        #expect(d.stableID == "touch-panel@platform-3f204000.i2c")
    }
    @Test func discoveredDeviceFlags() {
        let touch = DiscoveredDevice(
            sysname: "event3", devnode: "/dev/input/event3", syspath: "/sys/x",
            properties: ["ID_INPUT_TOUCHSCREEN": "1"])
        #expect(touch.isHandydCandidate && !touch.isIgnored)
        let tagged = DiscoveredDevice(
            sysname: "event4", devnode: "/dev/input/event4", syspath: "/sys/y",
            properties: ["HANDYD_DEVICE": "1", "HANDYD_IGNORE": "1"])
        #expect(tagged.isHandydCandidate && tagged.isIgnored)
        let mouse = DiscoveredDevice(
            sysname: "event5", devnode: "/dev/input/event5", syspath: "/sys/z",
            properties: ["ID_INPUT_MOUSE": "1"])
        #expect(!mouse.isHandydCandidate)
    }

    @Test func inputErrorDescribesErrno() {
        let e = InputError(path: "/dev/input/event9", errno: 2, what: "open")
        #expect(e.description.hasPrefix("/dev/input/event9: open: "))
        #expect(e.description.hasSuffix("(errno 2)"))
        #expect(!e.isDeviceGone)
        #expect(InputError(path: "p", errno: 19, what: "read").isDeviceGone)
    }

    @Test func openingAMissingNodeThrowsTypedError() {
        do {
            _ = try EvdevDevice(path: "/nonexistent/event0")
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "/nonexistent/event0")
            #expect(error.errno == 2)  // ENOENT
            #expect(error.what == "open")
        }
    }

    @Test func openingANonEvdevFileThrows() {
        do {
            _ = try EvdevDevice(path: "/dev/null")
            Issue.record("expected an error")
        } catch {
            #expect(error.what == "libevdev_new_from_fd")
            #expect(error.errno != nil)
        }
    }

    @Test func monotonicNowAdvances() {
        let a = EvdevDevice.monotonicNow()
        let b = EvdevDevice.monotonicNow()
        #expect(b >= a)
        #expect(a.microseconds > 0)
    }
}

/// Without a uinput node, creating a virtual device is a typed error naming the node. Runs on every
/// machine (a node that cannot exist), with or without /dev/uinput.
@Test func uinputMissingIsATypedError() {
    let missing = "/nonexistent-handyd-test/uinput"
    do {
        _ = try UInputDevice(description: touchscreenDescription(name: uniqueName("missing")), controlPath: missing)
        Issue.record("expected an error without \(missing)")
    } catch {
        #expect(error.path == missing)
        #expect(error.errno == 2)  // ENOENT
        #expect(error.what == "open")
        #expect(error.description.contains(missing))
    }
}
