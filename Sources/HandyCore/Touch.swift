/// Where a touch is in its life, as seen in one ``TouchFrame``.
public enum TouchPhase: String, Hashable, Sendable {
    /// Put down in this frame.
    case began
    /// Moved since the previous frame.
    case moved
    /// Still down, did not move since the previous frame.
    case stationary
    /// Lifted in this frame (it is not in the next frame).
    case ended
    /// Lost without a lift (SYN_DROPPED resync, device removed, tracking id reused): not a lift,
    /// so nothing must treat it as a tap or the end of a stroke.
    case cancelled

    /// True for `ended` and `cancelled`.
    public var isFinished: Bool { self == .ended || self == .cancelled }
}

/// What is touching: a finger, a pen, or a palm (MT_TOOL_PALM or judged too large).
public enum TouchTool: String, Hashable, Sendable {
    case finger, pen, palm
}

/// One contact on the surface, with a small stable id for its whole life.
public struct Touch: Hashable, Sendable {
    /// Small stable id: the lowest id not used by another active touch (0, 1, 2, ...), so an app can
    /// index arrays with it. Not the kernel's wrapping tracking id.
    public var id: Int
    /// Where the touch is in its life.
    public var phase: TouchPhase
    /// What is touching.
    public var tool: TouchTool
    /// Raw position in device units.
    public var device: DevicePoint
    /// Position in mm in the display frame.
    public var mm: PhysicalPoint
    /// Position 0…1 on the display.
    public var normalized: NormalizedPoint
    /// Where the touch began, in mm (display frame).
    public var startMm: PhysicalPoint
    /// Contact ellipse (ABS_MT_TOUCH_MAJOR/MINOR) in mm, when the device reports it.
    public var majorMm: Double?
    /// The contact ellipse's minor axis in mm, when reported.
    public var minorMm: Double?
    /// Approaching tool ellipse (ABS_MT_WIDTH_MAJOR/MINOR) in mm, when reported.
    var widthMajorMm: Double?
    var widthMinorMm: Double?
    /// Orientation of the major axis in radians in the display frame, kernel convention
    /// (0 = along Y, positive = clockwise), when the device reports it with real resolution.
    public var orientation: Radians?
    /// Pressure 0…1 (ABS_MT_PRESSURE normalised by its range), when reported.
    public var pressure: Double?
    /// When the touch began and when its last update came.
    public var beganAt: Timestamp
    /// When its last update came.
    public var time: Timestamp
    /// Velocity estimate in mm/s (display frame), zero for a touch that just began.
    public var velocity: VelocityMmPerSecond

    /// A touch from its fields.
    public init(
        id: Int, phase: TouchPhase, tool: TouchTool = .finger, device: DevicePoint, mm: PhysicalPoint,
        normalized: NormalizedPoint, startMm: PhysicalPoint? = nil, majorMm: Double? = nil, minorMm: Double? = nil,
        widthMajorMm: Double? = nil, widthMinorMm: Double? = nil, orientation: Radians? = nil, pressure: Double? = nil,
        beganAt: Timestamp, time: Timestamp, velocity: VelocityMmPerSecond = .zero
    ) {
        self.id = id
        self.phase = phase
        self.tool = tool
        self.device = device
        self.mm = mm
        self.normalized = normalized
        self.startMm = startMm ?? mm
        self.majorMm = majorMm
        self.minorMm = minorMm
        self.widthMajorMm = widthMajorMm
        self.widthMinorMm = widthMinorMm
        self.orientation = orientation
        self.pressure = pressure
        self.beganAt = beganAt
        self.time = time
        self.velocity = velocity
    }

    /// Contact area in mm² from the touch ellipse (or the width ellipse), when reported.
    var areaMm2: Double? {
        if let a = majorMm { return Double.pi / 4 * a * (minorMm ?? a) }
        if let a = widthMajorMm { return Double.pi / 4 * a * (widthMinorMm ?? a) }
        return nil
    }
}

/// Where a hovering contact is in its life: above the glass, never a touch.
public enum HoverPhase: String, Hashable, Sendable {
    /// Came into range (or rose from the glass) in this frame.
    case began
    /// Still above the glass.
    case hovering
    /// Touched the glass in this frame: from here on it is the touch ``HoverContact/touchID``,
    /// which begins in the same frame.
    case landed
    /// Left the range without touching (its tracking id ended).
    case ended
    /// Lost without leaving (SYN_DROPPED resync, device removed, tracking id reused).
    case cancelled

    /// True for `landed`, `ended` and `cancelled`: it is not in the next frame.
    public var isFinished: Bool { self != .began && self != .hovering }
}

/// A contact above the glass: ABS_MT_DISTANCE above the device's touching value (its minimum), on a
/// device that declares the axis (hid-multitouch: In Range without Tip Switch gives distance 1).
/// Input of its own, never a touch: no recognizer sees it (``TouchTracker/hovering``).
public struct HoverContact: Hashable, Sendable {
    /// Small stable id of its own (0, 1, 2, ... lowest free among hovering contacts), apart from
    /// the touches' ids.
    public var id: Int
    /// Where it is in its life.
    public var phase: HoverPhase
    /// Raw position in device units.
    public var device: DevicePoint
    /// Position in mm in the display frame.
    public var mm: PhysicalPoint
    /// Position 0…1 on the display.
    public var normalized: NormalizedPoint
    /// ABS_MT_DISTANCE as the device reports it.
    public var distance: Int32
    /// The distance 0…1 over the axis: 0 at its touching value (minimum), 1 at its maximum.
    public var distanceNormalized: Double
    /// When it came into range and when its last update came.
    public var beganAt: Timestamp
    /// When its last update came.
    public var time: Timestamp
    /// When it landed (`landed`): the id of the touch it became; else nil.
    public var touchID: Int?

    /// A hovering contact from its fields.
    public init(
        id: Int, phase: HoverPhase, device: DevicePoint, mm: PhysicalPoint, normalized: NormalizedPoint,
        distance: Int32, distanceNormalized: Double, beganAt: Timestamp, time: Timestamp, touchID: Int? = nil
    ) {
        self.id = id
        self.phase = phase
        self.device = device
        self.mm = mm
        self.normalized = normalized
        self.distance = distance
        self.distanceNormalized = distanceNormalized
        self.beganAt = beganAt
        self.time = time
        self.touchID = touchID
    }
}

/// Every active touch at one SYN_REPORT.
public struct TouchFrame: Hashable, Sendable {
    /// When the frame's SYN_REPORT came.
    public var time: Timestamp
    /// Active touches, ordered by id, including those that ended or were cancelled in this frame.
    public var touches: [Touch]
    /// True when this frame follows a SYN_DROPPED resync: gestures in progress must cancel.
    public var resynced: Bool

    /// A frame from its touches.
    public init(time: Timestamp, touches: [Touch], resynced: Bool = false) {
        self.time = time
        self.touches = touches
        self.resynced = resynced
    }

    /// Touches still down after this frame (not ended or cancelled).
    public var activeTouches: [Touch] { touches.filter { !$0.phase.isFinished } }
    /// True when some touch began, moved, ended or was cancelled (a stationary-only frame is not a change).
    public var hasChanges: Bool { resynced || touches.contains { $0.phase != .stationary } }
}
