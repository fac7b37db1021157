import HandyCore
import HandySynthetic
import Testing

/// Regression (issue 8, found probing the extreme times the fuzz harness uses): time arithmetic at
/// the ends of Int64 saturates instead of trapping. `handyctl replay` and `handyd --replay` crashed
/// on a recording whose events sit near Int64.max microseconds (a trailing 2 s timer overflowed),
/// or span more than 292 years.
@Suite struct TimestampRegressionTests {
    @Test func advancingPastTheEndsSaturates() {
        let nearMax = Timestamp(microseconds: Int64.max - 10)
        #expect(nearMax.advanced(byMicroseconds: 2_000_000).microseconds == Int64.max)
        #expect(nearMax.advanced(byMilliseconds: 2000).microseconds == Int64.max)
        #expect(Timestamp(microseconds: Int64.min + 5).advanced(byMicroseconds: -10).microseconds == Int64.min)
        #expect(Timestamp.zero.advanced(byMilliseconds: .infinity).microseconds == Int64.max)
        #expect(Timestamp.zero.advanced(byMilliseconds: -.infinity).microseconds == Int64.min)
        #expect(Timestamp.zero.advanced(byMilliseconds: .nan) == .zero)
        // Ordinary values are unchanged.
        #expect(Timestamp(microseconds: 1_000).advanced(byMilliseconds: 1.5).microseconds == 2_500)
        #expect(Timestamp(microseconds: 1_000).advanced(byMicroseconds: -400).microseconds == 600)
    }

    @Test func constructorsAndDifferencesNeverTrap() {
        #expect(Timestamp(seconds: 1e30).microseconds == Int64.max)
        #expect(Timestamp(seconds: -1e30).microseconds == Int64.min)
        #expect(Timestamp(seconds: Double.nan).microseconds == 0)
        #expect(Timestamp(seconds: Int64.max, microseconds: 0).microseconds == Int64.max)
        #expect(Timestamp(seconds: 9_223_372_036_854, microseconds: 999_999).microseconds == Int64.max)
        #expect(Timestamp(seconds: 3, microseconds: 250_000).microseconds == 3_250_000)
        let a = Timestamp(microseconds: Int64.max), b = Timestamp(microseconds: Int64.min)
        #expect(a.milliseconds(since: b) > 1e16 && b.seconds(since: a) < -1e13)
        #expect(a.description == "9223372036854.775807" && b.description.hasPrefix("-9223372036854.77"))
    }

    @Test func aPipelineAtTheEndOfTimeStillEndsItsGestures() {
        // A pinch whose events sit 1 s before Int64.max: timers (long press 0.5 s, tap windows)
        // fall past the end and saturate; everything still ends.
        let screen = SyntheticTouchscreen(mtProtocol: .slots(4), maxX: 1999, maxY: 999, resolution: 10)
        let start = Timestamp(microseconds: Int64.max - 1_000_000)
        let events = SyntheticStream(device: screen, start: start).events([
            .line(fromMm: (50, 50), toMm: (60, 50), startSeconds: 0, durationSeconds: 0.6),
            .line(fromMm: (120, 50), toMm: (100, 50), startSeconds: 0, durationSeconds: 0.6),
        ])
        var pipeline = GesturePipeline(deviceID: "end-of-time", description: screen.description)
        var out = PipelineOutput()
        for e in events { pipeline.handle(e, into: &out) }
        out.gestures += pipeline.advanceTime(to: events.last!.time.advanced(byMilliseconds: 5000))
        let removal = pipeline.deviceRemoved(at: Timestamp(microseconds: Int64.max))
        #expect(pipeline.tracker.activeTouchCount == 0)
        var open = Set<UInt64>()
        for g in out.gestures + removal.gestures {
            if g.phase == .began { open.insert(g.id) }
            if g.phase == .ended || g.phase == .cancelled { open.remove(g.id) }
        }
        #expect(open.isEmpty)
        #expect(out.gestures.contains { $0.gesture == .pinch && $0.phase == .began })
    }
}
