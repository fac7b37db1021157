import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

/// The compact form (docs/PROTOCOL.md "frame (compact form)") against the full form, both from one real
/// daemon replaying the demo recording: what the compact lines leave out is only what the line,
/// the device or a full form's twin field already says.
@Suite(.serialized)
struct CompactFormTests {
    typealias Object = [String: Any]

    /// With two event loops the full and the compact clients sit on different loops (NIO places
    /// each accepted client on the next loop): the batch is encoded in every form some loop needs.
    @Test(arguments: [1, 2])
    func theCompactFormCarriesWhatTheFullFormDoes(eventLoops: Int) throws {
        let demo = packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let expected = try ExpectedOutput(recordingPath: demo)
        let daemon = try DaemonProcess(arguments: [
            "--replay", demo, "--speed", "4", "--wait-clients", "4",
            "--event-loops", "\(eventLoops)",
        ])
        let full = try LineClient(socketPath: daemon.socketPath)
        let compact = try LineClient(socketPath: daemon.socketPath)
        let pinches = try LineClient(socketPath: daemon.socketPath)
        let gesturesOnly = try LineClient(socketPath: daemon.socketPath)
        var size = (width: 0.0, height: 0.0)
        for client in [full, compact, pinches, gesturesOnly] {
            guard case .hello(let hello) = try client.readMessage(), let device = hello.devices.first,
                let width = device.widthMm, let height = device.heightMm
            else { Issue.record("no hello with a display size"); return }
            size = (width, height)
        }

        // A form this daemon does not know: an error, and the rest of the request applies (the
        // touches come, in the full form).
        try compact.send(#"{"type":"subscribe","form":"binary","touches":true}"# + "\n")
        let refusal = try #require(try compact.readLine()).data(using: .utf8)!
        let error = try #require(try JSONSerialization.jsonObject(with: refusal) as? Object)
        #expect(error["type"] as? String == "error")
        #expect(error["code"] as? String == ServerErrorCode.unknownForm.rawValue)
        try compact.send(#"{"type":"subscribe","form":"compact"}"# + "\n")
        // Its change of form applied before the others subscribe: the last of the four starts the
        // replay, and with several event loops the clients' requests are handled in parallel, so
        // a change still on its way could meet the first frames (they would come in the full form,
        // docs/PROTOCOL.md). The status reply comes after the change.
        try compact.send(#"{"type":"status"}"# + "\n")
        guard case .status? = try compact.readMessage() else { Issue.record("no status reply"); return }
        try pinches.send(#"{"type":"subscribe","form":"compact","gestures":["pinch"]}"# + "\n")
        try gesturesOnly.send(#"{"type":"subscribe","form":"compact"}"# + "\n")
        try full.send(#"{"type":"subscribe","touches":true}"# + "\n")

        // The full client reads the whole replay; what the others got before a status reply that
        // counts all of it is then the whole replay too (a status reply comes after everything
        // published before).
        var fullGestures: [Object] = []
        var fullTouches: [Object] = []
        while fullGestures.count < expected.gestures.count || fullTouches.count < expected.touches.count {
            let line = try #require(try full.readLine(), "the full client was disconnected")
            let object = try Self.object(line)
            switch object["type"] as? String {
            case "gesture": fullGestures.append(object)
            case "touches": fullTouches.append(object)
            default: Issue.record("unexpected line \(line)")
            }
        }
        #expect(
            fullGestures.contains { $0["occlusion"] != nil } && fullTouches.count > 100,
            "the demo has regions and many frames")

        let published = (events: fullGestures.count, frames: fullTouches.count)
        let compactLines = try Self.linesUntilStatus(compact, published: published)
        let pinchLines = try Self.linesUntilStatus(pinches, published: published)
        let gestureLines = try Self.linesUntilStatus(gesturesOnly, published: published)

        // Flattened: every gesture object with its line's device and time; touches per line.
        var compactGestures: [Object] = []
        var compactTouches: [(time: Double, touches: [Object])] = []
        for line in compactLines {
            #expect(line["type"] as? String == "frame")
            #expect(line["gestures"] != nil || line["touches"] != nil, "a frame line carries something")
            let time = try #require(line["time"] as? Double)
            for var g in Self.gestures(line) {
                #expect(g["device"] == nil && g["time"] == nil && g["type"] == nil)
                g["device"] = line["device"]
                g["time"] = line["time"]
                compactGestures.append(g)
            }
            if let touches = line["touches"] as? [Object] { compactTouches.append((time, touches)) }
        }

        // Gestures: the same events in the same order, each the full line minus its mm twins, and
        // a `changed` one without a region also minus the hand, which is the one last sent.
        #expect(compactGestures.count == fullGestures.count)
        var lastHand: [Int: [String: Any]] = [:]
        var handsLeftOut = 0
        for (c, f) in zip(compactGestures, fullGestures) {
            var f = f
            f["type"] = nil
            let handFields = ["hand", "handConfidence", "rightHandProbability", "clearSide"]
            let id = f["id"] as? Int ?? -1
            if f["phase"] as? String == "changed" && f["occlusion"] == nil {
                let sent = try #require(lastHand[id], "a changed event before any hand was sent for \(id)")
                #expect(
                    NSDictionary(dictionary: f.filter { handFields.contains($0.key) }).isEqual(to: sent),
                    "the hand held for gesture \(id) is not the full line's: \(f)")
                for k in handFields { f[k] = nil }
                handsLeftOut += 1
            } else {
                lastHand[id] = f.filter { handFields.contains($0.key) }
            }
            for (normalised, mm) in [
                ("centroid", "centroidMm"), ("translation", "translationMm"), ("position", "positionMm"),
            ] {
                try Self.expectTwins(c[normalised], f[mm], size: size, toleranceMm: 0.1)
                f[mm] = nil
            }
            if var region = f["occlusion"] as? Object {
                let corners = try #require(c["occlusion"] as? Object)["polygon"] as? [Any] ?? []
                let cornersMm = (region["polygonMm"] as? [Any]) ?? []
                #expect(corners.count == cornersMm.count && corners.count >= 3)
                for (n, mm) in zip(corners, cornersMm) {
                    try Self.expectTwins(n, mm, size: size, toleranceMm: 0.1 + 0.001 * max(size.width, size.height))
                }
                region["polygonMm"] = nil
                f["occlusion"] = region
            }
            #expect(NSDictionary(dictionary: c).isEqual(to: f), "compact \(c) against full \(f)")
        }

        #expect(handsLeftOut > 100, "the demo has changed events between regions")

        // Touches: each full frame's touches that are not stationary, without xMm/yMm, at its time.
        let fullChanged = fullTouches.map { line in
            (
                time: line["time"] as? Double ?? .nan,
                touches: ((line["touches"] as? [Object]) ?? []).filter { $0["phase"] as? String != "stationary" }
            )
        }
        #expect(
            fullChanged.contains { c in
                (fullTouches.first { $0["time"] as? Double == c.time }?["touches"] as? [Any])?.count ?? 0
                    > c.touches.count
            },
            "the demo has stationary touches for the compact form to leave out")
        #expect(compactTouches.count == fullChanged.count)
        for (c, f) in zip(compactTouches, fullChanged) {
            #expect(c.time == f.time)
            #expect(c.touches.count == f.touches.count)
            for (ct, ft) in zip(c.touches, f.touches) {
                var ft = ft
                try Self.expectTwins(
                    ["x": ct["x"] as Any, "y": ct["y"] as Any], ["x": ft["xMm"] as Any, "y": ft["yMm"] as Any],
                    size: size, toleranceMm: 0.1)
                ft["xMm"] = nil
                ft["yMm"] = nil
                #expect(NSDictionary(dictionary: ct).isEqual(to: ft), "compact \(ct) against full \(ft)")
            }
        }

        // Without touches: the same gesture objects, and no line for a moment without a gesture.
        #expect(gestureLines.allSatisfy { $0["touches"] == nil && ($0["gestures"] as? [Any])?.isEmpty == false })
        #expect(
            NSArray(array: gestureLines.flatMap(Self.gestures))
                .isEqual(to: compactLines.flatMap(Self.gestures)))

        // A filter applies inside a frame line: only pinch objects, and no line without one.
        let pinchObjects = pinchLines.flatMap(Self.gestures)
        #expect(pinchLines.allSatisfy { $0["touches"] == nil && ($0["gestures"] as? [Any])?.isEmpty == false })
        #expect(
            pinchObjects.map { $0["id"] as? Int }
                == fullGestures.filter { $0["gesture"] as? String == "pinch" }.map { $0["id"] as? Int })
        #expect(pinchObjects.count > 4 && pinchObjects.allSatisfy { $0["gesture"] as? String == "pinch" })

        if eventLoops > 1 {
            // The full and the compact client on different loops, from the daemon's log, or this
            // did not test one batch made for both: the compact client's subscription is the only
            // one with touches in the compact form; the full client's is the last in the full form.
            func loop(_ line: Substring) -> Int? {
                line.range(of: "client.eventLoop=").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
            }
            let subscribed = daemon.log.split(separator: "\n").filter { $0.contains("] subscribed") }
            let compactLoop = subscribed.first { $0.contains("touches: true, form: HandyProtocol.WireForm.compact") }
                .flatMap(loop)
            let fullLoop = subscribed.last { $0.contains("WireForm.full") }.flatMap(loop)
            #expect(
                compactLoop != nil && fullLoop != nil && compactLoop != fullLoop,
                "compact client on loop \(String(describing: compactLoop)), full on \(String(describing: fullLoop))")
        }
    }

