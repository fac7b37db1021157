import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a device tells about its contacts, which decides the evidence the classifier can use.
public enum HandednessTier: String, CaseIterable, Hashable, Sendable, Codable {
    /// Positions only.
    case positions
    /// Positions and contact size (TOUCH_MAJOR/MINOR or WIDTH) and/or pressure.
    case size
    /// All that and ellipse orientation with real resolution.
    case orientation
}

/// The default handedness classifier: sums evidence from everything the device reports, over the
/// four ways a pinch can be made (right or left hand × thumb the bottom or the top contact), and
/// answers the posterior of the right hand as a calibrated probability.
///
/// For each hypothesis (hand h, thumb assignment a) the log-likelihood is a sum of terms:
/// - **geometry**: the thumb→index direction is von Mises distributed around 55° above the
///   horizontal, towards the hand's side (`geometry · cos(angle − mean)`);
/// - **thumb cues** (the same for both hands, so they only pick the assignment): log area ratio,
///   pressure difference, which contact moved more since landing (the index does), which landed first;
/// - **orientation**: each ellipse's major axis relative to the pinch line, doubled-angle von Mises
///   around the hand model's finger axes (index +45°, thumb −80° from the thumb→index line for a right
///   hand), weighted by the contact's elongation;
/// - **turn**: how the line turned between landing and now, times the log span change (closing a
///   right-hand pinch turns it one way, a left-hand pinch the other);
/// - **lean**: the seed rule's own evidence (the top finger's side, growing with how clearly it is
///   above and beside the other, in mm).
///
/// What it publishes (``decision(_:)``): every clear lean — the pinches the seed rule answers —
/// on the lean's side unless strong evidence says otherwise, and without a clear lean only what
/// the evidence is sure of, never in the ambiguous slice (``isAmbiguous(_:)``) unless the
/// orientation tier is ``ambiguousMinimumConfidence`` sure. So its answers include every answer of
/// the seed rule (docs/HANDEDNESS.md "What is published").
///
/// Mirror symmetry by construction: the score is `g(f) − g(mirror(f))` where `g` is the log
/// posterior mass of the right hand and `mirror` negates every x and orientation. Mirroring the
/// input swaps the two terms exactly, so the score changes sign and the confidence is bit-identical.
///
/// The weights of each tier were fitted offline by maximum likelihood (coordinate search on the
/// log loss) on a synthetic training set drawn from the whole sensitivity family, each pinch from
/// its own member (`handyctl generate pinches train --count 1000 --seed 1 --mixture`, then
/// `handyctl eval handedness train --fit`), disjoint from the evaluation sets; see
/// docs/HANDEDNESS.md. A separation above ``maximumHandSpanMm`` is two hands, `unknown`.
public struct EvidenceHandednessClassifier: HandednessClassifier, Hashable {
    /// Weights of the evidence terms (log-likelihood units).
    public struct Weights: Hashable, Sendable {
        /// von Mises concentration of the thumb→index direction.
        public var geometry: Double
        /// Per unit of (top moved − bottom moved) / (sum + ``motionSofteningMm``): bottom is the thumb.
        public var motion: Double
        /// Bottom landed first (+1), top first (−1), same frame (0).
        public var landing: Double
        /// Per 0.01 of (line turn in radians × ln span ratio).
        public var turn: Double
        /// Per unit of ln(bottom area / top area).
        public var area: Double
        /// Per unit of pressure difference (bottom − top).
        public var pressure: Double
        /// Doubled-angle von Mises concentration of the ellipse axes, × elongation.
        public var orientation: Double
        /// Per unit of the lean: the top finger's side (+1 right) × how clearly it is above and
        /// beside the bottom one, each margin beyond a small dead zone saturating at 15 mm (the
        /// seed rule's own evidence, ``SeedHandednessRule``). Unlike the angle it grows with the
        /// separation, so a short, noisy pair counts for less.
        public var lean: Double

        public init(
            geometry: Double, motion: Double, landing: Double, turn: Double, area: Double = 0,
            pressure: Double = 0, orientation: Double = 0, lean: Double = 0
        ) {
            self.geometry = geometry
            self.motion = motion
            self.landing = landing
            self.turn = turn
            self.area = area
            self.pressure = pressure
            self.orientation = orientation
            self.lean = lean
        }

