import HandyCore
import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One labelled recording for the evaluation: a device, its calibration, its events, the truth.
public struct LabelledPinch: Sendable {
    public var name: String
    public var description: DeviceDescription
    public var calibration: CalibrationMatrix
    public var events: [InputEvent]
    public var hand: Hand
    public var tier: HandednessTier

    public init(
        name: String, description: DeviceDescription, calibration: CalibrationMatrix, events: [InputEvent], hand: Hand,
        tier: HandednessTier
    ) {
        self.name = name
        self.description = description
        self.calibration = calibration
        self.events = events
        self.hand = hand
        self.tier = tier
    }

    public init(name: String, _ p: SyntheticPinch) {
        self.init(
            name: name, description: p.device.description, calibration: p.calibration, events: p.events, hand: p.hand,
            tier: p.tier)
    }

    /// The label and display calibration in a recording's first 40 comment lines
    /// (`# handyd-label: hand=… tier=…`, `# handyd-calibration: a b c d e f`); the identity when it
    /// names no calibration.
    public static func annotations(ofRecording text: String) -> (
        label: (hand: Hand, tier: HandednessTier)?, calibration: CalibrationMatrix
    ) {
        var label: (hand: Hand, tier: HandednessTier)?
        var calibration = CalibrationMatrix.identity
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(40) where line.hasPrefix("#") {
            if let r = line.firstRange(of: "handyd-label:") { label = parseLabel(String(line[r.upperBound...])) }
            if let r = line.firstRange(of: "handyd-calibration:"),
                let m = CalibrationMatrix(parsing: String(line[r.upperBound...]))
            {
                calibration = m
            }
        }
        return (label, calibration)
    }

    /// The same pinch mirrored on its own sensor (x → maximum − x, ellipse orientation negated):
    /// a left hand's pinch made into a right hand's, for symmetry tests.
    public func mirroredOnItsSensor() -> LabelledPinch {
        guard let maxX = description.absAxes[AbsCode.mtPositionX]?.maximum else { return self }
        var m = self
        m.events = events.map { e in
            var e = e
            if e.type == EventType.abs && (e.code == AbsCode.mtPositionX || e.code == AbsCode.x) {
                e.value = maxX - e.value
            }
            if e.type == EventType.abs && e.code == AbsCode.mtOrientation { e.value = -e.value }
            return e
        }
        return m
    }

    /// Whether a recording's label says it holds one finger at a time (`gesture=tap` or
    /// `gesture=draw`): every touch is judged on its own instead of the first pinch.
    public static func isOneFinger(_ text: String) -> Bool {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(40) where line.hasPrefix("#") {
            guard let r = line.firstRange(of: "handyd-label:") else { continue }
            return line[r.upperBound...].split(separator: " ").contains { $0 == "gesture=tap" || $0 == "gesture=draw" }
        }
        return false
    }

    /// Parses a label line `hand=right tier=orientation ...`; nil when hand or tier is missing.
    public static func parseLabel(_ text: String) -> (hand: Hand, tier: HandednessTier)? {
        var hand: Hand?, tier: HandednessTier?
        for part in text.split(separator: " ") {
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            if kv[0] == "hand" { hand = Hand(rawValue: kv[1]) }
            if kv[0] == "tier" { tier = HandednessTier(rawValue: kv[1]) }
        }
        guard let hand, hand != .unknown, let tier else { return nil }
        return (hand, tier)
    }
}

/// What the pipeline decided for one pinch.
public struct HandednessOutcome: Hashable, Sendable {
    /// nil: no pinch was recognised.
    public var hand: Hand?
    public var confidence: Double
    public var truth: Hand
    public var tier: HandednessTier
    /// In the evidence classifier's ambiguous slice (``EvidenceHandednessClassifier/isAmbiguous(_:)``).
    public var ambiguous: Bool = false
    /// When the answer is `unknown`: the classifier's best guess (the evidence classifier's sign of
    /// the score, below its thresholds), nil when it has none (the seed rule inside its dead zones).
    /// Used only to compare classifiers at a coverage above their own.
    public var guess: Hand? = nil
    public var guessConfidence: Double = 0
}

