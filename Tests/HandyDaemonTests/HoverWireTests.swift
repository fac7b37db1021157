import Foundation
import HandyClient
import HandyProtocol
import HandyTestSupport
import Testing

/// Hovering contacts on the wire (issue 55, item 2): a subscriber with `"hover":true` gets them
/// in its touches frames (full and compact form); every other subscriber gets the bytes it got
/// before hover existed.
@Suite(.serialized)
struct HoverWireTests {
    static func recording() throws -> String { try writeHoverRecording() }

    /// The lines a client received after hello, up to its status reply (asked once `ready`).
    static func linesUntilStatus(_ client: LineClient) throws -> [String] {
        try client.send(#"{"type":"status"}"# + "\n")
        var lines: [String] = []
        while let line = try client.readLine() {
            if line.hasPrefix(#"{"type":"status""#) { return lines }
            lines.append(line)
        }
        Issue.record("no status reply after \(lines.count) lines")
        return lines
    }

    /// Runs the recording with these subscriptions (one client each) and returns each client's
    /// lines after hello: the first client's until it has as many messages as a touches
    /// subscriber expects, then everyone's until their status reply.
    static func run(_ recording: String, properties: [String], subscriptions: [String]) throws -> [[String]] {
        let expected = try ExpectedOutput(recordingPath: recording)
        let daemon = try DaemonProcess(
            arguments: ["--replay", recording, "--wait-clients", "\(subscriptions.count)"]
                + properties.flatMap { ["--device-property", $0] })
        let clients = try subscriptions.map { _ in try LineClient(socketPath: daemon.socketPath) }
        for (client, subscription) in zip(clients, subscriptions) {
            guard case .hello? = try client.readMessage() else { throw HarnessError("no hello") }
            try client.send(subscription + "\n")
        }
        // The first subscriber wants every touches frame: once it has them all, the replay is done.
        var first: [String] = []
        while first.count < expected.sequence.count, let line = try clients[0].readLine() { first.append(line) }
        var all = [first + (try linesUntilStatus(clients[0]))]
        for client in clients.dropFirst() { all.append(try linesUntilStatus(client)) }
        #expect(!daemon.log.contains("handyd bug"))
        return all
    }

    /// `line` without its gestures' `occlusion` and `clearSide` (full or compact form), keys
    /// sorted; a line without a region as it is.
    static func withoutRegions(_ line: String) -> String {
        guard line.contains("\"occlusion\""),
            var object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return line }
        func strip(_ g: [String: Any]) -> [String: Any] {
            var g = g
            g["occlusion"] = nil
            g["clearSide"] = nil
            return g
        }
        if let gestures = object["gestures"] as? [[String: Any]] { object["gestures"] = gestures.map(strip) }
        object = strip(object)
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeTouches(_ line: String) throws -> TouchesMessage? {
        guard case .touches(let m) = try JSONLines.decodeServerMessage(Data(line.utf8)) else { return nil }
        return m
    }

    static let plain = #"{"type":"subscribe","touches":true}"#
    static let plainCompact = #"{"type":"subscribe","touches":true,"form":"compact"}"#
    static let hover = #"{"type":"subscribe","touches":true,"hover":true}"#
    static let hoverCompact = #"{"type":"subscribe","touches":true,"hover":true,"form":"compact"}"#
    static let hoverOnly = #"{"type":"subscribe","hover":true}"#

    /// Hover (`id:phase`, `touch` when landed) per frame with hovering contacts, as the recording
    /// holds them: slot 0 lands at 20 ms and rises again at 40 ms (a new hover, id 0 free again).
    static let hoverPhases = [
        ["0:began", "1:began"], ["0:hovering", "1:hovering"], ["0:landed>0", "1:hovering"], ["1:hovering"],
        ["0:began", "1:hovering"], ["0:ended", "1:hovering"], ["1:ended"],
    ]

    static func phases(_ hovers: [WireHover]) -> [String] {
        hovers.map { "\($0.id):\($0.phase)" + ($0.touch.map { ">\($0)" } ?? "") }
    }

    @Test func othersGetTheBytesTheyGotWithoutHoverAndAHoverSubscriberGetsTheHoveringContacts() throws {
        let recording = try Self.recording()
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let on = try Self.run(
            recording, properties: [],
            subscriptions: [
                Self.plain, Self.plainCompact, Self.hover, Self.hoverCompact, Self.hoverOnly,
                #"{"type":"subscribe"}"#,
            ])
        let off = try Self.run(
            recording, properties: ["HANDYD_HOVER=0"],
            subscriptions: [Self.plain, Self.plainCompact, #"{"type":"subscribe"}"#])
        // Byte-identical for everyone who did not ask, full and compact, with touches and without
        // (`hover` alone asks for nothing: hovering contacts come in touches frames).
        // The gestures' covered regions are everyone's, and may come from the hover (item 3,
        // HoverOcclusionTests): they, and the clear side read from them, are set aside; every
        // other byte, the touches lines whole, is the same.
        for (mine, before) in [(on[0], off[0]), (on[1], off[1]), (on[4], off[2]), (on[5], off[2])] {
            let a = mine.map(Self.withoutRegions), b = before.map(Self.withoutRegions)
            #expect(a == b, "\(zip(a, b).filter { $0 != $1 }.prefix(2))")
            #expect(mine.filter { !$0.contains("occlusion") } == before.filter { !$0.contains("occlusion") })
        }
        #expect(on[0].contains { $0.contains(#""source":"hover""#) }, "the recording has a gesture beside a hover")
        #expect(on[0].contains { $0.contains(#""phase":"began""#) } && !on[0].contains { $0.contains("hovers") })
        #expect(!on[1].contains { $0.contains("hovers") })

        // Full form: a line per frame with hovering contacts, in the recording's order.
        let full = try on[2].compactMap(Self.decodeTouches)
        let hoverLines = full.compactMap(\.hovers)
        #expect(hoverLines.map(Self.phases) == Self.hoverPhases)
        #expect(hoverLines.joined().allSatisfy { $0.xMm != nil && $0.distance >= 0 && $0.distance <= 1 })
        let first = hoverLines.first ?? []
        #expect(first.first?.distance == 1 && first.first?.distanceNormalized == 1)
        #expect((first.first?.x ?? 0) < (first.last?.x ?? 0), "slot 0 at x 200, slot 1 at x 600")
        // The landed hover's touch begins in that frame, where the hover was; a hover is never a touch.
        let landed = try #require(full.first { $0.hovers?.contains { $0.phase == "landed" } ?? false })
        #expect(landed.touches.map(\.phase) == ["began"])
        #expect(landed.touches.first?.x == landed.hovers?.first?.x && landed.touches.first?.x != first.first?.x)
        #expect(
            full.flatMap(\.touches).count == on[0].compactMap { try? Self.decodeTouches($0) }.flatMap(\.touches).count)
        // Without the hover lines of frames no touch changed in, and their hovers, it is the
        // plain subscriber's stream.
        let stripped = try on[2].compactMap { line -> String? in
            guard var m = try Self.decodeTouches(line) else { return line }
            guard m.touches.contains(where: { $0.phase != "stationary" }) else { return nil }
            m.hovers = nil
            return String(decoding: JSONLines.encode(.touches(m)), as: UTF8.self)
        }
        #expect(stripped.map { $0.trimmingCharacters(in: .newlines) } == on[0])

        // Compact form: the same hovering contacts, without mm.
        let compact = on[3].compactMap { line -> [WireHover]? in
            guard let data = line.data(using: .utf8),
                let frame = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let hovers = frame["hovers"] as? [[String: Any]]
            else { return nil }
            return hovers.map {
                WireHover(
                    id: $0["id"] as? Int ?? -1, phase: $0["phase"] as? String ?? "",
                    x: ($0["x"] as? NSNumber)?.doubleValue ?? -1, y: ($0["y"] as? NSNumber)?.doubleValue ?? -1,
                    xMm: ($0["xMm"] as? NSNumber)?.doubleValue, yMm: nil,
                    distance: $0["distance"] as? Int ?? -1,
                    distanceNormalized: ($0["distanceNormalized"] as? NSNumber)?.doubleValue ?? -1,
                    touch: $0["touch"] as? Int)
            }
        }
        #expect(compact.map(Self.phases) == Self.hoverPhases)
        #expect(compact.joined().allSatisfy { $0.xMm == nil && $0.x >= 0 && $0.distanceNormalized >= 0 })
    }

    /// HandyClient asks for hover with its ``SubscribeRequest`` and gets the hovering contacts in
    /// its ``TouchesMessage``s.
    @Test func handyClientReceivesTheHoveringContacts() async throws {
        let recording = try Self.recording()
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let daemon = try DaemonProcess(arguments: ["--replay", recording, "--wait-clients", "1"])
        let client = HandyClient(
            socketPath: daemon.socketPath, subscription: SubscribeRequest(touches: true, hover: true), reconnect: nil)
        let stream = client.messages()
        let count = Self.hoverPhases.count
        let consumer = Task { () throws -> (hovers: [[WireHover]], touchIDs: Set<Int>) in
            var hovers: [[WireHover]] = []
            var touchIDs: Set<Int> = []
            for try await message in stream {
                guard case .touches(let m) = message else { continue }
                if let h = m.hovers { hovers.append(h) }
                touchIDs.formUnion(m.touches.map(\.id))
                if hovers.count == count { break }
            }
            return (hovers, touchIDs)
        }
        // The deadline: a stream that stops short is cancelled, and the test fails on what came.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            consumer.cancel()
        }
        let (hovers, touchIDs) = try await consumer.value
        watchdog.cancel()
        #expect(hovers.map(Self.phases) == Self.hoverPhases)
        #expect(touchIDs == [0], "the landed hover and the tap are touch 0; the hover that never landed is none")
    }
}
