import HandyCore
import HandyProtocol

/// The hand of one finger from its shadows, measured on the hand model family with hover
/// (docs/HANDEDNESS.md "One finger from its shadows"): taps of each posture and hand through the
/// real pipeline (tracker with hover, arena), what the hovering fingers near the tap voted, what
/// the tap published, and whether each situation's confidence holds held out by member.
public enum HoverHandEvaluation {
    /// The family: the defaults and each assumption pushed, one at a time.
    public static let members: [(name: String, model: HoverHandModel)] = {
        func member(_ name: String, _ change: (inout HoverHandModel) -> Void) -> (String, HoverHandModel) {
            var m = HoverHandModel()
            change(&m)
            return (name, m)
        }
        return [
            member("defaults (range 7.5 mm, In Range 0…1)") { _ in },
            member("hover range 5 mm") { $0.hoverRangeMm = 5 },
            member("hover range 10 mm") { $0.hoverRangeMm = 10 },
            member("distance 0…255 (height / range)") { $0.distanceMax = 255 },
            member("hand turned, sd 35°") { $0.handRotationSdDegrees = 35 },
            member("both hands turned 30°") { $0.postureRotationDegrees = 30 },
            member("small hands ×0.8") { $0.handScale = 0.8 },
            member("large hands ×1.2") { $0.handScale = 1.2 },
            member("fingers lower ×0.7") { $0.heightScale = 0.7 },
            member("fingers higher ×1.4") { $0.heightScale = 1.4 },
            member("placement sd 8 mm") { $0.placementSdMm = 8 },
        ]
    }()

    /// Members shown, not judged: both hands turned one way (not mirrored) make one hand look like
    /// the other, as for pinches ("Posture" in docs/HANDEDNESS.md); a per-device offset is what a
    /// hand profile learns, not what the family's claims may rest on.
    public static let shownNotJudged: Set<String> = ["both hands turned 30°"]

    /// One tap through the pipeline.
    public struct Outcome: Sendable {
        public var member: Int
        public var hand: Hand
        public var posture: HoverPosture
        /// Hovering contacts near the tap's finger when it landed (as the tracker had them).
        public var hoveringNear: Int
        /// What they voted (nil: no vote, or votes that disagree).
        public var vote: HoverHandedness.Vote?
        /// What the tap published (nil: no tap recognised).
        public var published: HandDecision?
        /// Gestures other than the finger's own tap and touch-tap that the stream caused (a
        /// hovering finger must cause none).
        public var otherGestures: Int
        /// How far the fingers the panel saw lie from the touching one (the larger of along x and
        /// along y, mm, as generated): what the covered region's "near" (90 mm) must reach.
        public var seenOffsetsMm: [Double]
    }

    /// Runs `tap` through the pipeline: its gestures and the hovering contacts (display mm, in range)
    /// after the frame its finger landed in, with that finger's position.
    public static func run(_ tap: SyntheticHoverTap) -> (
        gestures: [CoreGestureEvent], touchMm: PhysicalPoint?, hoveringMm: [PhysicalPoint]
    ) {
        var pipeline = GesturePipeline(deviceID: "hover", description: tap.description)
        var output = PipelineOutput()
        var gestures: [CoreGestureEvent] = []
        var touchMm: PhysicalPoint?
        var hoveringMm: [PhysicalPoint] = []
        for e in tap.events {
            pipeline.handle(e, into: &output)
            for frame in output.frames {
                guard touchMm == nil, let t = frame.touches.first(where: { $0.phase == .began }) else { continue }
                touchMm = t.mm
                hoveringMm = pipeline.tracker.hovering.filter { $0.phase == .began || $0.phase == .hovering }.map(\.mm)
            }
            gestures += output.gestures
            output.empty()
        }
        if let last = tap.events.last {
            gestures += pipeline.advanceTime(to: Timestamp(microseconds: last.time.microseconds + 2_000_000))
        }
        return (gestures, touchMm, hoveringMm)
    }

    /// `count` taps of each hand and posture of `model` from `seed`.
    public static func outcomes(member: Int, model: HoverHandModel, count: Int, seed: UInt64) -> [Outcome] {
        var rng = SeededRandom(seed: seed &+ UInt64(member) &* 0x9E37_79B9)
        var out: [Outcome] = []
        for posture in model.postures {
            for hand in [Hand.left, .right] {
                for _ in 0..<count {
                    let tap = model.tap(hand: hand, posture: posture, rng: &rng)
                    let r = run(tap)
                    let taps = r.gestures.filter { $0.gesture == .tap }
                    let own = r.gestures.filter { $0.gesture == .tap || $0.gesture == .touchTap }
                    let vote = r.touchMm.flatMap { HoverHandedness.vote(touchMm: $0, hoveringMm: r.hoveringMm) }
                    let near =
                        r.touchMm.map { t in
                            r.hoveringMm.filter {
                                Swift.abs($0.x - t.x) <= HoverHandedness.nearMm
                                    && Swift.abs($0.y - t.y) <= HoverHandedness.nearMm
                            }.count
                        } ?? 0
                    let published = taps.last.map {
                        HandDecision(
                            hand: $0.hand ?? .unknown, confidence: $0.handConfidence ?? 0,
                            rightHandProbability: $0.rightHandProbability)
                    }
                    out.append(
                        Outcome(
                            member: member, hand: hand, posture: posture, hoveringNear: near, vote: vote,
                            published: published, otherGestures: r.gestures.count - own.count,
                            seenOffsetsMm: tap.hoveringMm.map {
                                Swift.max(Swift.abs($0.x - tap.touchMm.x), Swift.abs($0.y - tap.touchMm.y))
                            }))
                }
            }
        }
        return out
    }