/// Accuracy, coverage, accuracy at a fixed coverage and calibration error of a set of outcomes.
public struct HandednessMetrics: Hashable, Sendable, Codable {
    public var pinches: Int
    /// Recordings in which no pinch was recognised (left out of everything else).
    public var missed: Int
    /// Share of recognised pinches answered left or right.
    public var coverage: Double
    /// Share right among those answered.
    public var accuracy: Double
    /// Accuracy over the most confident ``fixedCoverage`` of the pinches: the classifier operated at
    /// that coverage. Answered pinches rank first by confidence; when the share reaches beyond them,
    /// the classifier's best guesses on the pinches it declined follow by their own confidence (as
    /// if its thresholds were lowered until it answered that many), and a pinch without a guess
    /// counts as half right (a coin toss).
    public var accuracyAtFixedCoverage: Double
    public var fixedCoverage: Double
    /// Expected calibration error of the answered pinches (10 confidence bins over 0.5…1).
    public var calibrationError: Double
    /// The part of ``calibrationError`` where the answers claim more than they earn (a bin's mean
    /// confidence above its accuracy): a broken promise, where the rest is a promise kept with room.
    public var overconfidence: Double
    /// The answered pinches by published confidence, bands of 0.05 from 0.5 (empty bands left out):
    /// a confidence is a promise, each band right at least its mean claim − ``bandAllowance``.
    public var bands: [ReliabilityBand]

    /// One band of published confidence: how many answers, what they claimed, how often right.
    public struct ReliabilityBand: Hashable, Sendable, Codable {
        public var lower: Double
        public var count: Int
        public var meanConfidence: Double
        public var accuracy: Double
        /// accuracy − (mean claim − ``bandAllowance``): at least 0 when the band earns its claim.
        public var margin: Double { accuracy - (meanConfidence - HandednessMetrics.bandAllowance) }
        /// Enough answers to judge (``bandMinimumAnswers``).
        public var judged: Bool { count >= HandednessMetrics.bandMinimumAnswers }
    }
    /// What a band may fall short of its mean claim by (issue 52: right at least mean − 0.05).
    public static let bandAllowance = 0.05
    /// A band of fewer answers than this is shown but not judged: one answer more or less moves a
    /// band of 9 by 11 points.
    public static let bandMinimumAnswers = 10
    /// The judged band with the smallest margin, nil when no band has enough answers.
    public var worstBand: ReliabilityBand? { bands.filter(\.judged).min { $0.margin < $1.margin } }

    public init(_ outcomes: [HandednessOutcome], fixedCoverage: Double = 0.85) {
        let seen = outcomes.filter { $0.hand != nil }
        pinches = outcomes.count
        missed = outcomes.count - seen.count
        self.fixedCoverage = fixedCoverage
        let answered = seen.filter { $0.hand != .unknown }
        let right = answered.filter { $0.hand == $0.truth }
        coverage = seen.isEmpty ? 0 : Double(answered.count) / Double(seen.count)
        accuracy = answered.isEmpty ? 0 : Double(right.count) / Double(answered.count)
        // Answered pinches first (their confidence is calibrated, the guesses' is not), then guesses.
        func rank(_ o: HandednessOutcome) -> (Int, Double) {
            if o.hand != .unknown { return (1, o.confidence) }
            return (0, o.guess == nil ? 0 : o.guessConfidence)
        }
        // Stable on ties: the input order decides, so the metric is deterministic.
        let ranked = seen.enumerated().sorted {
            (rank($0.element).0, rank($0.element).1, -$0.offset) > (rank($1.element).0, rank($1.element).1, -$1.offset)
        }.map(\.element)
        let k = Int((Double(ranked.count) * fixedCoverage).rounded())
        let top = ranked.prefix(k)
        let score = top.reduce(0.0) { total, o in
            if o.hand != .unknown { return total + (o.hand == o.truth ? 1 : 0) }
            guard let guess = o.guess else { return total + 0.5 }
            return total + (guess == o.truth ? 1 : 0)
        }
        accuracyAtFixedCoverage = k == 0 ? 0 : score / Double(k)
        // Each answer in exactly one bin, [0.5, 0.55) … [0.95, 1] (the nudge puts a confidence that
        // sits on an edge, such as 0.6, in the bin it opens, whatever the rounding of 0.1 / 0.05).
        var bins = [(count: Int, right: Int, confidence: Double)](repeating: (0, 0, 0), count: 10)
        for o in answered {
            let bin = Swift.min(9, Swift.max(0, Int(((o.confidence - 0.5) * 20 + 1e-9).rounded(.down))))
            bins[bin].count += 1
            bins[bin].right += o.hand == o.truth ? 1 : 0
            bins[bin].confidence += o.confidence
        }
        var error = 0.0, over = 0.0
        var bands: [ReliabilityBand] = []
        for (i, b) in bins.enumerated() where b.count > 0 {
            let n = Double(b.count)
            let weight = n / Double(Swift.max(answered.count, 1))
            error += weight * Swift.abs(Double(b.right) / n - b.confidence / n)
            over += weight * Swift.max(0, b.confidence / n - Double(b.right) / n)
            bands.append(
                ReliabilityBand(
                    lower: 0.5 + Double(i) * 0.05, count: b.count, meanConfidence: b.confidence / n,
                    accuracy: Double(b.right) / n))
        }
        calibrationError = error
        overconfidence = over
        self.bands = bands
    }
}

