import HandyProtocol
import HandySettings
import HandySynthetic
import Testing

@testable import HandyCore

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

    /// Six plain decimals and nothing else: a seventh word that is not a number, a word between
    /// the numbers, or a hex float (Swift's Double(String) takes "0x1p0") make the value malformed.
    @Test(arguments: [
        "1 0 0 0 1 x", "", "1 0 0 0 1 0 7", "nan 0 0 0 1 0",
        "0 -1 1 1 0 0 junk", "0 -1 x 1 1 0 0", "0x1p0 0 0 0 1 0", "1 0 0 0 1 inf",
    ])
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

    /// HANDYD_HAND_MINIMUM_CONFIDENCE, the name docs/HANDEDNESS.md gives the hand's threshold, is the
    /// threshold `hand-minimum-confidence`: checked like one, and named once with its other name.
    @Test func theHandsMinimumConfidenceHasItsOwnName() {
        let c = DeviceConfiguration(properties: ["HANDYD_HAND_MINIMUM_CONFIDENCE": "0.9"])
        #expect(c.thresholds.handMinimumConfidence == 0.9 && c.problems.isEmpty)
        #expect(
            c.applied == ["HANDYD_HAND_MINIMUM_CONFIDENCE"]
                && c.thresholdOverrides == ["hand-minimum-confidence": "0.9"])
        let bad = DeviceConfiguration(properties: ["HANDYD_HAND_MINIMUM_CONFIDENCE": "0.2"])
        #expect(bad.thresholds.handMinimumConfidence == GestureConfiguration().handMinimumConfidence)
        #expect(
            bad.problems.count == 1 && bad.problems[0].hasPrefix("HANDYD_HAND_MINIMUM_CONFIDENCE=\"0.2\""),
            "\(bad.problems)")
        let both = DeviceConfiguration(properties: [
            "HANDYD_HAND_MINIMUM_CONFIDENCE": "0.9", "HANDYD_THRESHOLD_HAND_MINIMUM_CONFIDENCE": "0.8",
        ])
        #expect(both.thresholds.handMinimumConfidence == 0.9 && both.problems.count == 1, "\(both.problems)")
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
        #expect(
            c.applied == [
                "HANDYD_THRESHOLD_PINCH_RATIO", "HANDYD_THRESHOLD_SIMULTANEOUS", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS",
            ])
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
        #expect(
            c.problems == [
                "HANDYD_THRESHOLD_=\"3\": no threshold name after HANDYD_THRESHOLD_",
                "HANDYD_THRESHOLD_PINCH_MIN_DISTANCE_MM=\"4.5\": unknown threshold name (the names are in docs/GESTURES.md)",
                "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=\"fast\": not a number, accepted 1 … 60000 ms; using 180 ms",
            ])
        #expect(c.thresholds.tapTimeoutMs == GestureConfiguration().tapTimeoutMs)
    }

    /// Issue 13: a value outside its range, or none at all, is one problem naming the property,
    /// the value and the range; the default is used; a pipeline with the result runs the demo.
    @Test(arguments: GestureConfiguration.overrideSettings.filter { $0.numericValue != nil }.map(\.key))
    func badThresholdIsAProblemAndTheDefault(key: String) throws {
        let setting = try #require(GestureConfiguration.overrideSetting(named: key))
        let property = DeviceConfiguration.thresholdProperty(setting.key)
        guard case .number(let range, _) = setting.accepted else {
            Issue.record("\(key) has a numeric value but no numeric range"); return
        }
        let justOutside = [range.lowerBound - Swift.max(1e-3, range.lowerBound * 0.01), range.upperBound * 1.01]
        for value in ["1e300", "-1", "nan", "inf", "abc", ""] + justOutside.map(GestureConfiguration.formatSetting) {
            let c = DeviceConfiguration(properties: [property: value])
            #expect(c.problems.count == 1, "\(property)=\"\(value)\"")
            let problem = c.problems.first ?? ""
            #expect(problem.hasPrefix("\(property)=\"\(value)\": "), "\(problem)")
            #expect(problem.contains("accepted \(setting.accepted.summary)"), "\(problem)")
            #expect(problem.hasSuffix("; using \(setting.currentText(GestureConfiguration()))"), "\(problem)")
            #expect(c.thresholds == GestureConfiguration() && c.thresholdOverrides.isEmpty && c.applied.isEmpty)
            #expect(runDemo(c).bugs.isEmpty)
        }
    }

    @Test func thePolicyKeysAreSettablePerDevice() {
        // docs/GESTURES.md always said so; the old number-only parser refused them.
        let c = DeviceConfiguration(properties: [
            "HANDYD_THRESHOLD_SIMULTANEOUS": "pinch+rotate",
            "HANDYD_THRESHOLD_PALM_CANCELS": "false",
            "HANDYD_THRESHOLD_TAP_WAITS_FOR_DOUBLE_TAP": "1",
            "HANDYD_THRESHOLD_TWO_FINGER_LONG_PRESS_GATES": "true",
        ])
        #expect(c.problems.isEmpty)
        #expect(
            c.thresholds.policy
                == GesturePolicy(
                    simultaneous: [GesturePair(.pinch, .rotate)], tapWaitsForDoubleTapFingers: [1],
                    palmCancels: false, twoFingerLongPressGatesPanAndRotate: true))
        // One tap on the demo waits for the double-tap timeout now: the single tap and the double
        // tap come out as one event each (taps 1, taps 2) instead of three (1, 1, 2).
        let taps = runDemo(c).gestures.filter { $0.gesture == .tap }.map(\.taps)
        #expect(taps == [1, 2])
        #expect(runDemo(DeviceConfiguration()).gestures.filter { $0.gesture == .tap }.map(\.taps) == [1, 1, 2])
    }

    @Test func oneThresholdNamedTwiceIsAProblem() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": "200", "HANDYD_THRESHOLD_TAP__TIMEOUT_MS": "300",
            "HANDYD_THRESHOLD_TAP_SLOP_MM": "4", "HANDYD_THRESHOLD_TOUCH_SLOP_MM": "3",
        ])
        #expect(c.thresholds.tapTimeoutMs == 200 && c.thresholds.touchSlopMm == 4)
        #expect(c.applied == ["HANDYD_THRESHOLD_TAP_SLOP_MM", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS"])
        #expect(
            c.problems == [
                "HANDYD_THRESHOLD_TAP__TIMEOUT_MS=\"300\": names the same threshold as HANDYD_THRESHOLD_TAP_TIMEOUT_MS; only HANDYD_THRESHOLD_TAP_TIMEOUT_MS is read",
                "HANDYD_THRESHOLD_TOUCH_SLOP_MM=\"3\": sets the same as tap-slop-mm, which is used; using 4 mm",
            ])
        // Two spellings: only the first in name order is read, even when it is bad (the docs say so).
        let badFirst = DeviceConfiguration(properties: [
            "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": "soon", "HANDYD_THRESHOLD_TAP__TIMEOUT_MS": "300",
        ])
        #expect(badFirst.thresholds.tapTimeoutMs == GestureConfiguration().tapTimeoutMs)
        #expect(badFirst.applied.isEmpty)
        #expect(badFirst.problems.count == 2)
    }

    @Test(arguments: ["0 100", "20000 100", "1e308 1e308", "100 nan", "inf 100"])
    func sizeOutsideItsRangeIsAProblem(text: String) {
        let c = DeviceConfiguration(properties: ["HANDYD_SIZE_MM": text])
        #expect(c.sizeMm == nil)
        #expect(c.problems.count == 1)
        #expect(c.problems.first?.contains("each 1 … 10000 mm") == true)
    }

    @Test func calibrationOutsideItsRangeIsAProblem() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_CALIBRATION_MATRIX": "1e300 0 0 0 1 0", "LIBINPUT_CALIBRATION_MATRIX": "0 1 0 -1 0 1",
        ])
        #expect(c.calibration == .rotated270)
        #expect(
            c.problems == [
                "HANDYD_CALIBRATION_MATRIX=\"1e300 0 0 0 1 0\": expected six numbers \"a b c d e f\", each -100 … 100; using LIBINPUT_CALIBRATION_MATRIX"
            ])
        // The widest accepted device stays finite in mm (a hello carrying infinity could not be encoded).
        let widest = DeviceConfiguration(properties: [
            "HANDYD_SIZE_MM": "10000 10000", "HANDYD_CALIBRATION_MATRIX": "100 100 100 -100 -100 -100",
        ])
        #expect(widest.problems.isEmpty)
        let g = widest.geometry(for: DemoScenario.device.description)
        #expect(g.displayWidthMm.isFinite && g.displayHeightMm.isFinite)
        #expect(runDemo(widest).bugs.isEmpty)
    }

    @Test func unknownHandydPropertiesAreProblemsOthersAreUdevs() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_SIZE": "100 50", "ID_INPUT_TOUCHSCREEN": "1", "HANDYD_DEVICE": "1",
        ])
        #expect(c.problems == ["HANDYD_SIZE=\"100 50\": not a property handyd reads (see docs/DEVICES.md)"])
        #expect(c.applied.isEmpty)
    }

    @Test func aReplayReportsEveryPropertyItDoesNotRead() {
        let c = DeviceConfiguration(
            properties: [
                "ID_INPUT_TOUCHSCREEN": "1", "HANDYD_IGNORE": "1", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": "250",
                "LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0",
            ], origin: .replay)
        #expect(c.ignore == false)
        #expect(c.calibration == .rotated90 && c.thresholds.tapTimeoutMs == 250)
        #expect(
            c.problems == [
                "HANDYD_IGNORE=\"1\": has no effect on a replayed device",
                "ID_INPUT_TOUCHSCREEN=\"1\": not a property handyd reads (see docs/DEVICES.md)",
            ])
    }

    @Test func aProblemIsOneReadableLine() {
        let c = DeviceConfiguration(properties: [
            "HANDYD_SIZE_MM": "1\n2\r", "HANDYD_THRESHOLD_TAP_TIMEOUT_MS": String(repeating: "9", count: 200),
        ])
        #expect(c.problems.count == 2)
        #expect(c.problems.first?.hasPrefix("HANDYD_SIZE_MM=\"1\\u{a}2\\u{d}\": ") == true, "\(c.problems)")
        #expect(
            c.problems.last?.hasPrefix(
                "HANDYD_THRESHOLD_TAP_TIMEOUT_MS=\"\(String(repeating: "9", count: 80))…\": out of range") == true)
        // A combining mark after the prefix does not hide a property from the checks.
        let marked = DeviceConfiguration(properties: ["HANDYD_\u{301}X": "1"])
        #expect(marked.problems.count == 1)
    }

    @Test func deviceAssignments() throws {
        #expect(
            try DeviceConfiguration.properties(fromAssignments: [
                "HANDYD_SIZE_MM=200 100", "HANDYD_THRESHOLD_X=a=b", "E=",
            ])
                == ["HANDYD_SIZE_MM": "200 100", "HANDYD_THRESHOLD_X": "a=b", "E": ""])
        for bad in [["HANDYD_SIZE_MM"], ["=1"], ["A=1", "A=2"]] {
            #expect(throws: DeviceConfiguration.AssignmentError.self, "\(bad)") {
                try DeviceConfiguration.properties(fromAssignments: bad)
            }
        }
    }

    @Test func geometryUsesCalibrationAndSize() {
        let description = DeviceDescription(
            name: "t", properties: [InputProperty.direct],
            absAxes: [
                AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 999, resolution: 0),
                AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 499, resolution: 0),
            ])
        let c = DeviceConfiguration(properties: [
            "HANDYD_SIZE_MM": "200 100", "HANDYD_CALIBRATION_MATRIX": "0 -1 1 1 0 0",
        ])
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
}

