import ArgumentParser
import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySynthetic

/// A folder of labelled recordings (`# handyd-label: hand=… tier=…`, docs/HANDEDNESS.md): the
/// pinch recordings (`eval handedness`, `calibrate hand`) and the one-finger tap recordings (label
/// `gesture=tap`: each touch's contact at its first per-touch gesture event, `calibrate hand`), and
/// every one-finger recording (`gesture=tap` or `gesture=draw`) for `eval`'s one-finger table.
struct LabelledFolder {
    var pinches: [LabelledPinch] = []
    /// One finger at a time (labels `gesture=tap` or `gesture=draw`): every touch judged by `eval`.
    var oneFinger: [LabelledPinch] = []
    var taps: [(contact: HandednessContact, hand: Hand, widthMm: Double, heightMm: Double)] = []
    var tapRecordings = 0
    var skipped = 0

    /// Reads every `.evemu` file of `directory`; a missing folder or one without a labelled
    /// recording is an error on stderr (prefixed with `command`) and exit status 1.
    static func load(_ directory: String, command: String, hint: String) throws -> LabelledFolder {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            StandardStream.error("\(command): \(directory): "
                                 + (FileManager.default.fileExists(atPath: directory) ? "not a folder" : "no such folder") + " (\(hint))")
            throw ExitCode.failure
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".evemu") }.sorted()
        } catch {
            StandardStream.error("\(command): cannot list \(directory): \(OutputFile.reason(error))")
            throw ExitCode.failure
        }
        var folder = LabelledFolder()
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { folder.skipped += 1; continue }
            let (label, calibration) = LabelledPinch.annotations(ofRecording: text)
            guard let label else { folder.skipped += 1; continue }
            do {
                let rec = try Recording.load(path: path)
                let labelled = LabelledPinch(name: name, description: rec.description, calibration: calibration,
                                             events: rec.events, hand: label.hand, tier: label.tier)
                if LabelledPinch.isOneFinger(text) {
                    folder.oneFinger.append(labelled)
                    if gestureLabel(ofRecording: text) == "tap" {
                        folder.tapRecordings += 1
                        for t in HandednessEvaluation.tapContacts(description: rec.description, calibration: calibration, events: rec.events) {
                            folder.taps.append((t.contact, label.hand, t.widthMm, t.heightMm))
                        }
                    }
                } else {
                    folder.pinches.append(labelled)
                }
            } catch {
                StandardStream.error("\(command): \(error)")
                folder.skipped += 1
            }
        }
        guard !folder.pinches.isEmpty || !folder.oneFinger.isEmpty else {
            StandardStream.error("\(command): no labelled recordings in \(directory)")
            throw ExitCode.failure
        }
        return folder
    }

    /// The `gesture=` of a recording's label line, nil when it names none (a pinch).
    static func gestureLabel(ofRecording text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(40) where line.hasPrefix("#") {
            guard let r = line.firstRange(of: "handyd-label:") else { continue }
            for part in line[r.upperBound...].split(separator: " ") where part.hasPrefix("gesture=") {
                return String(part.dropFirst("gesture=".count))
            }
        }
        return nil
    }

    /// Reads and checks a hand profile file; a problem is on stderr (prefixed with `command`) and exit status 1.
    static func profile(at path: String, command: String) throws -> HandProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            StandardStream.error("\(command): cannot read the hand profile \(path)")
            throw ExitCode.failure
        }
        do { return try HandProfile.decode(Array(data)) } catch {
            StandardStream.error("\(command): hand profile \(path): \(error.message)")
            throw ExitCode.failure
        }
    }
}

