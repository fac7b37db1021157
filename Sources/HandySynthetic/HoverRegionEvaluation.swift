import HandyCore
import HandyProtocol

/// The covered region with hover, measured on the hand model family with hover (docs/HANDEDNESS.md
/// "The covered region"): each tap runs through the real pipeline twice, as made (the region says
/// `source` hover when a hovering finger lies near) and with its hovering fingers removed from the
/// stream (the model's region, no `source`), and each published `occlusion` polygon is held against
/// where the hand really is: every finger of it (touching, hovering and seen, hovering unseen) and
/// its palm's centre, those on the display (the region is clipped to it).
public enum HoverRegionEvaluation {
    /// One tap's two regions against its hand.
    public struct Outcome: Sendable {
        public var member: Int
        public var posture: HoverPosture
        /// Fingers the panel saw hovering.
        public var hoveringSeen: Int
        /// The hand's fingers on the display (the touching one included).
        public var fingers: Int
        /// Its fingers the panel did not see, on the display.
        public var unseenFingers: Int
        /// Whether its palm's centre lies on the display.
        public var palmOnDisplay: Bool
        /// What the tap's region said it came from, with hover in the stream.
        public var source: OcclusionSource?
        /// With hover in the stream and without: fingers inside, palm inside, area (mm²); nil when
        /// the tap carried no region.
        public var withHover: Covered?
        public var withoutHover: Covered?
    }

    /// What one region covers of a hand.
    public struct Covered: Sendable {
        public var fingersInside: Int
        /// Of them, those the panel did not see: what hover did not hand the region itself.
        public var unseenInside: Int
        public var palmInside: Bool
        public var areaMm2: Double
    }

    /// The region the tap of `tap` published with `events` as its stream, and its source.
    static func region(_ tap: SyntheticHoverTap, events: [InputEvent]) -> (
        region: OcclusionRegion?, source: OcclusionSource?
    ) {
        var tap = tap
        tap.events = events
        let gestures = HoverHandEvaluation.run(tap).gestures
        guard let e = gestures.last(where: { $0.gesture == .tap && $0.occlusion != nil }) else { return (nil, nil) }
        return (e.occlusion, e.occlusionSource)
    }

