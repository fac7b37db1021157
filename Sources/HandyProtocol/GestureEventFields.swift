/// What the gesture writers (a `gesture` line, a compact `frame` object) read of an event, each
/// value as the wire carries it. The wire's ``GestureEvent`` gives its fields as they are; the
/// core's event (HandyWire) rounds each as it is read, so the daemon writes the core's events
/// without first making a `GestureEvent` of each (that copy and its arrays cost a fifth of a frame).
///
/// The fields whose core value is not the wire's (units, rounding, time) are read through a
/// `wire…` name; the others are the same in both and keep their names.
@usableFromInline package protocol GestureEventFields {
    /// The corners of the covered region, normalised and in mm.
    associatedtype RegionPoint: WirePointFields
    associatedtype RegionPointMm: WirePointFields

    var gesture: GestureKind { get }
    var phase: GesturePhase { get }
    var id: UInt64 { get }
    var device: String { get }
    var fingers: Int? { get }
    var touches: [Int]? { get }
    var touch: Int? { get }
    var hand: Hand? { get }
    var handConfidence: Double? { get }
    var rightHandProbability: Double? { get }
    var clearSide: Side? { get }
    var direction: SwipeDirection? { get }
    var edge: DisplayEdge? { get }
    var taps: Int? { get }
    var reason: String? { get }

    /// Seconds.
    static func wireTime(_ e: UnsafePointer<Self>) -> Double
    static func wireCentroid(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireCentroidMm(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireScale(_ e: UnsafePointer<Self>) -> Double?
    static func wireScaleVelocity(_ e: UnsafePointer<Self>) -> Double?
    static func wireSpanMm(_ e: UnsafePointer<Self>) -> Double?
    static func wireRotation(_ e: UnsafePointer<Self>) -> Double?
    static func wireRotationVelocity(_ e: UnsafePointer<Self>) -> Double?
    static func wireTranslation(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireTranslationMm(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireVelocity(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wirePosition(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wirePositionMm(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireDuration(_ e: UnsafePointer<Self>) -> Double?
    static func wireGlideMm(_ e: UnsafePointer<Self>) -> WirePoint?
    static func wireGlideScale(_ e: UnsafePointer<Self>) -> Double?
    static func wireGlideRotation(_ e: UnsafePointer<Self>) -> Double?
    /// Asked first: the region's arrays are read only when there is one.
    static func hasOcclusion(_ e: UnsafePointer<Self>) -> Bool
    /// The region's corners (only read when ``hasOcclusion``).
    static func occlusionCorners(_ e: UnsafePointer<Self>) -> (polygon: [RegionPoint], polygonMm: [RegionPointMm])
    /// The region's `source`, when it says one (only read when ``hasOcclusion``).
    static func occlusionSource(_ e: UnsafePointer<Self>) -> String?
}

/// A point as the writers read it (a `WirePoint`, or a core point through HandyWire).
@usableFromInline package protocol WirePointFields {
    var x: Double { get }
    var y: Double { get }
}

extension WirePoint: WirePointFields {}

extension GestureEvent: GestureEventFields {
    @inlinable package static func wireTime(_ e: UnsafePointer<Self>) -> Double { e.pointee.time }
    @inlinable package static func wireCentroid(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.centroid }
    @inlinable package static func wireCentroidMm(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.centroidMm }
    @inlinable package static func wireScale(_ e: UnsafePointer<Self>) -> Double? { e.pointee.scale }
    @inlinable package static func wireScaleVelocity(_ e: UnsafePointer<Self>) -> Double? { e.pointee.scaleVelocity }
    @inlinable package static func wireSpanMm(_ e: UnsafePointer<Self>) -> Double? { e.pointee.spanMm }
    @inlinable package static func wireRotation(_ e: UnsafePointer<Self>) -> Double? { e.pointee.rotation }
    @inlinable package static func wireRotationVelocity(_ e: UnsafePointer<Self>) -> Double? {
        e.pointee.rotationVelocity
    }
    @inlinable package static func wireTranslation(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.translation }
    @inlinable package static func wireTranslationMm(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.translationMm }
    @inlinable package static func wireVelocity(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.velocity }
    @inlinable package static func wirePosition(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.position }
    @inlinable package static func wirePositionMm(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.positionMm }
    @inlinable package static func wireDuration(_ e: UnsafePointer<Self>) -> Double? { e.pointee.duration }
    @inlinable package static func wireGlideMm(_ e: UnsafePointer<Self>) -> WirePoint? { e.pointee.glideMm }
    @inlinable package static func wireGlideScale(_ e: UnsafePointer<Self>) -> Double? { e.pointee.glideScale }
    @inlinable package static func wireGlideRotation(_ e: UnsafePointer<Self>) -> Double? { e.pointee.glideRotation }
    @inlinable package static func hasOcclusion(_ e: UnsafePointer<Self>) -> Bool { e.pointee.occlusion != nil }
    @inlinable package static func occlusionCorners(_ e: UnsafePointer<Self>) -> (
        polygon: [WirePoint], polygonMm: [WirePoint]
    ) {
        (e.pointee.occlusion?.polygon ?? [], e.pointee.occlusion?.polygonMm ?? [])
    }
    @inlinable package static func occlusionSource(_ e: UnsafePointer<Self>) -> String? {
        e.pointee.occlusion?.source
    }
}
