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
/// tier, seed 1 (disjoint from the evaluation seeds 2, 3 and 11), and on the real pinches; four
/// answers at the uncalibrated claim pull a thin situation towards it. Which hand is published
/// follows the family and the real pinches (``share(claim:_:)``); what it promises is the
/// strictest of the family, the real pinches where they have 10 answers in the situation, and the
/// family's member whose answers there are right least often where it has 10, less one standard
/// error (``promise(claim:_:otherHand:)``): the promise holds on each kind of hand, not only on
/// their average. Never below the publishing floor
/// (``EvidenceHandednessClassifier/clearLeanConfidence``): the same answers as before, so the same
/// coverage and accuracy. Made by scripts/handedness-calibration.py --swift (docs/HANDEDNESS.md).
public enum ConfidenceCalibration {
    /// Answers and how many of them were right.
    public struct Count: Hashable, Sendable {
        public var answers: Int
        public var right: Int

        public init(_ answers: Int, _ right: Int) { (self.answers, self.right) = (answers, right) }

        /// The share right, `pseudoAnswers` at `claim` pulling a thin count towards it.
        func share(claim: Double) -> Double {
            (Double(right) + pseudoAnswers * claim) / (Double(answers) + pseudoAnswers)
        }
    }

    /// Answers in a situation and how many of them were right: on the family, on the real pinches,
    /// and of the family's members there (those with ``memberMinimumAnswers``) the one whose rules'
    /// hand is right least often (what the rules' hand promises at most) and the one right most
    /// often (what the other hand promises at most), each by its share less (more)
    /// ``memberStandardErrors`` standard errors.
    public struct Cell: Hashable, Sendable {
        public var family: Count
        public var real: Count
        public var weakest: Count
        public var strongest: Count
    }

    /// Answers that pull a situation's share towards the uncalibrated claim.
    public static let pseudoAnswers = 4.0
    /// Real answers from which the real pinches' share counts (the stricter wins).
    public static let realMinimumAnswers = 10
    /// A member's answers in a situation from which its share counts (the stricter wins): as many
    /// as a band of published confidence needs to be judged (``HandednessMetrics``' 10).
    public static let memberMinimumAnswers = 10
    /// How many standard errors a member's share counts less: its training pinches are one draw of
    /// that hand, a few dozen in a small situation, and the promise must hold on the next draw
    /// (with the share itself, 9 rows of 117 fell short at 1,000 a row on seed 25, at the floor and
    /// in small orientation situations; with one standard error, 1).
    public static let memberStandardErrors = 1.0

    /// The share right of the rules' answers in the situation on the family, the stricter of it and
    /// the real pinches' (not floored, not rounded): below 0.5 the rules' hand is wrong more often
    /// than not there. What chooses the hand.
    public static func share(claim: Double, _ s: ConfidenceSituation) -> Double {
        let cell = cells[s.index]
        var p = cell.family.share(claim: claim)
        if cell.real.answers >= realMinimumAnswers {
            p = Swift.min(p, cell.real.share(claim: claim))
        }
        return p
    }

