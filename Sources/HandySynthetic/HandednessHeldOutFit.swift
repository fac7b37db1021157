import HandyCore
import HandyProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The evidence classifier's weights fitted with each member of the sensitivity family held out
/// (issue 52 item 2): does the fit hold on hands it never saw? The shipped weights are fitted on
/// the mixture, every assumption drawn across its whole range (``HandednessEvaluation/mixturePinches(tier:count:seed:ranges:)``),
/// so each member (an assumption at one end of its range) is a corner of what the fit saw. Held
/// out, the member's assumption is drawn from the half of its range away from that end only (the
/// rolled near-vertical member: the thumb→index angle and the roll both from their lower half),
/// the weights refitted on that mixture, and both fits measured on the member's own pinches: the
/// evidence alone (the score's log loss, its sign right) and the published answers with those
/// weights against the seed rule's on the same pinches (docs/HANDEDNESS.md "The fit held out by
/// member"). The defaults (the middle of every range) and the mixture (what the fit is made on)
/// are not held out.
public enum HandednessHeldOutFit {
    /// What a member shows with one set of weights.
    public struct Measure: Sendable, Codable {
        /// The score's mean log loss on the member's pinches (a coin: 0.693).
        public var logLoss: Double
        /// Share of pinches whose score has the right sign (0 counts as half).
        public var evidenceAccuracy: Double
        /// The classifier's published answers with these weights.
        public var published: HandednessMetrics
        /// At least as many answers as the seed rule and at least as accurate, to one pinch.
        public var dominates: Bool
    }

    /// One member and tier: the shipped weights, refitted on the whole mixture, and refitted on
    /// the mixture without the member.
    public struct Row: Sendable, Codable {
        public var member: String
        public var tier: String
        public var pinches: Int
        public var seed: HandednessMetrics
        public var shipped: Measure
        public var whole: Measure
        public var heldOut: Measure
    }

    /// The members that can be held out, each with the part of the assumptions' ranges its
    /// mixture keeps (by index into ``HandednessSensitivity/assumptions``).
    public static var heldOutMembers: [(name: String, model: HandModel, ranges: [Int: ClosedRange<Double>])] {
        let assumptions = HandednessSensitivity.assumptions
        var members: [(name: String, model: HandModel, ranges: [Int: ClosedRange<Double>])] = []
        let named = HandednessSensitivity.members
        var at = 1  // after the defaults, in HandednessSensitivity.members' order
        for (i, a) in assumptions.enumerated() {
            let middle = (a.low + a.high) / 2
            for range in [middle...a.high, a.low...middle] {
                if let model = named[at].model { members.append((named[at].name, model, [i: range])) }
                at += 1
            }
        }
        // The rolled near-vertical member: steeper than the angle's range, rolled near its end.
        let angle = assumptions.firstIndex { $0.name == "thumb→index angle" }!
        let roll = assumptions.firstIndex { $0.name == "hand roll" }!
        for (name, model) in HandednessSensitivity.combinedMembers {
            members.append(
                (
                    name, model,
                    [
                        angle: assumptions[angle].low...(assumptions[angle].low + assumptions[angle].high) / 2,
                        roll: assumptions[roll].low...(assumptions[roll].low + assumptions[roll].high) / 2,
                    ]
                ))
        }
        return members
    }

