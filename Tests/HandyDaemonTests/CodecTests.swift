@testable import HandyDaemon
import HandyProtocol
import Testing

struct LineSplitterTests {
    @Test func splitsLinesAcrossChunksAndDropsCR() throws {
        var s = LineSplitter()
        #expect(try s.append(Array("{\"a\":".utf8)).isEmpty)
        let lines = try s.append(Array("1}\r\n{}\nx".utf8))
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["{\"a\":1}", "{}"])
        #expect(s.pending == Array("x".utf8))
    }

    @Test func refusesALineOverTheLimitBeforeItsNewline() {
        var s = LineSplitter(maximumLineLength: 8)
        #expect(throws: ProtocolError.self) { try s.append(Array("123456789".utf8)) }
        var t = LineSplitter(maximumLineLength: 8)
        #expect((try? t.append(Array("12345678\n".utf8)))?.count == 1, "exactly the limit is fine")
    }
}

struct SubscriptionTests {
    @Test func defaultIsAllGesturesNoTouches() {
        let s = Subscription()
        #expect(s.wants(gesture: .pinch, device: "event5"))
        #expect(!s.wantsTouches(device: "event5"))
    }

    @Test func absentFieldsKeepTheirValue() {
        var s = Subscription()
        s.apply(SubscribeRequest(gestures: ["pinch"], touches: true))
        s.apply(SubscribeRequest(devices: ["event5"]))
        #expect(s.gestures == ["pinch"])
        #expect(s.touches)
        #expect(s.wants(gesture: .pinch, device: "event5"))
        #expect(!s.wants(gesture: .rotate, device: "event5"))
        #expect(!s.wants(gesture: .pinch, device: "event6"))
        #expect(!s.wantsTouches(device: "event6"))
        s.apply(SubscribeRequest(gestures: []))
        #expect(!s.wants(gesture: .pinch, device: "event5"))
    }

    @Test func decodingIgnoresUnknownFieldsAndRejectsWrongTypes() throws {
        let ok = try JSONLines.decodeClientMessage(Array(#"{"type":"subscribe","touches":true,"x":[1]}"#.utf8))
        #expect(ok == .subscribe(SubscribeRequest(touches: true)))
        #expect(throws: ProtocolError.self) { try JSONLines.decodeClientMessage(Array(#"{"type":"subscribe","touches":"yes"}"#.utf8)) }
        #expect(throws: ProtocolError.self) { try JSONLines.decodeClientMessage(Array(#"{"type":"dance"}"#.utf8)) }
    }
}
