import HandyProtocol
import HandySynthetic
import Testing

@testable import HandyCore

/// The hand of one finger from its shadows (issue 55, item 4): on the hand model family with hover
/// (`HoverHandModel`), through the real pipeline.
@Suite struct HoverHandednessTests {
    /// A published situation's confidence holds held out by member, on another seed than the
    /// table's (21, not 4): it is earned there (every judged member keeps the claim the others alone
    /// make, within 0.05), no higher than the claim (the lowest judged member's accuracy), and the
    /// taps' own published answers keep it on every judged member.
    @Test func everyPublishedConfidenceIsEarnedHeldOutByMember() {
        let outcomes = HoverHandEvaluation.familyOutcomes(count: 200, seed: 21)
        let rows = HoverHandEvaluation.situations(outcomes)
        #expect(rows.count == HoverHandedness.Situation.allCases.count)
        var published = 0
        for r in rows {
            guard let c = HoverHandedness.confidence(r.situation) else { continue }
            published += 1
            #expect(r.earned, "\(r.situation.rawValue): \(r)")
            #expect(c <= r.claim + 0.02, "\(r.situation.rawValue): publishes \(c), claim \(r.claim)")
            // The taps' own published answers in this situation keep the promise on every member.
            for (i, m) in HoverHandEvaluation.members.enumerated()
            where !HoverHandEvaluation.shownNotJudged.contains(m.name) {
                let own = outcomes.filter { $0.member == i && $0.vote?.situation == r.situation }
                guard own.count >= HoverHandEvaluation.bandMinimum else { continue }
                let right = own.filter { $0.published?.hand == $0.hand }.count
                #expect(
                    Double(right) / Double(own.count) >= c - HoverHandEvaluation.allowance,
                    "\(m.name), \(r.situation.rawValue): \(right) of \(own.count) at \(c)")
            }
        }
        #expect(published >= 1)
    }

    /// What the tap publishes is the rule's decision on the contacts the tracker had when its finger
    /// landed, and only with a hovering finger near it: without one the tap has no hand, as before.
    @Test func theTapPublishesTheShadowsHandAndNothingWithoutThem() {
        let outcomes = HoverHandEvaluation.outcomes(
            member: 0, model: HoverHandEvaluation.members[0].model, count: 100, seed: 5)
        #expect(outcomes.allSatisfy { $0.published != nil })
        var answered = 0
        for o in outcomes {
            let expected = o.vote.flatMap { v in HoverHandedness.confidence(v.situation).map { (v.hand, $0) } }
            let hand = o.published?.hand ?? .unknown
            if let expected {
                answered += 1
                #expect(hand == expected.0 && o.published?.confidence == expected.1)
                #expect(
                    o.published?.rightHandProbability
                        == HandDecision.rightHandProbability(of: expected.0, confidence: expected.1))
            } else {
                // A positions-only panel: one finger publishes no hand and no probability.
                #expect(hand == .unknown && o.published?.rightHandProbability == nil)
            }
        }
        #expect(answered >= 5)
        // The same taps on a panel without hover range: nothing hovers, nothing is published.
        var blind = HoverHandEvaluation.members[0].model
        blind.hoverRangeMm = 0
        let none = HoverHandEvaluation.outcomes(member: 0, model: blind, count: 20, seed: 5)
        #expect(none.allSatisfy { $0.hoveringNear == 0 && $0.published?.hand == .unknown })
        #expect(none.allSatisfy { $0.published?.rightHandProbability == nil })
    }

    /// A hovering contact never causes a gesture: each of the family's streams makes exactly its one
    /// tap, and the same streams without the touching finger make nothing at all.
    @Test func hoveringFingersOfTheFamilyNeverCauseAGesture() {
        var hovered = 0
        for (i, m) in HoverHandEvaluation.members.enumerated() {
            var rng = SeededRandom(seed: 77 &+ UInt64(i))
            for posture in HoverPosture.allCases {
                for hand in [Hand.left, .right] {
                    for _ in 0..<6 {
                        let tap = m.model.tap(hand: hand, posture: posture, rng: &rng)
                        let r = HoverHandEvaluation.run(tap)
                        // The finger's own tap and per-touch tap, nothing else.
                        #expect(r.gestures.map(\.gesture) == [.tap, .touchTap], "\(m.name) \(posture)")
                        var hoverOnly = tap
                        hoverOnly.events = Self.withoutSlot0(tap.events)
                        #expect(HoverHandEvaluation.run(hoverOnly).gestures.isEmpty)
                        if !tap.hoveringMm.isEmpty { hovered += 1 }
                    }
                }
            }
        }
        #expect(hovered > 100)
    }

    /// `events` without slot 0's (the touching finger's) events and BTN_TOUCH/ABS_X/ABS_Y.
    static func withoutSlot0(_ events: [InputEvent]) -> [InputEvent] {
        var slot: Int32 = 0
        return events.filter { e in
            if e.type == EventType.abs, e.code == AbsCode.mtSlot { slot = e.value }
            if e.type == EventType.abs, e.code == AbsCode.x || e.code == AbsCode.y { return false }
            if e.type == EventType.abs, e.code != AbsCode.mtSlot, slot == 0 { return false }
            return true
        }
    }

    /// Mirrored contacts name the other hand in the same situation; a lone contact straight below
    /// names none; contacts on both sides that disagree name none; far ones are not near.
    @Test func theRuleIsMirrorSymmetricAndDeclinesWhatDisagrees() {
        let t = PhysicalPoint(x: 150, y: 100)
        func mirrored(_ p: [PhysicalPoint]) -> [PhysicalPoint] { p.map { PhysicalPoint(x: 2 * t.x - $0.x, y: $0.y) } }
        let open = [PhysicalPoint(x: 170, y: 94), PhysicalPoint(x: 188, y: 102), PhysicalPoint(x: 108, y: 148)]
        let right = HoverHandedness.vote(touchMm: t, hoveringMm: open)
        let left = HoverHandedness.vote(touchMm: t, hoveringMm: mirrored(open))
        #expect(right?.hand == .right && left?.hand == .left)
        #expect(right?.situation == .thumbAndBeside && left?.situation == .thumbAndBeside)
        #expect(HoverHandedness.vote(touchMm: t, hoveringMm: [PhysicalPoint(x: 170, y: 94)])?.situation == .oneLevel)
        // Between level and thumb (30° below): no vote.
        #expect(HoverHandedness.vote(touchMm: t, hoveringMm: [PhysicalPoint(x: 180, y: 117)]) == nil)
        #expect(HoverHandedness.vote(touchMm: t, hoveringMm: [PhysicalPoint(x: 130, y: 122)])?.hand == .right)
        #expect(HoverHandedness.vote(touchMm: t, hoveringMm: [PhysicalPoint(x: 152, y: 140)]) == nil)
        #expect(
            HoverHandedness.vote(
                touchMm: t, hoveringMm: [PhysicalPoint(x: 170, y: 100), PhysicalPoint(x: 130, y: 100)])
                == nil)
        #expect(HoverHandedness.vote(touchMm: t, hoveringMm: [PhysicalPoint(x: 260, y: 100)]) == nil)
        for s in HoverHandedness.Situation.allCases {
            let d = HoverHandedness.confidence(s)
            #expect(d == nil || (d! >= HoverHandEvaluation.minimumConfidence && d! < 1))
        }
    }
}
