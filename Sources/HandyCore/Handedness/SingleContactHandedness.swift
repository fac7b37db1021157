import HandyProtocol

/// The hand of a one-finger gesture, from the contact's ellipse alone.
///
/// A fingertip pressed on a screen leaves an elongated contact whose major axis runs along the
/// finger. A finger of the right hand reaches in from the lower right, so the axis leans up and to
/// the left (kernel convention, clockwise from the display's y axis: a negative angle); a finger of
/// the left hand leans up and to the right (positive). A round contact, or one that stands nearly
/// upright, says nothing.
///
/// This is geometry, not a fit: no public recording with a known hand and real ellipse orientation
/// was found to calibrate it against (docs/HANDEDNESS.md). So it answers only when the contact is
/// clearly elongated and clearly leaning, and its confidence stays at most ``maximumConfidence``.
/// Without a reported orientation (most touchscreens) the answer is `unknown`.
public enum SingleContactHandedness {
    /// Below this lean (radians from upright) the answer is `unknown`: 15°.
    public static let uprightDeadZoneRadians = 15 * Double.pi / 180
    /// At and beyond this lean the confidence is ``maximumConfidence``: 45°.
    public static let fullLeanRadians = 45 * Double.pi / 180
    /// The contact must be at least this much longer than wide (1 − minor/major): a round contact's
    /// orientation is noise.
    public static let minimumElongation = 0.15
    /// The most this rule ever claims.
    public static let maximumConfidence = 0.75

    /// `(hand, confidence)`; `unknown` with confidence 0 when the contact says nothing.
    public static func classify(_ touch: Touch) -> (hand: Hand, confidence: Double) {
        classify(HandednessContact(touch))
    }

    /// ``classify(_:)`` with P(right hand): ``HandDecision/undecided`` (no probability) when the
    /// device reports no shape (orientation and elongation) of the contact; 0.5 when it does and
    /// the rule says `unknown` (round, upright or flat); otherwise from the answer.
    public static func decide(_ touch: Touch) -> HandDecision {
        decide(HandednessContact(touch))
    }

    public static func decide(_ contact: HandednessContact) -> HandDecision {
        guard let orientation = contact.orientation, orientation.isFinite, contact.elongation != nil else { return .undecided }
        let (hand, confidence) = classify(contact)
        return HandDecision(hand: hand, confidence: confidence,
                            rightHandProbability: HandDecision.rightHandProbability(of: hand, confidence: confidence))
    }

    public static func classify(_ contact: HandednessContact) -> (hand: Hand, confidence: Double) {
        guard let raw = contact.orientation, raw.isFinite,
              let elongation = contact.elongation, elongation >= minimumElongation else { return (.unknown, 0) }
        // An ellipse's axis is undirected: bring the angle into (-π/2, π/2].
        var lean = raw.truncatingRemainder(dividingBy: Double.pi)
        if lean > Double.pi / 2 { lean -= Double.pi }
        if lean <= -Double.pi / 2 { lean += Double.pi }
        let magnitude = Swift.abs(lean)
        guard magnitude > uprightDeadZoneRadians else { return (.unknown, 0) }
        // Lying almost flat (within the dead zone of horizontal) says nothing about the side either.
        guard magnitude < Double.pi / 2 - uprightDeadZoneRadians else { return (.unknown, 0) }
        let ramp = Swift.min(1, (magnitude - uprightDeadZoneRadians) / (fullLeanRadians - uprightDeadZoneRadians))
        let confidence = 0.5 + (maximumConfidence - 0.5) * ramp
        return (lean < 0 ? .right : .left, confidence)
    }
}
