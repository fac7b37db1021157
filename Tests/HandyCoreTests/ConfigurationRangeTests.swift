import HandyProtocol
import HandySynthetic
import HandyWire
import Testing

@testable import HandyCore

/// The override table (`GestureConfiguration.overrideSettings`): every value the parser lets
/// through runs, every value it refuses leaves the default, and no value at all traps a pipeline
/// (issue 13: `long-press-ms=1e300` trapped on the first touch converting its deadline to Int64).
@Suite struct ConfigurationRangeTests {
    static let numeric: [OverrideSetting] = GestureConfiguration.overrideSettings.filter { $0.numericValue != nil }
    /// Test arguments: the keys (a setting prints as a wall of closures).
    static let numericKeys: [String] = numeric.map(\.key)

    /// The demo (pinch out and in, rotate, tap, double tap, pan, swipe, long press) through a real
    /// pipeline, timers fired as the daemon fires them, then every timer left however far away:
    /// time runs to the end of Int64, where a saturated deadline sits.
    static func runDemo(_ configuration: GestureConfiguration) -> (gestures: [GestureEvent], bugs: [String]) {
        var pipeline = GesturePipeline(
            deviceID: "demo", description: DemoScenario.device.description, configuration: configuration)
        var output = PipelineOutput()
        for event in demoEvents { pipeline.handle(event, into: &output) }
        var gestures = output.gestures
        gestures += pipeline.advanceTime(to: Timestamp(microseconds: .max))
        gestures += pipeline.deviceRemoved(at: Timestamp(microseconds: .max)).gestures
        return (gestures.wireEvents, pipeline.arena.bugReports)
    }
    static let demoEvents = DemoScenario.events

    static func range(_ s: OverrideSetting) -> ClosedRange<Double> {
        guard case .number(let r, _) = s.accepted else { preconditionFailure("\(s.key) is not a number") }
        return r
    }

    @Test func theDemoRunsEveryRecognizer() {
        // So the runs below exercise something: every multi-finger gesture, timers included.
        let run = Self.runDemo(GestureConfiguration())
        #expect(Set(run.gestures.map(\.gesture)).isSuperset(of: [.pinch, .rotate, .pan, .tap, .swipe, .longPress]))
        #expect(run.bugs.isEmpty)
    }

