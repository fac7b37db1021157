import Foundation
import Testing

@testable import HandyProtocol

/// ``GestureKind/traits`` is the one table of the kinds: a new kind whose row is missing does not
/// compile, and one whose row does not match its case fails here instead of writing a wrong name
/// or setting a wrong bit.
@Suite struct GestureKindTableTests {
    @Test func eachRowMatchesItsCase() {
        for (position, kind) in GestureKind.allCases.enumerated() {
            #expect(
                kind.traits.index == position, "\(kind): index \(kind.traits.index), position in allCases \(position)")
            #expect(
                kind.traits.literal.description == kind.rawValue,
                "\(kind): literal \(kind.traits.literal), raw value \(kind.rawValue)")
        }
    }

    @Test func theEncoderWritesTheRawValue() throws {
        for kind in GestureKind.allCases {
            let event = GestureEvent(
                gesture: kind, phase: kind.traits.isDiscrete ? .recognized : .began, id: 1, time: 0, device: "d")
            let line = String(decoding: JSONLines.encode(event), as: UTF8.self)
            #expect(line.contains("\"gesture\":\"\(kind.rawValue)\""), "\(kind): \(line)")
        }
    }

    /// The JavaScript client's `GestureName` lists every kind (the client's types are its documentation).
    @Test func theJavaScriptTypesNameEveryKind() throws {
        let types = try VersionTests.read("clients/js/handyd.d.ts")
        let start = try #require(types.range(of: "export type GestureName ="))
        let end = try #require(types.range(of: ";", range: start.upperBound..<types.endIndex))
        let union = types[start.upperBound..<end.lowerBound]
        // `| "pinch" | "rotate" …`: the first bar leaves an empty item.
        let names = Set(
            union.split(separator: "|")
                .map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
                        in: CharacterSet(charactersIn: "\""))
                }
                .filter { !$0.isEmpty })
        #expect(names == Set(GestureKind.allCases.map(\.rawValue)))
    }
}
