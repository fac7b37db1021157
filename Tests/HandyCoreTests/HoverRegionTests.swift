import HandyProtocol
import HandySynthetic
import Testing

@testable import HandyCore

/// The covered region with hover (issue 55, item 3), measured on the hand model family with hover:
/// the region built from the hovering fingers against the model's from the same taps without them.
@Suite struct HoverRegionTests {
    /// On the family (another seed than the table's, 22, not 6), the region with hover covers at
    /// least as many of the hand's real fingers as the model's on every member and for every number
    /// of fingers seen hovering, and more of them in all once a finger hovers; a tap that sees no
    /// hovering finger gets exactly the model's region, without a source.
    @Test func theHoverRegionCoversNoFewerOfTheHandsFingersThanTheModels() {
        let outcomes = HoverRegionEvaluation.familyOutcomes(count: 30, seed: 22)
        #expect(outcomes.allSatisfy { $0.withHover != nil && $0.withoutHover != nil })
        var slices: [HoverRegionEvaluation.Slice] = []
        for (i, m) in HoverHandEvaluation.members.enumerated() {
            slices.append(HoverRegionEvaluation.Slice(m.name, outcomes.filter { $0.member == i }))
        }
        for n in 1...4 {
            let these = outcomes.filter { $0.hoveringSeen == n }
            if these.count >= 10 { slices.append(HoverRegionEvaluation.Slice("\(n) seen", these)) }
        }
        for s in slices {
            #expect(
                s.fingersInsideHover >= s.fingersInsideModel,
                "\(s.name): hover \(s.fingersInsideHover), model \(s.fingersInsideModel) of \(s.fingers)")
        }
        let hovered = HoverRegionEvaluation.Slice("hovered", outcomes.filter { $0.hoveringSeen > 0 })
        #expect(hovered.taps > 300)
        #expect(hovered.fingersInsideHover > hovered.fingersInsideModel)
        for o in outcomes where o.hoveringSeen == 0 {
            #expect(o.source == nil)
            #expect(o.withHover?.fingersInside == o.withoutHover?.fingersInside)
            #expect(o.withHover?.areaMm2 == o.withoutHover?.areaMm2)
        }
        #expect(outcomes.filter { $0.source == .hover }.allSatisfy { $0.hoveringSeen > 0 })
    }

    /// The inside test: a convex polygon either way round, its edge included, nothing outside.
    @Test func insideAConvexPolygon() {
        let square = [
            PhysicalPoint(x: 0, y: 0), PhysicalPoint(x: 10, y: 0), PhysicalPoint(x: 10, y: 10),
            PhysicalPoint(x: 0, y: 10),
        ]
        for polygon in [square, square.reversed()] {
            #expect(HoverRegionEvaluation.contains(polygon, PhysicalPoint(x: 5, y: 5)))
            #expect(HoverRegionEvaluation.contains(polygon, PhysicalPoint(x: 10, y: 5)))
            #expect(!HoverRegionEvaluation.contains(polygon, PhysicalPoint(x: 10.1, y: 5)))
            #expect(!HoverRegionEvaluation.contains(polygon, PhysicalPoint(x: -3, y: 12)))
        }
        #expect(!HoverRegionEvaluation.contains(Array(square.prefix(2)), PhysicalPoint(x: 5, y: 0)))
    }
}
