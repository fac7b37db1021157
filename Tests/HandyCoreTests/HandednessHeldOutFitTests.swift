import HandyProtocol
import HandySynthetic
import Testing

@testable import HandyCore

/// The fit held out by member (`handyctl eval handedness --sensitivity --fit-held-out`,
/// docs/HANDEDNESS.md "The fit held out by member"): the mixture it fits on really lacks the
/// member, and nothing else about the mixture changes.
@Suite struct HandednessHeldOutFitTests {
    /// Without ranges the mixture draws exactly what it drew before ranges existed (the shipped
    /// weights' training set): each assumption uniformly across its whole range, in order, from
    /// the one generator; and a held-out member's ranges change only its own assumptions.
    @Test func theWholeMixtureIsTheOneTheWeightsAreFittedOn() {
        var a = SeededRandom(seed: 41)
        var b = SeededRandom(seed: 41)
        var c = SeededRandom(seed: 41)
        let held = HandednessHeldOutFit.heldOutMembers[0]
        for _ in 0..<200 {
            var reference = HandModel()
            for x in HandednessSensitivity.assumptions { x.apply(&reference, a.uniform(x.low, x.high)) }
            #expect(HandednessSensitivity.randomMember(&b) == reference)
            var kept = HandednessSensitivity.randomMember(&c, ranges: held.ranges)
            for (index, _) in held.ranges {
                // The held-out assumption set to one value in both: the rest must agree.
                var probe = reference
                HandednessSensitivity.assumptions[index].apply(&probe, 0)
                HandednessSensitivity.assumptions[index].apply(&kept, 0)
                #expect(kept == probe)
            }
        }
    }

    /// Every member but the defaults and the mixture is held out once, and its mixture never
    /// draws it: no value of the kept ranges (both ends and 48 between) gives the member's model,
    /// while the member itself is one assumption's value (a range shifted onto the wrong end of an
    /// assumption would contain it).
    @Test func eachHeldOutMemberIsAbsentFromItsMixture() {
        let expected = HandednessSensitivity.members.map(\.name).filter { $0 != "defaults" && $0 != "mixture" }
        #expect(HandednessHeldOutFit.heldOutMembers.map(\.name) == expected)
        for member in HandednessHeldOutFit.heldOutMembers {
            #expect(!member.ranges.isEmpty, "\(member.name): nothing held out")
            for (index, range) in member.ranges {
                let a = HandednessSensitivity.assumptions[index]
                #expect(
                    a.low <= range.lowerBound && range.upperBound <= a.high,
                    "\(member.name): \(range) outside \(a.name)")
                #expect(
                    abs((range.upperBound - range.lowerBound) - (a.high - a.low) / 2) < 1e-9,
                    "\(member.name): keeps \(range) of \(a.name)'s \(a.low)…\(a.high), not half")
            }
            guard member.ranges.count == 1, let (index, range) = member.ranges.first else { continue }
            let a = HandednessSensitivity.assumptions[index]
            let drawn = (0...49).map { range.lowerBound + (range.upperBound - range.lowerBound) * Double($0) / 49 }
            for value in drawn {
                var model = HandModel()
                a.apply(&model, value)
                #expect(model != member.model, "\(member.name): its mixture draws it (\(a.name) = \(value))")
            }
            // The member is its assumption at one end: the end outside the kept half.
            let end = [a.low, a.high].filter { !range.contains($0) }
            #expect(end.count == 1, "\(member.name): \(range) holds both or neither end of \(a.name)")
            var model = HandModel()
            a.apply(&model, end.first ?? .nan)
            #expect(model == member.model, "\(member.name) is not \(a.name) at its end outside \(range)")
        }
    }

    /// A refit moves the weights towards its training set: fitted on the mixture without the
    /// 40° turn, the weights differ from those of the whole mixture, and each fit scores its own
    /// training pinches no worse than the shipped weights do (the same ridge on both).
    @Test func aRefitWithoutAMemberIsAnotherFit() throws {
        let member = try #require(
            HandednessHeldOutFit.heldOutMembers.first { $0.name == "hand rotation spread = 40 ° sd" })
        func samples(_ ranges: [Int: ClosedRange<Double>]) -> [(HandednessFeatures, Hand)] {
            HandednessTier.allCases.flatMap { tier in
                HandednessEvaluation.mixturePinches(tier: tier, count: 60, seed: 9, ranges: ranges).enumerated()
                    .compactMap { i, p in
                        HandednessEvaluation.features(LabelledPinch(name: "\(i)", p)).map { ($0, p.hand) }
                    }
            }
        }
        let (wholeSet, heldOutSet) = (samples([:]), samples(member.ranges))
        let whole = HandednessEvaluation.fitTiers(wholeSet)
        let heldOut = HandednessEvaluation.fitTiers(heldOutSet)
        #expect(whole.map(\.weights.values) != heldOut.map(\.weights.values))
        let shipped = EvidenceHandednessClassifier()
        for (fit, set) in [(whole, wholeSet), (heldOut, heldOutSet)] {
            for tierFit in fit {
                let tierSet = set.filter { EvidenceHandednessClassifier.tier(of: $0.0) == tierFit.tier }
                #expect(tierFit.pinches == tierSet.count)
                let loss = HandednessEvaluation.meanLogLoss(tierSet, weights: shipped.weights(for:))
                let ridge = 1e-4 * shipped.weights(for: tierFit.tier).values.reduce(0) { $0 + $1 * $1 }
                #expect(tierFit.logLoss <= loss + ridge, "\(tierFit.tier)")
            }
        }
    }
}