/// Replays labelled pinches through the real pipeline (tracker + arena) with a given classifier
/// and collects the hand of the first pinch.
public enum HandednessEvaluation {
    /// The hand and confidence of the first pinch `began` event, nil when none.
    public static func firstPinch(_ p: LabelledPinch, classifier: any HandednessClassifier) -> (
        hand: Hand, confidence: Double
    )? {
        let geometry = DeviceGeometry(description: p.description, calibration: p.calibration)
        var pipeline = GesturePipeline(deviceID: "eval:\(p.name)", description: p.description, geometry: geometry)
        pipeline.arena.setHandednessClassifier(classifier)
        var out = PipelineOutput()
        for e in p.events {
            if let deadline = pipeline.nextDeadline, deadline <= e.time {
                out.gestures += pipeline.advanceTime(to: e.time)
            }
            pipeline.handle(e, into: &out)
            if let g = out.gestures.first(where: { $0.gesture == .pinch && $0.phase == .began }) {
                return (g.hand ?? .unknown, g.handConfidence ?? 0)
            }
            out = PipelineOutput()
        }
        return nil
    }

    public static func outcome(_ p: LabelledPinch, classifier: any HandednessClassifier) -> HandednessOutcome {
        if let evidence = classifier as? EvidenceHandednessClassifier {
            // The guess below the thresholds needs the features: one replay, classified after.
            return outcomes(p, classifiers: [evidence], slice: evidence)[0]
        }
        let r = firstPinch(p, classifier: classifier)
        return HandednessOutcome(hand: r?.hand, confidence: r?.confidence ?? 0, truth: p.hand, tier: p.tier)
    }

    /// The one-finger contacts of a recording of taps (labels with `gesture=tap`): each touch's
    /// contact as it was at its first per-touch gesture event (`touch-tap`, `touch-hold`, …; the
    /// arena decides a single contact's hand there), with the display's size in mm. What
    /// ``HandProfile/fit(pinches:taps:device:classifier:minimumConfidence:)`` refits the one-finger model on.
    public static func tapContacts(
        description: DeviceDescription, calibration: CalibrationMatrix,
        events: [InputEvent]
    ) -> [(contact: HandednessContact, widthMm: Double, heightMm: Double)] {
        let geometry = DeviceGeometry(description: description, calibration: calibration)
        var pipeline = GesturePipeline(deviceID: "enrol", description: description, geometry: geometry)
        var last: [Int: Touch] = [:]
        var taken = Set<Int>()
        var out: [(contact: HandednessContact, widthMm: Double, heightMm: Double)] = []
        func take(_ gestures: [CoreGestureEvent]) {
            for g in gestures {
                guard let id = g.touch, !taken.contains(id), let t = last[id] else { continue }
                taken.insert(id)
                out.append((HandednessContact(t), geometry.displayWidthMm, geometry.displayHeightMm))
            }
        }
        for e in events {
            // Timers first, on the touches as they were (as Replay and the daemon order them).
            if let deadline = pipeline.nextDeadline, deadline <= e.time { take(pipeline.advanceTime(to: e.time)) }
            var output = PipelineOutput()
            pipeline.handle(e, into: &output)
            for frame in output.frames {
                for t in frame.touches {
                    if t.phase == .began { taken.remove(t.id) }
                    last[t.id] = t
                }
            }
            take(output.gestures)
        }
        if let end = events.last?.time { take(pipeline.advanceTime(to: end.advanced(byMicroseconds: 1_000_000))) }
        return out
    }

