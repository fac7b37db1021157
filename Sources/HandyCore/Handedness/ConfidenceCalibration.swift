/// Which rule of ``EvidenceHandednessClassifier/decision(_:)`` an answer comes from.
public enum DecisionCase: Int, CaseIterable, Hashable, Sendable {
    /// No clear lean (the seed rule's dead zones): the evidence answers alone.
    case noClearLean
    /// A clear lean the evidence overturned.
    case overturned
    /// A clear lean kept although the evidence favours the other hand (below the overturn threshold).
    case keptAgainst
    /// A clear lean where the pinch is near vertical or the cues disagree, the evidence with it.
    case contested
    /// A clear lean, the evidence with it.
    case plain

    /// The name scripts and dumps use.
    public var name: String {
        switch self {
        case .noClearLean: "no lean"
        case .overturned: "overturned"
        case .keptAgainst: "kept-against"
        case .contested: "contested-with"
        case .plain: "plain"
        }
    }
}

/// What the confidence calibration reads of a published answer: its tier, the rule it comes from,
/// its uncalibrated claim in bands (``bandEdges``), and whether the line is within 15° of vertical.
/// Mirror-symmetric like the score.
public struct ConfidenceSituation: Hashable, Sendable {
    public var tier: HandednessTier
    public var answer: DecisionCase
    /// The claim's band: 0 below 0.6, then one for each of ``bandEdges`` the claim reaches.
    public var band: Int
    public var nearVertical: Bool

    public init(tier: HandednessTier, answer: DecisionCase, claim: Double, nearVertical: Bool) {
        (self.tier, self.answer, self.nearVertical) = (tier, answer, nearVertical)
        band = Self.bandEdges.reduce(0) { $0 + (claim >= $1 ? 1 : 0) }
    }

    /// Where the claim's bands begin: 0.1 wide, and 0.9 split at 0.95, where the family's hands
    /// that lean clearly and those on the steep and rolled members part ways.
    public static let bandEdges = [0.6, 0.7, 0.8, 0.9, 0.95]

    /// The situation's place in ``ConfidenceCalibration/cells``.
    public var index: Int {
        let t = HandednessTier.allCases.firstIndex(of: tier) ?? 0
        return ((t * DecisionCase.allCases.count + answer.rawValue) * (Self.bandEdges.count + 1) + band) * 2
            + (nearVertical ? 1 : 0)
    }

    static let count = HandednessTier.allCases.count * DecisionCase.allCases.count * (bandEdges.count + 1) * 2
}

/// A published hand's confidence as the share of answers right in its situation (issue 52: a
/// confidence is a promise). Counted on the whole sensitivity family at 1,000 pinches a member and
/// tier, seed 1 (disjoint from the evaluation seeds 2, 3 and 11), and on the real pinches, the
/// stricter of the two where the real pinches have 10 answers in the situation; four answers at
/// the uncalibrated claim pull a thin situation towards it. Never below the publishing floor
/// (``EvidenceHandednessClassifier/clearLeanConfidence``): the same answers as before, so the
/// same coverage and accuracy. Made by scripts/handedness-calibration.py --swift (docs/HANDEDNESS.md).
public enum ConfidenceCalibration {
    /// Answers in a situation and how many of them were right, on the family and on real pinches.
    public struct Cell: Hashable, Sendable {
        public var familyAnswers: Int
        public var familyRight: Int
        public var realAnswers: Int
        public var realRight: Int
    }

    /// Answers that pull a situation's share towards the uncalibrated claim.
    public static let pseudoAnswers = 4.0
    /// Real answers from which the real pinches' share counts (the stricter wins).
    public static let realMinimumAnswers = 10

    /// The calibrated confidence of a published answer (3 decimals).
    public static func confidence(claim: Double, _ s: ConfidenceSituation) -> Double {
        published(share(claim: claim, s))
    }

    /// The share right of the rules' answers in the situation (not floored, not rounded): below 0.5
    /// the rules' hand is wrong more often than not there.
    public static func share(claim: Double, _ s: ConfidenceSituation) -> Double {
        let cell = cells[s.index]
        var p = (Double(cell.familyRight) + pseudoAnswers * claim) / (Double(cell.familyAnswers) + pseudoAnswers)
        if cell.realAnswers >= realMinimumAnswers {
            p = Swift.min(
                p, (Double(cell.realRight) + pseudoAnswers * claim) / (Double(cell.realAnswers) + pseudoAnswers))
        }
        return p
    }

    /// A share as it is published: at least the floor, 3 decimals.
    public static func published(_ share: Double) -> Double {
        decimalRounded(Swift.max(EvidenceHandednessClassifier.clearLeanConfidence, share), 3)
    }

