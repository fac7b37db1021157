/// The form in which a subscriber receives gestures and touches (`subscribe`'s `form`,
/// docs/PROTOCOL.md "frame (compact form)"). Other messages are the same in both.
public enum WireForm: String, Codable, Hashable, Sendable, CaseIterable {
    /// Protocol 1's default: a `gesture` line per event and a `touches` line per frame.
    case full
    /// One `frame` line per device and time, carrying that moment's gesture events and changed
    /// touches without what the line or the device already says: no `type`, `device` or `time`
    /// per event, no mm twin of a normalised position, no stationary touch.
    case compact
}

// The compact form's pieces. The daemon writes each `frame` line whole, once per batch on the
// input thread: `{"type":"frame","device":…,"time":…` + `,"gestures":[` objects `]` +
// `,"touches":` array + `}\n`; a subscription that wants only some of a moment's gestures, or no
// touches, gets a line put together from those pieces.

extension GestureEvent {
    /// Appends this event's object for a compact `frame` line: the fields of its `gesture` line
    /// except `type`, `device` and `time` (the frame line's) and the mm twins of normalised
    /// positions (`centroidMm`, `translationMm`, `positionMm`, the region's `polygonMm`): the
    /// normalised value times the device's `widthMm`/`heightMm` gives them to within 0.1 mm (the
    /// region's corners, normalised to 3 decimals, to within a thousandth of the display's size).
    /// A `changed` object carries `hand`, `handConfidence`, `rightHandProbability` and `clearSide` only with `occlusion`:
    /// the region is sent again whenever the hand changes, and in between `clearSide` is the kept
    /// region's, so they are the ones last sent for the gesture.
    public func writeCompactObject(into bytes: inout [UInt8]) {
        withUnsafePointer(to: self) { Self.writeCompactObject(at: $0, into: &bytes) }
    }
}

extension GestureEventFields {
    /// Appends the compact object of the event at `e`, read where it lies (see
    /// ``writeLine(at:quotedDevice:into:)``). `package`: a pointer in, for the daemon and the tests.
    @inlinable @inline(__always) package static func writeCompactObject(
        at e: UnsafePointer<Self>, into bytes: inout [UInt8]
    ) {
        writeCompactObject(at: e, after: "", into: &bytes)
    }

    /// ``writeCompactObject(at:into:)`` after `prefix` (`,"gestures":[` or `,`), written in the
    /// same pass: appended on its own, each literal cost an array append of its own (~50
    /// instructions, a few a frame).
    /// `memo`: the numbers written lately (``JSONNumberMemo``).
    @inlinable @inline(__always) package static func writeCompactObject(
        at e: UnsafePointer<Self>, after prefix: StaticString,
        memo: JSONNumberMemo? = nil, into bytes: inout [UInt8]
    ) {
        let carriesHand = e.pointee.phase != .changed || Self.hasOcclusion(e)
        // The full line's bound covers the object: it has a subset of the line's fields.
        JSONWriter.append(
            to: &bytes, bound: prefix.utf8CodeUnitCount + lineBound(at: e, appendingTo: bytes), memo: memo
        ) { w in
            w.raw(prefix)
            w.field("{\"gesture\":", name: e.pointee.gesture.literal)
            w.field(",\"phase\":", name: e.pointee.phase.literal)
            w.field(",\"id\":", e.pointee.id)
            w.field(",\"centroid\":", Self.wireCentroid(e))
            if carriesHand {
                if let clearSide = e.pointee.clearSide { w.field(",\"clearSide\":", name: clearSide.literal) }
                if let hand = e.pointee.hand { w.field(",\"hand\":", name: hand.literal) }
                w.field(",\"handConfidence\":", e.pointee.handConfidence)
                w.field(",\"rightHandProbability\":", e.pointee.rightHandProbability)
            }
            if let direction = e.pointee.direction { w.field(",\"direction\":", name: direction.literal) }
            w.field(",\"duration\":", Self.wireDuration(e))
            if let edge = e.pointee.edge { w.field(",\"edge\":", name: edge.literal) }
            w.field(",\"fingers\":", e.pointee.fingers)
            w.field(",\"glideMm\":", Self.wireGlideMm(e))
            w.field(",\"glideRotation\":", Self.wireGlideRotation(e))
            w.field(",\"glideScale\":", Self.wireGlideScale(e))
            if Self.hasOcclusion(e) {
                w.raw(",\"occlusion\":{\"polygon\":")
                w.points(Self.occlusionCorners(e).polygon)
                w.occlusionSource(Self.occlusionSource(e))
                w.byte(UInt8(ascii: "}"))
            }
            writeFields(fromPositionOf: e, lineFields: false, into: &w)
            w.byte(UInt8(ascii: "}"))
        }
    }
}