        /// The weights as an array (for fitting), in declaration order.
        public var values: [Double] {
            get { [geometry, motion, landing, turn, area, pressure, orientation, lean] }
            set {
                guard newValue.count == 8 else { return }
                (geometry, motion, landing, turn) = (newValue[0], newValue[1], newValue[2], newValue[3])
                (area, pressure, orientation, lean) = (newValue[4], newValue[5], newValue[6], newValue[7])
            }
        }
    }

    // Fitted by `handyctl eval handedness /tmp/train --fit` on `handyctl generate pinches /tmp/train
    // --count 1000 --seed 1 --mixture` (every pinch from its own member of the sensitivity family;
    // log loss 0.327 / 0.371 / 0.216 on the training set, the thumb cues floored; ridge 1e-4 Σ w²),
    // the mixture before the hand's roll joined it. Refitted on today's mixture they trust motion
    // less and the real pinches lose their dominance by one pinch: kept (docs/HANDEDNESS.md "The
    // fit held out by member").
    public static let fittedPositions = Weights(geometry: 3.62, motion: 7.35, landing: 0.87, turn: -0.18, lean: 0.36)
    public static let fittedSize = Weights(
        geometry: 3.44, motion: 5.13, landing: 0.12, turn: -0.18, area: 5.88, pressure: 1.97, lean: 0.04)
    public static let fittedOrientation = Weights(
        geometry: 3.30, motion: 4.88, landing: 0.49, turn: -0.21, area: 7.44, pressure: 3.58, orientation: 3.23,
        lean: 0.18)

    /// The share of pinches in which the thumb cues (which finger moved more, landed first, is
    /// larger, presses harder) point at the wrong contact whatever their strength: a millimetre of
    /// sensor jitter or two fingers that move alike make the motion cue say the wrong finger now and
    /// then, and a wrong thumb turns the geometry to the other hand. Without a floor the sensitivity
    /// family's position-noise member (1 mm) fell 7–15 pinches in 10,000 short of the seed rule.
    public static let thumbCueFloor = 0.1

    /// Added to the two contacts' early motion before comparing them: a sensor's jitter (about a
    /// millimetre on each sample) must not pass for the index's motion.
    static let motionSofteningMm = 3.0

    /// Hand model constants (docs/HANDEDNESS.md): mean thumb→index direction above the horizontal
    /// towards the hand's side, and the finger axes relative to that line, for a right hand.
    static let pinchLineRadians = 55 * Double.pi / 180
    static let indexAxisRadians = 45 * Double.pi / 180
    static let thumbAxisRadians = -80 * Double.pi / 180

    public var positions: Weights
    public var size: Weights
    public var orientation: Weights
    /// Answers below this confidence are `unknown`.
    public var minimumConfidence: Double
    /// In the ambiguous slice (``isAmbiguous(_:)``) an answer needs the orientation tier and at
    /// least this confidence; otherwise it is `unknown`. There the positions say little or
    /// contradict the other cues: without the ellipse axes (evidence that does not rest on the
    /// line's few degrees of lean) the sensitivity family found too many confident wrong answers
    /// even above 0.9, and with them a few at 0.9 (docs/HANDEDNESS.md "Sensitivity").
    public var ambiguousMinimumConfidence: Double
    /// Wider than a thumb and index can span (a large adult hand fully spread is ~150–170 mm from
    /// thumb tip to index tip; a pinch uses far less): two hands, `unknown`.
    public var maximumHandSpanMm: Double

    public init(
        positions: Weights = fittedPositions, size: Weights = fittedSize, orientation: Weights = fittedOrientation,
        minimumConfidence: Double = 0.6, ambiguousMinimumConfidence: Double = 0.95, maximumHandSpanMm: Double = 160
    ) {
        self.positions = positions
        self.size = size
        self.orientation = orientation
        self.minimumConfidence = minimumConfidence
        self.ambiguousMinimumConfidence = ambiguousMinimumConfidence
        self.maximumHandSpanMm = maximumHandSpanMm
    }

