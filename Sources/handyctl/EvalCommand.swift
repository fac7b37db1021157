import ArgumentParser
import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic

/// `handyctl eval`: measures recognizers on labelled recordings.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate recognizers on labelled recordings.",
        subcommands: [Handedness.self])

    struct Handedness: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which hand made each pinch: the evidence classifier side by side with the seed rule.",
            discussion: """
                Replays every .evemu file in DIR that has a `# handyd-label: hand=… tier=…` line \
                through the tracker and recognizers (with the display calibration of its \
                `# handyd-calibration:` line, identity otherwise), once per classifier, and compares \
                the hand of the first pinch with the label. Per tier: accuracy (of the pinches \
                answered left or right), coverage (share answered), accuracy at 85 % coverage (the \
                most confident 85 %; beyond the pinches a classifier answers, its best guesses on those it \
                declined follow by their confidence, and a pinch without a guess counts as a coin toss), and the \
                expected calibration error (ECE, 10 bins). Pinches the pipeline did not recognise \
                are counted as missed.

                --fit fits the evidence classifier's weights per tier on DIR (a training set, not \
                the evaluation set) and prints them as Swift to paste into \
                EvidenceHandednessClassifier.swift.

                --hover (no DIR) prints the hand of one finger from its shadows on the hand model \
                family with hover (docs/HANDEDNESS.md "One finger from its shadows"): --count taps \
                per member, posture and hand from --seed. With --region, the covered region \
                instead (docs/HANDEDNESS.md "The covered region"): each tap with its hovering \
                fingers and without them, the share of the hand's fingers and palm inside each \
                region and its area.

                --sensitivity (no DIR) prints the sensitivity table instead: the hand model's \
                defaults, then each of its assumptions pushed to each end of a range \
                (docs/HANDEDNESS.md "Sensitivity"), --count pinches per member and tier from \
                --seed; per row both classifiers, handyd's accuracy at the seed rule's coverage, \
                its ECE, and whether it is at least as accurate as the seed rule there. With \
                --fit-held-out, the fit held out by member instead (docs/HANDEDNESS.md "The fit \
                held out by member"): the weights refitted on the mixture without each member's \
                end of its range, against the whole mixture's fit, on that member's pinches.

                Examples:
                  handyctl generate pinches /tmp/pinches --count 600 --seed 2
                  handyctl eval handedness /tmp/pinches
                  handyctl eval handedness /tmp/pinches --json
                  handyctl eval handedness --sensitivity --count 200
                """)

        @Argument(help: ArgumentHelp("Folder of labelled recordings (handyctl generate pinches).", valueName: "DIR"))
        var directory: String?

        @Flag(help: "Print the sensitivity table over the hand model's assumptions instead (no DIR).")
        var sensitivity = false

        @Flag(
            help:
                "Print the hand of one finger from its shadows instead (no DIR): taps on the hand model family with hover, by posture, by fingers hovering and by member, and each situation's confidence held out by member."
        )
        var hover = false

        @Flag(
            help:
                "With --hover: the covered region instead, the same taps with and without their hovering fingers, against where the hand's fingers and palm really are (share inside, area)."
        )
        var region = false

        @Option(
            help:
                "--sensitivity: pinches per member of the family and tier; --hover: taps per member, posture and hand.")
        var count: Int = 200

        @Option(help: "--sensitivity: the random seed of the pinches.")
        var seed: UInt64 = 3

        @Flag(
            help:
                "Print JSON instead of a table (a folder holding one-finger recordings and pinches: one object, its rows under \"oneFinger\" or, with --enrolment, \"taps\", and \"pinches\")."
        )
        var json = false

        @Option(help: "The evidence classifier's minimum confidence (default: its own).")
        var minimumConfidence: Double?

        @Option(help: "The evidence classifier's minimum confidence in the ambiguous slice (default: its own).")
        var ambiguousMinimumConfidence: Double?

        @Option(
            parsing: .singleValue,
            help: ArgumentHelp(
                "Evaluate other weights for a tier: TIER=geometry,motion,landing,turn[,area,pressure,orientation,lean] (repeatable; to try a refit before pasting it).",
                valueName: "TIER=W,…"))
        var weights: [String] = []

        @Option(parsing: .singleValue, help: "--sensitivity: only this tier (repeatable; default all).")
        var tier: [HandednessTier] = []

        @Option(
            help: ArgumentHelp(
                "Also evaluate the evidence classifier with this hand profile applied (handyctl calibrate hand): rows \"profiled\".",
                valueName: "PATH"))
        var handProfile: String?

        @Option(
            help: ArgumentHelp(
                "Leave the enrolment out: per device (the file name's prefix before the first -; with --sensitivity, a few synthetic members, --tier or positions), fit a hand profile on K pinches of each hand and measure it, the default classifier without a profile and the seed rule on the rest; DIR's taps (gesture=tap) likewise per person: the one-finger model refitted on K taps of each hand, what it publishes measured on the rest.",
                valueName: "K"))
        var enrolment: Int?

        @Option(help: "--enrolment: splits per device, the first K of each hand then random draws from --seed.")
        var draws: Int = 10

        @Flag(help: "Fit the evidence classifier's weights on DIR and print them.")
        var fit = false

        @Flag(
            help:
                "With --sensitivity: the weights fitted with each member held out of the mixture, against the whole mixture's fit, on the member's own pinches (--count, --seed)."
        )
        var fitHeldOut = false

        @Option(
            help: ArgumentHelp(
                "Also write one JSON line per pinch (the features' top and bottom contact, both classifiers' answers, the score and its parts) to FILE, for analysis.",
                valueName: "FILE"))
        var dump: String?

        func validate() throws {
            if region, !hover { throw ValidationError("--region needs --hover") }
            if hover {
                guard directory == nil, !sensitivity, !fit, !fitHeldOut, !json, enrolment == nil, handProfile == nil,
                    tier.isEmpty
                else {
                    throw ValidationError("--hover takes no DIR and only --count and --seed")
                }
                guard (1...100_000).contains(count) else { throw ValidationError("--count must be 1…100000") }
                return
            }
            if fitHeldOut, !sensitivity {
                throw ValidationError("--fit-held-out needs --sensitivity (no DIR)")
            }
            guard sensitivity != (directory != nil) else {
                throw ValidationError(sensitivity ? "--sensitivity takes no DIR" : "missing DIR (or --sensitivity)")
            }
            guard (1...100_000).contains(count) else { throw ValidationError("--count must be 1…100000") }
            for (name, value) in [
                ("--minimum-confidence", minimumConfidence),
                ("--ambiguous-minimum-confidence", ambiguousMinimumConfidence),
            ] {
                if let value, !(0...1).contains(value) {
                    throw ValidationError("\(name) \(value): expected a probability, 0 … 1")
                }
            }
            for spec in weights where Self.parseWeights(spec) == nil {
                throw ValidationError(
                    "--weights \(spec): expected TIER=geometry,motion,landing,turn[,area,pressure,orientation,lean] "
                        + "(finite numbers) with TIER positions, size or orientation")
            }
            // Options that one mode reads and the other would silently ignore.
            if let enrolment, enrolment < 1 { throw ValidationError("--enrolment must be at least 1") }
            guard (1...1000).contains(draws) else { throw ValidationError("--draws must be 1…1000") }
            if handProfile != nil, sensitivity || fit || enrolment != nil {
                throw ValidationError("--hand-profile needs DIR, without --fit or --enrolment")
            }
            if !sensitivity, !tier.isEmpty { throw ValidationError("--tier needs --sensitivity") }
            if fitHeldOut,
                dump != nil || enrolment != nil || !tier.isEmpty || !weights.isEmpty
                    || minimumConfidence != nil || ambiguousMinimumConfidence != nil
            {
                throw ValidationError("--fit-held-out needs --sensitivity and takes only --count, --seed and --json")
            }
            if fit, sensitivity || json {
                throw ValidationError("--fit prints Swift to paste: it takes neither --sensitivity nor --json")
            }
        }

        /// `TIER=w1,w2,…` (4 to 8 finite numbers), or nil.
        static func parseWeights(_ spec: String) -> (tier: HandednessTier, values: [Double])? {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let tier = HandednessTier(rawValue: parts[0]) else { return nil }
            let fields = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            let values = fields.compactMap { Double($0) }.filter(\.isFinite)
            guard (4...8).contains(values.count), values.count == fields.count else { return nil }
            return (tier, values)
        }

        func run() throws {
            if hover, region {
                print(HoverRegionEvaluation.table(count: count, seed: seed), terminator: "")
                return
            }
            if hover {
                print(HoverHandEvaluation.table(count: count, seed: seed), terminator: "")
                return
            }
            var evidence = EvidenceHandednessClassifier()
            if let minimumConfidence { evidence.minimumConfidence = minimumConfidence }
            if let ambiguousMinimumConfidence { evidence.ambiguousMinimumConfidence = ambiguousMinimumConfidence }
            for spec in weights {
                guard let (t, values) = Self.parseWeights(spec) else { continue }  // validate() refused it
                var w = EvidenceHandednessClassifier.Weights(geometry: 0, motion: 0, landing: 0, turn: 0)
                w.values = values + Array(repeating: 0, count: 8 - values.count)
                evidence.setWeights(w, for: t)
            }
            if fitHeldOut {
                let rows = HandednessHeldOutFit.rows(count: count, seed: seed)
                if json {
                    print(prettyJSON(rows))
                } else {
                    print(HandednessHeldOutFit.table(rows, count: count, seed: seed), terminator: "")
                }
                return
            }
            if sensitivity, let dump {
                var lines: [String] = []
                for (name, model) in HandednessSensitivity.members {
                    for t in tier.isEmpty ? HandednessTier.allCases : tier {
                        for p in HandednessSensitivity.pinches(model: model, tier: t, count: count, seed: seed) {
                            lines.append(PinchDump.line(p, group: name, evidence: evidence))
                        }
                    }
                }
                try OutputFile.write(lines.joined(separator: "\n") + "\n", to: dump)
            }
            if sensitivity, let enrolment {
                let t = tier.first ?? .positions
                let rows = HandProfileEvaluation.syntheticMembers.compactMap { name, model in
                    let samples = HandednessEvaluation.syntheticPinches(tier: t, count: count, seed: seed, model: model)
                        .enumerated().compactMap { i, p in
                            HandednessEvaluation.features(LabelledPinch(name: "\(i)", p)).map { ($0, p.hand) }
                        }
                    return HandProfileEvaluation.row(
                        group: "\(name) (\(t.rawValue))", samples: samples, k: enrolment, draws: draws, seed: seed)
                }
                printEnrolment(rows)
                return
            }
            if sensitivity {
                let rows = HandednessSensitivity.rows(
                    count: count, seed: seed, classifier: evidence,
                    tiers: tier.isEmpty ? HandednessTier.allCases : tier)
                if json {
                    print(prettyJSON(rows))
                } else {
                    print(HandednessSensitivity.table(rows), terminator: "")
                }
                return
            }
            guard let directory else { return }
            let folder = try LabelledFolder.load(
                directory, command: "handyctl eval handedness",
                hint: "a folder of recordings from handyctl generate pinches")
            let pinches = folder.pinches
            let oneFinger = folder.oneFinger
            let skipped = folder.skipped
            let profile = try handProfile.map {
                try LabelledFolder.profile(at: $0, command: "handyctl eval handedness")
            }
            // With --json, a folder of one kind prints that kind's JSON; a folder holding both
            // one-finger recordings and pinches prints one object with both (``FolderJSON``).
            var oneFingerJSON: (key: String, value: any Encodable)?
            if !oneFinger.isEmpty, enrolment == nil {
                let metrics = SingleContactMetrics(
                    oneFinger.flatMap {
                        HandednessEvaluation.singleContactOutcomes($0, arena: { $0.arena.setHandProfile(profile) })
                    })
                if json {
                    if pinches.isEmpty { print(prettyJSON(metrics, empty: "{}")) }
                    oneFingerJSON = ("oneFinger", metrics)
                } else {
                    print(Self.oneFingerTable(metrics, recordings: oneFinger.count), terminator: "")
                }
                if pinches.isEmpty { return }
            }
            if let enrolment, !folder.taps.isEmpty {
                let rows = tapEnrolment(folder, k: enrolment)
                if json {
                    if pinches.isEmpty { print(prettyJSON(rows)) }
                    oneFingerJSON = ("taps", rows)
                } else {
                    print(HandProfileEvaluation.tapTable(rows), terminator: pinches.isEmpty ? "" : "\n")
                }
                if pinches.isEmpty { return }
            }
            // Pinches' rows as JSON, beside the one-finger recordings' when the folder holds both.
            func pinchJSON(_ value: some Encodable) -> String {
                guard let (key, other) = oneFingerJSON else { return prettyJSON(value) }
                return prettyJSON(FolderJSON(oneFingerKey: key, oneFinger: other, pinches: value), empty: "{}")
            }
            guard !pinches.isEmpty else {
                StandardStream.error("handyctl eval handedness: no labelled pinch recordings in \(directory)")
                throw ExitCode.failure
            }
            if let enrolment {
                let samples = pinches.compactMap { p in HandednessEvaluation.features(p).map { (p.name, $0, p.hand) } }
                var rows: [HandProfileEvaluation.Row] = []
                for (g, group) in HandProfileEvaluation.grouped(samples, name: \.0) {
                    if let row = HandProfileEvaluation.row(
                        group: g, samples: group.map { ($0.1, $0.2) }, k: enrolment, draws: draws, seed: seed)
                    {
                        rows.append(row)
                    } else {
                        StandardStream.error(
                            "handyctl eval handedness: \(g): \(enrolment) or fewer pinches of a hand, left out")
                    }
                }
                if json { print(pinchJSON(rows)) } else { printEnrolment(rows) }
                return
            }
            if fit { fitWeights(pinches); return }
            if let dump {
                let lines = pinches.map { p in
                    PinchDump.line(p, group: String(p.name.prefix { $0 != "-" }), evidence: evidence)
                }
                try OutputFile.write(lines.joined(separator: "\n") + "\n", to: dump)
            }
            let profiled = profile.map { ProfiledHandednessClassifier(profile: $0, evidence: evidence) }
            let report = HandednessReport(pinches, evidence: evidence, profiled: profiled, skipped: skipped)
            print(json ? pinchJSON(report.rows) + "\n" : report.table, terminator: "")
        }

        /// The taps' enrolment left out, per person (the file name's prefix before the first `-`).
        private func tapEnrolment(_ folder: LabelledFolder, k: Int) -> [HandProfileEvaluation.TapRow] {
            HandProfileEvaluation.grouped(folder.taps, name: \.name).compactMap { g, taps in
                let row = HandProfileEvaluation.tapRow(
                    group: g, taps: taps.map { ($0.contact, $0.hand, $0.widthMm, $0.heightMm) }, k: k, draws: draws,
                    seed: seed)
                if row == nil {
                    StandardStream.error("handyctl eval handedness: \(g): \(k) or fewer taps of a hand, left out")
                }
                return row
            }
        }

        private func printEnrolment(_ rows: [HandProfileEvaluation.Row]) {
            if json {
                print(prettyJSON(rows))
            } else {
                print(HandProfileEvaluation.table(rows), terminator: "")
            }
        }

        /// One-finger recordings: what was published, and how far the probability is to be trusted.
        static func oneFingerTable(_ m: SingleContactMetrics, recordings: Int) -> String {
            func pct(_ v: Double) -> String { String(format: "%.1f %%", v * 100) }
            var out =
                "one finger: \(m.touches) touches in \(recordings) recordings, \(m.withProbability) with rightHandProbability\n"
            out += "published hands: \(m.published)"
            if m.published > 0 {
                out +=
                    ", right \(pct(Double(m.publishedRight) / Double(m.published))), mean confidence \(String(format: "%.3f", m.publishedMeanConfidence))"
            }
            out += "\n\n| favoured hand's probability | touches | mean | favoured hand right |\n|---|---:|---:|---:|\n"
            for b in m.probabilityBins {
                out +=
                    "| \(String(format: "%.2f", b.lower))–\(String(format: "%.2f", b.lower + 0.05)) | \(b.count) | \(String(format: "%.3f", b.meanProbability)) | \(pct(b.accuracy)) |\n"
            }
            return out
        }

        private func fitWeights(_ pinches: [LabelledPinch]) {
            let samples = pinches.compactMap { p in HandednessEvaluation.features(p).map { ($0, p.hand) } }
            var lines: [String] = []
            for fit in HandednessEvaluation.fitTiers(samples) {
                let v = fit.weights.values.map { String(format: "%.2f", $0) }
                lines.append(
                    "// \(fit.tier.rawValue): \(fit.pinches) pinches, log loss \(String(format: "%.4f", fit.logLoss))")
                lines.append(
                    "Weights(geometry: \(v[0]), motion: \(v[1]), landing: \(v[2]), turn: \(v[3]), area: \(v[4]), pressure: \(v[5]), orientation: \(v[6]), lean: \(v[7]))"
                )
            }
            print(lines.joined(separator: "\n"))
        }
    }
}

