import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic
import Testing

/// Real hands (docs/HANDEDNESS.md "Real hands"): DISPEL's pinch tests on four phones, each attempt
/// labelled with the hand the person was asked to pinch with (`Tests/Fixtures/realhands/`). The
/// floors are what these recordings gave when they were added, with a little room; they guard
/// against a change that makes either classifier worse on real pinches, and the mirror test needs
/// no label at all.
@Suite(.serialized) struct RealHandsTests {
    static let folder = FixturePaths.fixtures.appendingPathComponent("realhands/dispel").path

    static let pinches: [LabelledPinch] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".evemu") }.sorted()
        return names.compactMap { name in
            let path = folder + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  case let (label?, calibration) = LabelledPinch.annotations(ofRecording: text),
                  let recording = try? Recording.load(path: path) else { return nil }
            return LabelledPinch(name: name, description: recording.description, calibration: calibration,
                                 events: recording.events, hand: label.hand, tier: label.tier)
        }
    }()

    static let outcomes: [[HandednessOutcome]] = pinches.map {
        HandednessEvaluation.outcomes($0, classifiers: [EvidenceHandednessClassifier(), SeedHandednessRule()])
    }

    @Test func everyAttemptLoadsWithItsHandAndIsRecognisedAsAPinch() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".evemu") }
        #expect(files.count >= 250)
        #expect(Self.pinches.count == files.count, "every file has a label and loads")
        // The file name repeats the label: <phone>-<hand>-<attempt>.evemu.
        #expect(Self.pinches.allSatisfy { $0.name.contains("-\($0.hand.rawValue)-") && $0.tier == .positions })
        #expect(Set(Self.pinches.map(\.hand)) == [.left, .right])
        let missed = zip(Self.pinches, Self.outcomes).filter { $1[0].hand == nil }.map(\.0.name)
        #expect(missed.isEmpty, "no pinch recognised in \(missed)")
    }

    @Test func bothClassifiersReadRealHandsAndHandydHoldsAtTheSeedRulesCoverage() {
        let evidence = HandednessMetrics(Self.outcomes.map { $0[0] })
        let seed = HandednessMetrics(Self.outcomes.map { $0[1] })
        // Measured when added: evidence 93.8 % at 61.5 %, seed 94.4 % at 88.9 %; evidence at the
        // seed rule's coverage 94.4 %. With a clear lean not overturned and the thumb cues floored:
        // evidence 94.4 % at 61.5 %, 95.3 % at the seed rule's coverage (two pinches ahead).
        #expect(evidence.accuracy >= 0.9 && evidence.coverage >= 0.5, "\(evidence)")
        #expect(seed.accuracy >= 0.9 && seed.coverage >= 0.8, "\(seed)")
        let atSeed = HandednessMetrics(Self.outcomes.map { $0[0] }, fixedCoverage: seed.coverage).accuracyAtFixedCoverage
        #expect(atSeed >= seed.accuracy, "evidence \(atSeed) at the seed rule's coverage, seed \(seed.accuracy)")
    }

    /// A left hand's pinch is a right hand's mirrored: every real attempt mirrored on its own
    /// screen (x → max − x) gives the other hand, from both classifiers.
    @Test func mirroredRealPinchesGiveTheOtherHand() {
        var compared = 0, edges = 0
        for (p, o) in zip(Self.pinches, Self.outcomes) {
            let mirrored = HandednessEvaluation.outcomes(p.mirroredOnItsSensor(), classifiers: [EvidenceHandednessClassifier(), SeedHandednessRule()])
            for (a, b) in zip(o, mirrored) {
                guard let ha = a.hand, let hb = b.hand else { continue }
                compared += 1
                if hb != ha.mirrored {
                    // Through the tracker the mirrored mm are not bit-exact: an answer right at a
                    // threshold may fall on the other side of it.
                    edges += 1
                }
            }
        }
        #expect(compared >= 2 * 250)
        #expect(edges * 100 <= compared, "\(edges) of \(compared) answers not mirrored")
    }
}
