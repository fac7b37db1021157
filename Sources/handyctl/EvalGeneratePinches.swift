import ArgumentParser
import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic

extension GenerateCommand {
    /// `handyctl generate pinches DIR`: labelled synthetic pinches from the hand model.
    struct Pinches: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Labelled synthetic pinches from the parametric hand model (docs/HANDEDNESS.md).",
            discussion: """
                Writes COUNT evemu recordings per tier (positions, size, orientation) into DIR, half \
                right-hand, half left-hand, each with its label and the display's calibration matrix \
                in comment lines:
                  # handyd-label: hand=right tier=orientation pinch=in rotation=90
                  # handyd-calibration: 0 -1 1 1 0 0
                The same seed gives the same files. Evaluate them with `handyctl eval handedness DIR`.

                --mixture draws every pinch from its own member of the sensitivity family \
                (docs/HANDEDNESS.md "Sensitivity"): the set the weights are fitted on.

                Examples:
                  handyctl generate pinches /tmp/pinches --count 600 --seed 2
                  handyctl generate pinches /tmp/train --count 1000 --seed 1 --mixture
                """)

        @Argument(help: ArgumentHelp("Output folder (created if missing).", valueName: "DIR"))
        var directory: String

        @Option(help: "Pinches per tier.")
        var count = 600

        @Option(help: "Random seed.")
        var seed: UInt64 = 2

        @Flag(
            help:
                "Draw each pinch from its own member of the sensitivity family (every assumption uniform across its range): the training set of the fitted weights."
        )
        var mixture = false

        func validate() throws {
            guard (1...100_000).contains(count) else { throw ValidationError("--count must be 1…100000") }
        }

        func run() throws {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                StandardStream.error(
                    "handyctl generate pinches: cannot make the folder \(directory): \(OutputFile.reason(error))")
                throw ExitCode.failure
            }
            var written = 0
            for tier in HandednessTier.allCases {
                let pinches =
                    mixture
                    ? HandednessEvaluation.mixturePinches(tier: tier, count: count, seed: seed)
                    : HandednessEvaluation.syntheticPinches(tier: tier, count: count, seed: seed)
                for (i, p) in pinches.enumerated() {
                    let hand = p.hand
                    let m = p.calibration
                    let comment = """
                        handyd synthetic pinch (handyctl generate pinches --count \(count) --seed \(seed)\(mixture ? " --mixture" : "")), #\(i) of tier \(tier.rawValue)
                        handyd-label: \(p.label)
                        handyd-calibration: \(m.a) \(m.b) \(m.c) \(m.d) \(m.e) \(m.f)
                        """
                    let text = EvemuWriter.recording(
                        description: p.device.description, events: p.events, comment: comment)
                    let name = "pinch-\(tier.rawValue)-\(String(format: "%05d", i))-\(hand.rawValue).evemu"
                    do { try OutputFile.write(text, to: (directory as NSString).appendingPathComponent(name)) } catch {
                        StandardStream.error("handyctl generate pinches: \(error)")
                        throw ExitCode.failure
                    }
                    written += 1
                }
            }
            print("wrote \(written) recordings to \(directory)")
        }
    }
}
