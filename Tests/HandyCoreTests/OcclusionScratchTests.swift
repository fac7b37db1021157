import HandyProtocol
import HandySynthetic
import Testing

@testable import HandyCore

#if canImport(Glibc)
import Glibc
#endif

/// The covered region is made in arrays the arena keeps between regions, and the clear side sums
/// the clipped half's area as clipping emits its corners: the same regions, to the last bit, as
/// fresh arrays and a clipped copy give.
@Suite struct OcclusionScratchTests {
    /// A display, one to five contacts on it and a hand. Contacts near and beyond the edges too,
    /// so every edge gets clipped sometimes.
    static func randomHand(_ r: inout SeededRandom) -> (
        width: Double, height: Double, contacts: [PhysicalPoint], hand: Hand
    ) {
        let width = Double.random(in: 60...700, using: &r), height = Double.random(in: 40...400, using: &r)
        let contacts = (0..<Int.random(in: 1...5, using: &r)).map { _ in
            PhysicalPoint(
                x: Double.random(in: -20...(width + 20), using: &r),
                y: Double.random(in: -20...(height + 20), using: &r))
        }
        return (width, height, contacts, [Hand.left, .right, .unknown].randomElement(using: &r)!)
    }

    @Test func keptArraysGiveTheRegionsFreshArraysGive() {
        var r = SeededRandom(seed: 5)
        let model = HandOcclusionModel()
        var scratch = HandOcclusionModel.Scratch()
        var clippedSome = 0
        for _ in 0..<2000 {
            let (width, height, contacts, hand) = Self.randomHand(&r)
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
            #expect(
                onTheFly.bitPattern == HandOcclusionModel.area(half).bitPattern,
                "\(onTheFly) vs \(HandOcclusionModel.area(half))")
        }
        #expect(clippedSome > 500)
    }

    /// Every part of the model, built as the paper's shapes say and in no particular order: the
    /// palm polygon corner by corner around the circle, each finger's band, all four forearm corners.
    static func everyPart(
        of model: HandOcclusionModel, contacts: [PhysicalPoint], hand: Hand,
        width: Double, height: Double
    ) -> [PhysicalPoint] {
        let side: Double = hand == .right ? 1 : hand == .left ? -1 : 0
        let centroid = contacts.reduce(PhysicalPoint.zero, +) / Double(contacts.count)
        let direction =
            side == 0
            ? PhysicalPoint(x: 0, y: 1)
            : PhysicalPoint(x: side * cos(model.palmAngleRadians), y: sin(model.palmAngleRadians))
        let palm = centroid + direction * model.palmOffsetMm
        var points: [PhysicalPoint] = []
        let corners = max(model.circleCorners, 3)
        for i in 0..<corners {
            points.append(palm + HandOcclusionModel.unitCircleCorner(i, of: corners) * model.palmRadiusMm)
        }
        for c in contacts {
            let along = palm - c
            guard along.length > 1e-9 else { continue }
            let normal =
                PhysicalPoint(x: -along.y / along.length, y: along.x / along.length) * (model.fingerWidthMm / 2)
            points += [c + normal, c - normal]
        }
        let lean = side * model.forearmLeanRadians
        let down = PhysicalPoint(x: sin(lean), y: cos(lean))
        let reach = (width * width + height * height).squareRoot() + model.palmOffsetMm
        let across = PhysicalPoint(x: -down.y, y: down.x) * (model.forearmWidthMm / 2)
        let elbow = palm + down * reach
        points += [palm + across, palm - across, elbow + across, elbow - across]
        return points
    }

    /// The hull leaves out what cannot be a corner (the forearm's palm end inside the palm polygon)
    /// and feeds the palm's corners in sorted order: the same corners, to the last bit, as the hull
    /// of every part of the model. Also with a forearm wider than the palm and other polygons.
    @Test func theHullIsTheHullOfEveryPart() {
        var r = SeededRandom(seed: 9)
        var wide = HandOcclusionModel()
        wide.forearmWidthMm = 95
        var hexagon = HandOcclusionModel()
        hexagon.circleCorners = 6
        var square = HandOcclusionModel()
        square.circleCorners = 4
        square.forearmWidthMm = 62  // the square's inner radius is 31.8 mm: the forearm's end sticks out
        for model in [HandOcclusionModel(), wide, hexagon, square] {
            var mismatches = 0
            for _ in 0..<3000 {
                let (width, height, contacts, hand) = Self.randomHand(&r)
                let hull = model.hull(contactsMm: contacts, hand: hand, displayWidthMm: width, displayHeightMm: height)
                let reference = HandOcclusionModel.convexHull(
                    Self.everyPart(of: model, contacts: contacts, hand: hand, width: width, height: height))
                if hull != reference { mismatches += 1 }
            }
            #expect(mismatches == 0, "circle corners \(model.circleCorners), forearm \(model.forearmWidthMm) mm")
        }
    }
}