    /// The tier of evidence these features offer: orientation when both contacts have one, size when
    /// both have an area or both a pressure, positions otherwise.
    public static func tier(of f: HandednessFeatures) -> HandednessTier {
        guard let t = f.top, let b = f.bottom else { return .positions }
        if t.orientation != nil && b.orientation != nil { return .orientation }
        if (t.areaMm2 != nil && b.areaMm2 != nil) || (t.pressure != nil && b.pressure != nil) { return .size }
        return .positions
    }

    public func weights(for tier: HandednessTier) -> Weights {
        switch tier {
        case .positions: positions
        case .size: size
        case .orientation: orientation
        }
    }

    /// Sets the weights of one tier (``weights(for:)``'s counterpart).
    public mutating func setWeights(_ w: Weights, for tier: HandednessTier) {
        switch tier {
        case .positions: positions = w
        case .size: size = w
        case .orientation: orientation = w
        }
    }

    /// Log odds of the right hand over the left (positive: right). 0 when undecidable.
    public func score(_ f: HandednessFeatures) -> Double {
        Self.score(f, weights: weights(for: Self.tier(of: f)))
    }

    /// Log odds of the right hand with the given weights (used when fitting them).
    public static func score(_ f: HandednessFeatures, weights w: Weights) -> Double {
        let s = rightMass(f, w) - rightMass(negatedX(f), w)
        return s.isFinite ? s : 0
    }

    public func classify(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double) {
        let d = decision(f)
        return (d.hand, d.confidence)
    }

    /// The published hand and confidence, and the probability of the right hand behind them (nil
    /// when the contacts are too far apart to be one hand).
    ///
    /// - A **clear lean** (the top finger beyond the seed rule's dead zones) is always answered:
    ///   the seed rule answers it, and on real hands it is right there (DISPEL: 220 of 233, 94 %,
    ///   67 of 71 in the near-vertical band). The hand is the best guess, which follows the lean
    ///   unless the evidence against it is strong (``minimumConfidenceToOverturnLean``, and
    ///   ``positionsMinimumConfidenceToOverturnLean`` on positions alone); the confidence is at
    ///   least ``clearLeanConfidence``.
    /// - Without a clear lean the evidence answers alone: from ``minimumConfidenceWithoutClearLean(_:)``
    ///   of its tier (and ``minimumConfidence``), never in the ambiguous slice unless the orientation
    ///   tier is ``ambiguousMinimumConfidence`` sure.
    /// So handyd answers every pinch the seed rule answers, and more (docs/HANDEDNESS.md).
    /// - The confidence is what the answer's situation earns on every kind of hand
    ///   (``ConfidenceCalibration/promise(claim:_:otherHand:)``: the family, the real pinches and
    ///   the family's member least favourable to the hand, the strictest). With contact shapes
    ///   (``situationDecidesTheHand``: size, orientation) a situation where the other hand is right
    ///   at least ``otherHandMinimumShare`` of the time on the family gives the other hand, at what
    ///   it promises and at most ``contestedLeanMaximumConfidence``.
    public func decision(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double, rightHandProbability: Double?) {
        decision(calibrating: uncalibratedDecision(f))
    }

    /// ``decision(_:)`` from the rules' answer (``uncalibratedDecision(_:)``), so that a caller
    /// needing both scores the pinch once.
    func decision(
        calibrating d: (hand: Hand, confidence: Double, rightHandProbability: Double?, situation: ConfidenceSituation?)
    ) -> (hand: Hand, confidence: Double, rightHandProbability: Double?) {
        guard let situation = d.situation, d.hand != .unknown else {
            return (d.hand, d.confidence, d.rightHandProbability)
        }
        // The hand its situation favours, claiming what it promises there: the strictest of the
        // family, the real pinches and the family's member least favourable to that hand
        // (docs/HANDEDNESS.md "What is published", items 4–6). Below the classifier's own
        // threshold (one set above the floor) it is unknown.
        let (hand, turned) = Self.situationsChoice(hand: d.hand, claim: d.confidence, situation)
        var promise = ConfidenceCalibration.promise(claim: d.confidence, situation, otherHand: turned)
        if turned {
            // The lean and the evidence disagree here: like a contested lean, the answer claims no
            // more than `contestedLeanMaximumConfidence` (the other hand was right on 69 % of these
            // on one evaluation seed of the family, 90–91 % on two others).
            promise = Swift.min(promise, Self.contestedLeanMaximumConfidence)
        }
        let confidence = ConfidenceCalibration.published(promise)
        guard confidence >= minimumConfidence else { return (.unknown, 0, d.rightHandProbability) }
        return (hand, confidence, hand == .right ? confidence : 1 - confidence)
    }