/// The demo (one of each gesture) through a pipeline configured as a live device would be:
/// geometry and thresholds from `c`, timers fired up to the end of time.
func runDemo(_ c: DeviceConfiguration) -> (gestures: [CoreGestureEvent], bugs: [String]) {
    let description = DemoScenario.device.description
    var pipeline = GesturePipeline(
        deviceID: "demo", description: description, geometry: c.geometry(for: description),
        configuration: c.thresholds)
    var output = PipelineOutput()
    for event in demoEvents { pipeline.handle(event, into: &output) }
    var gestures = output.gestures
    gestures += pipeline.advanceTime(to: Timestamp(microseconds: .max))
    return (gestures, pipeline.arena.bugReports)
}
private let demoEvents = DemoScenario.events

@Suite struct HandProfilePropertyTests {
    /// HANDYD_HAND_PROFILE names the file; without it the default file is named by the device id.
    @Test func theProfilePropertyAndTheDefaultFile() {
        let c = DeviceConfiguration(properties: ["HANDYD_HAND_PROFILE": "/etc/handyd/front.json"])
        #expect(
            c.problems.isEmpty && c.applied == ["HANDYD_HAND_PROFILE"] && c.handProfilePath == "/etc/handyd/front.json")
        #expect(c.handProfileFile(deviceID: "x")! == ("/etc/handyd/front.json", true))
        #expect(c != DeviceConfiguration(), "a new profile path is a new configuration (a reload rebuilds)")
        let none = DeviceConfiguration()
        #expect(
            none.handProfileFile(deviceID: "usb-0000:00:14.0-1/ELAN")! == (
                "/var/lib/handyd/hands/usb-0000:00:14.0-1_ELAN.json", false
            ))
        #expect(none.handProfileFile(deviceID: "x", directory: nil) == nil)
        let empty = DeviceConfiguration(properties: ["HANDYD_HAND_PROFILE": ""])
        #expect(
            empty.handProfilePath == nil && empty.problems.count == 1
                && empty.problems[0].hasPrefix("HANDYD_HAND_PROFILE=\"\": expected the path"))
        // A replayed device takes it too (not "not a property handyd reads").
        #expect(DeviceConfiguration(properties: ["HANDYD_HAND_PROFILE": "p.json"], origin: .replay).problems.isEmpty)
    }
}

