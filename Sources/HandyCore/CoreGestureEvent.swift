import HandyProtocol

/// One gesture event as the recognizers make it: in core units (``PhysicalPoint`` mm,
/// ``NormalizedPoint`` fractions of the display, ``Timestamp``), unrounded. The wire's
/// `GestureEvent`, with its rounding to a few decimals per field, is made from it at the edge
/// (HandyWire), as a ``TouchFrame`` becomes the `touches` message there.
///
/// Fields that do not apply to a gesture are nil. Their names are the wire's (docs/GESTURES.md
/// says what each means), so a field reads the same in the core and on the wire.
public struct CoreGestureEvent: Hashable, Sendable {
    /// The kind of gesture (pinch, tap, swipe, …).
    public var gesture: GestureKind
    /// Where the gesture is in its life: began, changed, ended, cancelled, or a one-shot.
    public var phase: GesturePhase
    /// Unique per device within a daemon run; every event of one gesture shares it.
    public var id: UInt64
    /// When it happened, on the device's clock.
    public var time: Timestamp
    /// The device's id.
    public var device: String

    /// Fingers taking part.
    public var fingers: Int?
    /// Touch ids taking part (on `began`).
    public var touches: [Int]?
    /// The one touch of a per-touch sub-gesture.
    public var touch: Int?

    /// The fingers' centroid, as a fraction of the display.
    public var centroid: NormalizedPoint?
    /// The fingers' centroid in mm (display frame).
    public var centroidMm: PhysicalPoint?

    /// Pinch: span now / span at began; 1/s; mm.
    public var scale: Double?
    /// Pinch: change of the scale, per second.
    public var scaleVelocity: Double?
    /// Pinch: the fingers' span in mm.
    public var spanMm: Double?
    /// The hand, decided when the gesture began; its confidence and P(right) are on the 0.001 grid
    /// the classifiers decide on (``HandDecision``).
    public var hand: Hand?
    /// How sure the classifier is of ``hand``, 0…1.
    public var handConfidence: Double?
    /// P(right hand), 0…1.
    public var rightHandProbability: Double?
    /// The side of the gesture the hand does not cover.
    public var clearSide: Side?
    /// What ``occlusion`` was built from, said only while the device had hovering contacts: nil
    /// (no hover then) is the hand model, as before hover existed. Here, in the padding after
    /// `clearSide`, not in the region: a byte more there made every event 8 bytes larger, and
    /// its copies cost ~100 instructions a frame (docs/PERFORMANCE.md).
    public var occlusionSource: OcclusionSource?
    /// What the hand probably covers (``GestureOcclusion``).
    public var occlusion: OcclusionRegion?

    /// Rotate: radians since began, clockwise positive; radians per second.
    public var rotation: Double?
    /// Rotate: radians per second.
    public var rotationVelocity: Double?

    /// Translation since began, as a fraction of the display and in mm.
    public var translation: NormalizedPoint?
    /// Translation since began in mm.
    public var translationMm: PhysicalPoint?
    /// mm per second.
    public var velocity: PhysicalPoint?
    /// Swipe: the direction.
    public var direction: SwipeDirection?
    /// Edge swipe: the display edge it started from.
    public var edge: DisplayEdge?

    /// Tap: how many taps in a row.
    public var taps: Int?
    /// Where it happened, as a fraction of the display.
    public var position: NormalizedPoint?
    /// Where it happened, in mm (display frame).
    public var positionMm: PhysicalPoint?
    /// Seconds held (long-press, touch-hold).
    public var duration: Double?

    /// Momentum on `ended`: mm, a factor of the scale, radians.
    public var glideMm: PhysicalPoint?
    /// Momentum on `ended`: a factor of the scale.
    public var glideScale: Double?
    /// Momentum on `ended`: radians.
    public var glideRotation: Double?

    /// Why it was cancelled (docs/GESTURES.md).
    public var reason: String?

    /// An event with the fields every gesture has; the others nil.
    public init(gesture: GestureKind, phase: GesturePhase, id: UInt64, time: Timestamp, device: String) {
        self.gesture = gesture
        self.phase = phase
        self.id = id
        self.time = time
        self.device = device
    }

    /// Sets `hand`, `handConfidence`, `rightHandProbability` and the `clearSide` that follows from the hand.
    mutating func setHand(_ decision: HandDecision) {
        hand = decision.hand
        handConfidence = decision.confidence
        rightHandProbability = decision.rightHandProbability
        clearSide = decision.hand.clearSide
    }
}

/// The part of the display the hand and forearm probably cover: a convex polygon, its corners in
/// order, on the grid its corners were told apart on (0.1 mm, 0.001 of the display).
public struct OcclusionRegion: Hashable, Sendable {
    /// Corners as fractions of the display.
    public var polygon: [NormalizedPoint]
    /// The same corners in mm.
    public var polygonMm: [PhysicalPoint]
    /// A region from its corners as fractions of the display and in mm.
    public init(polygon: [NormalizedPoint], polygonMm: [PhysicalPoint]) {
        self.polygon = polygon
        self.polygonMm = polygonMm
    }
}

/// What a covered region was built from.
public enum OcclusionSource: String, Hashable, Sendable {
    /// The touching fingers and the hovering fingers near them (the hand seen above the glass).
    case hover
    /// The hand model from the touching fingers alone (the device had hovering contacts, none
    /// near this gesture's fingers).
    case model
}