    /// The tiers where an answer takes the other hand when its situation's answers are mostly wrong
    /// on the family (issue 52): those with the contacts' shape, where the leans kept against the
    /// evidence are such situations. With orientation they are right 9 % of the time on the family
    /// (1,675 answers at seed 1; 13–31 % on seeds 11 and 13): published at the floor 0.6 they made
    /// the tier's band from 0.60 right 16–33 % of the time over the whole family, and the other hand
    /// is right on 69–91 % of them; with size alone 11 % (141 answers at seed 1), the other hand
    /// right on 94–95 % at seeds 11 and 13. Where hands turn little (rotation spread 10°) the lean
    /// was right on the few there are (2 in 1,000 orientation pinches; 0.3 % of 10,000 at seed 25),
    /// which is what this costs. Not on positions: there the real pinches' one such lean is right
    /// (iPhone X `left-042`) and the band from 0.60 keeps its promise over the family (55–58 %).
    public static let situationDecidesTheHand: Set<HandednessTier> = [.size, .orientation]

    /// How often the other hand must be right in a situation (``situationDecidesTheHand``) before
    /// it is published instead: well clear of a coin, so that only the leans kept against the
    /// evidence (2.5–14 % right on the family at seed 1) turn, not the weakly backed leans (34–35 %,
    /// whose share moves with the family's draw: taking the other hand there cost the orientation
    /// noise 30° row its dominance and the rotation spread 10° row 2.5 %).
    public static let otherHandMinimumShare = 0.7

    /// The hand an answer of the rules (`hand`, claiming `claim` in `situation`) is published with;
    /// `turned` when it is the other hand (``situationDecidesTheHand``, ``otherHandMinimumShare``).
    /// What that hand claims is ``ConfidenceCalibration/promise(claim:_:otherHand:)``.
    static func situationsChoice(hand: Hand, claim: Double, _ situation: ConfidenceSituation) -> (
        hand: Hand, turned: Bool
    ) {
        let share = ConfidenceCalibration.share(claim: claim, situation)
        guard 1 - share >= otherHandMinimumShare, situationDecidesTheHand.contains(situation.tier) else {
            return (hand, false)
        }
        return (hand.mirrored, true)
    }

    /// ``decision(_:)`` before its confidence is calibrated: the hand, the claim the rules below give
    /// it, and the situation the calibration reads (nil when nothing is published). What the
    /// calibration table is fitted on (`eval handedness --dump`, scripts/handedness-calibration.py).
    public func uncalibratedDecision(_ f: HandednessFeatures) -> (
        hand: Hand, confidence: Double, rightHandProbability: Double?, situation: ConfidenceSituation?
    ) {
        // Where the size in mm is a guess, so is the span: no pair is known to be two hands.
        guard f.sizeIsAssumed || f.topMm.distance(to: f.bottomMm) <= maximumHandSpanMm else {
            return (.unknown, 0, nil, nil)
        }
        let cues = cueSplit(f)
        let tier = Self.tier(of: f)
        // The full score once: the best guess starts from it and the lean's overturn reads it.
        let evidence = score(f)
        var (hand, confidence) = bestGuess(f, cues, score: evidence)
        let guessed = hand == .right ? confidence : hand == .left ? 1 - confidence : 0.5
        if cues.leanIsClear {
            let leanHand: Hand = f.topMm.x > f.bottomMm.x ? .right : .left
            let evidenceHand: Hand = evidence > 0 ? .right : .left
            let evidenceConfidence = Self.confidence(ofScore: evidence)
            let overturn =
                tier == .positions
                ? Self.positionsMinimumConfidenceToOverturnLean : Self.minimumConfidenceToOverturnLean
            let answer: DecisionCase
            if evidence != 0, evidenceHand != leanHand, evidenceConfidence >= overturn {
                (hand, confidence) = (evidenceHand, evidenceConfidence)
                answer = .overturned
            } else {
                confidence = Swift.max(hand == leanHand ? confidence : 0, Self.clearLeanConfidence)
                // Where the slice would have declined it (near vertical, or the cues disagree),
                // the lean is all that stands: no more than it earns on the family's hardest members.
                if cues.vertical || cues.disagree {
                    confidence = Swift.min(confidence, Self.contestedLeanMaximumConfidence)
                }
                hand = leanHand
                answer =
                    evidence != 0 && evidenceHand != leanHand
                    ? .keptAgainst : cues.vertical || cues.disagree ? .contested : .plain
            }
            guard confidence >= minimumConfidence else { return (.unknown, 0, guessed, nil) }
            return (
                hand, confidence, hand == .right ? confidence : 1 - confidence,
                ConfidenceSituation(tier: tier, answer: answer, claim: confidence, nearVertical: cues.vertical)
            )
        }
        let minimum = Swift.max(minimumConfidence, Self.minimumConfidenceWithoutClearLean(tier))
        guard hand != .unknown, confidence >= minimum else { return (.unknown, 0, guessed, nil) }
        if cues.isAmbiguous && (tier != .orientation || confidence < ambiguousMinimumConfidence) {
            return (.unknown, 0, guessed, nil)
        }
        return (
            hand, confidence, guessed,
            ConfidenceSituation(tier: tier, answer: .noClearLean, claim: confidence, nearVertical: cues.vertical)
        )
    }