    @Test func defaultsAndExamplesAreWithinTheirRanges() {
        let defaults = GestureConfiguration()
        for s in Self.numeric {
            #expect(Self.range(s).contains(s.numericValue!(defaults)), "\(s.key) default \(s.numericValue!(defaults))")
            let example = Double(s.example)!
            #expect(
                Self.range(s).contains(example) && example != s.numericValue!(defaults), "\(s.key) example \(s.example)"
            )
        }
    }

    @Test func everyKeyTakesItsExample() {
        for s in GestureConfiguration.overrideSettings {
            for key in [s.key] + s.aliases {
                var c = GestureConfiguration()
                #expect(c.applyOverrides([key: s.example]) == [], "\(key)=\(s.example)")
                #expect(c != GestureConfiguration(), "\(key)=\(s.example) changes nothing")
            }
        }
    }

    @Test(arguments: numericKeys)
    func rangeEndsApplyAndRun(key: String) throws {
        let setting = try #require(GestureConfiguration.overrideSetting(named: key))
        let r = Self.range(setting)
        for end in [r.lowerBound, r.upperBound] {
            var c = GestureConfiguration()
            let text = GestureConfiguration.formatSetting(end)
            #expect(c.applyOverrides([setting.key: text]) == [], "\(setting.key)=\(text)")
            #expect(
                Swift.abs(setting.numericValue!(c) - end) <= 1e-12 * Swift.max(1, Swift.abs(end)),
                "\(setting.key)=\(text)")
            let run = Self.runDemo(c)
            #expect(run.bugs.isEmpty, "\(setting.key)=\(text): \(run.bugs)")
        }
    }

    /// Far outside, not a number, or empty: rejected with the range named, and nothing changes.
    @Test(arguments: numericKeys)
    func badValuesKeepTheDefault(key: String) throws {
        let setting = try #require(GestureConfiguration.overrideSetting(named: key))
        let r = Self.range(setting)
        let justOutside = [r.lowerBound - Swift.max(1e-6, r.lowerBound.magnitude * 0.01), r.upperBound * 1.01 + 1e-6]
        let bad =
            ["1e300", "-1e300", "-1", "nan", "inf", "-inf", "infinity", "abc", "", " ", "0x10", "1 2", "1e", "--1"]
            + justOutside.map { "\($0)" }
        for value in bad {
            var c = GestureConfiguration()
            let rejections = c.applyOverrides([setting.key: value])
            #expect(rejections.count == 1, "\(setting.key)=\"\(value)\"")
            #expect(rejections.first?.reason.contains(setting.accepted.summary) == true, "\(rejections)")
            #expect(
                rejections.first?.reason.hasSuffix("using \(setting.currentText(GestureConfiguration()))") == true,
                "\(rejections)")
            #expect(c == GestureConfiguration(), "\(setting.key)=\"\(value)\" changed the configuration")
        }
    }

    /// Defence in depth: values no parser lets through, set directly, still never trap.
    @Test(arguments: numericKeys)
    func unparsableValuesSetDirectlyNeverTrap(key: String) throws {
        let setting = try #require(GestureConfiguration.overrideSetting(named: key))
        for value in [
            1e300, -1e300, -1, 0, Double.nan, Double.infinity, -Double.infinity, Double.leastNonzeroMagnitude,
        ] {
            var c = GestureConfiguration()
            Self.set(setting, value, in: &c)
            _ = Self.runDemo(c)  // a trap ends the test process: the test fails by crashing
        }
    }

    /// Sets a numeric setting bypassing its range check (the parse path would refuse the value).
    static func set(_ s: OverrideSetting, _ v: Double, in c: inout GestureConfiguration) {
        switch s.key {
        case "touch-slop-mm": c.touchSlopMm = v
        case "tap-timeout-ms": c.tapTimeoutMs = v
        case "double-tap-timeout-ms": c.doubleTapTimeoutMs = v
        case "double-tap-slop-mm": c.doubleTapSlopMm = v
        case "long-press-ms": c.longPressMs = v
        case "decide-mm": c.decideMotionPerFingerMm = v
        case "pinch-ratio": c.pinchRatio = v
        case "rotate-turns": c.rotateTurns = v
        case "rotate-degrees": c.rotateTurns = v / 360
        case "transform-window-mm": c.transformWindowMm = v
        case "palm-major-mm": c.palmMajorMm = v
        case "palm-major-mm-assumed-size": c.palmMajorMmAssumedSize = v
        case "swipe-min-distance-mm": c.swipeMinDistanceMm = v
        case "swipe-min-speed-mm-s": c.swipeMinSpeedMmPerSecond = v
        case "swipe-max-duration-ms": c.swipeMaxDurationMs = v
        case "swipe-max-angle-degrees": c.swipeMaxAngleDegrees = v
        case "swipe-edge-mm": c.swipeEdgeMm = v
        case "flick-min-speed-mm-s": c.flickMinSpeedMmPerSecond = v
        case "velocity-window-ms": c.velocityWindowMs = v
        case "velocity-pause-ms": c.velocityPauseMs = v
        case "momentum-decay-per-ms": c.momentumDecayPerMs = v
        case "hand-vertical-dead-zone-mm": c.handVerticalDeadZoneMm = v
        case "hand-horizontal-dead-zone-mm": c.handHorizontalDeadZoneMm = v
        case "hand-minimum-confidence": c.handMinimumConfidence = v
        default: Issue.record("no setter for \(s.key) in this test: add it")
        }
    }

    @Test func longPressOf1e300IsRefusedAndNeverTraps() {
        // The measured crash: the first touch after this setting trapped converting the deadline.
        var c = GestureConfiguration()
        #expect(
            c.applyOverrides(["long-press-ms": "1e300"]).map(\.description)
                == ["long-press-ms=\"1e300\": out of range, accepted 1 … 60000 ms; using 500 ms"])
        c.longPressMs = 1e300
        let run = Self.runDemo(c)
        #expect(run.bugs.isEmpty)
        #expect(!run.gestures.contains { $0.gesture == .longPress })
    }

    @Test func policyKeysParseAndRefuse() {
        var c = GestureConfiguration()
        #expect(
            c.applyOverrides([
                "simultaneous": "pinch+rotate", "tap-waits-for-double-tap": "1,2",
                "palm-cancels": "off", "two-finger-long-press-gates": "yes",
            ]) == [])
        #expect(c.policy.simultaneous == [GesturePair(.pinch, .rotate)])
        #expect(c.policy.tapWaitsForDoubleTapFingers == [1, 2])
        #expect(!c.policy.palmCancels && c.policy.twoFingerLongPressGatesPanAndRotate)
        for (key, value) in [
            ("simultaneous", "pinch+touch-tap"), ("simultaneous", ""), ("simultaneous", "pinch+rotate,"),
            ("tap-waits-for-double-tap", "11"), ("tap-waits-for-double-tap", ""), ("tap-waits-for-double-tap", "1,,2"),
            ("palm-cancels", "maybe"), ("two-finger-long-press-gates", ""),
        ] {
            var d = GestureConfiguration()
            let rejections = d.applyOverrides([key: value])
            #expect(rejections.count == 1 && d == GestureConfiguration(), "\(key)=\"\(value)\"")
            #expect(rejections.first?.reason.hasPrefix("not accepted, expected ") == true)
        }
        var none = GestureConfiguration()
        #expect(none.applyOverrides(["simultaneous": "none", "tap-waits-for-double-tap": "none"]) == [])
        #expect(none.policy.simultaneous.isEmpty && none.policy.tapWaitsForDoubleTapFingers.isEmpty)
    }

    @Test func twoKeysForOneSettingTheFirstValidWins() {
        var c = GestureConfiguration()
        let rejections = c.applyOverrides([
            "tap-slop-mm": "4", "touch-slop-mm": "3", "rotate-degrees": "abc", "rotate-turns": "0.05",
        ])
        #expect(c.touchSlopMm == 4 && c.rotateTurns == 0.05)
        #expect(
            rejections.map(\.description) == [
                "rotate-degrees=\"abc\": not a number, accepted 0.36 … 90 degrees; using 18 degrees",
                "touch-slop-mm=\"3\": sets the same as tap-slop-mm, which is used; using 4 mm",
            ])
    }

    @Test func unknownKeysAreRefused() {
        var c = GestureConfiguration()
        let rejections = c.applyOverrides(["tap-timeout": "200", "": "1"])
        #expect(rejections.map(\.key) == ["", "tap-timeout"])
        #expect(rejections.allSatisfy { $0.reason.hasPrefix("unknown threshold name") })
        #expect(c == GestureConfiguration())
    }
}
