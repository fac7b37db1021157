import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a device learned about its users' hands from enrolled, labelled gestures (issue 43,
/// "Per-kiosk enrolment"; docs/HANDEDNESS.md "Per-device enrolment"): a small versioned JSON
/// document the daemon applies to the device's pipeline.
///
/// - `pinch`: a Platt recalibration of the default pinch decision's P(right hand) for this device,
///   `rightLogOdds' = scale · logit(P) + bias`, and the confidence from which the hand is
///   published. A kiosk's mounting and its users' posture move every pinch the same way, towards
///   one hand: that is a **bias**, and a bias breaks the default model's mirror symmetry on purpose
///   (a left-hand pinch mirrored is no longer exactly a right-hand one on this device). The scale
///   says how far the default model's P is to be trusted here; it must stay positive (a profile
///   whose pinches say the opposite of the model is refused). P' decides the hand; what the answer
///   claims stays the default's promise (``pinchDecision(uncalibrated:published:)``).
/// - `singleContact` (optional): the one-finger model's weights (``SingleContactHandedness``)
///   refitted on the enrolled taps, with a `bias`, and `minimumConfidence` to publish a hand for
///   one finger: set only when leaving each enrolled tap out in turn showed the refitted model
///   right at least `c − 0.05` of the time where it was `c` sure. Without it one finger publishes
///   no hand, only P (as without a profile).
///
/// Pure: its document (JSON) is read and written by HandySettings (`HandProfile+Document.swift`),
/// the daemon and `handyctl` read and write the files.
public struct HandProfile: Codable, Hashable, Sendable {
    /// The version this handyd reads and writes.
    public static let currentVersion = 1
    /// Enrolled pinches per hand needed, at least.
    static let minimumPinchesPerHand = 5
    /// Enrolled taps per hand (with a contact orientation) needed to refit the one-finger model.
    public static let minimumTapsPerHand = 5
    /// L2 weight pulling the fit towards the default model (scale 1, bias 0; the default one-finger
    /// weights): with 5 pinches a hand, the enrolment moves the model, it does not replace it.
    public static let ridge = 1.0

    public var version: Int
    /// The device id the profile was enrolled on (informative: the daemon applies the file it is given).
    public var device: String
    public var pinch: Pinch
    public var singleContact: SingleContact?
    /// Pinches and taps the profile was fitted on.
    public var pinches: Int
    public var taps: Int
    /// Per hand: how many were enrolled and how the fitted profile does on them.
    public var enrolled: Enrolled

    public struct Pinch: Codable, Hashable, Sendable {
        public var scale: Double
        public var bias: Double
        /// The published hand needs P' (or 1 − P') at least this (0.5 … 1).
        public var minimumConfidence: Double
        public init(scale: Double = 1, bias: Double = 0, minimumConfidence: Double = 0.6) {
            (self.scale, self.bias, self.minimumConfidence) = (scale, bias, minimumConfidence)
        }
    }

    public struct SingleContact: Codable, Hashable, Sendable {
        /// The refitted weights; in the file, flat beside `bias` (`lean`, `leanDown`, …, `areaSdMm2`).
        public var model: SingleContactHandedness.Model
        /// Added to the log odds: this device's users' lean towards one hand.
        public var bias: Double
        /// The confidence from which a hand is published for one finger, and what it then claims;
        /// nil: no hand is published (only P, capped as without a profile).
        public var minimumConfidence: Double?

        public init(model: SingleContactHandedness.Model, bias: Double, minimumConfidence: Double?) {
            (self.model, self.bias, self.minimumConfidence) = (model, bias, minimumConfidence)
        }

