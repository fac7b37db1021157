/// The gestures handyd recognises. Raw values are public protocol names.
public enum GestureKind: String, Codable, Hashable, Sendable, CaseIterable {
    case pinch
    case rotate
    case pan
    case tap
    case longPress = "long-press"
    case swipe
    case touchTap = "touch-tap"
    case touchHold = "touch-hold"
    case touchSwipe = "touch-swipe"
    case touchPan = "touch-pan"
    case touchFlick = "touch-flick"
}

extension GestureKind {
    /// What handyd needs to know of a kind besides its name, in one table: every other map of the
    /// kinds (the arena's bit and policy row, the encoder's literal, which phases an action may bind,
    /// which kinds the policy pairs) is derived from it. A new kind is a case above and a row here;
    /// `GestureKindTableTests` fails when a row does not match its case.
    public struct Traits: Sendable {
        /// The position in `allCases`: the kind's bit in a mask of kinds and its row of the policy table.
        public let index: Int
        /// The raw value as a literal, for the encoder (no String on the hot path).
        public let literal: StaticString
        /// Discrete kinds are `recognized` once; continuous ones go `began → changed… → ended | cancelled`.
        public let isDiscrete: Bool
        /// A per-touch sub-gesture (`touch-*`): its events carry `touch`, not `fingers`, and the
        /// arena's policy pairs do not govern it.
        public let isPerTouch: Bool

        @usableFromInline init(_ index: Int, _ literal: StaticString, isDiscrete: Bool, isPerTouch: Bool) {
            self.index = index; self.literal = literal; self.isDiscrete = isDiscrete; self.isPerTouch = isPerTouch
        }
    }

    @inlinable public var traits: Traits {
        switch self {
        case .pinch: Traits(0, "pinch", isDiscrete: false, isPerTouch: false)
        case .rotate: Traits(1, "rotate", isDiscrete: false, isPerTouch: false)
        case .pan: Traits(2, "pan", isDiscrete: false, isPerTouch: false)
        case .tap: Traits(3, "tap", isDiscrete: true, isPerTouch: false)
        case .longPress: Traits(4, "long-press", isDiscrete: false, isPerTouch: false)
        case .swipe: Traits(5, "swipe", isDiscrete: true, isPerTouch: false)
        case .touchTap: Traits(6, "touch-tap", isDiscrete: true, isPerTouch: true)
        case .touchHold: Traits(7, "touch-hold", isDiscrete: true, isPerTouch: true)
        case .touchSwipe: Traits(8, "touch-swipe", isDiscrete: true, isPerTouch: true)
        case .touchPan: Traits(9, "touch-pan", isDiscrete: false, isPerTouch: true)
        case .touchFlick: Traits(10, "touch-flick", isDiscrete: true, isPerTouch: true)
        }
    }
}

/// Continuous gestures go `began → changed… → ended | cancelled`; discrete ones are `recognized`.
public enum GesturePhase: String, Codable, Hashable, Sendable {
    case began, changed, ended, cancelled, recognized
}

/// The hand that made a gesture.
public enum Hand: String, Codable, Hashable, Sendable {
    case left, right, unknown
    /// The mirror image: left ↔ right.
    public var mirrored: Hand {
        switch self {
        case .left: .right
        case .right: .left
        case .unknown: .unknown
        }
    }
    /// The side of the fingers that this hand does not cover (`left` for a right hand).
    public var clearSide: Side {
        switch self {
        case .left: .right
        case .right: .left
        case .unknown: .unknown
        }
    }
}

/// A side of a point on the display.
public enum Side: String, Codable, Hashable, Sendable {
    case left, right, unknown
}

/// Direction of a swipe in display coordinates (y grows downwards).
public enum SwipeDirection: String, Codable, Hashable, Sendable {
    case up, down, left, right
}

/// The display edge a swipe came in from (in the display frame, after the calibration matrix).
public enum DisplayEdge: String, Codable, Hashable, Sendable, CaseIterable {
    case left, right, top, bottom
}

