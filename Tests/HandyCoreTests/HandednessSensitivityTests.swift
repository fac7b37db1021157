import HandyProtocol
import HandySynthetic
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#endif

/// The sensitivity table (`handyctl eval handedness --sensitivity`, docs/HANDEDNESS.md): its family
/// really varies the model, and its numbers are those of the evaluation itself.
@Suite struct HandednessSensitivityTests {
    /// Every assumption changes what the model generates: pushed from one end of its range to the
    /// other, the pinches of at least one tier differ (a no-op setter would leave them equal).
    @Test(arguments: HandednessSensitivity.assumptions.indices)
    func eachAssumptionChangesThePinches(_ index: Int) {
        let a = HandednessSensitivity.assumptions[index]
        var low = HandModel(), high = HandModel()
        a.apply(&low, a.low)
        a.apply(&high, a.high)
        #expect(low != high, "\(a.name): the setter changed nothing")
        let differs = HandednessTier.allCases.contains { tier in
            let l = HandednessEvaluation.syntheticPinches(tier: tier, count: 40, seed: 5, model: low)
            let h = HandednessEvaluation.syntheticPinches(tier: tier, count: 40, seed: 5, model: high)
            return zip(l, h).contains { $0.events != $1.events }
        }
        #expect(differs, "\(a.name) at \(a.low) and \(a.high) generate the same pinches")
    }