        /// The refitted model's hand for one contact: published from ``minimumConfidence``, which
        /// is also what it claims (P is the claim's); without one no hand, P capped as by default;
        /// undecided without an orientation.
        public func decide(_ contact: HandednessContact, displayWidthMm: Double, displayHeightMm: Double)
            -> HandDecision
        {
            guard
                let s = SingleContactHandedness.score(
                    contact, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm, model: model)
            else { return .undecided }
            var p = HandProfile.sigmoid(s + bias)
            guard let minimum = minimumConfidence else {
                let cap = SingleContactHandedness.maximumProbability
                p = Swift.min(Swift.max(p, 1 - cap), cap)
                return HandDecision(hand: .unknown, confidence: 0, rightHandProbability: decimalRounded(p, 3))
            }
            // The claim is the confidence the held-out taps backed, not P: leaving each tap out
            // checked the answers from `minimum` on as a whole, no band above it (claiming P, a
            // person's band from 0.75 was right 4 of 10 times at 0.774 on CapFingerId, 15 taps a
            // hand enrolled; docs/HANDEDNESS.md "Per-device enrolment").
            let d = HandProfile.published(probability: decimalRounded(p, 3), minimumConfidence: minimum)
            guard d.hand != .unknown else { return d }
            return HandDecision(
                hand: d.hand, confidence: minimum,
                rightHandProbability: d.hand == .right ? minimum : decimalRounded(1 - minimum, 3))
        }

        private enum CodingKeys: String, CodingKey { case bias, minimumConfidence }

        public init(from decoder: any Decoder) throws {
            model = try SingleContactHandedness.Model(from: decoder)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bias = try c.decode(Double.self, forKey: .bias)
            minimumConfidence = try c.decodeIfPresent(Double.self, forKey: .minimumConfidence)
        }