    /// Every held-out member × tier: `count` pinches of the member from `seed`, the fits on
    /// `trainingCount` mixture pinches a tier from `trainingSeed` (the shipped fit: 1,000, seed 1).
    public static func rows(
        count: Int, seed: UInt64, trainingCount: Int = 1000, trainingSeed: UInt64 = 1,
        members: [(name: String, model: HandModel, ranges: [Int: ClosedRange<Double>])] = heldOutMembers
    ) -> [Row] {
        func training(_ ranges: [Int: ClosedRange<Double>]) -> [(HandednessFeatures, Hand)] {
            HandednessTier.allCases.flatMap { tier in
                HandednessEvaluation.mixturePinches(
                    tier: tier, count: trainingCount, seed: trainingSeed, ranges: ranges
                )
                .enumerated().compactMap { i, p in
                    HandednessEvaluation.features(LabelledPinch(name: "\(i)", p)).map { ($0, p.hand) }
                }
            }
        }
        let whole = classifier(HandednessEvaluation.fitTiers(training([:])))
        var rows: [Row] = []
        for member in members {
            let heldOut = classifier(HandednessEvaluation.fitTiers(training(member.ranges)))
            for tier in HandednessTier.allCases {
                let pinches = HandednessSensitivity.pinches(model: member.model, tier: tier, count: count, seed: seed)
                let labelled = pinches.compactMap { p in HandednessEvaluation.features(p).map { ($0, p.hand) } }
                let seedOutcomes = pinches.map {
                    HandednessEvaluation.outcomes($0, classifiers: [SeedHandednessRule()])[0]
                }
                func measure(_ c: EvidenceHandednessClassifier) -> Measure {
                    let right = labelled.reduce(0.0) { total, sample in
                        let (f, hand) = sample
                        let s = c.score(f) * (hand == .right ? 1 : -1)
                        return total + (s > 0 ? 1 : s == 0 ? 0.5 : 0)
                    }
                    let row = HandednessSensitivity.row(
                        member: member.name, tier: tier, seed: seedOutcomes,
                        evidence: pinches.map { HandednessEvaluation.outcomes($0, classifiers: [c], slice: c)[0] })
                    return Measure(
                        logLoss: HandednessEvaluation.meanLogLoss(labelled, weights: c.weights(for:)),
                        evidenceAccuracy: right / Double(Swift.max(labelled.count, 1)), published: row.evidence,
                        dominates: row.dominates)
                }
                rows.append(
                    Row(
                        member: member.name, tier: tier.rawValue, pinches: pinches.count,
                        seed: HandednessMetrics(seedOutcomes), shipped: measure(EvidenceHandednessClassifier()),
                        whole: measure(whole), heldOut: measure(heldOut)))
            }
        }
        return rows
    }

    static func classifier(_ fits: [HandednessEvaluation.TierFit]) -> EvidenceHandednessClassifier {
        var c = EvidenceHandednessClassifier()
        for fit in fits { c.setWeights(fit.weights, for: fit.tier) }
        return c
    }

    /// Held out, a row shows when its log loss grows by this much over the whole mixture's fit.
    public static let shownLogLossIncrease = 0.03

    /// The rows as a markdown table (those where dominance differs between the three weights or
    /// the held-out fit's log loss grows by ``shownLogLossIncrease``; the others counted), then
    /// what all rows add up to.
    public static func table(_ rows: [Row], count: Int, seed: UInt64) -> String {
        func pct(_ v: Double) -> String { HandednessSensitivity.formatted(v * 100, digits: 1) }
        func decimal3(_ v: Double) -> String { HandednessSensitivity.formatted(v, digits: 3) }
        func three(_ r: Row, _ f: (Measure) -> String) -> String {
            [r.shipped, r.whole, r.heldOut].map(f).joined(separator: " / ")
        }
        let shown = rows.filter {
            Set([$0.shipped.dominates, $0.whole.dominates, $0.heldOut.dominates]).count > 1
                || $0.heldOut.logLoss - $0.whole.logLoss >= shownLogLossIncrease
        }
        var out =
            "\(rows.count) rows: \(count) pinches a member and tier, seed \(seed); each column: the shipped weights / "
            + "refitted on the whole mixture / refitted on the mixture without the member (1,000 pinches a tier, "
            + "seed 1); published with the shipped thresholds and calibration table\n\n"
        out += "| member | tier | log loss | evidence right, % | published right, % | dominates the seed rule |\n"
        out += "|---|---|---:|---:|---:|---|\n"
        for r in shown {
            out += "| \(r.member) | \(r.tier) | \(three(r) { decimal3($0.logLoss) }) "
            out += "| \(three(r) { pct($0.evidenceAccuracy) }) | \(three(r) { pct($0.published.accuracy) }) "
            out += "| \(three(r) { $0.dominates ? "yes" : "**no**" }) |\n"
        }
        out += "\n\(rows.count - shown.count) other rows: dominance the same with all three, held out within "
        out += "\(decimal3(shownLogLossIncrease)) of the whole mixture's log loss. "
        func mean(_ f: (Row) -> Double) -> String {
            decimal3(rows.map(f).reduce(0, +) / Double(Swift.max(rows.count, 1)))
        }
        out += "Mean log loss over the \(rows.count): shipped \(mean { $0.shipped.logLoss }), whole "
        out += "\(mean { $0.whole.logLoss }), held out \(mean { $0.heldOut.logLoss }). Rows dominating the seed rule: "
        out += "shipped \(rows.filter(\.shipped.dominates).count), whole \(rows.filter(\.whole.dominates).count), "
        out += "held out \(rows.filter(\.heldOut.dominates).count).\n"
        return out
    }
}
