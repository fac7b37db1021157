import HandyCore
import HandyProtocol

// The core's gesture events as the wire carries them. The recognizers make their events
// unrounded, in core units (``CoreGestureEvent``); here, at the edge, is the one table of the
// wire's precision per field (docs/PROTOCOL.md). The daemon's writers read a core event through it
// (``GestureEventFields``) without making a `GestureEvent` of it; `handyctl replay`, the plots and
// the tests make one (``GestureEvent/init(_:)``).

extension CoreGestureEvent: GestureEventFields {
    @inlinable package static func wireTime(_ e: UnsafePointer<Self>) -> Double { e.pointee.time.seconds }
    /// Fractions of the display: 5 decimals; mm: 3 (a micrometre).
    @inlinable package static func wireCentroid(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.centroid.map(Self.wire)
    }
    @inlinable package static func wireCentroidMm(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.centroidMm.map(Self.wire)
    }
    @inlinable package static func wireScale(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.scale.map { decimalRounded($0, 5) }
    }
    @inlinable package static func wireScaleVelocity(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.scaleVelocity.map { decimalRounded($0, 4) }
    }
    @inlinable package static func wireSpanMm(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.spanMm.map { decimalRounded($0, 3) }
    }
    @inlinable package static func wireRotation(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.rotation.map { decimalRounded($0, 5) }
    }
    @inlinable package static func wireRotationVelocity(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.rotationVelocity.map { decimalRounded($0, 4) }
    }
    @inlinable package static func wireTranslation(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.translation.map(Self.wire)
    }
    @inlinable package static func wireTranslationMm(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.translationMm.map(Self.wire)
    }
    /// mm/s: 1 decimal.
    @inlinable package static func wireVelocity(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.velocity.map { Self.wire($0, 1) }
    }
    @inlinable package static func wirePosition(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.position.map(Self.wire)
    }
    @inlinable package static func wirePositionMm(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.positionMm.map(Self.wire)
    }
    @inlinable package static func wireDuration(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.duration.map { decimalRounded($0, 4) }
    }
    @inlinable package static func wireGlideMm(_ e: UnsafePointer<Self>) -> WirePoint? {
        e.pointee.glideMm.map { Self.wire($0, 2) }
    }
    @inlinable package static func wireGlideScale(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.glideScale.map { decimalRounded($0, 4) }
    }
    @inlinable package static func wireGlideRotation(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.glideRotation.map { decimalRounded($0, 4) }
    }
    @inlinable package static func hasOcclusion(_ e: UnsafePointer<Self>) -> Bool { e.pointee.occlusion != nil }
    /// On the region's own grid already (it tells its corners apart on it): as they are.
    @inlinable package static func occlusionCorners(_ e: UnsafePointer<Self>) -> (
        polygon: [NormalizedPoint], polygonMm: [PhysicalPoint]
    ) {
        (e.pointee.occlusion?.polygon ?? [], e.pointee.occlusion?.polygonMm ?? [])
    }
    @inlinable package static func occlusionSource(_ e: UnsafePointer<Self>) -> String? {
        e.pointee.occlusionSource?.rawValue
    }

    @inlinable @inline(__always) static func wire(_ p: PhysicalPoint) -> WirePoint { wire(p, 3) }
    @inlinable @inline(__always) static func wire(_ p: PhysicalPoint, _ decimals: Int) -> WirePoint {
        WirePoint(x: decimalRounded(p.x, decimals), y: decimalRounded(p.y, decimals))
    }
    @inlinable @inline(__always) static func wire(_ p: NormalizedPoint) -> WirePoint {
        WirePoint(x: decimalRounded(p.x, 5), y: decimalRounded(p.y, 5))
    }
}

extension PhysicalPoint: WirePointFields {}
extension NormalizedPoint: WirePointFields {}

extension GestureEvent {
    /// The wire form of a core event.
    public init(_ core: CoreGestureEvent) {
        self = withUnsafePointer(to: core) { e in
            typealias C = CoreGestureEvent
            var w = GestureEvent(
                gesture: e.pointee.gesture, phase: e.pointee.phase, id: e.pointee.id, time: C.wireTime(e),
                device: e.pointee.device)
            w.fingers = e.pointee.fingers
            w.touches = e.pointee.touches
            w.touch = e.pointee.touch
            w.centroid = C.wireCentroid(e)
            w.centroidMm = C.wireCentroidMm(e)
            w.scale = C.wireScale(e)
            w.scaleVelocity = C.wireScaleVelocity(e)
            w.spanMm = C.wireSpanMm(e)
            w.hand = e.pointee.hand
            w.handConfidence = e.pointee.handConfidence
            w.rightHandProbability = e.pointee.rightHandProbability
            w.clearSide = e.pointee.clearSide
            w.occlusion = e.pointee.occlusion.map(Occlusion.init)
            w.occlusion?.source = e.pointee.occlusionSource?.rawValue
            w.rotation = C.wireRotation(e)
            w.rotationVelocity = C.wireRotationVelocity(e)
            w.translation = C.wireTranslation(e)
            w.translationMm = C.wireTranslationMm(e)
            w.velocity = C.wireVelocity(e)
            w.direction = e.pointee.direction
            w.edge = e.pointee.edge
            w.taps = e.pointee.taps
            w.position = C.wirePosition(e)
            w.positionMm = C.wirePositionMm(e)
            w.duration = C.wireDuration(e)
            w.glideMm = C.wireGlideMm(e)
            w.glideScale = C.wireGlideScale(e)
            w.glideRotation = C.wireGlideRotation(e)
            w.reason = e.pointee.reason
            return w
        }
    }
}

extension Occlusion {
    /// The wire form of a covered region.
    public init(_ region: OcclusionRegion) {
        self.init(
            polygon: region.polygon.map { WirePoint(x: $0.x, y: $0.y) },
            polygonMm: region.polygonMm.map { WirePoint(x: $0.x, y: $0.y) })
    }
}

extension Sequence where Element == CoreGestureEvent {
    /// The wire forms of these events.
    public var wireEvents: [GestureEvent] { map(GestureEvent.init) }
}

extension JSONLines {
    /// The lines of core events, each the bytes of the `GestureEvent` made of it, written one after
    /// the other from the events where they lie (as the daemon writes a frame's events), with where
    /// each ends in `buffer`.
    public static func encode(
        _ events: [CoreGestureEvent], quotedDevice: JSONQuotedString? = nil, memo: JSONNumberMemo? = nil,
        into buffer: inout [UInt8], ends: inout [Int]
    ) {
        events.withUnsafeBufferPointer {
            encode(eventsIn: $0, quotedDevice: quotedDevice, memo: memo, into: &buffer, ends: &ends)
        }
    }
}

extension CoreGestureEvent {
    /// Appends this event's object for a compact `frame` line: the bytes of the `GestureEvent`
    /// made of it (``GestureEvent/writeCompactObject(into:)``).
    public func writeCompactObject(into bytes: inout [UInt8]) {
        withUnsafePointer(to: self) { Self.writeCompactObject(at: $0, into: &bytes) }
    }
}