    /// Whether `point` lies inside the convex `polygon` (corners in order, either way round), its
    /// edge included.
    public static func contains(_ polygon: [PhysicalPoint], _ point: PhysicalPoint) -> Bool {
        guard polygon.count >= 3 else { return false }
        var sign = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if Swift.abs(cross) < 1e-9 { continue }
            if sign == 0 {
                sign = cross
            } else if (sign > 0) != (cross > 0) {
                return false
            }
        }
        return true
    }

    /// `count` taps of each hand and posture of `model` from `seed`, each with and without hover.
    public static func outcomes(member: Int, model: HoverHandModel, count: Int, seed: UInt64) -> [Outcome] {
        var rng = SeededRandom(seed: seed &+ UInt64(member) &* 0x9E37_79B9)
        var out: [Outcome] = []
        func onDisplay(_ p: PhysicalPoint) -> Bool {
            p.x >= 0 && p.x <= model.displayWidthMm && p.y >= 0 && p.y <= model.displayHeightMm
        }
        for posture in model.postures {
            for hand in [Hand.left, .right] {
                for _ in 0..<count {
                    let tap = model.tap(hand: hand, posture: posture, rng: &rng)
                    let fingers = tap.fingersMm.filter(onDisplay), unseen = tap.unseenMm.filter(onDisplay)
                    let palmOn = onDisplay(tap.palmMm)
                    func covered(_ r: OcclusionRegion?) -> Covered? {
                        guard let p = r?.polygonMm else { return nil }
                        return Covered(
                            fingersInside: fingers.filter { contains(p, $0) }.count,
                            unseenInside: unseen.filter { contains(p, $0) }.count,
                            palmInside: palmOn && contains(p, tap.palmMm), areaMm2: HandOcclusionModel.area(p))
                    }
                    let with = region(tap, events: tap.events)
                    let without = region(tap, events: tap.eventsWithoutHover)
                    out.append(
                        Outcome(
                            member: member, posture: posture, hoveringSeen: tap.hoveringMm.count,
                            fingers: fingers.count, unseenFingers: unseen.count, palmOnDisplay: palmOn,
                            source: with.source,
                            withHover: covered(with.region), withoutHover: covered(without.region)))
                }
            }
        }
        return out
    }

    /// Every member's outcomes.
    public static func familyOutcomes(count: Int, seed: UInt64) -> [Outcome] {
        HoverHandEvaluation.members.enumerated().flatMap { i, m in
            outcomes(member: i, model: m.model, count: count, seed: seed)
        }
    }

    /// One slice: the share of the hand's fingers and palms inside each region, and its mean area.
    public struct Slice: Sendable {
        public var name: String
        public var taps: Int
        /// Taps whose region said `source` hover.
        public var sourceHover: Int
        public var fingers: Int
        public var unseenFingers: Int
        public var palms: Int
        public var fingersInsideHover: Int
        public var fingersInsideModel: Int
        public var unseenInsideHover: Int
        public var unseenInsideModel: Int
        public var palmsInsideHover: Int
        public var palmsInsideModel: Int
        public var meanAreaHoverMm2: Double
        public var meanAreaModelMm2: Double
        /// Taps without a region (with hover or without): a tap always carries one.
        public var missing: Int

        public init(_ name: String, _ outcomes: [Outcome]) {
            self.name = name
            taps = outcomes.count
            sourceHover = outcomes.filter { $0.source == .hover }.count
            fingers = outcomes.map(\.fingers).reduce(0, +)
            unseenFingers = outcomes.map(\.unseenFingers).reduce(0, +)
            palms = outcomes.filter(\.palmOnDisplay).count
            unseenInsideHover = outcomes.map { $0.withHover?.unseenInside ?? 0 }.reduce(0, +)
            unseenInsideModel = outcomes.map { $0.withoutHover?.unseenInside ?? 0 }.reduce(0, +)
            fingersInsideHover = outcomes.map { $0.withHover?.fingersInside ?? 0 }.reduce(0, +)
            fingersInsideModel = outcomes.map { $0.withoutHover?.fingersInside ?? 0 }.reduce(0, +)
            palmsInsideHover = outcomes.filter { $0.withHover?.palmInside ?? false }.count
            palmsInsideModel = outcomes.filter { $0.withoutHover?.palmInside ?? false }.count
            let n = Double(Swift.max(outcomes.count, 1))
            meanAreaHoverMm2 = outcomes.map { $0.withHover?.areaMm2 ?? 0 }.reduce(0, +) / n
            meanAreaModelMm2 = outcomes.map { $0.withoutHover?.areaMm2 ?? 0 }.reduce(0, +) / n
            missing = outcomes.filter { $0.withHover == nil || $0.withoutHover == nil }.count
        }
    }

    /// The table of docs/HANDEDNESS.md "The covered region": by member, by fingers seen hovering,
    /// by posture, and all.
    public static func table(count: Int, seed: UInt64) -> String {
        let outcomes = familyOutcomes(count: count, seed: seed)
        func pct(_ n: Int, _ d: Int) -> String {
            d == 0 ? "–" : HoverHandEvaluation.decimal1(100 * Double(n) / Double(d)) + " %"
        }
        func row(_ s: Slice) -> String {
            "| \(s.name) | \(s.taps) | \(pct(s.sourceHover, s.taps)) | \(pct(s.fingersInsideHover, s.fingers)) | "
                + "\(pct(s.fingersInsideModel, s.fingers)) | \(pct(s.unseenInsideHover, s.unseenFingers)) | "
                + "\(pct(s.unseenInsideModel, s.unseenFingers)) | \(pct(s.palmsInsideHover, s.palms)) | "
                + "\(pct(s.palmsInsideModel, s.palms)) | \(Int(s.meanAreaHoverMm2.rounded())) | "
                + "\(Int(s.meanAreaModelMm2.rounded())) |"
        }
        let all = Slice("all", outcomes)
        var lines = [
            "\(outcomes.count) taps: \(count) per hand, posture and member, seed \(seed), each with its hovering "
                + "fingers and without them; \(all.fingers) fingers and \(all.palms) palm centres on the display; "
                + "taps without a region: \(all.missing)",
            "",
            "| slice | taps | source hover | fingers inside: hover | model | unseen fingers inside: hover | model "
                + "| palm inside: hover | model | area mm²: hover | model |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        let most = outcomes.map(\.hoveringSeen).max() ?? 0
        for n in 0...most {
            lines.append(row(Slice("\(n) hovering seen", outcomes.filter { $0.hoveringSeen == n })))
        }
        for p in HoverPosture.allCases {
            lines.append(row(Slice("posture: \(p.rawValue)", outcomes.filter { $0.posture == p })))
        }
        for (i, m) in HoverHandEvaluation.members.enumerated() {
            lines.append(row(Slice("member: \(m.name)", outcomes.filter { $0.member == i })))
        }
        lines.append(row(all))
        return lines.joined(separator: "\n") + "\n"
    }
}