    /// The least confidence a clear lean is published with: what the lean alone earns on the
    /// least favourable data we have (the sensitivity family's steep or widely turned hands, where
    /// the seed rule is 74–75 % right; real hands 94 %), so it claims no more than it delivers.
    public static let clearLeanConfidence = 0.6

    /// The most a clear lean is published with where, without it, the pinch would be in the
    /// ambiguous slice (near vertical, or the cues disagree): there the lean is right on 74–75 %
    /// of the pinches of the family's steep and widely turned hands, and more confidence than that
    /// would be claimed (real hands: 94 %, so this errs on the side of claiming less).
    public static let contestedLeanMaximumConfidence = 0.75

    /// Evidence against a clear lean overturns the published answer only from this confidence on
    /// (with contact size or orientation): where hands turn little (rotation spread 10°) the lean
    /// is right on every pinch, and overturns at 0.75–0.8 put handyd 3 pinches in 10,000 below the
    /// seed rule on one seed of two; where hands are steep the evidence is right on most of them.
    public static let minimumConfidenceToOverturnLean = 0.8

    /// On positions alone, evidence against a clear lean overturns it only from this confidence
    /// on: the thumb cues there rest on motion alone, which fingers that move alike (index share
    /// 0.5 in the family) make unreliable; at 0.75 such overturns put handyd 2–3 pinches in 2,000
    /// below the seed rule on five members of the family.
    public static let positionsMinimumConfidenceToOverturnLean = 0.9

    /// Without a clear lean (the seed rule declines), the evidence answers only from this
    /// confidence on: 0.95 on positions alone, 0.9 with contact size, 0.8 with orientation. Lower,
    /// those answers were less accurate than the seed rule's on some members of the family
    /// (positions at 0.6: one member in five; size at 0.7: the rolled hand, whose thumb touches
    /// with its tip so the size cues fail, put handyd below the seed rule), and an independent hand
    /// model found them 69 % right at a mean claim of 0.71 (issue 52).
    public static func minimumConfidenceWithoutClearLean(_ tier: HandednessTier) -> Double {
        switch tier {
        case .positions: 0.95
        case .size: 0.9
        case .orientation: 0.8
        }
    }

    /// The hand the score favours and its confidence, ignoring ``minimumConfidence``, the ambiguous
    /// slice and the span limit: what the classifier would answer with every threshold at zero
    /// (the evaluation compares classifiers at equal coverage with it). `unknown` only at score 0.
    ///
    /// A clear lean is not overturned (``overturnsClearLean(_:)``): where the other cues contradict
    /// it, or the evidence against it is below ``minimumConfidenceAgainstClearLean``, the answer
    /// takes the lean's side with the weaker of the two confidences.
    public func bestGuess(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double) {
        bestGuess(f, cueSplit(f), score: score(f))
    }

