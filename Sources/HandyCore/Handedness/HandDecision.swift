import HandyProtocol

/// What a handedness classifier decided about one gesture (docs/HANDEDNESS.md): the published
/// `hand` and its `confidence` (`unknown` with 0 below the thresholds), and P(right hand) wherever
/// the classifier judged one hand, also when `hand` is `unknown` (nil when it did not run: no
/// shape on a single contact, two hands).
public struct HandDecision: Hashable, Sendable {
    public var hand: Hand
    public var confidence: Double
    /// P(right hand), 0…1, to the wire's 3 decimals; nil where no classifier judged one hand.
    public var rightHandProbability: Double?

    public init(hand: Hand, confidence: Double, rightHandProbability: Double?) {
        self.hand = hand
        self.confidence = confidence
        self.rightHandProbability = rightHandProbability
    }

    /// No decision: hand `unknown`, confidence 0, no probability.
    public static let undecided = HandDecision(hand: .unknown, confidence: 0, rightHandProbability: nil)

    /// P(right hand) of an answer `(hand, confidence)`: `confidence` for the right hand, 1 − it for
    /// the left, 0.5 for `unknown` (the classifier ran and favoured neither), to 3 decimals.
    public static func rightHandProbability(of hand: Hand, confidence: Double) -> Double {
        switch hand {
        case .right: decimalRounded(confidence, 3)
        case .left: decimalRounded(1 - confidence, 3)
        case .unknown: 0.5
        }
    }

    /// The decision with `hand` published only from `minimumConfidence` on: below it `unknown`
    /// with confidence 0, the probability kept (the daemon's per-device threshold,
    /// `hand-minimum-confidence`).
    public func published(minimumConfidence: Double) -> HandDecision {
        guard hand != .unknown, confidence < minimumConfidence else { return self }
        return HandDecision(hand: .unknown, confidence: 0, rightHandProbability: rightHandProbability)
    }
}
