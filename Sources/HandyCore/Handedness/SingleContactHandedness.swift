import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hand of a one-finger gesture, from the contact alone: a probability, never a published hand.
///
/// Fitted on real taps whose hand is known (CapFingerId: 1,193 thumb and index taps of 16 people on
/// a phone, capacitive images turned into evdev ellipses; `Tests/Fixtures/realhands/capfingerid/`,
/// `fit_single_contact.py`) and measured leaving one person out (docs/HANDEDNESS.md "One finger").
/// What it learned: a contact's lean says the hand only together with where it touches and how
/// large it is — a thumb's lean flips between the top and the bottom of the screen, and an index
/// finger's hardly says anything (a coin toss, 49.5 % where the model was surest). The geometric
/// rule handyd used before (a lean up and left is a right hand) was right on 38 % of the taps it
/// answered. So handyd publishes **no** hand for one finger (`unknown`): nothing real supports an
/// answer an app could rely on. It does publish `rightHandProbability`, capped at
/// ``maximumProbability`` either way, and only for a thumb-sized contact (``thumbSizedAreaMm2``):
/// held out person by person it carries nothing on index fingers (log-loss 0.712 against a coin's
/// 0.693), and fitted on one finger type it is worse than a coin on the other (index from thumbs
/// 0.767, thumbs from index fingers 0.797), so on a finger type it never saw it would be a coin
/// that claims. A contact that size at touch down was a thumb on 169 of the 185 real taps; an
/// index finger's (and a middle, ring or little finger's, which are no larger) stays at 0.5.
///
/// The log odds of the right hand use only features that change sign when the contact is mirrored
/// (x → width − x, orientation → −orientation), with no constant, so the mirrored contact gets
/// exactly 1 − P:
///
///     lean = sin 2θ · e,  u = x/width − ½,  v = y/height − ½,  z = (area − 150.07 mm²) / 39.11 mm²
///     s = w₁ lean + w₂ lean·v + w₃ lean·z + w₄ lean·v·z + w₅ u + w₆ u·v + w₇ u·z
///
/// (θ the kernel orientation in the display frame, e = 1 − minor/major, area = π/4 · major · minor).
/// A device that does not report the contact's orientation gets no probability at all.
public enum SingleContactHandedness {
    /// The weights of the log odds (``SingleContactHandedness``), and the contact area they were
    /// fitted around.
    public struct Model: Codable, Hashable, Sendable {
        public var lean: Double
        public var leanDown: Double
        var leanSize: Double
        var leanDownSize: Double
        public var across: Double
        var acrossDown: Double
        var acrossSize: Double
        public var areaMeanMm2: Double
        public var areaSdMm2: Double

        public init(
            lean: Double, leanDown: Double, leanSize: Double, leanDownSize: Double, across: Double,
            acrossDown: Double, acrossSize: Double, areaMeanMm2: Double, areaSdMm2: Double
        ) {
            (self.lean, self.leanDown, self.leanSize, self.leanDownSize) = (lean, leanDown, leanSize, leanDownSize)
            (self.across, self.acrossDown, self.acrossSize) = (across, acrossDown, acrossSize)
            (self.areaMeanMm2, self.areaSdMm2) = (areaMeanMm2, areaSdMm2)
        }

        /// The seven weights in the order of ``SingleContactHandedness/terms(_:displayWidthMm:displayHeightMm:model:)``.
        public var weights: [Double] {
            get { [lean, leanDown, leanSize, leanDownSize, across, acrossDown, acrossSize] }
            set {
                guard newValue.count == 7 else { return }
                (lean, leanDown, leanSize, leanDownSize) = (newValue[0], newValue[1], newValue[2], newValue[3])
                (across, acrossDown, acrossSize) = (newValue[4], newValue[5], newValue[6])
            }
        }
    }

    /// Fitted on every CapFingerId tap in the fixtures (logistic regression, L2 1; model D of
    /// `python3 Tests/Fixtures/realhands/fit_single_contact.py`, its last line).
    public static let fitted = Model(
        lean: 2.269, leanDown: 1.855, leanSize: -2.561, leanDownSize: 1.617,
        across: -0.395, acrossDown: -2.081, acrossSize: -0.710,
        areaMeanMm2: 150.07, areaSdMm2: 39.11)

    /// The most `rightHandProbability` says either way for one finger (and 1 − it the other way):
    /// held out person by person, the model's 0.6–0.7 were right 67 % of the time, its 0.7–0.8
    /// only 66 %, index fingers alone less than half: it claims no more than that.
    static let maximumProbability = 0.65

    /// The smallest contact area (mm²) read as a thumb's, the one finger type the probability holds
    /// on (docs/HANDEDNESS.md "One finger"): on CapFingerId's phone, at touch down (where a one-finger
    /// gesture's hand is decided), 31 % of thumb taps and 2.5 % of index taps are this large. A
    /// contact without an area cannot be told apart: 0.5.
    public static let thumbSizedAreaMm2 = 140.0

    /// The log odds of the right hand (positive: right); nil when the device reports no orientation.
    public static func score(
        _ contact: HandednessContact, displayWidthMm: Double, displayHeightMm: Double,
        model m: Model = fitted
    ) -> Double? {
        guard let t = terms(contact, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm, model: m) else {
            return nil
        }
        let s = zip(m.weights, t).reduce(0) { $0 + $1.0 * $1.1 }
        return s.isFinite ? s : nil
    }

    /// The seven terms the weights multiply, in the order of ``Model/weights`` (lean, lean·v,
    /// lean·z, lean·v·z, u, u·v, u·z); nil when the device reports no orientation. For fitting a
    /// device's own weights (``HandProfile``).
    public static func terms(
        _ contact: HandednessContact, displayWidthMm: Double, displayHeightMm: Double,
        model m: Model = fitted
    ) -> [Double]? {
        guard let theta = contact.orientation, theta.isFinite, displayWidthMm > 0, displayHeightMm > 0 else {
            return nil
        }
        let e = contact.elongation ?? 0
        let lean = sin(2 * theta) * e
        let u = contact.positionMm.x / displayWidthMm - 0.5
        let v = contact.positionMm.y / displayHeightMm - 0.5
        let z = contact.areaMm2.map { ($0 - m.areaMeanMm2) / Swift.max(m.areaSdMm2, 1e-9) } ?? 0
        let t = [lean, lean * v, lean * z, lean * v * z, u, u * v, u * z]
        return t.allSatisfy(\.isFinite) ? t : nil
    }

    /// Hand `unknown` always; P(right hand) within 1 − ``maximumProbability`` … ``maximumProbability``
    /// for a thumb-sized contact whose device reports its orientation, 0.5 for any smaller contact
    /// (or one without an area) with an orientation, ``HandDecision/undecided`` without one.
    public static func decide(_ contact: HandednessContact, displayWidthMm: Double, displayHeightMm: Double)
        -> HandDecision
    {
        guard let s = score(contact, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm) else {
            return .undecided
        }
        guard let area = contact.areaMm2, area >= thumbSizedAreaMm2 else {
            return HandDecision(hand: .unknown, confidence: 0, rightHandProbability: 0.5)
        }
        let p = Swift.min(Swift.max(1 / (1 + exp(-s)), 1 - maximumProbability), maximumProbability)
        return HandDecision(hand: .unknown, confidence: 0, rightHandProbability: decimalRounded(p, 3))
    }

    public static func decide(_ touch: Touch, displayWidthMm: Double, displayHeightMm: Double) -> HandDecision {
        decide(HandednessContact(touch), displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm)
    }
}