extension TouchesMessage {
    /// Whether the frame has a touch that is not `stationary` (one the compact form sends).
    public var hasCompactTouches: Bool { touches.contains { !$0.isStationary } }

    /// Appends the frame's touches for a compact `frame` line: `[…]` with the touches that began,
    /// moved, ended or were cancelled (a stationary one is where the last frame that carried it
    /// said), each without `xMm`/`yMm` (`x`·`widthMm`, `y`·`heightMm` to within 0.1 mm).
    public func writeCompactTouches(into bytes: inout [UInt8]) {
        if !writeCompactTouches(after: "", into: &bytes) { bytes.append(contentsOf: "[]".utf8) }
    }

    /// ``writeCompactTouches(into:)`` after `prefix` (`,"touches":`), when the frame has a touch
    /// that is not stationary: then true; otherwise nothing is written (one pass finds out, where
    /// ``hasCompactTouches`` first was another).
    @discardableResult
    public func writeCompactTouches(after prefix: StaticString, memo: JSONNumberMemo? = nil, into bytes: inout [UInt8])
        -> Bool
    {
        // Read where they lie: iterated, each touch was copied (its two strings retained and
        // released, ~150 instructions a touch).
        touches.withUnsafeBufferPointer { touches in
            var bound = 2 + prefix.utf8CodeUnitCount
            var moving = 0
            for i in touches.indices where !touches[i].isStationary {
                bound += 1 + touches[i].maximumBytes
                moving += 1
            }
            guard moving > 0 else { return false }
            JSONWriter.append(to: &bytes, bound: bound, memo: memo) { w in
                w.raw(prefix)
                w.byte(UInt8(ascii: "["))
                var first = true
                for i in touches.indices where !touches[i].isStationary {
                    if !first { w.byte(UInt8(ascii: ",")) }
                    first = false
                    w.touch(at: touches.baseAddress! + i, mm: false)
                }
                w.byte(UInt8(ascii: "]"))
            }
            return true
        }
    }
}

extension TouchesMessage {
    /// Appends `,"hovers":[…]` for a compact `frame` line: every hovering contact of the frame,
    /// without `xMm`/`yMm`; true if it wrote them (false, and nothing written, when there are none).
    @discardableResult
    public func writeCompactHovers(memo: JSONNumberMemo? = nil, into bytes: inout [UInt8]) -> Bool {
        guard let hovers, !hovers.isEmpty else { return false }
        JSONWriter.append(to: &bytes, bound: hovers.maximumBytes, memo: memo) { w in w.hovers(hovers, mm: false) }
        return true
    }
}

extension WireTouch {
    /// `phase == "stationary"`, tried on the length first: the other phases are shorter, and a
    /// small string's length is read from its bits, where a comparison of two different strings
    /// takes the slow path.
    var isStationary: Bool { phase.utf8.count == 10 && phase == "stationary" }
}

/// Writes the opening of a compact `frame` line: `{"type":"frame","device":…,"time":…` (no
/// closing brace: the gestures and touches follow, then `}\n`).
public enum CompactFrameHeader {
    /// `quotedDevice`: the device id made once for many lines (used when it is `device`).
    /// `memo`: the numbers written lately (``JSONNumberMemo``).
    public static func write(
        device: String, quotedDevice: JSONQuotedString? = nil, time: Double, memo: JSONNumberMemo? = nil,
        into bytes: inout [UInt8]
    ) {
        JSONWriter.append(
            to: &bytes, bound: 40 + JSONWriter.maximumStringBytes(device) + JSONWriter.maximumNumberBytes, memo: memo
        ) { w in
            w.field("{\"type\":\"frame\",\"device\":", device, quoted: quotedDevice)
            w.field(",\"time\":", time)
        }
    }
}