/// `handyctl calibrate`: learn a device's settings from labelled recordings.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Learn a device's hand profile from labelled recordings.",
        subcommands: [Hand.self])

    struct Hand: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a hand profile (per-device enrolment) on labelled pinches and taps.",
            discussion: """
                Reads every .evemu file in DIR with a `# handyd-label: hand=… tier=…` line: pinch \
                recordings as `handyctl eval handedness` reads them (the features of the first pinch), \
                and recordings labelled `gesture=tap` as one-finger taps (each touch's contact at its \
                first per-touch gesture). Fits the device's hand profile (docs/HANDEDNESS.md \
                "Per-device enrolment"): the pinch hand's probability recalibrated for this device \
                (scale and bias), and, with at least 5 taps of each hand that report an orientation, \
                the one-finger model refitted, with a hand published for one finger only where \
                leaving each tap out showed it right. Checks it and writes it as JSON to -o.

                Refused, with the reason and exit status 1: fewer than 5 pinches of a hand, labels \
                that contradict the model or each other (a fitted scale ≤ 0, a hand's enrolled \
                pinches under 50 % right after fitting).

                The daemon reads the file from the device's HANDYD_HAND_PROFILE, or from \
                /var/lib/handyd/hands/<device id>.json (docs/DEVICES.md).

                Examples:
                  handyctl calibrate hand --from enrolment/ -o /var/lib/handyd/hands/front-screen.json
                  handyctl eval handedness enrolment/ --hand-profile /var/lib/handyd/hands/front-screen.json
                """)

        @Option(name: .customLong("from"), help: ArgumentHelp("Folder of labelled recordings (pinches, and taps labelled gesture=tap).", valueName: "DIR"))
        var directory: String

        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the profile (JSON).", valueName: "PROFILE"))
        var output: String

        @Option(name: .long, help: ArgumentHelp("The device id recorded in the profile (default: DIR's name).", valueName: "ID"))
        var deviceID: String?

        @Option(help: "The confidence from which the profiled pinch hand is published (0.5 … 1).")
        var minimumConfidence: Double = 0.6

        func validate() throws {
            guard (0.5...1).contains(minimumConfidence) else {
                throw ValidationError("--minimum-confidence \(minimumConfidence): expected 0.5 … 1")
            }
        }

        func run() throws {
            let command = "handyctl calibrate hand"
            let folder = try LabelledFolder.load(directory, command: command, hint: "a folder of labelled recordings")
            let pinches = folder.pinches.compactMap { p in HandednessEvaluation.features(p).map { ($0, p.hand) } }
            let device = deviceID ?? URL(fileURLWithPath: directory).lastPathComponent
            let profile: HandProfile
            do {
                profile = try HandProfile.fit(pinches: pinches, taps: folder.taps.map { ($0.contact, $0.hand, $0.widthMm, $0.heightMm) },
                                              device: device, minimumConfidence: minimumConfidence)
            } catch {
                StandardStream.error("\(command): \(directory): \(error.message); no profile written")
                throw ExitCode.failure
            }
            guard let json = profile.json else {
                StandardStream.error("\(command): the fitted profile has a number JSON cannot carry; no profile written")
                throw ExitCode.failure
            }
            do { try OutputFile.write(json, to: output) } catch {
                StandardStream.error("\(command): \(error.description)")
                throw ExitCode.failure
            }
            let e = profile.enrolled
            var summary = "\(output): \(profile.pinches) pinches (\(e.leftPinches) left, \(e.rightPinches) right; "
                + "\(HandProfile.format(e.leftAccuracy * 100)) % and \(HandProfile.format(e.rightAccuracy * 100)) % after fitting), "
                + "scale \(HandProfile.format(profile.pinch.scale)), bias \(HandProfile.format(profile.pinch.bias))"
            if let sc = profile.singleContact {
                summary += "; \(profile.taps) taps: one finger "
                    + (sc.minimumConfidence.map { "publishes a hand from \(HandProfile.format($0))" } ?? "publishes no hand (the taps held out do not support one)")
            } else {
                summary += "; one-finger model unchanged (\(folder.taps.count) taps, fewer than \(HandProfile.minimumTapsPerHand) a hand with an orientation)"
            }
            print(summary)
        }
    }
}
