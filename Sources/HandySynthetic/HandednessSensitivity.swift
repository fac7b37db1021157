import HandyCore
import HandyProtocol

/// How far the handedness classifiers hold when the hand model's assumptions are wrong: each
/// assumption pushed to each end of a range, one at a time, the rest at the model's defaults
/// (docs/HANDEDNESS.md "Sensitivity"). The ranges are assumptions too, wider than the defaults'
/// guesses; none is a published measurement.
public enum HandednessSensitivity {
    /// One assumption of ``HandModel`` and the range it is pushed across.
    public struct Assumption: Sendable {
        public var name: String
        public var unit: String
        public var low: Double
        public var high: Double
        public var apply: @Sendable (inout HandModel, Double) -> Void
    }

    /// The family: every assumption the model makes about hands, screens and mounting that a
    /// parameter controls.
    public static let assumptions: [Assumption] = [
        Assumption(name: "thumb→index angle", unit: "°", low: 35, high: 75) { $0.pinchLineDegrees = $1 },
        Assumption(name: "hand rotation spread", unit: "° sd", low: 10, high: 40) { $0.handRotationSdDegrees = $1 },
        Assumption(name: "index axis", unit: "°", low: 25, high: 65) { $0.indexAxisDegrees = $1 },
        Assumption(name: "thumb axis", unit: "°", low: -100, high: -60) { $0.thumbAxisDegrees = $1 },
        Assumption(name: "orientation noise", unit: "° sd", low: 5, high: 30) { $0.orientationSdDegrees = $1 },
        Assumption(name: "orientation garbage", unit: "share", low: 0, high: 0.3) { $0.orientationGarbageShare = $1 },
        Assumption(name: "thumb lands first", unit: "share", low: 0.5, high: 0.8) { $0.thumbLandsFirst = $1 },
        Assumption(name: "index motion share", unit: "share", low: 0.5, high: 0.8) { $0.indexMotionShare = $1 },
        Assumption(name: "line turn", unit: "rad/ln", low: -0.4, high: 0.1) { $0.turnPerLogRatio = $1 },
        Assumption(name: "line turn spread", unit: "rad/ln sd", low: 0.1, high: 0.5) { $0.turnPerLogRatioSd = $1 },
        Assumption(name: "thumb/index area", unit: "×", low: 1.0, high: 1.6) { $0.thumbAreaRatio = $1 },
        Assumption(name: "thumb/index pressure", unit: "×", low: 1.0, high: 1.3) { $0.thumbPressureRatio = $1 },
        Assumption(name: "rotated mounting", unit: "share", low: 0, high: 0.5) { $0.rotatedShare = $1 },
    ]

    /// One member of the family and tier: both classifiers on the same pinches.
    public struct Row: Sendable, Codable {
        /// "defaults", or "<assumption> = <value>".
        public var member: String
        public var tier: String
        public var seed: HandednessMetrics
        public var evidence: HandednessMetrics
        /// The evidence classifier's accuracy over its most confident pinches, as many as the seed
        /// rule answers (its coverage): the fair comparison at equal coverage.
        public var evidenceAtSeedCoverage: Double
        /// `evidenceAtSeedCoverage` ≥ the seed rule's accuracy (to a tolerance of one pinch).
        public var holds: Bool
    }

    /// Every member (defaults, then each assumption at its low and high end) × tier, `count` pinches
    /// each, alternately right and left hand, from `seed`.
    public static func rows(count: Int, seed: UInt64, classifier: EvidenceHandednessClassifier = EvidenceHandednessClassifier(),
                            tiers: [HandednessTier] = HandednessTier.allCases) -> [Row] {
        var members: [(String, HandModel)] = [("defaults", HandModel())]
        for a in assumptions {
            for value in [a.low, a.high] {
                var model = HandModel()
                a.apply(&model, value)
                members.append(("\(a.name) = \(formatted(value)) \(a.unit)", model))
            }
        }
        var rows: [Row] = []
        for (name, model) in members {
            for tier in tiers {
                let pinches = HandednessEvaluation.syntheticPinches(tier: tier, count: count, seed: seed, model: model)
                    .enumerated().map { i, p in LabelledPinch(name: "\(i)", p) }
                let seedOutcomes = pinches.map { HandednessEvaluation.outcome($0, classifier: SeedHandednessRule()) }
                let evidenceOutcomes = pinches.map { HandednessEvaluation.outcome($0, classifier: classifier) }
                let seedMetrics = HandednessMetrics(seedOutcomes)
                let evidenceMetrics = HandednessMetrics(evidenceOutcomes)
                let atSeed = HandednessMetrics(evidenceOutcomes, fixedCoverage: seedMetrics.coverage).accuracyAtFixedCoverage
                let tolerance = 1 / Double(Swift.max(1, pinches.count))
                rows.append(Row(member: name, tier: tier.rawValue, seed: seedMetrics, evidence: evidenceMetrics,
                                evidenceAtSeedCoverage: atSeed, holds: atSeed + tolerance >= seedMetrics.accuracy))
            }
        }
        return rows
    }

    /// The rows as a fixed-width table, with a last line counting the rows that do not hold.
    public static func table(_ rows: [Row]) -> String {
        func pct(_ v: Double) -> String {
            let s = formatted(v * 100, digits: 1)
            return String(repeating: " ", count: Swift.max(0, 5 - s.count)) + s
        }
        let width = Swift.max(30, rows.map(\.member.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: Swift.max(0, n - s.count)) }
        var lines = [pad("member", width) + "  " + pad("tier", 11)
                     + "  seed acc @ cov   handyd acc @ cov   handyd @ seed cov  ECE    holds"]
        for r in rows {
            lines.append(pad(r.member, width) + "  " + pad(r.tier, 11)
                         + "  \(pct(r.seed.accuracy)) % @ \(pct(r.seed.coverage)) %"
                         + "  \(pct(r.evidence.accuracy)) % @ \(pct(r.evidence.coverage)) %"
                         + "   \(pct(r.evidenceAtSeedCoverage)) %        "
                         + formatted(r.evidence.calibrationError, digits: 3) + "  " + (r.holds ? "yes" : "NO"))
        }
        let failing = rows.filter { !$0.holds }.count
        lines.append("\(rows.count - failing) of \(rows.count) rows hold (handyd at the seed rule's coverage is at least as accurate)")
        return lines.joined(separator: "\n") + "\n"
    }

    static func formatted(_ v: Double, digits: Int = 2) -> String {
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (v * p).rounded() / p
        if r == r.rounded() { return String(Int(r)) }
        return String(r)
    }
}