    /// The features the classifier saw at the first pinch's begin (for fitting weights), nil when none.
    public static func features(_ p: LabelledPinch) -> HandednessFeatures? {
        let box = FeatureCapture()
        _ = firstPinch(p, classifier: box)
        return box.features
    }

    /// `count` pinches of one tier from the hand model, alternately right and left hand; the same
    /// seed gives the same pinches (`handyctl generate pinches` writes exactly these).
    public static func syntheticPinches(tier: HandednessTier, count: Int, seed: UInt64, model: HandModel = HandModel())
        -> [SyntheticPinch]
    {
        // One generator per tier, so a tier's pinches do not depend on which other tiers are made.
        var rng = SeededRandom(seed: seed &* 1_000_003 &+ UInt64(HandednessTier.allCases.firstIndex(of: tier)!))
        return (0..<Swift.max(count, 0)).map { i in
            model.pinch(hand: i % 2 == 0 ? .right : .left, tier: tier, rng: &rng)
        }
    }

    /// `count` pinches of one tier from the mixture over the sensitivity family: each pinch from its
    /// own member, every assumption drawn uniformly across its range
    /// (``HandednessSensitivity/randomMember(_:)``). The training set of the fitted weights.
    /// With `ranges`, some assumptions are drawn from part of their range only
    /// (``HandednessSensitivity/randomMember(_:ranges:)``): the mixture without some hands.
    public static func mixturePinches(
        tier: HandednessTier, count: Int, seed: UInt64, ranges: [Int: ClosedRange<Double>] = [:]
    ) -> [SyntheticPinch] {
        let tierIndex = UInt64(HandednessTier.allCases.firstIndex(of: tier)!)
        var rng = SeededRandom(seed: seed &* 1_000_003 &+ tierIndex)
        var members = SeededRandom(seed: (seed &+ 77) &* 1_000_033 &+ tierIndex)
        return (0..<Swift.max(count, 0)).map { i in
            HandednessSensitivity.randomMember(&members, ranges: ranges)
                .pinch(hand: i % 2 == 0 ? .right : .left, tier: tier, rng: &rng)
        }
    }

    /// The outcome of one pinch for several classifiers from a single replay: the pipeline's hand
    /// is the classifier's answer on the features at the pinch's begin (`FrameMotion.decideHand`),
    /// so classifying those features gives exactly what a replay with that classifier reports.
    public static func outcomes(
        _ p: LabelledPinch, classifiers: [any HandednessClassifier],
        slice: EvidenceHandednessClassifier = EvidenceHandednessClassifier()
    ) -> [HandednessOutcome] {
        guard let f = features(p) else {
            return classifiers.map { _ in HandednessOutcome(hand: nil, confidence: 0, truth: p.hand, tier: p.tier) }
        }
        let ambiguous = slice.isAmbiguous(f)
        return classifiers.map { c in
            let r = c.classify(f)
            var o = HandednessOutcome(
                hand: r.hand, confidence: r.confidence, truth: p.hand, tier: p.tier, ambiguous: ambiguous)
            if r.hand == .unknown, let evidence = c as? EvidenceHandednessClassifier {
                let g = evidence.bestGuess(f)
                if g.hand != .unknown { (o.guess, o.guessConfidence) = (g.hand, g.confidence) }
            }
            return o
        }
    }

    /// A labelled set of `count` pinches per tier from the hand model, half right, half left.
    public static func syntheticSet(
        count: Int, seed: UInt64, tiers: [HandednessTier] = HandednessTier.allCases,
        model: HandModel = HandModel()
    ) -> [LabelledPinch] {
        tiers.flatMap { tier in
            syntheticPinches(tier: tier, count: count, seed: seed, model: model).enumerated().map { i, p in
                LabelledPinch(name: format4(i) + "-\(tier.rawValue)-\(p.hand.rawValue)", p)
            }
        }
    }

    static func format4(_ i: Int) -> String {
        let s = String(i)
        return String(repeating: "0", count: Swift.max(0, 4 - s.count)) + s
    }

