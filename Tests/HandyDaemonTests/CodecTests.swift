import Foundation
import HandyProtocol
import Testing

@testable import HandyDaemon

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
        // The limit excludes the line end: CRLF after exactly the limit is fine too, a byte more is not.
        var crlf = LineSplitter(maximumLineLength: 8)
        #expect(
            (try? crlf.append(Array("12345678\r\n".utf8)))?.map { String(decoding: $0, as: UTF8.self) } == ["12345678"])
        var over = LineSplitter(maximumLineLength: 8)
        #expect(throws: ProtocolError.self) { try over.append(Array("12345678\rx".utf8)) }
    }

    /// Found probing the daemon as a hostile client (2026-11-27): `null` is JSON, so not
    /// `invalid-json`; a subscribe naming 8,000 gestures cost the shared event loop 68 ms a line.
    @Test func nullIsAnInvalidMessageAndNameListsAreBounded() {
        func code(_ text: String) -> String? {
            do { _ = try JSONLines.decodeClientMessage(Array(text.utf8)); return nil } catch {
                return error.code.rawValue
            }
        }
        #expect(code("null") == "invalid-message")
        #expect(code("[]") == "invalid-message")
        #expect(code("nul") == "invalid-json")
        let names = (0...JSONLines.maximumSubscribeNames).map { "\"g\($0)\"" }
        #expect(code(#"{"type":"subscribe","gestures":["# + names.joined(separator: ",") + "]}") == "invalid-message")
        #expect(
            code(#"{"type":"subscribe","devices":["# + names.dropFirst().joined(separator: ",") + "]}") == nil,
            "256 names are fine")
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

    @Test func aDeviceFilterNamesTheStableIdOrTheKernelNode() {
        var s = Subscription()
        s.apply(SubscribeRequest(devices: ["event5"]))
        // Filters written for the node (protocol 1 before the stable id) keep working.
        #expect(s.wants(gesture: .pinch, device: "elan@pci-0000:00:14.0-usb-0:2:1.0", node: "event5"))
        #expect(!s.wants(gesture: .pinch, device: "elan@pci-0000:00:14.0-usb-0:2:1.0", node: "event6"))
        #expect(!s.wants(gesture: .pinch, device: "elan@pci-0000:00:14.0-usb-0:2:1.0"))
        s.apply(SubscribeRequest(devices: ["elan@pci-0000:00:14.0-usb-0:2:1.0"], touches: true))
        #expect(s.wantsTouches(device: "elan@pci-0000:00:14.0-usb-0:2:1.0", node: "event9"))
        #expect(!s.wantsTouches(device: "other@virtual", node: "event5"))
        let info = DeviceInfo(id: "elan@pci-0000:00:14.0-usb-0:2:1.0", name: "ELAN", node: "event5")
        #expect(info.matches(filter: "event5") && info.matches(filter: info.id) && !info.matches(filter: "event6"))
        #expect(!DeviceInfo(id: "replay:x", name: "x").matches(filter: "event5"))
    }

    @Test func newDeviceFieldsAreAdditive() throws {
        // An old daemon's device (no node/readable) decodes, and counts as readable.
        let old = try JSONLines.decodeServerMessage(
            Array(#"{"type":"device","event":"added","device":{"id":"event5","name":"T"}}"#.utf8))
        guard case .device(let m) = old else { Issue.record("not a device message"); return }
        #expect(m.device.isReadable && m.device.node == nil)
        // A readable device's line carries no readable/reason/fix keys.
        let line = String(
            decoding: JSONLines.encode(
                .device(DeviceMessage(event: .added, device: DeviceInfo(id: "a@virtual", name: "A", node: "event3")))),
            as: UTF8.self)
        #expect(line.contains(#""node":"event3""#))
        #expect(!line.contains("readable") && !line.contains("reason") && !line.contains("fix"))
        let status = String(
            decoding: JSONLines.encode(.status(StatusMessage(clients: 1, devices: 1, frames: 0, events: 0, drops: 0))),
            as: UTF8.self)
        #expect(!status.contains("unreadable"))
    }

    /// `rightHandProbability` goes out and comes back (full line, Foundation's decoder), is left
    /// out when nil, and the compact object carries it beside the hand (not on a `changed` object
    /// without a region, which leaves the hand out).
    @Test func rightHandProbabilityRoundTrips() throws {
        var g = GestureEvent(gesture: .pinch, phase: .began, id: 3, time: 1.5, device: "d")
        g.hand = .unknown; g.handConfidence = 0; g.clearSide = .unknown; g.rightHandProbability = 0.537
        let line = JSONLines.encode(.gesture(g))
        #expect(
            String(decoding: line, as: UTF8.self).contains(
                #""handConfidence":0,"id":3,"phase":"began","rightHandProbability":0.537"#))
        #expect(try JSONLines.decodeServerMessage(Array(line.dropLast())) == .gesture(g))
        for p in [0.0, 1, 0.001, 0.999] {
            g.rightHandProbability = p
            #expect(try JSONLines.decodeServerMessage(Array(JSONLines.encode(.gesture(g)).dropLast())) == .gesture(g))
        }
        g.rightHandProbability = nil
        #expect(!String(decoding: JSONLines.encode(.gesture(g)), as: UTF8.self).contains("rightHandProbability"))
        // An older daemon's line (no field) decodes with nil.
        let old = try JSONLines.decodeServerMessage(
            Array(
                #"{"type":"gesture","gesture":"pinch","phase":"began","id":1,"time":0,"device":"d","hand":"left","handConfidence":0.9}"#
                    .utf8))
        guard case .gesture(let o) = old else { Issue.record("not a gesture"); return }
        #expect(o.rightHandProbability == nil && o.hand == .left)

        g.rightHandProbability = 0.25
        var compact: [UInt8] = []
        g.writeCompactObject(into: &compact)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(compact)) as? [String: Any])
        #expect(object["rightHandProbability"] as? Double == 0.25 && object["handConfidence"] as? Double == 0)
        g.phase = .changed
        var changed: [UInt8] = []
        g.writeCompactObject(into: &changed)
        let held = try #require(try JSONSerialization.jsonObject(with: Data(changed)) as? [String: Any])
        #expect(held["rightHandProbability"] == nil && held["hand"] == nil)
        g.occlusion = Occlusion(polygon: [WirePoint(x: 0, y: 0)], polygonMm: [WirePoint(x: 0, y: 0)])
        var withRegion: [UInt8] = []
        g.writeCompactObject(into: &withRegion)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(withRegion)) as? [String: Any])
        #expect(sent["rightHandProbability"] as? Double == 0.25 && sent["hand"] as? String == "unknown")
    }

    @Test func decodingIgnoresUnknownFieldsAndRejectsWrongTypes() throws {
        let ok = try JSONLines.decodeClientMessage(Array(#"{"type":"subscribe","touches":true,"x":[1]}"#.utf8))
        #expect(ok == .subscribe(SubscribeRequest(touches: true)))
        #expect(throws: ProtocolError.self) {
            try JSONLines.decodeClientMessage(Array(#"{"type":"subscribe","touches":"yes"}"#.utf8))
        }
        #expect(throws: ProtocolError.self) { try JSONLines.decodeClientMessage(Array(#"{"type":"dance"}"#.utf8)) }
    }
}
