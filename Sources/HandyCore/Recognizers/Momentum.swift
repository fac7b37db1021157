#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Release velocity by least squares over the last `velocityWindowMs` (Android VelocityTracker's
/// 100 ms horizon), reset after a pause longer than `velocityPauseMs` (its
/// ASSUME_POINTER_STOPPED_TIME, 40 ms): a finger that stopped before lifting has no velocity.
///
/// It fits a straight line (value over time) to the samples in the window; the slope is the
/// velocity. Fixed storage of 32 samples, so the hot path allocates nothing after the first use.
struct VelocityEstimator: Sendable {
    private struct Sample: Sendable {
        var t: Int64 = 0
        var x: Double = 0
        var y: Double = 0
    }
    /// A power of two, so ring indices wrap with a mask.
    private static let capacity = 32
    private static let mask = capacity - 1
    private var samples = [Sample](repeating: Sample(), count: capacity)
    private var head = 0   // index of the next write
    private var count = 0

    init() {}

    mutating func reset() { count = 0 }

    /// Adds the cumulative value (x, y) at `time`. Call when the value changed.
    mutating func add(_ time: Timestamp, x vx: Double, y vy: Double = 0, pauseMs: Double) {
        if count > 0 {
            let last = (head &- 1) & Self.mask
            if (Double(time.microseconds) - Double(samples[last].t)) / 1000 > pauseMs { count = 0 }
        }
        samples[head] = Sample(t: time.microseconds, x: vx, y: vy)
        head = (head &+ 1) & Self.mask
        count = Swift.min(count + 1, Self.capacity)
    }

    /// Velocity per second at `time` (a release): zero when the last sample is older than the pause.
    func velocity(at time: Timestamp, windowMs: Double, pauseMs: Double) -> (x: Double, y: Double) {
        fit(at: time, windowMs: windowMs, pauseMs: pauseMs, y: true)
    }

    /// The x part of ``velocity(at:windowMs:pauseMs:)`` (pinch, rotate: one value), the same
    /// result without the y sums.
    func velocityX(at time: Timestamp, windowMs: Double, pauseMs: Double) -> Double {
        fit(at: time, windowMs: windowMs, pauseMs: pauseMs, y: false).x
    }

    @inline(__always)
    private func fit(at time: Timestamp, windowMs: Double, pauseMs: Double, y withY: Bool) -> (x: Double, y: Double) {
        guard count >= 2 else { return (0, 0) }
        let last = (head &- 1) & Self.mask
        let count = count
        return samples.withUnsafeBufferPointer { s in   // runs per changed event: no bounds checks
            let tLast = s[last].t
            if (Double(time.microseconds) - Double(tLast)) / 1000 > pauseMs { return (0, 0) }
            // Least-squares slope over samples no older than the window before the last sample.
            var n = 0.0, st = 0.0, sx = 0.0, sy = 0.0, stt = 0.0, stx = 0.0, sty = 0.0
            var i = last
            for _ in 0..<count {
                let sample = s[i]
                let age = (Double(tLast) - Double(sample.t)) / 1000
                if age > windowMs { break }
                let ts = -age / 1000   // seconds relative to the last sample
                n += 1; st += ts; sx += sample.x; stt += ts * ts; stx += ts * sample.x
                if withY { sy += sample.y; sty += ts * sample.y }
                i = (i &- 1) & Self.mask
            }
            let den = n * stt - st * st
            guard n >= 2, den > 1e-15 else { return (0, 0) }
            return ((n * stx - st * sx) / den, withY ? (n * sty - st * sy) / den : 0)
        }
    }
}