    /// Indexed by ``ConfidenceSituation/index``.
    static let cells: [Cell] = [
        // positions, no lean, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.95
        Cell(familyAnswers: 165, familyRight: 165, realAnswers: 0, realRight: 0),
        // positions, no lean, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, overturned, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.60
        Cell(familyAnswers: 186, familyRight: 27, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.60, near vertical
        Cell(familyAnswers: 19, familyRight: 5, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 1, realRight: 1),
        // positions, kept-against, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, kept-against, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.60
        Cell(familyAnswers: 21, familyRight: 13, realAnswers: 2, realRight: 2),
        // positions, contested-with, from 0.60, near vertical
        Cell(familyAnswers: 2487, familyRight: 1470, realAnswers: 30, realRight: 27),
        // positions, contested-with, from 0.70
        Cell(familyAnswers: 38, familyRight: 22, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.70, near vertical
        Cell(familyAnswers: 2797, familyRight: 2364, realAnswers: 39, realRight: 38),
        // positions, contested-with, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, contested-with, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.60
        Cell(familyAnswers: 162, familyRight: 70, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.70
        Cell(familyAnswers: 897, familyRight: 623, realAnswers: 25, realRight: 25),
        // positions, plain, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.80
        Cell(familyAnswers: 6398, familyRight: 5738, realAnswers: 72, realRight: 72),
        // positions, plain, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.90
        Cell(familyAnswers: 9416, familyRight: 9039, realAnswers: 56, realRight: 47),
        // positions, plain, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // positions, plain, from 0.95
        Cell(familyAnswers: 12935, familyRight: 12839, realAnswers: 8, realRight: 8),
        // positions, plain, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.90
        Cell(familyAnswers: 330, familyRight: 328, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.95
        Cell(familyAnswers: 142, familyRight: 141, realAnswers: 0, realRight: 0),
        // size, no lean, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.80
        Cell(familyAnswers: 48, familyRight: 47, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.90
        Cell(familyAnswers: 2, familyRight: 2, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, overturned, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.60
        Cell(familyAnswers: 118, familyRight: 11, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.60, near vertical
        Cell(familyAnswers: 23, familyRight: 5, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, kept-against, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.60
        Cell(familyAnswers: 63, familyRight: 19, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.60, near vertical
        Cell(familyAnswers: 3553, familyRight: 2255, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.70
        Cell(familyAnswers: 88, familyRight: 69, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.70, near vertical
        Cell(familyAnswers: 2206, familyRight: 1944, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, contested-with, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.60
        Cell(familyAnswers: 186, familyRight: 65, realAnswers: 0, realRight: 0),
        // size, plain, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.70
        Cell(familyAnswers: 2528, familyRight: 1963, realAnswers: 0, realRight: 0),
        // size, plain, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.80
        Cell(familyAnswers: 8374, familyRight: 7665, realAnswers: 0, realRight: 0),
        // size, plain, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.90
        Cell(familyAnswers: 10197, familyRight: 9910, realAnswers: 0, realRight: 0),
        // size, plain, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // size, plain, from 0.95
        Cell(familyAnswers: 8052, familyRight: 8015, realAnswers: 0, realRight: 0),
        // size, plain, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.80
        Cell(familyAnswers: 136, familyRight: 135, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.90
        Cell(familyAnswers: 115, familyRight: 114, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.95
        Cell(familyAnswers: 465, familyRight: 465, realAnswers: 0, realRight: 0),
        // orientation, no lean, from 0.95, near vertical
        Cell(familyAnswers: 172, familyRight: 172, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.60
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.70
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.80
        Cell(familyAnswers: 211, familyRight: 211, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.80, near vertical
        Cell(familyAnswers: 748, familyRight: 741, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.90
        Cell(familyAnswers: 46, familyRight: 46, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.90, near vertical
        Cell(familyAnswers: 123, familyRight: 123, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.95
        Cell(familyAnswers: 32, familyRight: 32, realAnswers: 0, realRight: 0),
        // orientation, overturned, from 0.95, near vertical
        Cell(familyAnswers: 5, familyRight: 5, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.60
        Cell(familyAnswers: 589, familyRight: 82, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.60, near vertical
        Cell(familyAnswers: 722, familyRight: 58, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.70
        Cell(familyAnswers: 238, familyRight: 6, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.70, near vertical
        Cell(familyAnswers: 126, familyRight: 6, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, kept-against, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.60
        Cell(familyAnswers: 502, familyRight: 170, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.60, near vertical
        Cell(familyAnswers: 221, familyRight: 173, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.70
        Cell(familyAnswers: 810, familyRight: 720, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.70, near vertical
        Cell(familyAnswers: 3423, familyRight: 3337, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.80
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.90
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.95
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, contested-with, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.50
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.50, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.60
        Cell(familyAnswers: 141, familyRight: 50, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.60, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.70
        Cell(familyAnswers: 167, familyRight: 113, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.70, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.80
        Cell(familyAnswers: 532, familyRight: 486, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.80, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.90
        Cell(familyAnswers: 1986, familyRight: 1938, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.90, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.95
        Cell(familyAnswers: 25409, familyRight: 25381, realAnswers: 0, realRight: 0),
        // orientation, plain, from 0.95, near vertical
        Cell(familyAnswers: 0, familyRight: 0, realAnswers: 0, realRight: 0),
    ]
}
