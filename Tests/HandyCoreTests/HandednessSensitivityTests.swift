import HandyCore
import HandyProtocol
import HandySynthetic
import Testing

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
        let members = 1 + 2 * HandednessSensitivity.assumptions.count
        #expect(rows.count == members * HandednessTier.allCases.count)
        #expect(Set(rows.map(\.member)).count == members)
        // The defaults row is the plain evaluation of the default model.
        for tier in HandednessTier.allCases {
            let pinches = HandednessEvaluation.syntheticPinches(tier: tier, count: 20, seed: 9)
                .enumerated().map { i, p in LabelledPinch(name: "\(i)", p) }
            let seed = HandednessMetrics(pinches.map { HandednessEvaluation.outcome($0, classifier: SeedHandednessRule()) })
            let evidence = HandednessMetrics(pinches.map { HandednessEvaluation.outcome($0, classifier: EvidenceHandednessClassifier()) })
            let row = rows.first { $0.member == "defaults" && $0.tier == tier.rawValue }
            #expect(row?.seed == seed && row?.evidence == evidence, "\(tier)")
            if let row { #expect(row.holds == (row.evidenceAtSeedCoverage + 1.0 / 20 >= row.seed.accuracy)) }
        }
        let table = HandednessSensitivity.table(rows)
        let lines = table.split(separator: "\n")
        #expect(lines.count == rows.count + 2)
        #expect(lines.last == "\(rows.filter(\.holds).count) of \(rows.count) rows hold (handyd at the seed rule's coverage is at least as accurate)")
    }
}