    @Test func theTableCoversEveryMemberAndTierWithTheEvaluationsOwnNumbers() {
        let rows = HandednessSensitivity.rows(count: 20, seed: 9)
        let members =
            1 + 2 * HandednessSensitivity.assumptions.count + HandednessSensitivity.combinedMembers.count + 1
        #expect(rows.count == members * HandednessTier.allCases.count)
        #expect(Set(rows.map(\.member)) == Set(HandednessSensitivity.memberNames))
        #expect(HandednessSensitivity.memberNames.count == members)
        // The defaults row is the plain evaluation of the default model.
        for tier in HandednessTier.allCases {
            let pinches = HandednessEvaluation.syntheticPinches(tier: tier, count: 20, seed: 9)
                .enumerated().map { i, p in LabelledPinch(name: "\(i)", p) }
            let seed = HandednessMetrics(
                pinches.map { HandednessEvaluation.outcome($0, classifier: SeedHandednessRule()) })
            let evidence = HandednessMetrics(
                pinches.map { HandednessEvaluation.outcome($0, classifier: EvidenceHandednessClassifier()) })
            let row = rows.first { $0.member == "defaults" && $0.tier == tier.rawValue }
            #expect(row?.seed == seed && row?.evidence == evidence, "\(tier)")
            // "Holds" to one pinch of those compared: as many as the seed rule answers.
            if let row {
                let compared = (Double(20 - row.evidence.missed) * row.seed.coverage).rounded()
                #expect(row.holds == (row.evidenceAtSeedCoverage + 1 / Swift.max(1, compared) >= row.seed.accuracy))
            }
        }
        let table = HandednessSensitivity.table(rows)
        let lines = table.split(separator: "\n")
        #expect(lines.count == rows.count + 1 + 4 + HandednessTier.allCases.count)
        #expect(
            lines.contains(
                "\(rows.filter(\.dominates).count) of \(rows.count) rows dominate (handyd answers at least as many as the seed rule, at least as accurately)"
            ))
        #expect(
            lines.contains(
                "\(rows.filter(\.holds).count) of \(rows.count) rows hold (handyd at the seed rule's coverage is at least as accurate)"
            ))
        #expect(
            lines.contains(
                "\(rows.filter(\.ambiguousHolds).count) of \(rows.count) rows hold in the ambiguous slice (answered ≥ 90 % right, or unknown)"
            ))
    }

    /// Classifying the features captured at the pinch's begin gives exactly what a full replay with
    /// that classifier reports (the shortcut the table takes).
    @Test func oneReplayPerPinchGivesWhatAReplayPerClassifierGives() {
        let pinches = HandednessEvaluation.mixturePinches(tier: .size, count: 30, seed: 6).enumerated().map {
            LabelledPinch(name: "\($0)", $1)
        }
        let classifiers: [any HandednessClassifier] = [SeedHandednessRule(), EvidenceHandednessClassifier()]
        for p in pinches {
            let shortcut = HandednessEvaluation.outcomes(p, classifiers: classifiers)
            for (c, o) in zip(classifiers, shortcut) {
                let full = HandednessEvaluation.firstPinch(p, classifier: c)
                #expect(
                    full?.hand == o.hand && (full?.confidence ?? 0) == o.confidence,
                    "\(p.name): \(String(describing: full)) vs \(o)")
            }
        }
    }

    /// The mixture really mixes: its pinches come from different members (not all the defaults).
    @Test func theMixtureDrawsEveryPinchFromItsOwnMember() {
        var rng = SeededRandom(seed: 4)
        let members = (0..<20).map { _ in HandednessSensitivity.randomMember(&rng) }
        #expect(Set(members).count == 20)
        // Members lie inside the family's ranges (the ones read back directly).
        for m in members {
            #expect((50...200).contains(m.frameRateHz) && (0...1).contains(m.positionNoiseMm), "\(m)")
            #expect(m.displayWidthsMm.count == 1 && (150...700).contains(m.displayWidthsMm[0]), "\(m)")
            #expect((35...75).contains(m.pinchLineDegrees) && (-0.4...0.1).contains(m.turnPerLogRatio), "\(m)")
        }
        let mixed = HandednessEvaluation.mixturePinches(tier: .orientation, count: 30, seed: 5)
        let plain = HandednessEvaluation.syntheticPinches(tier: .orientation, count: 30, seed: 5)
        #expect(zip(mixed, plain).contains { $0.events != $1.events })
        #expect(Set(mixed.map(\.frameRateHz)).count > 1, "the frame rate is one of the mixed assumptions")
    }

    /// The floors of docs/HANDEDNESS.md "Sensitivity", on a set other than the documented table's
    /// (seed 11, 200 pinches per row), over every member of the family (each assumption at each end
    /// of its range, and the mixture) and every tier:
    /// - handyd dominates the seed rule on every row: at least as many answers, at least as accurate
    ///   (to one pinch);
    /// - handyd at the seed rule's coverage is at least as accurate as the seed rule on all but a
    ///   few rows (5 %), and no row falls more than 2 points short (the documented shortfalls);
    /// - the ambiguous slice is answered at least 90 % right over the family (per tier), and no row
    ///   answers it below 85 % (a row's slice holds a few dozen pinches);
    /// - the confidence claims no more than it earns: over-confidence (the claims above accuracy,
    ///   10 bins) ≤ 0.05 on every row, ≤ 0.02 on the mixture, ≤ 0.15 on the combined members.
    /// The family at 200 pinches a row, seed 11 (other than the docs' table), shared by the tests
    /// that read it.
    static let familyRows = HandednessSensitivity.rows(count: 200, seed: 11)

    @Test func everyMemberOfTheFamilyHoldsTheFloors() {
        let rows = Self.familyRows
        for r in rows {
            #expect(
                r.evidenceAtSeedCoverage >= r.seed.accuracy - 0.02,
                "\(r.member) \(r.tier): handyd \(r.evidenceAtSeedCoverage) at the seed rule's coverage \(r.seed.coverage), seed \(r.seed.accuracy)"
            )
            #expect(
                r.ambiguousCoverage == 0 || r.ambiguousAccuracy >= 0.85,
                "\(r.member) \(r.tier): ambiguous slice answered \(r.ambiguousAccuracy) right")
            // A confidence claims no more than it earns (issue 52): the answers' claims above
            // their accuracy weigh at most 0.05 on a row. Not on the combined members (near
            // vertical, rolled), where the seed rule's own answers that handyd keeps (dominance)
            // are right less often than the publishing floor 0.6 claims (0.092 on positions at seed
            // 11). Since the promise is the weakest member's, the confidence claims less than the
            // typical hand earns (ECE up to 0.37 on rows, docs/HANDEDNESS.md): under-claiming is the
            // price, so the calibration error itself is not bounded here.
            let combined = HandednessSensitivity.combinedMembers.contains { $0.name == r.member }
            #expect(
                r.evidence.overconfidence <= (combined ? 0.15 : 0.05),
                "\(r.member) \(r.tier): over-confidence \(r.evidence.overconfidence)")
            if r.member == "mixture" {
                #expect(r.evidence.overconfidence <= 0.02, "mixture \(r.tier): \(r.evidence.overconfidence)")
            }
        }
        let short = rows.filter { !$0.holds }
        #expect(short.count * 20 <= rows.count, "\(short.map { "\($0.member) \($0.tier)" })")

        // Every row: at least as many answers as the seed rule, at least as accurate (to one pinch);
        // where hands turn little, at least as many and within 1 % (the orientation tier's other
        // hand: `takingTheSituationsHandCostsLittleWhereHandsTurnLittle`).
        for r in rows where !r.dominates {
            if Self.rowsWhereTheSituationsHandCosts.contains("\(r.member) | \(r.tier)"),
                r.evidence.coverage >= r.seed.coverage, r.evidence.accuracy >= r.seed.accuracy - 0.01
            {
                continue
            }
            Issue.record(
                "\(r.member) \(r.tier): handyd \(r.evidence.accuracy) @ \(r.evidence.coverage), seed \(r.seed.accuracy) @ \(r.seed.coverage)"
            )
        }
        for tier in HandednessTier.allCases {
            var answered = 0.0, right = 0.0
            for r in rows where r.tier == tier.rawValue {
                let n = r.ambiguousShare * r.ambiguousCoverage * Double(r.evidence.pinches - r.evidence.missed)
                answered += n
                right += n * r.ambiguousAccuracy
            }
            #expect(
                answered == 0 || right / answered >= 0.9,
                "\(tier): the ambiguous slice answered \(right / answered) right over the family")
        }
    }

    /// Rows that no longer dominate the seed rule since the size and orientation tiers take the
    /// other hand where their situation's answers are mostly wrong on the family
    /// (``EvidenceHandednessClassifier/situationDecidesTheHand``): hands that turn little, where the
    /// lean was right on the few pinches that turned (2 of 200 here). (On the docs' table, seed 3,
    /// also the 45° roll on size, 2 of 531; it dominates here.)
    static let rowsWhereTheSituationsHandCosts: Set<String> = ["hand rotation spread = 10 ° sd | orientation"]

    /// The rows of the family (``familyRows``) where a band of published confidence falls short of
    /// its promise (issue 52; docs/HANDEDNESS.md "A confidence is a promise" says why): the band
    /// from the publishing floor 0.6, where the seed rule's own clear leans on the most turned and
    /// rolled hands are right less often than 0.55 and handyd keeps them (dominance). Since the
    /// promise is the strictest of the family, the real pinches and the family's weakest member in
    /// the situation (less one standard error), only this one (2 with the weakest member's share
    /// itself, 23 with the family's share alone; 33 before the size and
    /// orientation tiers took the other hand where their situation's answers are mostly wrong; 72 at
    /// claims of the rules alone). The list can only shrink: a row that starts keeping its promise
    /// fails the test until it is taken off, and a row not on it that falls short fails it.
    static let rowsShortOfTheirPromise: Set<String> = [
        "near vertical, rolled 40° | positions"
    ]

    /// A confidence is a promise (issue 52): on every row of the family, every band of 0.05 of
    /// published confidence with enough answers to judge (10) is right at least its mean claim − 0.05.
    @Test func everyConfidenceBandKeepsItsPromiseOnTheFamily() {
        var short: Set<String> = []
        for r in Self.familyRows {
            guard let band = r.evidence.worstBand, band.margin < 0 else { continue }
            let key = "\(r.member) | \(r.tier)"
            short.insert(key)
            if !Self.rowsShortOfTheirPromise.contains(key) {
                Issue.record(
                    "\(key): the band from \(band.lower) (\(band.count) answers, claiming \(band.meanConfidence)) is right \(band.accuracy)"
                )
            }
        }
        for key in Self.rowsShortOfTheirPromise.subtracting(short).sorted() {
            Issue.record("\(key) keeps its promise now: take it off rowsShortOfTheirPromise")
        }
        // The check can fail: with no allowance for a band's mean claim, rows that hold by less than
        // 0.05 fall short.
        let strict = Self.familyRows.filter { r in r.evidence.bands.contains { $0.judged && $0.margin < 0.05 } }
        #expect(strict.count > short.count)
    }

    /// One member's row of the table from `count` pinches (seed 11 unless given), and the pinches.
    static func row(of model: HandModel, tier: HandednessTier, count: Int = 2_000, seed: UInt64 = 11) -> (
        HandednessSensitivity.Row, [LabelledPinch]
    ) {
        let pinches = HandednessEvaluation.syntheticPinches(tier: tier, count: count, seed: seed, model: model)
            .enumerated().map { i, p in LabelledPinch(name: "\(i)", p) }
        let c = EvidenceHandednessClassifier()
        let both = pinches.map { HandednessEvaluation.outcomes($0, classifiers: [SeedHandednessRule(), c], slice: c) }
        let row = HandednessSensitivity.row(
            member: "one member", tier: tier, seed: both.map { $0[0] }, evidence: both.map { $0[1] })
        return (row, pinches)
    }

    /// Where hands turn little (rotation spread 10°) the lean is right on every pinch the seed rule
    /// answers; on 2,000 pinches of the orientation tier, handyd once let its ellipse axes and thumb
    /// cues overturn a clear lean on 10 of them (99.5 % against 100 % at the seed rule's coverage;
    /// 40 in 10,000 on another seed), and the rules no longer overturn a clear lean there. Since
    /// issue 52 the orientation tier's calibration takes the other hand where a situation's answers
    /// are mostly wrong on the family (the leans kept against the evidence, right 9 % of the time
    /// there): on these hands that costs what it measured, 11 of 2,000 (99.45 %), and no more than
    /// 1 %. The rules themselves still follow the lean (`bestGuess`).
    @Test func takingTheSituationsHandCostsLittleWhereHandsTurnLittle() {
        var model = HandModel()
        model.handRotationSdDegrees = 10
        let (row, pinches) = Self.row(of: model, tier: .orientation)
        let c = EvidenceHandednessClassifier()
        #expect(row.seed.accuracy == 1, "the seed rule is right on every pinch it answers here")
        #expect(
            row.evidenceAtSeedCoverage >= row.seed.accuracy - 0.01,
            "handyd \(row.evidenceAtSeedCoverage) at the seed rule's coverage \(row.seed.coverage)")
        #expect(row.evidence.coverage >= row.seed.coverage)
        // The calibration is why: some answers take the other hand than the rules give.
        let features = pinches.compactMap(HandednessEvaluation.features)
        #expect(features.contains { c.decision($0).hand != c.uncalibratedDecision($0).hand })
        // The rule is why: some of these pinches have cues that contradict a clear lean.
        let overturned = features.filter(c.overturnsClearLean)
        #expect(!overturned.isEmpty)
        for f in overturned {
            let seed = SeedHandednessRule().classify(f).hand
            if seed != .unknown { #expect(c.bestGuess(f).hand == seed, "a clear lean overturned: \(f)") }
            // Mirror symmetry holds through the rule: the mirrored pinch gets the mirrored answer.
            let m = f.mirroredX(about: 0)
            #expect(c.overturnsClearLean(m))
            #expect(
                c.bestGuess(m).hand == c.bestGuess(f).hand.mirrored
                    && c.bestGuess(m).confidence == c.bestGuess(f).confidence)
        }
    }

    /// The other hand with contact shapes (issue 52): on the size and orientation tiers, where the
    /// calibration table says the rules' hand is right at most 30 % of the time in a situation (the
    /// leans kept against the evidence), the published hand is the other one at what it promises,
    /// at most 0.75 as a contested lean, and the probability follows; mirrored, the mirrored hand at
    /// the same confidence. On positions the rules' hand stands whatever the situation's share.
    /// Either hand claims what it promises: no more than the family's share, and no more than the
    /// family's member least favourable to it earns there.
    @Test func theTiersWithContactShapesTakeTheHandTheirSituationFavours() {
        let c = EvidenceHandednessClassifier()
        var turned = 0, kept = 0, heldToAMember = 0
        for tier in HandednessTier.allCases {
            for p in HandednessEvaluation.mixturePinches(tier: tier, count: 400, seed: 17) {
                guard let f = HandednessEvaluation.features(LabelledPinch(name: "", p)) else { continue }
                let rules = c.uncalibratedDecision(f)
                guard let situation = rules.situation, rules.hand != .unknown else { continue }
                let share = ConfidenceCalibration.share(claim: rules.confidence, situation)
                let published = c.decision(f)
                if EvidenceHandednessClassifier.situationDecidesTheHand.contains(tier),
                    share <= 1 - EvidenceHandednessClassifier.otherHandMinimumShare
                {
                    turned += 1
                    #expect(published.hand == rules.hand.mirrored)
                    let promise = ConfidenceCalibration.promise(claim: rules.confidence, situation, otherHand: true)
                    #expect(promise <= 1 - share)
                    #expect(
                        published.confidence
                            == ConfidenceCalibration.published(
                                min(promise, EvidenceHandednessClassifier.contestedLeanMaximumConfidence)))
                    let m = c.decision(f.mirroredX(about: 0))
                    #expect(m.hand == published.hand.mirrored && m.confidence == published.confidence)
                } else {
                    #expect(published.hand == rules.hand, "\(tier): share \(share)")
                    if share < 0.5 { kept += 1 }
                    // What it claims is the strictest share: the weakest member's where it is lower.
                    let promise = ConfidenceCalibration.promise(claim: rules.confidence, situation, otherHand: false)
                    #expect(promise <= share)
                    if published.hand != .unknown {
                        #expect(published.confidence == ConfidenceCalibration.published(promise))
                    }
                    if promise < share - 0.05 { heldToAMember += 1 }
                }
                if published.hand != .unknown {
                    #expect(
                        published.rightHandProbability
                            == (published.hand == .right ? published.confidence : 1 - published.confidence))
                }
            }
        }
        #expect(turned > 0, "no size or orientation answer whose situation is mostly wrong: the check saw nothing")
        #expect(kept > 0, "no positions answer whose situation is mostly wrong: the check saw nothing")
        #expect(heldToAMember > 0, "no answer claims less than the family's share: the weakest member counts nowhere")
    }

    /// The one row the table's floor missed at 10,000 pinches a row: where hands turn little the seed
    /// rule answers 99.8 % of the pinches and is wrong on one; handyd, answering a clear lean against
    /// it at 0.633 and guessing two near-vertical pinches wrong, was 3 wrong at that coverage (seed 25;
    /// 2 short on seed 22 too). Evidence weaker than 0.75 no longer overturns a clear lean in the
    /// rules (`minimumConfidenceAgainstClearLean`): every pinch whose evidence against a clear lean is
    /// that weak gets the lean's best guess, and its mirror the mirrored one. Published, the
    /// orientation tier's calibration takes the other hand on the leans kept against the evidence
    /// (issue 52): here 0.33 % behind the seed rule (99.67 % against 99.99 %), at least as many
    /// answers; bounded at 0.5 %.
    @Test func weakEvidenceDoesNotOverturnAClearLean() {
        var model = HandModel()
        model.handRotationSdDegrees = 10
        let (row, pinches) = Self.row(of: model, tier: .orientation, count: 10_000, seed: 25)
        #expect(
            row.evidence.coverage >= row.seed.coverage && row.evidence.accuracy >= row.seed.accuracy - 0.005,
            "handyd \(row.evidence.accuracy) @ \(row.evidence.coverage), seed \(row.seed.accuracy) @ \(row.seed.coverage)"
        )
        let c = EvidenceHandednessClassifier()
        var weak = 0
        for f in pinches.prefix(2_000).compactMap(HandednessEvaluation.features) {
            let lean = SeedHandednessRule().classify(f).hand
            let s = c.score(f)
            guard lean != .unknown, (s > 0 ? Hand.right : .left) != lean,
                1 / (1 + exp(-abs(s))) < EvidenceHandednessClassifier.minimumConfidenceAgainstClearLean - 0.001
            else { continue }
            weak += 1
            #expect(c.bestGuess(f).hand == lean, "weak evidence (score \(s)) overturned a clear lean: \(f)")
            let m = f.mirroredX(about: 0)
            #expect(
                c.bestGuess(m).hand == c.bestGuess(f).hand.mirrored
                    && c.bestGuess(m).confidence == c.bestGuess(f).confidence)
        }
        #expect(weak > 0, "no pinch with weak evidence against a clear lean: the check saw nothing")
    }

    /// A millimetre of sensor jitter makes the motion cue name the wrong thumb now and then, and a
    /// wrong thumb turns the geometry to the other hand: on 2,000 positions-only pinches of that
    /// member handyd was 93.5 % at the seed rule's coverage against its 94.0 % (9 pinches; 7–15 in
    /// 10,000 on other seeds). The thumb cues are floored now (`thumbCueFloor`).
    @Test func sensorJitterDoesNotPutHandydBelowTheSeedRule() {
        var model = HandModel()
        model.positionNoiseMm = 1
        let (row, _) = Self.row(of: model, tier: .positions)
        // At least as many answers as the seed rule, as accurate to one pinch of the ~1,800 answered.
        #expect(
            row.dominates,
            "handyd \(row.evidence.accuracy) @ \(row.evidence.coverage), seed \(row.seed.accuracy) @ \(row.seed.coverage)"
        )
    }

    @Test func theAmbiguousSliceIsMirrorSymmetricAndAnswersOnlyWhenSure() {
        let c = EvidenceHandednessClassifier()
        // One finger 40 mm straight above the other, 2.5 mm to the right (inside the seed rule's
        // 3 mm dead zone, so no clear lean): inside the slice, not answered.
        let top = HandednessContact(positionMm: PhysicalPoint(x: 102.5, y: 60))
        let bottom = HandednessContact(positionMm: PhysicalPoint(x: 100, y: 100))
        let f = HandednessFeatures(top: top, bottom: bottom)
        #expect(c.isAmbiguous(f))
        #expect(c.isAmbiguous(f.mirroredX(about: 100)))
        #expect(c.classify(f).hand == .unknown, "no clear lean, no answer: \(c.classify(f))")
        // The score does lean right; the slice rule is what makes the answer unknown, and the
        // probability still says which way it leans (mirrored: the other way, exactly).
        #expect(c.bestGuess(f).hand == .right && c.bestGuess(f.mirroredX(about: 100)).hand == .left)
        let p = c.decision(f).rightHandProbability, q = c.decision(f.mirroredX(about: 100)).rightHandProbability
        #expect(
            p != nil && p! > 0.5 && q != nil && abs(p! + q! - 1) < 1e-9,
            "\(String(describing: p)) \(String(describing: q))")
        // Leaning 5° (3.5 mm, beyond the dead zone): a clear lean, answered as the seed rule answers
        // it (real hands: 94 % right there), at no more than contestedLeanMaximumConfidence.
        let lean = 5 * Double.pi / 180
        let leaning = HandednessFeatures(
            top: HandednessContact(positionMm: PhysicalPoint(x: 100 + 40 * sin(lean), y: 60)),
            bottom: HandednessContact(positionMm: PhysicalPoint(x: 100, y: 60 + 40 * cos(lean))))
        #expect(!c.isAmbiguous(leaning))
        let answer = c.classify(leaning), mirrored = c.classify(leaning.mirroredX(about: 100))
        #expect(
            answer.hand == .right && mirrored.hand == .left && answer.confidence == mirrored.confidence,
            "\(answer) \(mirrored)")
        #expect(
            answer.confidence >= EvidenceHandednessClassifier.clearLeanConfidence
                && answer.confidence <= EvidenceHandednessClassifier.contestedLeanMaximumConfidence, "\(answer)")
        // The same pair at 50° from vertical is outside it and answered.
        let wide = 50 * Double.pi / 180
        let g = HandednessFeatures(
            top: HandednessContact(positionMm: PhysicalPoint(x: 100 + 40 * sin(wide), y: 60)),
            bottom: HandednessContact(positionMm: PhysicalPoint(x: 100, y: 60 + 40 * cos(wide))))
        #expect(!c.isAmbiguous(g))
        #expect(c.classify(g).hand == .right)
        #expect(c.classify(g.mirroredX(about: 100)).hand == .left)
    }
}