/// A 2-D value on the wire (a position, translation or velocity; the field name gives the unit).
public struct WirePoint: Codable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// The part of the display the hand and forearm probably cover: a convex polygon in the display
/// frame, its corners in order (docs/GESTURES.md "The covered region").
public struct Occlusion: Codable, Hashable, Sendable {
    /// Corners, normalised 0…1.
    public var polygon: [WirePoint]
    /// The same corners in mm.
    public var polygonMm: [WirePoint]
    /// `hover` (built from the hovering fingers near the gesture's) or `model` (the hand model,
    /// while the device had hovering contacts, none near); absent without hover: the model.
    public var source: String?
    public init(polygon: [WirePoint], polygonMm: [WirePoint], source: String? = nil) {
        self.polygon = polygon
        self.polygonMm = polygonMm
        self.source = source
    }
}

/// One gesture event: `{"type":"gesture","gesture":"pinch","phase":"began",...}`.
///
/// Fields that do not apply to a gesture are nil and left out of the JSON. The names are public
/// protocol (docs/PROTOCOL.md, docs/GESTURES.md); only additive changes within a protocol version.
public struct GestureEvent: Codable, Hashable, Sendable {
    public var gesture: GestureKind
    public var phase: GesturePhase
    /// Gesture instance id, unique per device within a daemon run (all events of one gesture share
    /// it; two devices count separately).
    public var id: UInt64
    /// Seconds, from the device's event timestamps.
    public var time: Double
    /// Device id (see ``DeviceInfo/id``).
    public var device: String

    /// Number of fingers taking part.
    public var fingers: Int?
    /// Touch ids taking part (the small stable ids of the touches messages).
    public var touches: [Int]?
    /// The one touch a per-touch sub-gesture (touch-tap, touch-pan, ...) belongs to.
    public var touch: Int?

    /// Centre of the fingers, normalised 0…1 and in mm.
    public var centroid: WirePoint?
    public var centroidMm: WirePoint?

    // pinch
    /// Cumulative scale since began (span now / span at began).
    public var scale: Double?
    /// d(scale)/dt, 1/s.
    public var scaleVelocity: Double?
    /// Mean distance of the fingers from their centroid ×2, in mm.
    public var spanMm: Double?
    /// Which hand made the gesture (decided when it began).
    public var hand: Hand?
    public var handConfidence: Double?
    /// P(right hand), 0…1 (3 decimals), wherever the hand classifier ran (two or more fingers of
    /// one hand, or one contact whose device reports its shape), also when ``hand`` is `unknown`:
    /// an app that must place its popover picks its own threshold. A mirrored gesture gives 1 − P.
    public var rightHandProbability: Double?
    /// The side of the centroid the hand does not cover: where a popover stays visible (the side
    /// with less of ``occlusion`` on it).
    public var clearSide: Side?
    /// What the hand and forearm probably cover: on every began, ended, cancelled and recognized
    /// event with a hand, on `changed` only when a finger moved more than 2 mm or the hand changed
    /// since the last one (keep the last).
    public var occlusion: Occlusion?

    // rotate
    /// Cumulative rotation since began, radians, clockwise positive (y down).
    public var rotation: Double?
    /// Radians per second.
    public var rotationVelocity: Double?

    // pan, swipe, touch-pan, touch-flick, touch-swipe
    /// Translation since began, normalised and in mm.
    public var translation: WirePoint?
    public var translationMm: WirePoint?
    /// Velocity in mm/s (release velocity on `ended`).
    public var velocity: WirePoint?
    public var direction: SwipeDirection?
    /// swipe: the display edge it came in from (it began within `swipe-edge-mm` of that edge and
    /// moved away from it); nil for a swipe that began elsewhere.
    public var edge: DisplayEdge?

    // tap, touch-tap, long-press, touch-hold
    /// 1 for a single tap, 2 for a double tap, ...
    public var taps: Int?
    /// Where it happened, normalised and in mm.
    public var position: WirePoint?
    public var positionMm: WirePoint?
    /// Seconds held (long-press, touch-hold).
    public var duration: Double?

    // momentum, on `ended` of pan / pinch / rotate
    /// Distance in mm an inertial glide would add under the documented deceleration.
    public var glideMm: WirePoint?
    /// Factor an inertial glide would multiply the scale by.
    public var glideScale: Double?
    /// Radians an inertial glide would add.
    public var glideRotation: Double?

    /// Why it was cancelled: `palm`, `resync`, `touch-cancelled`, `device-removed` (docs/GESTURES.md).
    public var reason: String?

    public init(gesture: GestureKind, phase: GesturePhase, id: UInt64, time: Double, device: String) {
        self.gesture = gesture
        self.phase = phase
        self.id = id
        self.time = time
        self.device = device
    }
}
