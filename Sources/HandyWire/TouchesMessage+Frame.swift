import HandyCore
import HandyProtocol

// The core's output in the wire's shapes: a ``TouchFrame`` as the `touches` message. The core
// makes frames in its own units; this module, at the edge, is where they become what a client
// reads (the daemon's encoder, `handyctl replay`, the bench and the fuzzers call it).

extension TouchFrame {
    /// The wire form of this frame (`{"type":"touches",...}`).
    public func wireMessage(device: String) -> TouchesMessage {
        var touches: [WireTouch] = []
        return wireMessage(device: device, reusing: &touches)
    }

    /// The wire form of this frame, its touches made in `scratch` (whatever it held is replaced): a caller that
    /// encodes frame after frame keeps one array instead of allocating one per frame.
    public func wireMessage(device: String, reusing scratch: inout [WireTouch]) -> TouchesMessage {
        // Overwritten in place, then trimmed: emptying it first would pay the generic
        // `removeAll(keepingCapacity:)` every frame before as many touches come back.
        var n = 0
        for t in touches {
            if n < scratch.count { scratch[n] = t.wireTouch } else { scratch.append(t.wireTouch) }
            n += 1
        }
        if scratch.count > n { scratch.removeLast(scratch.count - n) }
        return TouchesMessage(time: time.seconds, device: device, touches: scratch)
    }
}

extension Touch {
    public var wireTouch: WireTouch {
        // Rounded inline (`inlineRounded`): a libm call per value is a large share of a touch.
        @inline(__always) get {
            WireTouch(
                id: id, phase: phase.rawValue, tool: tool.rawValue,
                x: inlineRounded(normalized.x, 100_000), y: inlineRounded(normalized.y, 100_000),
                xMm: inlineRounded(mm.x, 100), yMm: inlineRounded(mm.y, 100),
                majorMm: majorMm.map { inlineRounded($0, 100) }, minorMm: minorMm.map { inlineRounded($0, 100) },
                orientation: orientation.map { inlineRounded($0, 10_000) },
                pressure: pressure.map { inlineRounded($0, 10_000) },
                vxMm: inlineRounded(velocity.x, 10), vyMm: inlineRounded(velocity.y, 10))
        }
    }
}

extension HoverContact {
    /// The wire form of this hovering contact (`xMm`/`yMm` kept; the compact form leaves them out).
    public var wireHover: WireHover {
        WireHover(
            id: id, phase: phase.rawValue,
            x: inlineRounded(normalized.x, 100_000), y: inlineRounded(normalized.y, 100_000),
            xMm: inlineRounded(mm.x, 100), yMm: inlineRounded(mm.y, 100), distance: Int(distance),
            distanceNormalized: inlineRounded(distanceNormalized, 10_000), touch: touchID)
    }
}

extension FrameHovering {
    /// The wire form of these hovering contacts.
    public var wireHovers: [WireHover] { contacts.map(\.wireHover) }
}
