import HandySynthetic
import Testing

@testable import HandyCore

/// The velocity fit's sums kept as samples come and go (docs/PERFORMANCE.md section 5) give the
/// fit summed afresh at every sample.
@Suite struct VelocityEstimatorTests {
    /// The least-squares slope over the window, summed afresh: what the estimator computed at every
    /// fit before its sums were kept.
    static func directFit(_ samples: [(t: Int64, x: Double, y: Double)], windowMs: Double, capacity: Int = 32) -> (
        x: Double, y: Double
    ) {
        guard let last = samples.last else { return (0, 0) }
        var n = 0.0, st = 0.0, sx = 0.0, sy = 0.0, stt = 0.0, stx = 0.0, sty = 0.0
        for s in samples.suffix(capacity).reversed() {
            let age = (Double(last.t) - Double(s.t)) / 1000
            if age > windowMs { break }
            let ts = -age / 1000
            n += 1; st += ts; sx += s.x; sy += s.y; stt += ts * ts; stx += ts * s.x; sty += ts * s.y
        }
        let den = n * stt - st * st
        guard n >= 2, den > 1e-15 else { return (0, 0) }
        return ((n * stx - st * sx) / den, (n * sty - st * sy) / den)
    }

    /// Streams at 50 Hz to 2 kHz (2 kHz fills the 32-sample ring before the window: the ring's
    /// overwrite removes samples too), and the same 50 times slower with windows 50 times longer,
    /// with jitter, pauses that start over, and long runs that move the sums' base: the kept sums give the fresh fit's slope to 2e-8 (relative above 1).
    /// Worst seen here: 1.3e-9 — both fits round, neither is exact; the wire keeps 1 decimal of mm/s
    /// and 4 of a scale's or an angle's rate.
    @Test func keptSumsGiveTheFitSummedAfresh() {
        var r = SeededRandom(seed: 17)
        var checked = 0
        var worst = 0.0
        for _ in 0..<200 {
            // Time slowed 50 times too (docs/PERFORMANCE.md section 5 plays the guest's stream so).
            let slowdown = [1.0, 50].randomElement(using: &r)!
            let rateHz = [50.0, 120, 240, 1000, 2000].randomElement(using: &r)! / slowdown
            let windowMs = [30.0, 100, 250].randomElement(using: &r)! * slowdown
            let pauseMs = 40.0 * slowdown
            var estimator = VelocityEstimator()
            var samples: [(t: Int64, x: Double, y: Double)] = []
            var t: Int64 = Int64.random(in: 0...5_000_000_000, using: &r)
            var x = Double.random(in: -300...300, using: &r), y = Double.random(in: -300...300, using: &r)
            for _ in 0..<Int.random(in: 20...900, using: &r) {
                var step =
                    Int64(1_000_000 / rateHz) + Int64((Double.random(in: -300...300, using: &r) * slowdown).rounded())
                if Int.random(in: 0..<150, using: &r) == 0 { step += Int64(60_000 * slowdown) }  // a pause: starts over
                t += max(step, 1)
                x += Double.random(in: -2...2, using: &r)
                y += Double.random(in: -2...2, using: &r)
                if let last = samples.last, (Double(t) - Double(last.t)) / 1000 > pauseMs { samples.removeAll() }
                samples.append((t, x, y))
                estimator.add(Timestamp(microseconds: t), x: x, y: y, windowMs: windowMs, pauseMs: pauseMs)
                let kept = estimator.velocity(at: Timestamp(microseconds: t), pauseMs: pauseMs)
                let fresh = Self.directFit(samples, windowMs: windowMs)
                for (k, f) in [(kept.x, fresh.x), (kept.y, fresh.y)] {
                    let error = (k - f).magnitude / max(1, f.magnitude)
                    worst = max(worst, error)
                    #expect(error <= 2e-8, "\(k) vs \(f) at \(rateHz) Hz, window \(windowMs) ms")
                }
                #expect(estimator.velocityX(at: Timestamp(microseconds: t), pauseMs: pauseMs) == kept.x)
                checked += 1
            }
        }
        #expect(checked > 20_000)
        print(
            "velocity: kept sums against the fit summed afresh, worst relative difference \(worst) over \(checked) fits"
        )
    }

    /// A value that does not move has velocity exactly +0 (not the -0 a leftover of the sums'
    /// rounding gave), one that moves steadily for a minute keeps its exact rate (the base moves
    /// every 400 ms), and a release after the pause has none.
    @Test func aValueThatDoesNotMoveHasVelocityZero() {
        var estimator = VelocityEstimator()
        for i in 0..<14_400 {  // a minute at 240 Hz
            let t = Timestamp(microseconds: 1_000_000 + Int64(i) * 4167)
            estimator.add(t, x: Double(i) * 0.25, y: 7.3, windowMs: 100, pauseMs: 40)
            let v = estimator.velocity(at: t, pauseMs: 40)
            if i >= 1 {
                #expect(v.y == 0 && v.y.sign == .plus)
                #expect((v.x - 0.25 / 0.004167).magnitude < 1e-8, "\(v.x) after \(i) samples")
            }
        }
        let late = Timestamp(microseconds: 1_000_000 + 14_399 * 4167 + 41_000)
        #expect(estimator.velocity(at: late, pauseMs: 40) == (0, 0))
    }
}
