import HandyProtocol
import Testing

@testable import HandyCore

/// A gesture kind is declared once (``GestureKind`` and its traits row) and recognised by one
/// recognizer of the arena's table: forgetting a part of a new kind fails here rather than
/// silently never reporting it, or setting another kind's bit.
@Suite struct GestureKindCompletenessTests {
    @Test func everyKindHasExactlyOneRecognizerInTheArenaOfItsLayer() {
        let arena = GestureArena(deviceID: "test", geometry: TestScreen.geometry)
        let recognized = arena.recognizedKinds
        for kind in GestureKind.allCases {
            let entries = recognized.filter { $0.kind == kind }
            #expect(entries.count == 1, "\(kind): \(entries.count) recognizers in the arena's table")
            if let entry = entries.first {
                #expect(
                    entry.perTouchRecognizer == kind.traits.isPerTouch,
                    "\(kind): traits say per touch \(kind.traits.isPerTouch), its recognizer \(entry.perTouchRecognizer)"
                )
            }
        }
    }

    /// The masks the arena and the policy keep the kinds in have room for every kind.
    @Test func theMasksOfKindsHoldEveryKind() {
        let kinds = GestureKind.allCases.count
        #expect(kinds <= 32, "ArenaContext.startedKinds is a UInt32: \(kinds) kinds")
        #expect(kinds * kinds <= 128, "GesturePolicy keeps pairs in 128 bits: \(kinds) kinds need \(kinds * kinds)")
        #expect(ArenaContext.bit(GestureKind.allCases.last!) == 1 << UInt32(kinds - 1))
    }

    /// The policy pairs exactly the kinds that are not per touch, and a pair set on one kind is
    /// read back on that kind only.
    @Test func thePolicyRowsAreTheKindsOfTheWholeHand() {
        #expect(GesturePolicy.pairableKinds == GestureKind.allCases.filter { !$0.traits.isPerTouch })
        for a in GesturePolicy.pairableKinds {
            for b in GesturePolicy.pairableKinds where a != b {
                let policy = GesturePolicy(simultaneous: [GesturePair(a, b)])
                for x in GestureKind.allCases {
                    for y in GestureKind.allCases where x != y {
                        let expected = (x == a && y == b) || (x == b && y == a)
                        #expect(policy.allows(x, with: y) == expected, "pair \(a)+\(b): \(x) with \(y)")
                    }
                }
            }
        }
    }
}
