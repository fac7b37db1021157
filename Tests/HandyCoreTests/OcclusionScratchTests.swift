@testable import HandyCore
import HandyProtocol
import HandySynthetic
import Testing

/// The covered region is made in arrays the arena keeps between regions, and the clear side sums
/// the clipped half's area as clipping emits its corners: the same regions, to the last bit, as
/// fresh arrays and a clipped copy give.
@Suite struct OcclusionScratchTests {
    @Test func keptArraysGiveTheRegionsFreshArraysGive() {
        var r = SeededRandom(seed: 5)
        let model = HandOcclusionModel()
        var scratch = HandOcclusionModel.Scratch()
        var clippedSome = 0
        for _ in 0..<2000 {
            let width = Double.random(in: 60...700, using: &r), height = Double.random(in: 40...400, using: &r)
            // Contacts near and beyond the edges too, so every edge gets clipped sometimes.
            let contacts = (0..<Int.random(in: 1...5, using: &r)).map { _ in
                PhysicalPoint(x: Double.random(in: -20...(width + 20), using: &r), y: Double.random(in: -20...(height + 20), using: &r))
            }
            let hand = [Hand.left, .right, .unknown].randomElement(using: &r)!
            let fresh = model.hull(contactsMm: contacts, hand: hand, displayWidthMm: width, displayHeightMm: height)
            model.hull(contactsMm: contacts, hand: hand, displayWidthMm: width, displayHeightMm: height, into: &scratch)
            #expect(scratch.hull == fresh)
            let freshClip = HandOcclusionModel.clip(fresh, width: width, height: height)
            HandOcclusionModel.clip(scratch.hull, width: width, height: height, into: &scratch)
            #expect(scratch.clipped == freshClip)
            if freshClip != fresh { clippedSome += 1 }
            // The clipped half's area, summed on the fly, against the area of the clipped copy.
            let x = Double.random(in: -10...(width + 10), using: &r)
            let keep: (PhysicalPoint) -> Bool = { $0.x <= x }
            let cut: (PhysicalPoint, PhysicalPoint) -> PhysicalPoint = { a, b in
                PhysicalPoint(x: x, y: a.y + (x - a.x) / (b.x - a.x) * (b.y - a.y))
            }
            var half: [PhysicalPoint] = []
            HandOcclusionModel.clip(fresh, keeping: keep, boundary: cut, into: &half)
            let onTheFly = HandOcclusionModel.clippedArea(fresh, keeping: keep, boundary: cut)
            #expect(onTheFly.bitPattern == HandOcclusionModel.area(half).bitPattern, "\(onTheFly) vs \(HandOcclusionModel.area(half))")
        }
        #expect(clippedSome > 500)
    }
}
