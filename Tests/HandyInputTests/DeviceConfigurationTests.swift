import HandyCore
import HandyInput
import Testing

@Suite struct DeviceConfigurationTests {
    @Test func emptyPropertiesGiveDefaults() {
        let c = DeviceConfiguration(properties: [:])
        #expect(c.ignore == false)
        #expect(c.calibration == nil)
        #expect(c.sizeMm == nil)
        #expect(c.thresholdOverrides.isEmpty)
        #expect(c.problems.isEmpty)
    }

    @Test(arguments: [("1", true), ("0", false), ("true", true), ("no", false), ("", false)])
    func ignoreValues(value: String, expected: Bool) {
        let c = DeviceConfiguration(properties: ["HANDYD_IGNORE": value])
        #expect(c.ignore == expected)
        #expect(c.problems.isEmpty)
    }

    @Test func malformedIgnoreIsAProblemAndNotIgnored() {
        let c = DeviceConfiguration(properties: ["HANDYD_IGNORE": "maybe"])
        #expect(c.ignore == false)
        #expect(c.problems.count == 1)
        #expect(c.problems.first?.contains("HANDYD_IGNORE") == true)
    }

    @Test func handydCalibrationWinsOverLibinput() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_CALIBRATION_MATRIX": "0 -1 1 1 0 0",
            "LIBINPUT_CALIBRATION_MATRIX": "-1 0 1 0 -1 1",
        ])
        #expect(c.calibration == .rotated90)
        #expect(c.problems.isEmpty)
    }

    @Test func libinputCalibrationIsTheFallback() {
        let c = DeviceConfiguration(properties: ["LIBINPUT_CALIBRATION_MATRIX": "-1 0 1 0 -1 1"])
        #expect(c.calibration == .rotated180)
    }

    @Test func malformedHandydCalibrationFallsBackToLibinputAndIsReported() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_CALIBRATION_MATRIX": "1 0 0 0 1",
            "LIBINPUT_CALIBRATION_MATRIX": "0 1 0 -1 0 1",
        ])
        #expect(c.calibration == .rotated270)
        #expect(c.problems.count == 1)
        #expect(c.problems.first?.hasPrefix("HANDYD_CALIBRATION_MATRIX") == true)
    }

    @Test(arguments: ["1 0 0 0 1 x", "", "1 0 0 0 1 0 7", "nan 0 0 0 1 0"])
    func malformedCalibrationIsNilWithProblem(text: String) {
        let c = DeviceConfiguration(properties: ["HANDYD_CALIBRATION_MATRIX": text])
        #expect(c.calibration == nil)
        #expect(c.problems.count == 1)
    }

    @Test func sizeParses() {
        let c = DeviceConfiguration(properties: ["HANDYD_SIZE_MM": "344.5  193.6"])
        #expect(c.sizeMm?.width == 344.5)
        #expect(c.sizeMm?.height == 193.6)
        #expect(c.problems.isEmpty)
    }

    @Test(arguments: ["344", "0 100", "-3 4", "a b", "1 2 3"])
    func malformedSizeIsNilWithProblem(text: String) {
        let c = DeviceConfiguration(properties: ["HANDYD_SIZE_MM": text])
        #expect(c.sizeMm == nil)
        #expect(c.problems.count == 1)
    }

    @Test func thresholdNamesBecomeKebabCase() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": "180",
            "HANDYD_THRESHOLD_PINCH_RATIO": " 1.15 ",
            "HANDYD_THRESHOLD_SIMULTANEOUS": "pinch+pan",
            "ID_INPUT_TOUCHSCREEN": "1",
        ])
        #expect(c.thresholdOverrides == ["tap-timeout-ms": "180", "pinch-ratio": "1.15", "simultaneous": "pinch+pan"])
        #expect(c.thresholds.tapTimeoutMs == 180 && c.thresholds.pinchRatio == 1.15)
        #expect(c.thresholds.policy.simultaneous == [GesturePair(.pinch, .pan)])
        #expect(c.applied == ["HANDYD_THRESHOLD_PINCH_RATIO", "HANDYD_THRESHOLD_SIMULTANEOUS", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS"])
        #expect(c.problems.isEmpty)
    }

    @Test func malformedThresholdsAreReportedAndLeftOut() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": "fast",
            "HANDYD_THRESHOLD_": "3",
            "HANDYD_THRESHOLD_SWIPE_MIN_DISTANCE_MM": "20",
            "HANDYD_THRESHOLD_PINCH_MIN_DISTANCE_MM": "4.5",
        ])
        #expect(c.thresholdOverrides == ["swipe-min-distance-mm": "20"])
        #expect(c.problems == [
            "HANDYD_THRESHOLD_=\"3\": no threshold name after HANDYD_THRESHOLD_",
            "HANDYD_THRESHOLD_PINCH_MIN_DISTANCE_MM=\"4.5\": unknown threshold name (the names are in docs/GESTURES.md)",
            "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=\"fast\": not a number, accepted 1 … 60000 ms; using 180 ms",
        ])
        #expect(c.thresholds.tapTimeoutMs == GestureConfiguration().tapTimeoutMs)
    }

    @Test func geometryUsesCalibrationAndSize() {
        let description = DeviceDescription(
            name: "t", properties: [InputProperty.direct],
            absAxes: [
                AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 999, resolution: 0),
                AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 499, resolution: 0),
            ])
        let c = DeviceConfiguration(properties: ["HANDYD_SIZE_MM": "200 100", "HANDYD_CALIBRATION_MATRIX": "0 -1 1 1 0 0"])
        let g = c.geometry(for: description)
        // min…max spans the stated size: 999 units over 200 mm, 499 over 100 mm.
        #expect(g.unitsPerMmX == 999.0 / 200)
        #expect(g.unitsPerMmY == 499.0 / 100)
        #expect(g.calibration == .rotated90)
        // Rotated by 90°, the display is 100 mm wide and 200 mm tall.
        #expect(abs(g.displayWidthMm - 100) < 1e-9)
        #expect(abs(g.displayHeightMm - 200) < 1e-9)

        let plain = DeviceConfiguration(properties: [:]).geometry(for: description)
        #expect(plain.unitsPerMmX == 999 / DeviceGeometry.fallbackWidthMm)
        #expect(plain.calibration == .identity)
    }

    @Test func discoveredDeviceFlags() {
        let touch = DiscoveredDevice(sysname: "event3", devnode: "/dev/input/event3", syspath: "/sys/x",
                                     properties: ["ID_INPUT_TOUCHSCREEN": "1"])
        #expect(touch.isHandydCandidate && !touch.isIgnored)
        let tagged = DiscoveredDevice(sysname: "event4", devnode: "/dev/input/event4", syspath: "/sys/y",
                                      properties: ["HANDYD_DEVICE": "1", "HANDYD_IGNORE": "1"])
        #expect(tagged.isHandydCandidate && tagged.isIgnored)
        let mouse = DiscoveredDevice(sysname: "event5", devnode: "/dev/input/event5", syspath: "/sys/z",
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

/// On a machine without /dev/uinput (the build host), creating a virtual device is a typed error.
@Test(.enabled(if: !KernelGate.uinputUsable && !KernelGate.required))
func uinputMissingIsATypedError() {
    do {
        _ = try UInputDevice(description: touchscreenDescription(name: uniqueName("missing")))
        Issue.record("expected an error without /dev/uinput")
    } catch {
        #expect(error.path == "/dev/uinput")
        #expect(error.errno != nil)
        #expect(error.what == "libevdev_uinput_create_from_device")
    }
}