    /// A tier's fitted weights, the log loss they reach and on how many pinches.
    public struct TierFit: Sendable {
        public var tier: HandednessTier
        public var weights: EvidenceHandednessClassifier.Weights
        public var logLoss: Double
        public var pinches: Int
    }

    /// Fits every tier's weights on labelled features, as the shipped weights were fitted: the
    /// positions tier from ``EvidenceHandednessClassifier/fittedPositions``, each next tier from
    /// the one before, each moving only the weights its contacts can inform.
    public static func fitTiers(_ samples: [(HandednessFeatures, Hand)]) -> [TierFit] {
        var previous = EvidenceHandednessClassifier.fittedPositions
        return HandednessTier.allCases.map { tier in
            let set = samples.filter { EvidenceHandednessClassifier.tier(of: $0.0) == tier }
            let free: [Int] =
                switch tier {
                case .positions: [0, 1, 2, 3, 7]
                case .size: [0, 1, 2, 3, 4, 5, 7]
                case .orientation: [0, 1, 2, 3, 4, 5, 6, 7]
                }
            let (w, loss) = fit(set, start: previous, free: free)
            previous = w
            return TierFit(tier: tier, weights: w, logLoss: loss, pinches: set.count)
        }
    }

    /// The mean log loss of `sigmoid(score)` for the right hand on labelled features, each scored
    /// with its tier's weights (a coin: ln 2 = 0.693).
    public static func meanLogLoss(
        _ samples: [(HandednessFeatures, Hand)], weights: (HandednessTier) -> EvidenceHandednessClassifier.Weights
    ) -> Double {
        var total = 0.0
        for (f, hand) in samples {
            let s =
                EvidenceHandednessClassifier.score(f, weights: weights(EvidenceHandednessClassifier.tier(of: f)))
                * (hand == .right ? 1 : -1)
            total += s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s))
        }
        return total / Double(Swift.max(samples.count, 1))
    }

    /// Fits a tier's weights by coordinate search on the log loss of `sigmoid(score)` (+ 1e-4 Σ w²); only the
    /// weights in `free` (indices into ``EvidenceHandednessClassifier/Weights/values``) move.
    public static func fit(
        _ samples: [(HandednessFeatures, Hand)], start: EvidenceHandednessClassifier.Weights,
        free: [Int], rounds: Int = 40
    ) -> (weights: EvidenceHandednessClassifier.Weights, logLoss: Double) {
        func loss(_ w: EvidenceHandednessClassifier.Weights) -> Double {
            // A light ridge keeps weights finite when a tier's training set is (nearly) separable.
            meanLogLoss(samples) { _ in w } + 1e-4 * w.values.reduce(0) { $0 + $1 * $1 }
        }
        var best = start
        var bestLoss = loss(best)
        var step = 1.0
        for _ in 0..<rounds {
            var improved = false
            for i in free {
                for delta in [step, -step] {
                    var v = best.values
                    v[i] += delta
                    var w = best
                    w.values = v
                    let l = loss(w)
                    if l < bestLoss - 1e-9 { best = w; bestLoss = l; improved = true }
                }
            }
            if !improved { step /= 2 }
            if step < 0.01 { break }
        }
        return (best, bestLoss)
    }
}

/// Records the features of the pinch it is asked about; answers unknown. Used only to fit weights.
/// A class (shared with the caller) in a single-threaded replay; never shared across threads.
final class FeatureCapture: HandednessClassifier, @unchecked Sendable {
    var features: HandednessFeatures?
    /// Keeps the latest: every gesture asks (a long press when the fingers land, the pinch when it
    /// begins), and `firstPinch` stops right after the frame where the pinch began, where the pinch
    /// asked after the long press (arena order), and rotate or pan with the same fingers if at all.
    func classify(_ f: HandednessFeatures) -> (hand: Hand, confidence: Double) {
        features = f
        return (.unknown, 0)
    }
}

/// What the pipeline decided for one touch of a one-finger recording (labelled `gesture=tap`):
/// the published hand and confidence and the probability of the right hand, from the touch's
/// first per-touch gesture event (`touchTap`, `touchHold`, …; decided when the finger came down).
public struct SingleContactOutcome: Hashable, Sendable {
    public var hand: Hand
    public var confidence: Double
    public var rightHandProbability: Double?
    public var truth: Hand
}