@Suite struct StuckTouchPropertyTests {
    @Test func secondsZeroOrAProblem() {
        #expect(DeviceConfiguration(properties: [:]).stuckTouchSeconds == 30)
        #expect(DeviceConfiguration(properties: ["HANDYD_STUCK_TOUCH_S": "0"]).stuckTouchSeconds == 0)
        #expect(DeviceConfiguration(properties: ["HANDYD_STUCK_TOUCH_S": "120"]).stuckTouchSeconds == 120)
        for bad in ["0.5", "-1", "86401", "nan", "soon", ""] {
            let c = DeviceConfiguration(properties: ["HANDYD_STUCK_TOUCH_S": bad])
            #expect(c.stuckTouchSeconds == 30, "\(bad)")
            #expect(
                c.problems.count == 1
                    && c.problems[0].hasPrefix("HANDYD_STUCK_TOUCH_S=\"\(bad)\": expected 0 (off) or seconds 1 … 86400"),
                "\(bad): \(c.problems)")
        }
    }
}

/// HANDYD_HOVER (issue 55): hover off for a panel whose in-range signal is noisy.
@Suite struct HoverPropertyTests {
    @Test func onByDefaultOffByZeroElseAProblem() {
        #expect(DeviceConfiguration(properties: [:]).hover)
        for off in ["0", "false", "No"] {
            let c = DeviceConfiguration(properties: ["HANDYD_HOVER": off])
            #expect(!c.hover && c.problems.isEmpty && c.applied == ["HANDYD_HOVER"], "\(off)")
        }
        #expect(DeviceConfiguration(properties: ["HANDYD_HOVER": "yes"], origin: .replay).hover)
        for bad in ["", "off", " 0", "2"] {
            let c = DeviceConfiguration(properties: ["HANDYD_HOVER": bad], origin: .replay)
            #expect(c.hover, "\(bad)")
            #expect(
                c.problems == [
                    "HANDYD_HOVER=\"\(bad)\": expected 1, true, yes, 0, false or no (any case); using 1"
                ], "\(bad): \(c.problems)")
        }
    }

    /// A finger in range (ABS_MT_DISTANCE 1) on a screen that declares the axis: a hovering contact
    /// with the property's default, none with HANDYD_HOVER=0, as on a screen without the axis.
    @Test func withTheProperty0AHoveringContactIsNoHover() {
        var description = SyntheticTouchscreen(mtProtocol: .slots(4)).description
        description.absAxes[AbsCode.mtDistance] = AbsInfo(minimum: 0, maximum: 1)
        let time = Timestamp(seconds: 1)
        let events =
            [
                (AbsCode.mtTrackingID, 7), (AbsCode.mtPositionX, 100), (AbsCode.mtPositionY, 50),
                (AbsCode.mtDistance, 1),
            ].map { InputEvent(time: time, type: EventType.abs, code: $0.0, value: Int32($0.1)) } + [
                InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0)
            ]
        func hovering(_ properties: [String: String]) -> (tracks: Bool, count: Int, touches: Int) {
            let configuration = DeviceConfiguration(properties: properties)
            var pipeline = GesturePipeline(
                deviceID: "t", description: description, configuration: configuration.thresholds,
                tracksHover: configuration.hover)
            var output = PipelineOutput()
            for e in events { pipeline.handle(e, into: &output) }
            return (
                pipeline.tracker.tracksHover, pipeline.tracker.hovering.count,
                output.frames.reduce(0) { $0 + $1.touches.count }
            )
        }
        let on = hovering([:])
        #expect(on.tracks && on.count == 1 && on.touches == 0, "\(on)")
        let off = hovering(["HANDYD_HOVER": "0"])
        #expect(!off.tracks && off.count == 0, "\(off)")
    }
}