    private func bestGuess(_ f: HandednessFeatures, _ cues: CueSplit, score full: Double) -> (
        hand: Hand, confidence: Double
    ) {
        var s = full
        let weak = cues.leanIsClear && Self.confidence(ofScore: s) < Self.minimumConfidenceAgainstClearLean
        if cues.overturnsClearLean || weak {
            let w = weights(for: Self.tier(of: f))
            let lean = Self.score(
                f,
                weights: Weights(
                    geometry: w.geometry, motion: w.motion, landing: w.landing, turn: 0,
                    area: w.area, pressure: w.pressure, lean: w.lean))
            if cues.overturnsClearLean || lean * s < 0 {
                s = (lean > 0 ? 1 : -1) * Swift.min(Swift.abs(s), Swift.abs(lean))
            }
        }
        guard s != 0 else { return (.unknown, 0) }
        return (s > 0 ? .right : .left, Self.confidence(ofScore: s))
    }

    /// The published confidence of a score: the probability of the hand it favours, to the wire's
    /// three decimals.
    static func confidence(ofScore s: Double) -> Double { decimalRounded(1 / (1 + exp(-Swift.abs(s))), 3) }

    /// Evidence against a clear lean (the top finger beyond the seed rule's dead zones) overturns it
    /// only from this confidence on; weaker, the answer takes the lean's side with the weaker of the
    /// two confidences, as ``overturnsClearLean(_:)`` does. Why this number: the lean alone is right
    /// on about three pinches in four even on the members of the sensitivity family where it is least
    /// reliable (thumb→index angle 75°, hand rotation spread 40°: the seed rule 74.7–75.1 %), so weaker
    /// evidence against it is no better than the lean on any member and worse on most. Without it,
    /// where hands turn little (rotation spread 10°) a clear lean overturned at 0.6–0.75 put handyd
    /// 2 pinches in 10,000 below the seed rule on two seeds of five (docs/HANDEDNESS.md).
    static let minimumConfidenceAgainstClearLean = 0.75

    /// Whether the geometry (the line's direction, with the thumb cues that pick which end is the
    /// thumb) and the rest (the ellipse axes, the line's turn) favour different hands where the lean
    /// is clear: the cues disagree (``disagreementLogOdds`` each way), or, in the vertical slice,
    /// the two point opposite ways while the top finger is beyond the seed rule's dead zones.
    ///
    /// Why the lean wins there: on a hand model whose hands turn little (rotation spread 10°) the
    /// lean is right on every pinch it answers, while the ellipse axes and thumb cues, whose model
    /// no published measurement backs, sometimes say the other hand; letting them overturn a clear
    /// lean cost handyd 40 pinches in 10,000 against the seed rule there (docs/HANDEDNESS.md
    /// "Sensitivity"). Steep hands pay for it in the guesses handyd does not publish.
    func overturnsClearLean(_ f: HandednessFeatures) -> Bool { cueSplit(f).overturnsClearLean }

    /// The seed rule's default dead zones (``SeedHandednessRule``): beyond both the lean is clear.
    static let clearLeanMm = (
        vertical: SeedHandednessRule().verticalDeadZoneMm,
        horizontal: SeedHandednessRule().horizontalDeadZoneMm
    )

    /// The line between the two contacts within this angle of vertical: one finger above the other,
    /// where which side the hand is on rests on a few degrees of lean.
    static let ambiguousVerticalRadians = 15 * Double.pi / 180
    /// Cues disagree when the geometry and the rest (turn, orientation) each favour a different hand
    /// by at least this many log-odds units.
    static let disagreementLogOdds = 0.5

    /// The ambiguous slice (docs/HANDEDNESS.md "Sensitivity"): the line between the contacts within
    /// ``ambiguousVerticalRadians`` of vertical, or the geometry and the other hand cues (the line's
    /// turn, the ellipse axes) favouring different hands. Mirror-symmetric like the score.
    public func isAmbiguous(_ f: HandednessFeatures) -> Bool { cueSplit(f).isAmbiguous }

