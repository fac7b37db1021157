import Foundation
import HandyProtocol
import HandyRecording
import HandySynthetic
import HandyTestSupport
import Testing

@testable import HandyCore

/// Real hands (docs/HANDEDNESS.md "Real hands"): DISPEL's pinch tests on four phones, each attempt
/// labelled with the hand the person was asked to pinch with (`Tests/Fixtures/realhands/`). The
/// floors are what these recordings gave when they were added, with a little room; they guard
/// against a change that makes either classifier worse on real pinches, and the mirror test needs
/// no label at all.
@Suite(.serialized) struct RealHandsTests {
    static let folder = FixturePaths.fixtures.appendingPathComponent("realhands/dispel").path

    static let pinches: [LabelledPinch] = load(folder)

    /// Every labelled recording of a folder.
    static func load(_ folder: String) -> [LabelledPinch] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".evemu")
        }.sorted()
        return names.compactMap { name in
            let path = folder + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                case let (label?, calibration) = LabelledPinch.annotations(ofRecording: text),
                let recording = try? Recording.load(path: path)
            else { return nil }
            return LabelledPinch(
                name: name, description: recording.description, calibration: calibration,
                events: recording.events, hand: label.hand, tier: label.tier)
        }
    }

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

    /// The gate on real pinches: handyd's published answers are at least as many as the
    /// seed rule's and at least as accurate (it answers every clear lean, as the seed rule does).
    /// Measured: both 94.4 % at 88.9 % (before, handyd answered 61.5 %).
    @Test func handydDominatesTheSeedRuleOnRealPinches() {
        let evidence = HandednessMetrics(Self.outcomes.map { $0[0] })
        let seed = HandednessMetrics(Self.outcomes.map { $0[1] })
        #expect(
            evidence.coverage >= seed.coverage && evidence.accuracy >= seed.accuracy, "handyd \(evidence), seed \(seed)"
        )
        // bug-pinch (kept apart: both its levels say left, and the seed rule calls level 0 right
        // on 37 of 39): whatever its labels, handyd answers at least what the seed rule answers.
        let bug = Self.load(FixturePaths.fixtures.appendingPathComponent("realhands/dispel-bugpinch").path)
        #expect(bug.count == 77)
        let both = bug.map {
            HandednessEvaluation.outcomes($0, classifiers: [EvidenceHandednessClassifier(), SeedHandednessRule()])
        }
        let e = HandednessMetrics(both.map { $0[0] }), s = HandednessMetrics(both.map { $0[1] })
        #expect(
            e.missed == 0 && e.coverage >= s.coverage && e.accuracy >= s.accuracy, "bug-pinch: handyd \(e), seed \(s)")
    }

    /// A confidence is a promise (issue 52): pooled and per phone, every band of 0.05 of handyd's
    /// published confidence with enough answers to judge is right at least its mean claim − 0.05.
    /// (bug-pinch is left out: one of its two levels is mislabelled, see the fixtures' README.)
    @Test func everyConfidenceBandKeepsItsPromiseOnRealPinches() {
        var sets: [(String, [HandednessOutcome])] = [("all four phones", Self.outcomes.map { $0[0] })]
        for phone in ["iphone12", "iphonex", "galaxys10", "reno2z"] {
            let own = zip(Self.pinches, Self.outcomes).filter { $0.0.name.hasPrefix(phone + "-") }.map { $0.1[0] }
            #expect(!own.isEmpty, "\(phone): no pinches")
            sets.append((phone, own))
        }
        for (name, outcomes) in sets {
            let metrics = HandednessMetrics(outcomes)
            #expect(!metrics.bands.isEmpty, "\(name): nothing answered")
            guard let band = metrics.worstBand else { continue }
            let text =
                "\(name): the band from \(band.lower) (\(band.count) answers, claiming \(band.meanConfidence)) is right \(band.accuracy)"
            if Self.setsShortOfTheirPromise.contains(name) {
                #expect(band.margin < 0, "\(name) keeps its promise now: take it off setsShortOfTheirPromise")
            } else {
                #expect(band.margin >= 0, "\(text)")
            }
        }
    }

    /// The Reno2 Z's 9 left-level attempts all read as right hands (its right level 27 of 27): its
    /// band from 0.85 is right on 3 of its 12 answers. The fixtures' README suspects those labels;
    /// until that is settled it stays, short, on this list (issue 52). The pooled set keeps its
    /// promise since the confidence is calibrated per situation (before: its band from 0.9 was 90 %
    /// right at a claim of 0.98).
    static let setsShortOfTheirPromise: Set<String> = ["reno2z"]

    @Test func bothClassifiersReadRealHandsAndHandydHoldsAtTheSeedRulesCoverage() {
        let evidence = HandednessMetrics(Self.outcomes.map { $0[0] })
        let seed = HandednessMetrics(Self.outcomes.map { $0[1] })
        // Measured when added: evidence 93.8 % at 61.5 %, seed 94.4 % at 88.9 %; evidence at the
        // seed rule's coverage 94.4 %. With a clear lean not overturned and the thumb cues floored:
        // evidence 94.4 % at 61.5 %, 95.3 % at the seed rule's coverage (two pinches ahead).
        #expect(evidence.accuracy >= 0.9 && evidence.coverage >= 0.5, "\(evidence)")
        #expect(seed.accuracy >= 0.9 && seed.coverage >= 0.8, "\(seed)")
        let atSeed = HandednessMetrics(Self.outcomes.map { $0[0] }, fixedCoverage: seed.coverage)
            .accuracyAtFixedCoverage
        #expect(atSeed >= seed.accuracy, "evidence \(atSeed) at the seed rule's coverage, seed \(seed.accuracy)")
    }

    /// A left hand's pinch is a right hand's mirrored: every real attempt mirrored on its own
    /// screen (x → max − x) gives the other hand, from both classifiers.
    @Test func mirroredRealPinchesGiveTheOtherHand() {
        var compared = 0, edges = 0
        for (p, o) in zip(Self.pinches, Self.outcomes) {
            let mirrored = HandednessEvaluation.outcomes(
                p.mirroredOnItsSensor(), classifiers: [EvidenceHandednessClassifier(), SeedHandednessRule()])
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

    /// One finger on real taps (CapFingerId: thumbs and index fingers of 16 people, their contact
    /// ellipses). The single-contact rule handyd had was right on 38 % of the taps it answered; now
    /// it publishes no hand for one finger, and its probability is no surer than the taps allow:
    /// in every bin of the favoured hand's probability with 50 touches or more, the favoured hand
    /// is right at least that probability − 0.05 of the time. (The model was fitted on these taps;
    /// held out person by person, `fit_single_contact.py`: 0.6–0.7 right 67 %.) Measured, with only
    /// thumb-sized contacts read (issue 52 item 3): 0.502 → 50.1 % (1,080 touches, mostly at 0.5),
    /// 0.572 → 78.1 % (64); 0.622 → 87.0 % and 0.650 → 88.9 % on fewer than 50.
    @Test func oneFingerClaimsNoMoreThanRealTapsEarn() {
        let taps = Self.load(FixturePaths.fixtures.appendingPathComponent("realhands/capfingerid").path)
        #expect(taps.count >= 30 && taps.allSatisfy { $0.tier == .orientation })
        let outcomes = taps.flatMap { HandednessEvaluation.singleContactOutcomes($0) }
        let m = SingleContactMetrics(outcomes)
        #expect(
            m.touches >= 1_100 && m.withProbability == m.touches, "\(m.touches) touches, \(m.withProbability) with P")
        // The gate on published answers (c right at least c − 0.05): none are published.
        #expect(m.published == 0, "\(m.published) one-finger hands published")
        for b in m.publishedBins where b.count >= 50 {
            #expect(b.accuracy >= b.meanProbability - 0.05, "published \(b)")
        }
        let big = m.probabilityBins.filter { $0.count >= 50 }
        #expect(big.count >= 2, "\(m.probabilityBins)")
        for b in big { #expect(b.accuracy >= b.meanProbability - 0.05, "P bin \(b)") }
        #expect(
            outcomes.allSatisfy {
                ($0.rightHandProbability ?? 0.5) <= SingleContactHandedness.maximumProbability + 1e-9
                    && ($0.rightHandProbability ?? 0.5) >= 1 - SingleContactHandedness.maximumProbability - 1e-9
            })
        // Each touch mirrored on its sensor: 1 − P (to the wire's last decimal).
        var compared = 0
        for t in taps.prefix(8) {
            let a = HandednessEvaluation.singleContactOutcomes(t),
                b = HandednessEvaluation.singleContactOutcomes(t.mirroredOnItsSensor())
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                guard let p = x.rightHandProbability, let q = y.rightHandProbability else { continue }
                compared += 1
                #expect(abs(p + q - 1) <= 0.0011, "\(t.name): \(p) mirrored \(q)")
            }
        }
        #expect(compared >= 200)
    }

    /// Issue 52 item 3: `rightHandProbability` on a finger type it does not hold on. Held out
    /// (`fit_single_contact.py`, "Finger types held out"): fitted on one finger type the model is
    /// worse than a coin on the other (log-loss 0.767 on index fingers from thumbs, 0.797 on thumbs
    /// from index fingers; a coin's is 0.693), and leaving one person out it is a coin on index
    /// fingers (0.712, its 0.65 right 23 % of the time). So only a thumb-sized contact is read: on
    /// the index taps the probability stays at 0.5 (at most 5 % of them get another, and their
    /// log-loss is a coin's to 0.005), on the thumbs it says something (on 25 % or more, log-loss
    /// under a coin's by 0.01). Fails when the size gate is taken away (every index tap claims).
    @Test func oneFingerProbabilityStaysAtACoinOnIndexFingers() {
        let taps = Self.load(FixturePaths.fixtures.appendingPathComponent("realhands/capfingerid").path)
        func outcomes(_ finger: String) -> [SingleContactOutcome] {
            taps.filter { $0.name.contains("-\(finger)-") }.flatMap { HandednessEvaluation.singleContactOutcomes($0) }
        }
        func logLoss(_ o: [SingleContactOutcome]) -> Double {
            let sum = o.reduce(0.0) {
                let p = $1.rightHandProbability ?? 0.5
                return $0 - log($1.truth == .right ? p : 1 - p)
            }
            return o.isEmpty ? .nan : sum / Double(o.count)
        }
        let index = outcomes("index"), thumb = outcomes("thumb")
        #expect(index.count >= 600 && thumb.count >= 500, "\(index.count) index, \(thumb.count) thumb touches")
        let indexClaims = index.filter { $0.rightHandProbability != 0.5 }.count
        let thumbClaims = thumb.filter { $0.rightHandProbability != 0.5 }.count
        #expect(indexClaims * 20 <= index.count, "index: \(indexClaims) of \(index.count) touches not at 0.5")
        #expect(logLoss(index) <= log(2) + 0.005, "index: log-loss \(logLoss(index))")
        #expect(thumbClaims * 100 >= 25 * thumb.count, "thumb: \(thumbClaims) of \(thumb.count) touches not at 0.5")
        #expect(logLoss(thumb) <= log(2) - 0.01, "thumb: log-loss \(logLoss(thumb))")
        print(
            "one finger by type: index \(indexClaims)/\(index.count) claimed, log-loss \(logLoss(index)); "
                + "thumb \(thumbClaims)/\(thumb.count), log-loss \(logLoss(thumb))")
    }

    /// DISPEL's one-finger levels (tapping, tracing; positions, some with pressure): every touch is
    /// judged, no hand is published and no probability given — the device reports no contact shape.
    @Test func oneFingerWithoutAShapeIsUnknownOnRealTouches() {
        for folder in ["realhands/dispel-fingertap", "realhands/dispel-draw"] {
            let recordings = Self.load(FixturePaths.fixtures.appendingPathComponent(folder).path)
            #expect(recordings.count >= 8, "\(folder)")
            let m = SingleContactMetrics(recordings.flatMap { HandednessEvaluation.singleContactOutcomes($0) })
            #expect(
                m.touches >= 100 && m.published == 0 && m.withProbability == 0,
                "\(folder): \(m.touches) \(m.published) \(m.withProbability)")
        }
    }
}
