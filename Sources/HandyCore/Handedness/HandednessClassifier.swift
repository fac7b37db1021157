import HandyProtocol

/// What a handedness classifier sees of a pinch when it begins: the fingers' positions in mm in the
/// display frame (x right, y down), plus the contact ellipses when the device reports them.
///
/// Built from the touches at pinch begin. A later classifier may use more (orientation, contact
/// size, where on the screen); adding a field here keeps older classifiers working.
public struct HandednessFeatures: Hashable, Sendable {
    /// The finger with the smallest y (highest on the display).
    public var topMm: PhysicalPoint
    /// The finger with the largest y.
    public var bottomMm: PhysicalPoint
    /// Every finger of the pinch, ordered by touch id.
    var fingersMm: [PhysicalPoint]
    /// Contact orientations (radians, kernel convention) of the top and bottom finger, when reported.
    var topOrientation: Radians?
    var bottomOrientation: Radians?
    /// Everything known of the top and bottom contact (size, pressure, orientation, landing, early
    /// motion); nil when the features were built from positions alone.
    public var top: HandednessContact?
    public var bottom: HandednessContact?
    /// True when the device's size in mm is a guess (no resolution and no configured size,
    /// ``DeviceGeometry/isSizeAssumed``): distances in mm are then off by an unknown factor.
    var sizeIsAssumed = false

    public init(
        topMm: PhysicalPoint, bottomMm: PhysicalPoint, fingersMm: [PhysicalPoint] = [],
        topOrientation: Radians? = nil, bottomOrientation: Radians? = nil,
        top: HandednessContact? = nil, bottom: HandednessContact? = nil
    ) {
        self.topMm = topMm
        self.bottomMm = bottomMm
        self.fingersMm = fingersMm.isEmpty ? [topMm, bottomMm] : fingersMm
        self.topOrientation = topOrientation
        self.bottomOrientation = bottomOrientation
        self.top = top
        self.bottom = bottom
    }

    /// The features of a top and a bottom contact.
    public init(top: HandednessContact, bottom: HandednessContact, fingersMm: [PhysicalPoint] = []) {
        self.init(
            topMm: top.positionMm, bottomMm: bottom.positionMm, fingersMm: fingersMm,
            topOrientation: top.orientation, bottomOrientation: bottom.orientation, top: top, bottom: bottom)
    }

    /// The features of the active fingers of a frame; nil with fewer than two.
    /// Ties in y go to the lower touch id as top, so the choice is deterministic.
    public init?(touches: [Touch]) {
        var top: Touch?
        var bottom: Touch?
        var all: [PhysicalPoint] = []
        for t in touches {
            all.append(t.mm)
            if top == nil || t.mm.y < top!.mm.y { top = t }
            if bottom == nil || t.mm.y >= bottom!.mm.y { bottom = t }
        }
        guard all.count >= 2, let top, let bottom, top.id != bottom.id else { return nil }
        self.init(top: HandednessContact(top), bottom: HandednessContact(bottom), fingersMm: all)
    }

    /// The same fingers mirrored in x about `axisMm` (a left hand's pinch seen as a right hand's).
    func mirroredX(about axisMm: Double) -> HandednessFeatures {
        func m(_ p: PhysicalPoint) -> PhysicalPoint { PhysicalPoint(x: 2 * axisMm - p.x, y: p.y) }
        var mirrored = HandednessFeatures(
            topMm: m(topMm), bottomMm: m(bottomMm), fingersMm: fingersMm.map(m),
            topOrientation: topOrientation.map { -$0 }, bottomOrientation: bottomOrientation.map { -$0 },
            top: top?.mirroredX(about: axisMm), bottom: bottom?.mirroredX(about: axisMm))
        mirrored.sizeIsAssumed = sizeIsAssumed
        return mirrored
    }
}

/// One contact of a pinch as the handedness classifier sees it when the pinch begins: where it is,
/// where it landed and when, and the axes the device reports (nil when it does not).
public struct HandednessContact: Hashable, Sendable {
    /// Position now (mm, display frame, x right, y down).
    public var positionMm: PhysicalPoint
    /// Where it landed (mm, display frame): `positionMm - startMm` is its early motion.
    public var startMm: PhysicalPoint
    /// When it landed, in seconds (any origin; only differences between contacts are used).
    var landedSeconds: Double
    /// Contact area in mm² (ABS_MT_TOUCH_MAJOR×MINOR, or WIDTH), when reported.
    public internal(set) var areaMm2: Double?
    /// The contact ellipse's axes in mm (ABS_MT_TOUCH_MAJOR/MINOR, or WIDTH), when reported: what
    /// the evaluation dumps (`eval handedness --dump`); the classifier reads area and elongation.
    public internal(set) var majorMm: Double?
    public internal(set) var minorMm: Double?
    /// Pressure 0…1, when reported.
    public var pressure: Double?
    /// Ellipse orientation in radians, kernel convention in the display frame (0 = along y,
    /// positive clockwise), only when the device reports it with real resolution.
    public var orientation: Radians?
    /// 1 − minor/major of the contact ellipse (0 = round), when both axes are reported.
    public var elongation: Double?