        public func encode(to encoder: any Encoder) throws {
            try model.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bias, forKey: .bias)
            try c.encodeIfPresent(minimumConfidence, forKey: .minimumConfidence)
        }
    }

    public struct Enrolled: Codable, Hashable, Sendable {
        public var leftPinches: Int
        public var rightPinches: Int
        public var leftTaps: Int
        public var rightTaps: Int
        /// Share of each hand's enrolled pinches the fitted recalibration calls that hand (its best
        /// guess, no threshold; a tie counts half).
        public var leftAccuracy: Double
        public var rightAccuracy: Double
        public init(
            leftPinches: Int, rightPinches: Int, leftTaps: Int = 0, rightTaps: Int = 0,
            leftAccuracy: Double, rightAccuracy: Double
        ) {
            (self.leftPinches, self.rightPinches, self.leftTaps, self.rightTaps) = (
                leftPinches, rightPinches, leftTaps, rightTaps
            )
            (self.leftAccuracy, self.rightAccuracy) = (leftAccuracy, rightAccuracy)
        }
    }

    public init(
        version: Int = currentVersion, device: String, pinch: Pinch, singleContact: SingleContact? = nil,
        enrolled: Enrolled
    ) {
        self.version = version
        self.device = device
        self.pinch = pinch
        self.singleContact = singleContact
        self.enrolled = enrolled
        self.pinches = enrolled.leftPinches + enrolled.rightPinches
        self.taps = enrolled.leftTaps + enrolled.rightTaps
    }

    // MARK: - Applying it

    /// The pinch decision on this device: the default decision's P(right hand) before the family's
    /// calibration (``ConfidenceCalibration``) recalibrated, P', decides the hand, from
    /// ``Pinch/minimumConfidence``. What it claims is a promise kept on every set we measure, not the
    /// fit's estimate: where the default publishes the same hand, no more than the default's
    /// confidence (the promise the family and the real pinches back), else ``overrulingConfidence``.
    /// P is then the claim's (as the default's); unknown keeps P'. A decision without P (two hands)
    /// stays as is.
    ///
    /// Why not P' itself: fitted on 10 or 20 pinches, mostly clear ones, the scale stretches every
    /// claim, also the weak ones near the threshold; on the family's members P' from 0.60 or 0.65
    /// was right 51–59 % of the time, and its high bands fell short where the default's own P was
    /// too sure (thumb→index 75°: from 0.90 right 79 %, docs/HANDEDNESS.md "Per-device enrolment").
    func pinchDecision(uncalibrated base: HandDecision, published: HandDecision) -> HandDecision {
        guard let p = base.rightHandProbability else { return base }
        let z = pinch.scale * Self.logit(p) + pinch.bias
        let own = Self.published(
            probability: decimalRounded(Self.sigmoid(z), 3), minimumConfidence: pinch.minimumConfidence)
        guard own.hand != .unknown else { return own }
        let claim =
            own.hand == published.hand
            ? Swift.min(own.confidence, published.confidence) : Swift.min(own.confidence, Self.overrulingConfidence)
        return HandDecision(
            hand: own.hand, confidence: claim,
            rightHandProbability: own.hand == .right ? claim : decimalRounded(1 - claim, 3))
    }

    /// What a profiled answer claims where the default declines the pinch or publishes the other
    /// hand: the floor of what is published. Such answers (P' ≥ 0.6) were right 74–98 % of the time
    /// on every synthetic member left out of the enrolment (2,000 pinches a member, k = 5 and 10)
    /// and 80–100 % on the real phones; the claim rests on no situation of the family's table, so
    /// it claims the least a published hand does.
    static let overrulingConfidence = EvidenceHandednessClassifier.clearLeanConfidence

    /// The one-finger decision on this device: the refitted model's P(right hand), a hand only from
    /// ``SingleContact/minimumConfidence``; nil without a refitted model (the default applies).
    func singleContactDecision(_ contact: HandednessContact, displayWidthMm: Double, displayHeightMm: Double)
        -> HandDecision?
    {
        singleContact?.decide(contact, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm)
    }

    /// Right when P ≥ `minimumConfidence`, left when 1 − P is, else unknown (confidence 0); P kept.
    static func published(probability p: Double, minimumConfidence: Double) -> HandDecision {
        let confidence = Swift.max(p, decimalRounded(1 - p, 3))
        let hand: Hand = p >= minimumConfidence ? .right : 1 - p >= minimumConfidence - 1e-12 ? .left : .unknown
        return HandDecision(hand: hand, confidence: hand == .unknown ? 0 : confidence, rightHandProbability: p)
    }

    static func sigmoid(_ z: Double) -> Double { z >= 0 ? 1 / (1 + exp(-z)) : exp(z) / (1 + exp(z)) }

    /// logit of a probability kept within 0.001 … 0.999 (P is published to 3 decimals: 1.000 is possible).
    static func logit(_ p: Double) -> Double {
        let q = Swift.min(Swift.max(p, 0.001), 0.999)
        return log(q / (1 - q))
    }

    // MARK: - Checking it

    /// Refuses a profile handyd must not apply: another version, non-finite or out-of-range
    /// numbers, too few enrolled pinches, or pinches that contradict the model (scale ≤ 0, a hand
    /// the fitted profile calls right less than half the time).
    public func validate() throws(HandProfileError) {
        guard version == Self.currentVersion else {
            throw HandProfileError(
                .unsupportedVersion,
                "version \(version): this handyd reads version \(Self.currentVersion) profiles only")
        }
        var numbers: [(String, Double)] = [
            ("pinch.scale", pinch.scale), ("pinch.bias", pinch.bias),
            ("pinch.minimumConfidence", pinch.minimumConfidence),
            ("enrolled.leftAccuracy", enrolled.leftAccuracy), ("enrolled.rightAccuracy", enrolled.rightAccuracy),
        ]
        if let sc = singleContact {
            let names = ["lean", "leanDown", "leanSize", "leanDownSize", "across", "acrossDown", "acrossSize"]
            numbers += zip(names.map { "singleContact.\($0)" }, sc.model.weights).map { ($0, $1) }
            numbers += [
                ("singleContact.areaMeanMm2", sc.model.areaMeanMm2), ("singleContact.areaSdMm2", sc.model.areaSdMm2),
                ("singleContact.bias", sc.bias),
            ]
            if let m = sc.minimumConfidence { numbers.append(("singleContact.minimumConfidence", m)) }
        }
        for (name, value) in numbers where !value.isFinite {
            throw HandProfileError(.nonFinite, "\(name) is \(value): every number must be finite")
        }
        for (name, value) in [
            ("pinch.minimumConfidence", pinch.minimumConfidence),
            ("singleContact.minimumConfidence", singleContact?.minimumConfidence),
        ] {
            if let value, !(0.5...1).contains(value) {
                throw HandProfileError(.outOfRange, "\(name) \(value): expected 0.5 … 1")
            }
        }
        if let sc = singleContact, sc.model.areaSdMm2 <= 0 {
            throw HandProfileError(.outOfRange, "singleContact.areaSdMm2 \(sc.model.areaSdMm2): expected more than 0")
        }
        let e = enrolled
        guard e.leftPinches >= Self.minimumPinchesPerHand, e.rightPinches >= Self.minimumPinchesPerHand else {
            throw HandProfileError(
                .tooFewPinches,
                "too few pinches: \(e.leftPinches) left and \(e.rightPinches) right enrolled, "
                    + "at least \(Self.minimumPinchesPerHand) of each hand needed")
        }
        guard pinches == e.leftPinches + e.rightPinches, taps == e.leftTaps + e.rightTaps,
            e.leftTaps >= 0, e.rightTaps >= 0
        else {
            throw HandProfileError(
                .outOfRange, "pinches \(pinches) / taps \(taps) do not match enrolled's counts per hand")
        }
        guard pinch.scale > 0 else {
            throw HandProfileError(
                .contradictingLabels,
                "labels contradict the model: the fitted pinch scale is \(Self.format(pinch.scale)) "
                    + "(≤ 0: the enrolled pinches say the opposite hand of what the model says); check the labels")
        }
        for (hand, accuracy) in [("left", e.leftAccuracy), ("right", e.rightAccuracy)] where accuracy < 0.5 {
            throw HandProfileError(
                .contradictingLabels,
                "labels contradict each other: after fitting, only \(Self.format(accuracy * 100)) % "
                    + "of the enrolled \(hand)-hand pinches come out \(hand) (under 50 %); check the labels")
        }
    }

    public static func format(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    // MARK: - Fitting it

    /// Fits a profile on enrolled, labelled gestures: the pinches' features (as the arena hands them
    /// to the classifier) with their hand, and one-finger taps (each contact as it was when its
    /// first per-touch gesture began, with the display's size in mm).
    ///
    /// Maximum likelihood (Newton's method on the log loss) with a light L2 pull towards the
    /// default model (``ridge``: scale 1, bias 0; the default one-finger weights, bias 0). Throws
    /// when there are fewer than ``minimumPinchesPerHand`` pinches of a hand (two-hand pinches,
    /// with no P, do not count), or when the result fails ``validate()``.
    public static func fit(
        pinches: [(HandednessFeatures, Hand)],
        taps: [(HandednessContact, Hand, Double, Double)] = [],
        device: String = "",
        classifier: EvidenceHandednessClassifier = EvidenceHandednessClassifier(),
        minimumConfidence: Double = 0.6
    ) throws(HandProfileError) -> HandProfile {
        var xs: [[Double]] = [], ys: [Double] = []
        for (f, hand) in pinches where hand != .unknown {
            guard let p = classifier.decideUncalibrated(f).rightHandProbability else { continue }
            xs.append([logit(p), 1])
            ys.append(hand == .right ? 1 : -1)
        }
        let left = ys.filter { $0 < 0 }.count, right = ys.count - left
        guard left >= minimumPinchesPerHand, right >= minimumPinchesPerHand else {
            throw HandProfileError(
                .tooFewPinches,
                "too few pinches: \(left) left and \(right) right usable "
                    + "(of \(pinches.count) given), at least \(minimumPinchesPerHand) of each hand needed")
        }
        let theta = logisticFit(xs, ys, prior: [1, 0], ridge: ridge)
        // Six decimals: a profile fitted live (from what the daemon published) and one fitted from
        // the same recordings offline agree to ~1e-13; rounded, they are the same file.
        let fitted = Pinch(
            scale: decimalRounded(theta[0], 6), bias: decimalRounded(theta[1], 6), minimumConfidence: minimumConfidence)
        func accuracy(_ sign: Double) -> Double {
            var right = 0.0, n = 0.0
            for (x, y) in zip(xs, ys) where y == sign {
                let z = fitted.scale * x[0] + fitted.bias
                right += z * y > 0 ? 1 : z == 0 ? 0.5 : 0
                n += 1
            }
            return n > 0 ? right / n : 0
        }

        let (single, leftTaps, rightTaps) = fitSingleContact(taps: taps)
        let profile = HandProfile(
            device: device, pinch: fitted, singleContact: single,
            enrolled: Enrolled(
                leftPinches: left, rightPinches: right,
                leftTaps: single == nil ? 0 : leftTaps, rightTaps: single == nil ? 0 : rightTaps,
                leftAccuracy: decimalRounded(accuracy(-1), 3), rightAccuracy: decimalRounded(accuracy(1), 3)))
        try profile.validate()
        return profile
    }

    /// The one-finger part of ``fit(pinches:taps:device:classifier:minimumConfidence:)``: the taps
    /// whose device reports an orientation, and the refitted model when there are at least
    /// ``minimumTapsPerHand`` of each hand (nil otherwise), with the taps of each hand it used.
    public static func fitSingleContact(taps: [(HandednessContact, Hand, Double, Double)]) -> (
        model: SingleContact?, leftTaps: Int, rightTaps: Int
    ) {
        var tx: [[Double]] = [], ty: [Double] = []
        for (contact, hand, width, height) in taps where hand != .unknown {
            guard let t = SingleContactHandedness.terms(contact, displayWidthMm: width, displayHeightMm: height) else {
                continue
            }
            tx.append(t + [1])
            ty.append(hand == .right ? 1 : -1)
        }
        let leftTaps = ty.filter { $0 < 0 }.count, rightTaps = ty.count - leftTaps
        guard leftTaps >= minimumTapsPerHand, rightTaps >= minimumTapsPerHand else { return (nil, leftTaps, rightTaps) }
        let prior = SingleContactHandedness.fitted.weights + [0]
        let w = logisticFit(tx, ty, prior: prior, ridge: ridge)
        var model = SingleContactHandedness.fitted
        model.weights = Array(w.prefix(7)).map { decimalRounded($0, 6) }
        let single = SingleContact(
            model: model, bias: decimalRounded(w[7], 6), minimumConfidence: tapMinimumConfidence(tx, ty, prior: prior))
        return (single, leftTaps, rightTaps)
    }

    /// The confidences tried for publishing a one-finger hand, lowest first.
    static let tapConfidenceSteps: [Double] = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    /// A threshold needs at least this many held-out taps answered to be believed.
    static let minimumTapsAnswered = 10
    /// How many standard errors the held-out taps' share right counts less: they are one draw of
    /// the person's taps, a dozen or two answered, and the claim must hold on the next ones (with
    /// the share itself, CapFingerId's p8 at 20 taps a hand published from 0.6 on 2 of 10
    /// enrolments and was right on 6 of their 13 taps left out; the pinches' calibration counts a
    /// member the same way, ``ConfidenceCalibration/memberStandardErrors``).
    static let tapStandardErrors = 1.0

    /// The lowest confidence c at which, leaving each tap out of the fit in turn, the taps the
    /// refitted model was at least c sure of were right at least c − 0.05 of the time, less
    /// ``tapStandardErrors`` standard errors (and at least ``minimumTapsAnswered`` of them); nil
    /// when none is.
    static func tapMinimumConfidence(_ xs: [[Double]], _ ys: [Double], prior: [Double]) -> Double? {
        var heldOut: [(confidence: Double, right: Bool)] = []
        for i in xs.indices {
            var x = xs, y = ys
            x.remove(at: i)
            y.remove(at: i)
            let w = logisticFit(x, y, prior: prior, ridge: ridge)
            let z = zip(w, xs[i]).reduce(0) { $0 + $1.0 * $1.1 }
            let p = decimalRounded(sigmoid(z), 3)
            heldOut.append((Swift.max(p, 1 - p), (p > 0.5 && ys[i] > 0) || (p < 0.5 && ys[i] < 0)))
        }
        for c in tapConfidenceSteps {
            let answered = heldOut.filter { $0.confidence >= c - 1e-12 }
            guard answered.count >= minimumTapsAnswered else { continue }
            let accuracy = Double(answered.filter(\.right).count) / Double(answered.count)
            let standardError = (accuracy * (1 - accuracy) / Double(answered.count)).squareRoot()
            if accuracy - tapStandardErrors * standardError >= c - 0.05 { return c }
        }
        return nil
    }

    /// Logistic regression by Newton's method: minimises Σ log(1 + e^(−y·θ·x)) + ridge·|θ − prior|²
    /// (y = ±1). Convex, so a few damped steps from the prior reach the minimum.
    static func logisticFit(_ xs: [[Double]], _ ys: [Double], prior: [Double], ridge: Double, iterations: Int = 50)
        -> [Double]
    {
        let n = prior.count
        func loss(_ t: [Double]) -> Double {
            var total = 0.0
            for (x, y) in zip(xs, ys) {
                let m = y * zip(t, x).reduce(0) { $0 + $1.0 * $1.1 }
                total += m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m))
            }
            for j in 0..<n { total += ridge * (t[j] - prior[j]) * (t[j] - prior[j]) }
            return total
        }
        var theta = prior
        var current = loss(theta)
        for _ in 0..<iterations {
            var g = [Double](repeating: 0, count: n)
            var h = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
            for (x, y) in zip(xs, ys) {
                let z = zip(theta, x).reduce(0) { $0 + $1.0 * $1.1 }
                let p = sigmoid(z)
                let target = y > 0 ? 1.0 : 0.0
                let w = p * (1 - p)
                for j in 0..<n {
                    g[j] += (p - target) * x[j]
                    for k in 0..<n { h[j][k] += w * x[j] * x[k] }
                }
            }
            for j in 0..<n {
                g[j] += 2 * ridge * (theta[j] - prior[j])
                h[j][j] += 2 * ridge
            }
            guard let step = solve(h, g) else { break }
            var t = 1.0, next = theta, nextLoss = current
            while t > 1e-4 {
                next = zip(theta, step).map { $0 - t * $1 }
                nextLoss = loss(next)
                if nextLoss <= current { break }
                t /= 2
            }
            guard nextLoss <= current else { break }
            let moved = zip(next, theta).reduce(0) { Swift.max($0, Swift.abs($1.0 - $1.1)) }
            (theta, current) = (next, nextLoss)
            if moved < 1e-9 { break }
        }
        return theta
    }

    /// Solves a·x = b (Gaussian elimination, partial pivoting); nil when singular.
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        var m = a, v = b
        for col in 0..<n {
            var pivot = col
            for r in col..<n where Swift.abs(m[r][col]) > Swift.abs(m[pivot][col]) { pivot = r }
            guard Swift.abs(m[pivot][col]) > 1e-12 else { return nil }
            m.swapAt(col, pivot)
            v.swapAt(col, pivot)
            for r in (col + 1)..<n {
                let f = m[r][col] / m[col][col]
                guard f != 0 else { continue }
                for c in col..<n { m[r][c] -= f * m[col][c] }
                v[r] -= f * v[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = v[r]
            for c in (r + 1)..<n { s -= m[r][c] * x[c] }
            x[r] = s / m[r][r]
        }
        return x
    }
}