    /// What the ambiguous slice and the clear-lean rule read, computed once per decision: the score
    /// of the geometry alone (with the thumb cues, which only pick the thumb), the score of
    /// everything else (the lean, the line's turn, the ellipse axes, the thumb cues), and where the
    /// top finger is.
    private struct CueSplit {
        var vertical: Bool
        var leanIsClear: Bool
        var disagree: Bool
        var opposite: Bool
        /// Without a clear lean: with one the seed rule answers, and real hands say the lean is
        /// right there (docs/HANDEDNESS.md "Real hands").
        var isAmbiguous: Bool { (vertical || disagree) && !leanIsClear }
        var overturnsClearLean: Bool { vertical ? opposite && leanIsClear : disagree }
    }

    private func cueSplit(_ f: HandednessFeatures) -> CueSplit {
        let dx = Swift.abs(f.topMm.x - f.bottomMm.x), dy = Swift.abs(f.bottomMm.y - f.topMm.y)
        let w = weights(for: Self.tier(of: f))
        let geometryOnly = Weights(
            geometry: w.geometry, motion: w.motion, landing: w.landing, turn: 0, area: w.area, pressure: w.pressure)
        var rest = w
        rest.geometry = 0
        let g = Self.score(f, weights: geometryOnly), r = Self.score(f, weights: rest)
        let opposite = g * r < 0
        return CueSplit(
            vertical: atan2(dx, dy) < Self.ambiguousVerticalRadians,
            leanIsClear: dx > Self.clearLeanMm.horizontal && dy > Self.clearLeanMm.vertical,
            disagree: opposite && Swift.abs(g) >= Self.disagreementLogOdds && Swift.abs(r) >= Self.disagreementLogOdds,
            opposite: opposite)
    }

    /// The features mirrored about x = 0 (exact: negation).
    static func negatedX(_ f: HandednessFeatures) -> HandednessFeatures {
        func n(_ c: HandednessContact) -> HandednessContact {
            var c = c
            c.positionMm.x = -c.positionMm.x
            c.startMm.x = -c.startMm.x
            c.orientation = c.orientation.map { -$0 }
            return c
        }
        let top = f.top ?? HandednessContact(positionMm: f.topMm)
        let bottom = f.bottom ?? HandednessContact(positionMm: f.bottomMm)
        return HandednessFeatures(top: n(top), bottom: n(bottom))
    }

    /// log Σ over the thumb assignments of the right-hand likelihood (up to a constant shared with
    /// the mirrored features).
    static func rightMass(_ f: HandednessFeatures, _ w: Weights) -> Double {
        let top = f.top ?? HandednessContact(positionMm: f.topMm)
        let bottom = f.bottom ?? HandednessContact(positionMm: f.bottomMm)
        // Bottom → top in math axes (x right, y up).
        let dx = top.positionMm.x - bottom.positionMm.x
        let up = bottom.positionMm.y - top.positionMm.y
        let length = (dx * dx + up * up).squareRoot()
        guard length > 1e-6 else { return 0 }
        let ux = dx / length, uy = up / length
        let lineAngle = atan2(up, dx)

        // Thumb cues: log odds that the bottom contact is the thumb (no x in them).
        var thumb = 0.0
        let movedTop = top.positionMm.distance(to: top.startMm),
            movedBottom = bottom.positionMm.distance(to: bottom.startMm)
        thumb += w.motion * (movedTop - movedBottom) / (movedTop + movedBottom + Self.motionSofteningMm)
        let landedGap = top.landedSeconds - bottom.landedSeconds
        thumb += w.landing * (landedGap > 0.001 ? 1 : landedGap < -0.001 ? -1 : 0)
        if let at = top.areaMm2, let ab = bottom.areaMm2, at > 0, ab > 0 { thumb += w.area * log(ab / at) }
        if let pt = top.pressure, let pb = bottom.pressure { thumb += w.pressure * (pb - pt) }

        // Turn of the line since the contacts landed, times the log span change.
        var turn = 0.0
        let sx = top.startMm.x - bottom.startMm.x, sUp = bottom.startMm.y - top.startMm.y
        let startLength = (sx * sx + sUp * sUp).squareRoot()
        if startLength > 1e-6 {
            let cross = sx * up - sUp * dx, dot = sx * dx + sUp * up
            // ×100: a turn of 0.1 rad over a 10 % span change is ~1 unit.
            turn = w.turn * 100 * atan2(cross, dot) * log(length / startLength)
        }

        // The lean, as the seed rule sees it: half here, since the score is this minus the mirror's.
        var lean = 0.0
        if w.lean != 0 {
            let vMargin = Swift.abs(up) - clearLeanMm.vertical, hMargin = Swift.abs(dx) - clearLeanMm.horizontal
            if vMargin > 0, hMargin > 0 {
                lean = w.lean / 2 * (dx > 0 ? 1 : -1) * Swift.min(1, vMargin / 15) * Swift.min(1, hMargin / 15)
            }
        }

        // a = +1: bottom is the thumb (thumb→index = bottom→top); a = −1: top is the thumb.
        // The thumb cues' odds, floored: whatever they say, the other contact is the thumb at least
        // `thumbCueFloor` / 2 of the time (log σ(a·t) − log σ(−a·t) = a·t without the floor).
        let floor = Self.thumbCueFloor
        func logLikelihood(_ a: Double) -> Double {
            var l = log((1 - floor) / (1 + exp(-a * thumb)) + floor / 2) + turn + lean
            l += w.geometry * a * (ux * cos(pinchLineRadians) + uy * sin(pinchLineRadians))
            if w.orientation != 0 {
                for (contact, isBottom) in [(bottom, true), (top, false)] {
                    guard let o = contact.orientation else { continue }
                    let axis = Double.pi / 2 - o  // kernel (clockwise from y) → math angle
                    let isThumb = (a > 0) == isBottom
                    let expected = isThumb ? thumbAxisRadians : indexAxisRadians
                    let e = contact.elongation ?? 0.3
                    l += w.orientation * e * cos(2 * (axis - lineAngle - expected))
                }
            }
            return l
        }
        let p = logLikelihood(1), q = logLikelihood(-1)
        let m = Swift.max(p, q)
        return m + log(exp(p - m) + exp(q - m))
    }
}