    /// A frame line's gesture objects.
    static func gestures(_ line: Object) -> [Object] { (line["gestures"] as? [Object]) ?? [] }

    static func object(_ line: String) throws -> Object {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? Object, "not an object: \(line)")
    }

    /// The lines before the reply to a `status` request sent now (the reply itself dropped).
    /// Everything `client` gets before a status reply that counts `published` events and frames:
    /// with several event loops each publishes on its own, so the full client having read the
    /// whole replay on one loop does not mean another loop has published all of it yet.
    static func linesUntilStatus(_ client: LineClient, published: (events: Int, frames: Int)) throws -> [Object] {
        var lines: [Object] = []
        for _ in 0..<500 {
            try client.send(#"{"type":"status"}"# + "\n")
            while true {
                let line = try #require(try client.readLine(), "disconnected before the status reply")
                let object = try object(line)
                guard object["type"] as? String == "status" else {
                    lines.append(object)
                    continue
                }
                if (object["events"] as? Int ?? 0) >= published.events
                    && (object["frames"] as? Int ?? 0) >= published.frames
                {
                    return lines
                }
                break
            }
            usleep(20_000)
        }
        Issue.record("the status never counted \(published)")
        return lines
    }

    /// A normalised point times the display size is its mm twin, within `toleranceMm`; both
    /// absent is fine, one without the other is not.
    static func expectTwins(_ normalised: Any?, _ mm: Any?, size: (width: Double, height: Double), toleranceMm: Double)
        throws
    {
        guard normalised != nil || mm != nil else { return }
        let n = try #require(normalised as? Object, "normalised point missing beside \(String(describing: mm))")
        let m = try #require(mm as? Object, "mm twin missing beside \(n)")
        let (nx, ny, mx, my) = (
            n["x"] as? Double ?? .nan, n["y"] as? Double ?? .nan, m["x"] as? Double ?? .nan, m["y"] as? Double ?? .nan
        )
        #expect(
            abs(nx * size.width - mx) <= toleranceMm && abs(ny * size.height - my) <= toleranceMm,
            "\(n) × \(size) against \(m)")
    }
}