/// Why a hand profile was refused: the kind of problem and a message naming it.
public struct HandProfileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Not JSON, or not a profile's fields.
        case corrupt
        /// A version this handyd does not read.
        case unsupportedVersion
        /// Fewer than ``HandProfile/minimumPinchesPerHand`` pinches of a hand.
        case tooFewPinches
        /// The enrolled labels contradict the model or each other.
        case contradictingLabels
        /// A NaN or an infinity.
        case nonFinite
        /// A number outside its range.
        case outOfRange
    }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
}

/// The default pinch classifier with a device's profile applied (``HandProfile/pinchDecision(uncalibrated:published:)``):
/// the evidence classifier decides, the profile recalibrates its P(right hand) and publishes.
/// Not mirror-symmetric when the profile has a bias, on purpose (``HandProfile``).
public struct ProfiledHandednessClassifier: HandednessClassifier, Hashable {
    public var evidence: EvidenceHandednessClassifier
    public var profile: HandProfile

    public init(profile: HandProfile, evidence: EvidenceHandednessClassifier = EvidenceHandednessClassifier()) {
        self.profile = profile
        self.evidence = evidence
    }

    public func decide(_ features: HandednessFeatures) -> HandDecision {
        let (published, uncalibrated) = evidence.decideBoth(features)
        return profile.pinchDecision(uncalibrated: uncalibrated, published: published)
    }

    public func classify(_ features: HandednessFeatures) -> (hand: Hand, confidence: Double) {
        let d = decide(features)
        return (d.hand, d.confidence)
    }
}