extension EvidenceHandednessClassifier {
    /// ``decision(_:)`` as a ``HandDecision``: P(right hand) is there also when the hand is
    /// `unknown` (below the thresholds, in the ambiguous slice); nil for two hands.
    public func decide(_ f: HandednessFeatures) -> HandDecision { Self.handDecision(publishing: decision(f)) }

    private static func handDecision(publishing d: (hand: Hand, confidence: Double, rightHandProbability: Double?))
        -> HandDecision
    {
        HandDecision(
            hand: d.hand, confidence: d.confidence,
            rightHandProbability: d.rightHandProbability.map { decimalRounded($0, 3) })
    }

    /// ``uncalibratedDecision(_:)`` as a ``HandDecision``, with the hand its situation favours
    /// (``situationsChoice(hand:claim:_:)``: then the other hand at the rules' claim, P mirrored): what
    /// a device's hand profile recalibrates (its own confidence replaces the family's,
    /// ``HandProfile``; the family's choice of hand stays, which one scale and bias cannot make).
    public func decideUncalibrated(_ f: HandednessFeatures) -> HandDecision {
        Self.handDecision(choosing: uncalibratedDecision(f))
    }

    /// ``decide(_:)`` and ``decideUncalibrated(_:)`` of one pinch, scored once: what a device's
    /// hand profile reads (``ProfiledHandednessClassifier``).
    public func decideBoth(_ f: HandednessFeatures) -> (published: HandDecision, uncalibrated: HandDecision) {
        let d = uncalibratedDecision(f)
        return (Self.handDecision(publishing: decision(calibrating: d)), Self.handDecision(choosing: d))
    }

    private static func handDecision(
        choosing d: (hand: Hand, confidence: Double, rightHandProbability: Double?, situation: ConfidenceSituation?)
    ) -> HandDecision {
        var (hand, p) = (d.hand, d.rightHandProbability)
        if let situation = d.situation, hand != .unknown,
            Self.situationsChoice(hand: hand, claim: d.confidence, situation).turned
        {
            (hand, p) = (hand.mirrored, p.map { 1 - $0 })
        }
        return HandDecision(
            hand: hand, confidence: d.confidence, rightHandProbability: p.map { decimalRounded($0, 3) })
    }
}