/// One pinch as a JSON line for analysis (`eval handedness --dump`): where its top and bottom
/// contact are, the label, both classifiers' answers, the evidence score and its parts.
enum PinchDump {
    static func line(_ p: LabelledPinch, group: String, evidence: EvidenceHandednessClassifier) -> String {
        var fields: [String: Any] = ["group": group, "name": p.name, "tier": p.tier.rawValue, "truth": p.hand.rawValue]
        if let f = HandednessEvaluation.features(p) {
            let w = evidence.weights(for: EvidenceHandednessClassifier.tier(of: f))
            var geometryOnly = w
            (geometryOnly.turn, geometryOnly.orientation, geometryOnly.lean) = (0, 0, 0)
            var rest = w
            rest.geometry = 0
            var leanOnly = w
            (leanOnly.turn, leanOnly.orientation) = (0, 0)
            let seed = SeedHandednessRule().classify(f)
            let answer = evidence.classify(f), guess = evidence.bestGuess(f)
            fields["top"] = [f.topMm.x, f.topMm.y]
            fields["bottom"] = [f.bottomMm.x, f.bottomMm.y]
            fields["topStart"] = f.top.map { [$0.startMm.x, $0.startMm.y] }
            fields["bottomStart"] = f.bottom.map { [$0.startMm.x, $0.startMm.y] }
            // Each contact's ellipse at the decision: major, minor (mm), orientation (rad, kernel
            // convention in the display frame), area (mm²); null where the device reports none.
            func value(_ v: Double?) -> Any { v.map { $0 as Any } ?? NSNull() }
            func ellipse(_ c: HandednessContact?) -> [Any] {
                [value(c?.majorMm), value(c?.minorMm), value(c?.orientation), value(c?.areaMm2)]
            }
            fields["topEllipse"] = ellipse(f.top)
            fields["bottomEllipse"] = ellipse(f.bottom)
            fields["topPressure"] = value(f.top?.pressure)
            fields["bottomPressure"] = value(f.bottom?.pressure)
            fields["featureTier"] = EvidenceHandednessClassifier.tier(of: f).rawValue
            fields["score"] = evidence.score(f)
            fields["geometryScore"] = EvidenceHandednessClassifier.score(f, weights: geometryOnly)
            fields["restScore"] = EvidenceHandednessClassifier.score(f, weights: rest)
            fields["leanScore"] = EvidenceHandednessClassifier.score(f, weights: leanOnly)
            fields["ambiguous"] = evidence.isAmbiguous(f)
            fields["seed"] = [seed.hand.rawValue, seed.confidence] as [Any]
            fields["evidence"] = [answer.hand.rawValue, answer.confidence] as [Any]
            let uncalibrated = evidence.uncalibratedDecision(f)
            fields["uncalibrated"] = [uncalibrated.hand.rawValue, uncalibrated.confidence] as [Any]
            if let s = uncalibrated.situation {
                fields["situation"] = [s.tier.rawValue, s.answer.name, s.band, s.nearVertical] as [Any]
            }
            fields["guess"] = [guess.hand.rawValue, guess.confidence] as [Any]
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Both classifiers' metrics per tier.
struct HandednessReport {
    struct Row: Codable {
        var tier: String
        var classifier: String
        var metrics: HandednessMetrics
        /// The evidence classifier only: its accuracy operated at the seed rule's coverage.
        var accuracyAtSeedCoverage: Double?
    }
    var rows: [Row] = []
    var skipped: Int

    init(
        _ pinches: [LabelledPinch], evidence: EvidenceHandednessClassifier,
        profiled: ProfiledHandednessClassifier? = nil, skipped: Int
    ) {
        self.skipped = skipped
        for tier in HandednessTier.allCases {
            let set = pinches.filter { $0.tier == tier }
            guard !set.isEmpty else { continue }
            // One replay per pinch; both classifiers answer on the features the pipeline hands them.
            var classifiers: [any HandednessClassifier] = [SeedHandednessRule(), evidence]
            if let profiled { classifiers.append(profiled) }
            let both = set.map { HandednessEvaluation.outcomes($0, classifiers: classifiers, slice: evidence) }
            let r = HandednessSensitivity.row(
                member: "", tier: tier, seed: both.map { $0[0] }, evidence: both.map { $0[1] })
            if profiled != nil {
                rows.append(
                    Row(tier: tier.rawValue, classifier: "profiled", metrics: HandednessMetrics(both.map { $0[2] })))
            }
            rows.append(
                Row(
                    tier: tier.rawValue, classifier: "evidence", metrics: r.evidence,
                    accuracyAtSeedCoverage: r.evidenceAtSeedCoverage))
            rows.append(Row(tier: tier.rawValue, classifier: "seed", metrics: r.seed))
        }
    }

    var table: String {
        func pct(_ v: Double) -> String { String(format: "%5.1f %%", v * 100) }
        var out = "| tier | classifier | pinches | missed | accuracy | coverage | accuracy at 85 % coverage | ECE |\n"
        out += "|---|---|---:|---:|---:|---:|---:|---:|\n"
        for r in rows {
            let m = r.metrics
            out +=
                "| \(r.tier) | \(r.classifier) | \(m.pinches) | \(m.missed) | \(pct(m.accuracy)) | \(pct(m.coverage)) | \(pct(m.accuracyAtFixedCoverage)) | \(String(format: "%.3f", m.calibrationError)) |\n"
        }
        for r in rows {
            guard let a = r.accuracyAtSeedCoverage,
                let seed = rows.first(where: { $0.tier == r.tier && $0.classifier == "seed" })
            else { continue }
            out +=
                "\n\(r.tier): evidence at the seed rule's coverage (\(pct(seed.metrics.coverage).trimmingCharacters(in: .whitespaces))): \(pct(a).trimmingCharacters(in: .whitespaces)) (seed \(pct(seed.metrics.accuracy).trimmingCharacters(in: .whitespaces)))"
        }
        if rows.contains(where: { $0.accuracyAtSeedCoverage != nil }) { out += "\n" }
        if skipped > 0 { out += "\n\(skipped) files skipped (no label or unreadable)\n" }
        return out
    }
}

/// One folder's one-finger rows (`oneFinger` or, with --enrolment, `taps`) and its pinches'
/// (`pinches`) as one JSON object, so that `eval --json` prints one document for a mixed folder.
struct FolderJSON<Pinches: Encodable>: Encodable {
    let oneFingerKey: String
    let oneFinger: any Encodable
    let pinches: Pinches

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(oneFinger, forKey: Key(stringValue: oneFingerKey))
        try c.encode(pinches, forKey: Key(stringValue: "pinches"))
    }
}

/// `value` as JSON, keys sorted and indented, as `eval` prints it; `empty` if it cannot be encoded.
func prettyJSON<T: Encodable>(_ value: T, empty: String = "[]") -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? empty
}

extension HandednessTier: ExpressibleByArgument {}