    /// Every member's outcomes.
    public static func familyOutcomes(count: Int, seed: UInt64) -> [Outcome] {
        members.enumerated().flatMap { i, m in outcomes(member: i, model: m.model, count: count, seed: seed) }
    }

    /// Coverage and accuracy of one slice: of the votes, and of what was published.
    public struct Slice: Sendable {
        public var name: String
        public var taps: Int
        public var meanHoveringNear: Double
        public var votes: Int
        public var votesRight: Int
        public var answered: Int
        public var answeredRight: Int

        init(_ name: String, _ outcomes: [Outcome]) {
            self.name = name
            taps = outcomes.count
            meanHoveringNear = outcomes.isEmpty ? 0 : Double(outcomes.map(\.hoveringNear).reduce(0, +)) / Double(taps)
            let voted = outcomes.filter { $0.vote != nil }
            votes = voted.count
            votesRight = voted.filter { $0.vote?.hand == $0.hand }.count
            let said = outcomes.filter { ($0.published?.hand ?? .unknown) != .unknown }
            answered = said.count
            answeredRight = said.filter { $0.published?.hand == $0.hand }.count
        }
    }

    /// One situation's confidence held out by member. The claim is what every judged member
    /// delivers: the accuracy of the member that is right least often there (floored to 0.01, at
    /// most ``maximumConfidence``), so it is kept on each. Held out: the claim the other members
    /// alone make must be kept by the member left out (within ``allowance``); the row shows the
    /// member that keeps it worst.
    public struct SituationRow: Sendable {
        public var situation: HoverHandedness.Situation
        /// Votes in this situation on the judged members, and the share right.
        public var answers: Int
        public var accuracy: Double
        /// The judged members' lowest accuracy, floored to 0.01: the confidence it would publish.
        public var claim: Double
        /// Judged members (with at least ``bandMinimum`` votes here).
        public var judgedMembers: Int
        public var worstMember: String
        public var worstAnswers: Int
        public var worstAccuracy: Double
        /// The claim of the other members alone.
        public var worstClaim: Double
        /// Worst member's accuracy − the other members' claim.
        public var worstMargin: Double
        /// The claim is at least ``minimumConfidence``, at least three members are judged, and each
        /// keeps the others' claim within ``allowance``.
        public var earned: Bool
    }

    /// A member's situation is judged from this many answers: issue 52's bands, the pinches' own
    /// (``HandednessMetrics/bandMinimumAnswers``).
    public static let bandMinimum = HandednessMetrics.bandMinimumAnswers
    /// A claim is kept when right at least claim − this often (issue 52,
    /// ``HandednessMetrics/bandAllowance``).
    public static let allowance = HandednessMetrics.bandAllowance
    /// A claim never says more than this: the family is a model, not people.
    public static let maximumConfidence = 0.95
    /// No hand is published below the classifiers' minimum confidence.
    public static let minimumConfidence = 0.6

    /// The situations held out by member (the members of ``shownNotJudged`` left out).
    public static func situations(_ allOutcomes: [Outcome]) -> [SituationRow] {
        let judged = Set(members.indices.filter { !shownNotJudged.contains(members[$0].name) })
        let outcomes = allOutcomes.filter { judged.contains($0.member) }
        func accuracy(_ o: [Outcome]) -> Double {
            o.isEmpty ? 0 : Double(o.filter { $0.vote?.hand == $0.hand }.count) / Double(o.count)
        }
        func floor2(_ v: Double) -> Double { (v * 100 + 1e-9).rounded(.down) / 100 }
        return HoverHandedness.Situation.allCases.map { s in
            let all = outcomes.filter { $0.vote?.situation == s }
            var perMember: [(member: Int, n: Int, accuracy: Double)] = []
            for i in members.indices where judged.contains(i) {
                let own = all.filter { $0.member == i }
                if own.count >= bandMinimum { perMember.append((i, own.count, accuracy(own))) }
            }
            func claim(without left: Int?) -> Double {
                let rest = perMember.filter { $0.member != left }.map(\.accuracy)
                return Swift.min(floor2(rest.min() ?? 0), maximumConfidence)
            }
            var worst: (name: String, n: Int, acc: Double, claim: Double, margin: Double)?
            for m in perMember {
                let c = claim(without: m.member)
                let margin = m.accuracy - c
                if worst.map({ margin < $0.margin }) ?? true {
                    worst = (members[m.member].name, m.n, m.accuracy, c, margin)
                }
            }
            let c = claim(without: nil)
            let w = worst ?? ("none judged", 0, 0, c, 0)
            return SituationRow(
                situation: s, answers: all.count, accuracy: accuracy(all), claim: c, judgedMembers: perMember.count,
                worstMember: w.name, worstAnswers: w.n, worstAccuracy: w.acc, worstClaim: w.claim,
                worstMargin: w.margin,
                earned: perMember.count >= 3 && c >= minimumConfidence && w.margin >= -allowance)
        }
    }

