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
///
/// The fit's sums are kept as samples come and leave the window (a sample leaves when it is older
/// than the window before the newest, or when the ring overwrites it), so a fit costs the same
/// whatever the rate (summed again over the window at each fit, the cost grows with the rate:
/// docs/PERFORMANCE.md section 5). The sums count time from a
/// base moved to the oldest sample in the window once the newest is four windows past it, when they
/// are also summed afresh: so the times stay within a few windows of 0, and the rounding of a few
/// windows' adds and removes is all the sums carry (a 100 ms window at 240 Hz: every ~72 samples).
struct VelocityEstimator: Sendable {
    private struct Sample: Sendable {
        var t: Int64 = 0
        var x: Double = 0
        var y: Double = 0
    }
    /// Sums over the samples in the window, time in seconds from ``base``.
    private struct Sums: Sendable {
        var n = 0.0, st = 0.0, stt = 0.0, sx = 0.0, sy = 0.0, stx = 0.0, sty = 0.0

        @inline(__always) mutating func add(_ ts: Double, _ x: Double, _ y: Double, sign: Double) {
            n += sign; st += sign * ts; stt += sign * (ts * ts)
            sx += sign * x; sy += sign * y; stx += sign * (ts * x); sty += sign * (ts * y)
        }
    }
    /// A power of two, so ring indices wrap with a mask.
    private static let capacity = 32
    private static let mask = capacity - 1
    /// How many windows the newest sample may be past the base before the sums start again.
    private static let windowsBeforeRebase = 4.0
    private var samples = [Sample](repeating: Sample(), count: capacity)
    private var head = 0  // index of the next write
    /// The newest `windowed` samples are in ``sums``: those in the window (the newest always is).
    private var windowed = 0
    private var sums = Sums()
    private var base: Int64 = 0

    init() {}

    mutating func reset() { windowed = 0; sums = Sums() }

    /// Adds the cumulative value (x, y) at `time`. Call when the value changed.
    mutating func add(_ time: Timestamp, x vx: Double, y vy: Double = 0, windowMs: Double, pauseMs: Double) {
        if windowed > 0 {
            let last = (head &- 1) & Self.mask
            // A pause starts over; so does time going backwards (the window is the newest samples).
            if (Double(time.microseconds) - Double(samples[last].t)) / 1000 > pauseMs
                || time.microseconds < samples[last].t
            {
                reset()
            }
        }
        if windowed == Self.capacity { remove(head) }  // overwritten
        samples[head] = Sample(t: time.microseconds, x: vx, y: vy)
        head = (head &+ 1) & Self.mask
        if windowed == 0 { base = time.microseconds }
        windowed += 1
        sums.add(seconds(time.microseconds), vx, vy, sign: 1)
        // The oldest samples now older than the window before this one leave it for good.
        let tLast = Double(time.microseconds)
        while windowed > 0 {
            let oldest = (head &- windowed) & Self.mask
            guard (tLast - Double(samples[oldest].t)) / 1000 > windowMs else { break }
            remove(oldest)
        }
        if Double(time.microseconds &- base) > windowMs * (1000 * Self.windowsBeforeRebase) { rebase() }
    }

    @inline(__always) private func seconds(_ t: Int64) -> Double { Double(t &- base) / 1_000_000 }

    private mutating func remove(_ index: Int) {
        let s = samples[index]
        sums.add(seconds(s.t), s.x, s.y, sign: -1)
        windowed -= 1
    }

    /// Counts time from the oldest sample in the window and sums the window afresh.
    private mutating func rebase() {
        sums = Sums()
        guard windowed > 0 else { return }
        base = samples[(head &- windowed) & Self.mask].t
        for k in stride(from: windowed, to: 0, by: -1) {
            let s = samples[(head &- k) & Self.mask]
            sums.add(seconds(s.t), s.x, s.y, sign: 1)
        }
    }

    /// Velocity per second at `time` (a release): zero when the last sample is older than the pause.
    func velocity(at time: Timestamp, pauseMs: Double) -> (x: Double, y: Double) {
        fit(at: time, pauseMs: pauseMs, y: true)
    }

    /// The x part of ``velocity(at:pauseMs:)`` (pinch, rotate: one value).
    func velocityX(at time: Timestamp, pauseMs: Double) -> Double {
        fit(at: time, pauseMs: pauseMs, y: false).x
    }

    @inline(__always)
    private func fit(at time: Timestamp, pauseMs: Double, y withY: Bool) -> (x: Double, y: Double) {
        guard windowed >= 2 else { return (0, 0) }
        let tLast = samples[(head &- 1) & Self.mask].t
        if (Double(time.microseconds) - Double(tLast)) / 1000 > pauseMs { return (0, 0) }
        // Least-squares slope over the samples in the window.
        let s = sums
        let den = s.n * s.stt - s.st * s.st
        guard den > 1e-15 else { return (0, 0) }
        return (
            Self.settled((s.n * s.stx - s.st * s.sx) / den), withY ? Self.settled((s.n * s.sty - s.st * s.sy) / den) : 0
        )
    }

    /// A value that did not move has velocity 0, not the ±1e-17 the sums' rounding leaves (which
    /// rounded to the wire's decimals gave `-0` as often as `0`).
    @inline(__always) private static func settled(_ v: Double) -> Double { v.magnitude < 1e-9 ? 0 : v }
}