/// A one-finger set's numbers (docs/HANDEDNESS.md "One finger"): how many touches, how many a hand
/// was published for and how many of those were right, and how far the probability is to be
/// trusted: per bin of the favoured hand's probability (max(P, 1 − P), bins 0.5–0.55 … 0.95–1),
/// how often the favoured hand was the hand.
public struct SingleContactMetrics: Hashable, Sendable, Codable {
    public struct Bin: Hashable, Sendable, Codable {
        public var lower: Double
        public var count: Int
        public var meanProbability: Double
        public var right: Int
        public var accuracy: Double { count == 0 ? 0 : Double(right) / Double(count) }
    }
    public var touches: Int
    public var withProbability: Int
    public var published: Int
    public var publishedRight: Int
    public var publishedMeanConfidence: Double
    /// Published answers per bin of their confidence (the c − 0.05 gate reads these).
    public var publishedBins: [Bin]
    /// The probability's bins (every touch with one, the favoured hand against the label; at exactly
    /// 0.5 no hand is favoured and the touch counts as half right).
    public var probabilityBins: [Bin]

    public init(_ outcomes: [SingleContactOutcome]) {
        func bins(_ items: [(p: Double, right: Double)]) -> [Bin] {
            var out = (0..<10).map { Bin(lower: 0.5 + Double($0) * 0.05, count: 0, meanProbability: 0, right: 0) }
            var rights = [Double](repeating: 0, count: 10)
            for item in items {
                let i = Swift.min(9, Swift.max(0, Int(((item.p - 0.5) * 20 + 1e-9).rounded(.down))))
                out[i].count += 1
                out[i].meanProbability += item.p
                rights[i] += item.right
            }
            for i in out.indices where out[i].count > 0 {
                out[i].meanProbability /= Double(out[i].count)
                out[i].right = Int(rights[i].rounded(.down))
            }
            return out.filter { $0.count > 0 }
        }
        touches = outcomes.count
        let published = outcomes.filter { $0.hand != .unknown }
        self.published = published.count
        publishedRight = published.filter { $0.hand == $0.truth }.count
        publishedMeanConfidence =
            published.isEmpty ? 0 : published.reduce(0) { $0 + $1.confidence } / Double(published.count)
        publishedBins = bins(published.map { ($0.confidence, $0.hand == $0.truth ? 1 : 0) })
        let withP = outcomes.compactMap { o in o.rightHandProbability.map { (p: $0, truth: o.truth) } }
        withProbability = withP.count
        probabilityBins = bins(
            withP.map { item in
                let favoured = Swift.max(item.p, 1 - item.p)
                let right: Double = item.p == 0.5 ? 0.5 : ((item.p > 0.5) == (item.truth == .right) ? 1 : 0)
                return (favoured, right)
            })
    }
}

extension HandednessEvaluation {
    /// Every touch of a one-finger recording through the real pipeline: its first per-touch event.
    public static func singleContactOutcomes(
        _ r: LabelledPinch, arena configure: (inout GesturePipeline) -> Void = { _ in }
    ) -> [SingleContactOutcome] {
        let geometry = DeviceGeometry(description: r.description, calibration: r.calibration)
        var pipeline = GesturePipeline(deviceID: "eval:\(r.name)", description: r.description, geometry: geometry)
        configure(&pipeline)
        var out = PipelineOutput()
        var seen = Set<Int>()
        var outcomes: [SingleContactOutcome] = []
        func collect(_ gestures: [CoreGestureEvent]) {
            for g in gestures {
                guard let touch = g.touch, seen.insert(touch).inserted else { continue }
                outcomes.append(
                    SingleContactOutcome(
                        hand: g.hand ?? .unknown, confidence: g.handConfidence ?? 0,
                        rightHandProbability: g.rightHandProbability, truth: r.hand))
            }
        }
        for e in r.events {
            if let deadline = pipeline.nextDeadline, deadline <= e.time { collect(pipeline.advanceTime(to: e.time)) }
            pipeline.handle(e, into: &out)
            collect(out.gestures)
            // A touch id may come back for a later touch: judge each touch once, while it is down.
            for frame in out.frames { for t in frame.touches where t.phase.isFinished { seen.remove(t.id) } }
            out = PipelineOutput()
        }
        if let deadline = pipeline.nextDeadline { collect(pipeline.advanceTime(to: deadline)) }
        return outcomes
    }
}