    /// The tables of docs/HANDEDNESS.md: by posture, by member, by how many fingers hover near, and
    /// the situations held out by member.
    public static func table(count: Int, seed: UInt64) -> String {
        let outcomes = familyOutcomes(count: count, seed: seed)
        func pct(_ n: Int, _ d: Int) -> String { d == 0 ? "–" : String(decimal1(100 * Double(n) / Double(d))) + " %" }
        func row(_ s: Slice) -> String {
            "| \(s.name) | \(s.taps) | \(decimal2(s.meanHoveringNear)) | \(pct(s.votes, s.taps)) | "
                + "\(pct(s.votesRight, s.votes)) | \(pct(s.answered, s.taps)) | \(pct(s.answeredRight, s.answered)) |"
        }
        var lines = [
            "\(outcomes.count) taps: \(count) per hand, posture and member, seed \(seed); "
                + "gestures other than the tap: \(outcomes.map(\.otherGestures).reduce(0, +))",
            "",
            "| slice | taps | fingers hovering near | voted | vote right | published | published right |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for p in HoverPosture.allCases {
            lines.append(row(Slice("posture: \(p.rawValue)", outcomes.filter { $0.posture == p })))
        }
        let most = outcomes.map(\.hoveringNear).max() ?? 0
        for n in 0...Swift.max(most, 0) {
            lines.append(row(Slice("\(n) hovering near", outcomes.filter { $0.hoveringNear == n })))
        }
        for (i, m) in members.enumerated() {
            let shown = shownNotJudged.contains(m.name) ? " (shown, not judged)" : ""
            lines.append(row(Slice("member: \(m.name)\(shown)", outcomes.filter { $0.member == i })))
        }
        lines.append(row(Slice("all", outcomes)))
        let offsets = outcomes.flatMap(\.seenOffsetsMm).sorted()
        if !offsets.isEmpty {
            let p99 = offsets[Swift.min(offsets.count - 1, Int(0.99 * Double(offsets.count)))]
            lines += [
                "",
                "The \(offsets.count) fingers seen hovering lie within \(decimal1(p99)) mm of the touching one along x "
                    + "and y (99 %), the farthest \(decimal1(offsets.last ?? 0)) mm; "
                    + "\(offsets.filter { $0 > HoverHandedness.nearMm }.count) beyond the \(decimal1(HoverHandedness.nearMm)) mm "
                    + "taken as near.",
            ]
        }
        lines += [
            "",
            "Situations, on the judged members: the claim (the lowest accuracy of a member with 10 votes or more), "
                + "and the member that keeps worst the claim the other members alone make.",
            "",
            "| situation | votes | right | claim | members judged | worst member held out | its votes | right "
                + "| others' claim | margin | published |",
            "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|",
        ]
        for r in situations(outcomes) {
            let published = HoverHandedness.confidence(r.situation).map { "at \(decimal2($0))" } ?? "no"
            lines.append(
                "| \(r.situation.rawValue) | \(r.answers) | \(decimal1(100 * r.accuracy)) % | \(decimal2(r.claim)) | "
                    + "\(r.judgedMembers) | \(r.worstMember) | \(r.worstAnswers) | \(decimal1(100 * r.worstAccuracy)) % | "
                    + "\(decimal2(r.worstClaim)) | \(r.worstMargin >= 0 ? "+" : "")\(decimal3(r.worstMargin)) | "
                    + "\(r.earned ? "earned, " : "not earned, ")\(published) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func decimal1(_ v: Double) -> String { fixed(v, 1) }
    static func decimal2(_ v: Double) -> String { fixed(v, 2) }
    static func decimal3(_ v: Double) -> String { fixed(v, 3) }
    /// `v` with `places` decimals (no Foundation).
    static func fixed(_ v: Double, _ places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let negative = v < 0
        let n = Int((Swift.abs(v) * scale).rounded())
        let whole = n / Int(scale), frac = n % Int(scale)
        var f = String(frac)
        while f.count < places { f = "0" + f }
        return (negative && n != 0 ? "-" : "") + String(whole) + (places > 0 ? "." + f : "")
    }
}