    public init(
        positionMm: PhysicalPoint, startMm: PhysicalPoint? = nil, landedSeconds: Double = 0,
        areaMm2: Double? = nil, pressure: Double? = nil, orientation: Radians? = nil, elongation: Double? = nil
    ) {
        self.positionMm = positionMm
        self.startMm = startMm ?? positionMm
        self.landedSeconds = landedSeconds
        self.areaMm2 = areaMm2
        self.pressure = pressure
        self.orientation = orientation
        self.elongation = elongation
    }

    /// What a touch tells: its position, landing point and time, and its reported axes.
    public init(_ t: Touch) {
        var elongation: Double?
        if let major = t.majorMm ?? t.widthMajorMm, let minor = t.minorMm ?? t.widthMinorMm, major > 0, minor.isFinite {
            elongation = Swift.min(Swift.max(1 - minor / major, 0), 1)
        }
        self.init(
            positionMm: t.mm, startMm: t.startMm, landedSeconds: t.beganAt.seconds, areaMm2: t.areaMm2,
            pressure: t.pressure, orientation: t.orientation, elongation: elongation)
        // Both axes of the ellipse the area is read from: the contact's, or the approaching tool's.
        (majorMm, minorMm) = t.majorMm != nil ? (t.majorMm, t.minorMm) : (t.widthMajorMm, t.widthMinorMm)
    }

    /// The contact mirrored in x about `axisMm` (orientation negated: kernel angles are clockwise from y).
    func mirroredX(about axisMm: Double) -> HandednessContact {
        var c = self
        c.positionMm.x = 2 * axisMm - positionMm.x
        c.startMm.x = 2 * axisMm - startMm.x
        c.orientation = orientation.map { -$0 }
        return c
    }
}

/// Decides which hand made a pinch: features → (hand, confidence 0…1).
///
/// A classifier must be mirror-symmetric: features mirrored in x give the mirrored hand with the
/// same confidence (tests check it), and `unknown` comes with confidence 0.
public protocol HandednessClassifier: Sendable {
    func classify(_ features: HandednessFeatures) -> (hand: Hand, confidence: Double)
    /// ``classify(_:)`` with P(right hand): what a gesture event publishes.
    func decide(_ features: HandednessFeatures) -> HandDecision
}

extension HandednessClassifier {
    /// From ``classify(_:)``: P(right) is the confidence of a right hand, 1 − that of a left one,
    /// 0.5 for `unknown` (the classifier ran and said nothing).
    public func decide(_ features: HandednessFeatures) -> HandDecision {
        let (hand, confidence) = classify(features)
        return HandDecision(
            hand: hand, confidence: confidence,
            rightHandProbability: HandDecision.rightHandProbability(of: hand, confidence: confidence))
    }
}

/// The seed library's rule, made solid with dead zones in mm.
///
/// Of the pinch take the top and the bottom finger. A hand pinches with thumb and index: the index
/// on top, the thumb below it and towards the wrist, so a right hand's index is up and to the right
/// of its thumb, a left hand's up and to the left:
/// - vertical separation ≤ `verticalDeadZoneMm` → unknown (fingers side by side: no top finger);
/// - horizontal separation ≤ `horizontalDeadZoneMm` → unknown (one above the other);
/// - top finger further right → right hand, further left → left hand.
/// Confidence grows with the margins beyond both dead zones: 0.5 just outside them, rising linearly
/// to 0.95 once both margins reach `saturationMm` (a rule of thumb is never certain).
public struct SeedHandednessRule: HandednessClassifier, Hashable {
    var verticalDeadZoneMm: Double
    var horizontalDeadZoneMm: Double
    var saturationMm: Double

    public init(verticalDeadZoneMm: Double = 5, horizontalDeadZoneMm: Double = 3, saturationMm: Double = 15) {
        self.verticalDeadZoneMm = verticalDeadZoneMm
        self.horizontalDeadZoneMm = horizontalDeadZoneMm
        self.saturationMm = saturationMm
    }

    public init(configuration c: GestureConfiguration) {
        self.init(verticalDeadZoneMm: c.handVerticalDeadZoneMm, horizontalDeadZoneMm: c.handHorizontalDeadZoneMm)
    }

    public func classify(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double) {
        let dy = f.bottomMm.y - f.topMm.y  // ≥ 0 by construction
        let dx = f.topMm.x - f.bottomMm.x  // > 0: top finger further right
        let vMargin = Swift.abs(dy) - verticalDeadZoneMm
        let hMargin = Swift.abs(dx) - horizontalDeadZoneMm
        guard vMargin > 0, hMargin > 0, dx.isFinite, dy.isFinite else { return (.unknown, 0) }
        let s = Swift.max(saturationMm, 1e-9)
        let confidence = 0.5 + 0.45 * Swift.min(1, vMargin / s) * Swift.min(1, hMargin / s)
        return (dx > 0 ? .right : .left, decimalRounded(confidence, 3))
    }
}
