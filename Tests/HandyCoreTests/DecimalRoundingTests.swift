import HandyCore
import HandySynthetic
import Testing

/// `nearestOrAwayFromZero` stands in for `Double.rounded()` wherever a value is rounded to its
/// decimals (`inlineRounded`, `decimalRounded`): it must give the same double, bit for bit (the sign of
/// zero too), for every input, or the wire would change.
@Suite struct DecimalRoundingTests {
    static func same(_ v: Double) -> Bool {
        let mine = nearestOrAwayFromZero(v), libm = v.rounded()
        return mine.isNaN ? libm.isNaN : mine.bitPattern == libm.bitPattern
    }

    @Test func tiesGoAwayFromZero() {
        #expect(nearestOrAwayFromZero(0.5) == 1)
        #expect(nearestOrAwayFromZero(2.5) == 3)
        #expect(nearestOrAwayFromZero(-2.5) == -3)
        #expect(nearestOrAwayFromZero(3.5) == 4)
        // The largest double below a half is no tie: `floor(x + 0.5)` would give 1.
        #expect(nearestOrAwayFromZero(0.5.nextDown) == 0)
        #expect(nearestOrAwayFromZero(-0.3).sign == .minus)
        var mismatches: [Double] = []
        for k in -20_000...20_000 {
            for v in [Double(k) + 0.5, Double(k) + 0.5.nextUp, Double(k) + 0.5.nextDown, Double(k)]
            where !Self.same(v) { mismatches.append(v) }
        }
        let count = mismatches.count  // the count alone, so a failure does not print every mismatch
        #expect(count == 0, "first: \(mismatches.prefix(5))")
    }

    @Test func edgesOfTheRange() {
        let two52 = 0x1p52 as Double
        let values: [Double] = [
            0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
            two52, -two52, two52.nextDown, two52 - 0.5, -(two52 - 0.5), two52 - 1.5, two52 / 2 + 0.5,
            0x1p53, 0x1p53 + 2, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .infinity, -.infinity, .nan, -.nan, .signalingNaN,
        ]
        for v in values { #expect(Self.same(v), "\(v)") }
    }

    /// Random bit patterns (every exponent), and what the wire rounds: millimetres and normalised
    /// values times 10^1…10^5.
    @Test func randomValues() {
        var r = SeededRandom(seed: 17)
        var mismatches: [Double] = []
        for _ in 0..<200_000 {
            let bits = Double(bitPattern: r.next())
            if !Self.same(bits) { mismatches.append(bits) }
            let scaled =
                Double.random(in: -5_000...5_000, using: &r) * [10.0, 100, 1_000, 10_000, 100_000].randomElement(
                    using: &r)!
            if !Self.same(scaled) { mismatches.append(scaled) }
        }
        let count = mismatches.count
        #expect(count == 0, "first: \(mismatches.prefix(5))")
    }

    /// `inlineRounded(v, 10^d)` is `rounded(v, d)`, the recognizers' `decimalRounded(v, d)`.
    @Test func roundingToDecimals() {
        var r = SeededRandom(seed: 18)
        var mismatches: [(Double, Int)] = []
        for _ in 0..<50_000 {
            let v = Double.random(in: -2_000...2_000, using: &r)
            var scale = 1.0
            for digits in 1...5 {
                scale *= 10
                let inline = inlineRounded(v, scale)
                if inline.bitPattern != rounded(v, digits).bitPattern
                    || inline.bitPattern != decimalRounded(v, digits).bitPattern
                {
                    mismatches.append((v, digits))
                }
            }
        }
        let count = mismatches.count
        #expect(count == 0, "first: \(mismatches.prefix(5))")
        #expect(inlineRounded(0.25, 10) == 0.3)
        #expect(inlineRounded(-0.00004, 10_000).sign == .minus)
    }
}