    /// What an answer in the situation promises (not floored, not rounded): the share right of the
    /// hand it is published with — the rules' hand, or with `otherHand` the other one — on the
    /// family, on the real pinches and on the family's member least favourable to that hand (less
    /// ``memberStandardErrors`` standard errors), the stricter of them. At most
    /// ``share(claim:_:)`` (or 1 − it).
    public static func promise(claim: Double, _ s: ConfidenceSituation, otherHand: Bool) -> Double {
        let cell = cells[s.index]
        func ofTheHand(_ count: Count) -> Double {
            let p = count.share(claim: claim)
            return otherHand ? 1 - p : p
        }
        var p = ofTheHand(cell.family)
        if cell.real.answers >= realMinimumAnswers {
            p = Swift.min(p, ofTheHand(cell.real))
        }
        let member = otherHand ? cell.strongest : cell.weakest
        if member.answers >= memberMinimumAnswers {
            let q = ofTheHand(member)
            let standardError = (q * (1 - q) / (Double(member.answers) + pseudoAnswers)).squareRoot()
            p = Swift.min(p, q - memberStandardErrors * standardError)
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
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, no lean, from 0.95
        Cell(family: Count(165, 165), real: Count(0, 0), weakest: Count(12, 12), strongest: Count(12, 12)),
        // positions, no lean, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, overturned, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.60
        Cell(family: Count(186, 27), real: Count(0, 0), weakest: Count(22, 0), strongest: Count(22, 0)),
        // positions, kept-against, from 0.60, near vertical
        Cell(family: Count(19, 5), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.70
        Cell(family: Count(0, 0), real: Count(1, 1), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, kept-against, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.60
        Cell(family: Count(21, 13), real: Count(2, 2), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.60, near vertical
        Cell(family: Count(2487, 1470), real: Count(30, 27), weakest: Count(173, 59), strongest: Count(59, 44)),
        // positions, contested-with, from 0.70
        Cell(family: Count(38, 22), real: Count(0, 0), weakest: Count(11, 10), strongest: Count(11, 10)),
        // positions, contested-with, from 0.70, near vertical
        Cell(family: Count(2797, 2364), real: Count(39, 38), weakest: Count(69, 46), strongest: Count(22, 20)),
        // positions, contested-with, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, contested-with, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.60
        Cell(family: Count(162, 70), real: Count(0, 0), weakest: Count(19, 2), strongest: Count(16, 9)),
        // positions, plain, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.70
        Cell(family: Count(897, 623), real: Count(25, 25), weakest: Count(48, 15), strongest: Count(35, 33)),
        // positions, plain, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.80
        Cell(family: Count(6398, 5738), real: Count(72, 72), weakest: Count(194, 108), strongest: Count(153, 153)),
        // positions, plain, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.90
        Cell(family: Count(9416, 9039), real: Count(56, 47), weakest: Count(196, 136), strongest: Count(441, 441)),
        // positions, plain, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // positions, plain, from 0.95
        Cell(family: Count(12935, 12839), real: Count(8, 8), weakest: Count(93, 71), strongest: Count(481, 481)),
        // positions, plain, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.90
        Cell(family: Count(330, 328), real: Count(0, 0), weakest: Count(21, 20), strongest: Count(30, 30)),
        // size, no lean, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, no lean, from 0.95
        Cell(family: Count(142, 141), real: Count(0, 0), weakest: Count(15, 15), strongest: Count(15, 15)),
        // size, no lean, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.80
        Cell(family: Count(48, 47), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.90
        Cell(family: Count(2, 2), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, overturned, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.60
        Cell(family: Count(118, 11), real: Count(0, 0), weakest: Count(25, 0), strongest: Count(25, 0)),
        // size, kept-against, from 0.60, near vertical
        Cell(family: Count(23, 5), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, kept-against, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.60
        Cell(family: Count(63, 19), real: Count(0, 0), weakest: Count(11, 8), strongest: Count(11, 8)),
        // size, contested-with, from 0.60, near vertical
        Cell(family: Count(3553, 2255), real: Count(0, 0), weakest: Count(105, 46), strongest: Count(11, 11)),
        // size, contested-with, from 0.70
        Cell(family: Count(88, 69), real: Count(0, 0), weakest: Count(11, 8), strongest: Count(35, 35)),
        // size, contested-with, from 0.70, near vertical
        Cell(family: Count(2206, 1944), real: Count(0, 0), weakest: Count(44, 30), strongest: Count(12, 12)),
        // size, contested-with, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, contested-with, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.60
        Cell(family: Count(186, 65), real: Count(0, 0), weakest: Count(19, 0), strongest: Count(11, 6)),
        // size, plain, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.70
        Cell(family: Count(2528, 1963), real: Count(0, 0), weakest: Count(125, 59), strongest: Count(39, 39)),
        // size, plain, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.80
        Cell(family: Count(8374, 7665), real: Count(0, 0), weakest: Count(256, 149), strongest: Count(327, 327)),
        // size, plain, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.90
        Cell(family: Count(10197, 9910), real: Count(0, 0), weakest: Count(141, 94), strongest: Count(458, 458)),
        // size, plain, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // size, plain, from 0.95
        Cell(family: Count(8052, 8015), real: Count(0, 0), weakest: Count(39, 30), strongest: Count(314, 314)),
        // size, plain, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.80
        Cell(family: Count(136, 135), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.90
        Cell(family: Count(115, 114), real: Count(0, 0), weakest: Count(11, 10), strongest: Count(11, 11)),
        // orientation, no lean, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, no lean, from 0.95
        Cell(family: Count(465, 465), real: Count(0, 0), weakest: Count(69, 69), strongest: Count(69, 69)),
        // orientation, no lean, from 0.95, near vertical
        Cell(family: Count(172, 172), real: Count(0, 0), weakest: Count(16, 16), strongest: Count(16, 16)),
        // orientation, overturned, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.60
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.70
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.80
        Cell(family: Count(211, 211), real: Count(0, 0), weakest: Count(12, 12), strongest: Count(12, 12)),
        // orientation, overturned, from 0.80, near vertical
        Cell(family: Count(748, 741), real: Count(0, 0), weakest: Count(11, 8), strongest: Count(51, 51)),
        // orientation, overturned, from 0.90
        Cell(family: Count(46, 46), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, overturned, from 0.90, near vertical
        Cell(family: Count(123, 123), real: Count(0, 0), weakest: Count(11, 11), strongest: Count(11, 11)),
        // orientation, overturned, from 0.95
        Cell(family: Count(32, 32), real: Count(0, 0), weakest: Count(11, 11), strongest: Count(11, 11)),
        // orientation, overturned, from 0.95, near vertical
        Cell(family: Count(5, 5), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.60
        Cell(family: Count(589, 82), real: Count(0, 0), weakest: Count(39, 0), strongest: Count(18, 10)),
        // orientation, kept-against, from 0.60, near vertical
        Cell(family: Count(722, 58), real: Count(0, 0), weakest: Count(18, 0), strongest: Count(17, 4)),
        // orientation, kept-against, from 0.70
        Cell(family: Count(238, 6), real: Count(0, 0), weakest: Count(31, 0), strongest: Count(31, 0)),
        // orientation, kept-against, from 0.70, near vertical
        Cell(family: Count(126, 6), real: Count(0, 0), weakest: Count(10, 0), strongest: Count(10, 0)),
        // orientation, kept-against, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, kept-against, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.60
        Cell(family: Count(502, 170), real: Count(0, 0), weakest: Count(53, 4), strongest: Count(25, 20)),
        // orientation, contested-with, from 0.60, near vertical
        Cell(family: Count(221, 173), real: Count(0, 0), weakest: Count(18, 10), strongest: Count(58, 51)),
        // orientation, contested-with, from 0.70
        Cell(family: Count(810, 720), real: Count(0, 0), weakest: Count(27, 8), strongest: Count(38, 38)),
        // orientation, contested-with, from 0.70, near vertical
        Cell(family: Count(3423, 3337), real: Count(0, 0), weakest: Count(78, 71), strongest: Count(103, 103)),
        // orientation, contested-with, from 0.80
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.90
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.95
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, contested-with, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.50
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.50, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.60
        Cell(family: Count(141, 50), real: Count(0, 0), weakest: Count(33, 2), strongest: Count(11, 4)),
        // orientation, plain, from 0.60, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.70
        Cell(family: Count(167, 113), real: Count(0, 0), weakest: Count(10, 4), strongest: Count(13, 12)),
        // orientation, plain, from 0.70, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.80
        Cell(family: Count(532, 486), real: Count(0, 0), weakest: Count(17, 10), strongest: Count(39, 39)),
        // orientation, plain, from 0.80, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.90
        Cell(family: Count(1986, 1938), real: Count(0, 0), weakest: Count(23, 21), strongest: Count(68, 68)),
        // orientation, plain, from 0.90, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
        // orientation, plain, from 0.95
        Cell(family: Count(25409, 25381), real: Count(0, 0), weakest: Count(374, 365), strongest: Count(893, 893)),
        // orientation, plain, from 0.95, near vertical
        Cell(family: Count(0, 0), real: Count(0, 0), weakest: Count(0, 0), strongest: Count(0, 0)),
    ]
}
