import ArgumentParser
import Foundation
import HandyClient
import HandyCore
import HandyProtocol
import HandyRecording
import HandySettings
import HandySynthetic
import NIOConcurrencyHelpers

/// `handyctl calibrate`: learn a device's settings from labelled recordings, or from a person
/// enrolling on the device itself.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Learn a device's hand profile from labelled recordings or a live enrolment.",
        subcommands: [Hand.self])

    struct Hand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a hand profile (per-device enrolment) on labelled pinches and taps.",
            discussion: """
                With --from DIR: reads every .evemu file in DIR with a `# handyd-label: hand=… \
                tier=…` line: pinch recordings as `handyctl eval handedness` reads them (the features \
                of the first pinch), and recordings labelled `gesture=tap` as one-finger taps (each \
                touch's contact at its first per-touch gesture). Fits the device's hand profile \
                (docs/HANDEDNESS.md "Per-device enrolment"): the pinch hand's probability recalibrated \
                for this device (scale and bias), and, with at least 5 taps of each hand that report \
                an orientation, the one-finger model refitted, with a hand published for one finger \
                only where leaving each tap out showed it right. Checks it and writes it as JSON to -o.

                With --device ID: a live enrolment on the touchscreen, read through the running \
                daemon. It guides a person in the terminal through --pinches pinches and --taps \
                one-finger taps with each hand (right, then left): each step waits for Enter (at the \
                end of standard input it goes on at once), then records what the daemon publishes of \
                that device until the step has its pinches or taps. Every pinch and every step of \
                taps is written as a labelled recording into --record (default: PROFILE.recordings), \
                usable by `eval handedness` and `calibrate hand --from`, and the profile is fitted \
                from that folder exactly as --from fits it.

                Refused, with the reason and exit status 1: fewer than 5 pinches of a hand, labels \
                that contradict the model or each other (a fitted scale ≤ 0, a hand's enrolled \
                pinches under 50 % right after fitting).

                The daemon reads the file from the device's HANDYD_HAND_PROFILE, or from \
                /var/lib/handyd/hands/<device id>.json (docs/DEVICES.md); `systemctl reload handyd` \
                (SIGHUP) applies a new one.

                Examples:
                  handyctl calibrate hand --device front-screen -o /var/lib/handyd/hands/front-screen.json
                  handyctl calibrate hand --from enrolment/ -o /var/lib/handyd/hands/front-screen.json
                  handyctl eval handedness enrolment/ --hand-profile /var/lib/handyd/hands/front-screen.json
                """)

        @Option(
            name: .customLong("from"),
            help: ArgumentHelp(
                "Folder of labelled recordings (pinches, and taps labelled gesture=tap).", valueName: "DIR"))
        var directory: String?

        @Option(
            help: ArgumentHelp(
                "Enrol live on this device (its id, as `handyctl devices` shows it) through the daemon.",
                valueName: "ID"))
        var device: String?

        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the profile (JSON).", valueName: "PROFILE"))
        var output: String

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The device id recorded in the profile (default: --device, or DIR's name).", valueName: "ID"))
        var deviceID: String?

        @Option(help: "The confidence from which the profiled pinch hand is published (0.5 … 1).")
        var minimumConfidence: Double = 0.6

        @Option(help: "--device: pinches to record with each hand (5 … 100).")
        var pinches: Int = 10

        @Option(help: "--device: one-finger taps to record with each hand (0 … 500).")
        var taps: Int = 10

        @Option(
            help: ArgumentHelp(
                "--device: where the labelled recordings go (default: PROFILE.recordings).", valueName: "DIR"))
        var record: String?

        @Option(help: "--device: handyd's socket.")
        var socket: String = HandyClient.defaultSocketPath

        func validate() throws {
            guard (directory == nil) != (device == nil) else {
                throw ValidationError("give --from DIR or --device ID (one of them)")
            }
            guard (0.5...1).contains(minimumConfidence) else {
                throw ValidationError("--minimum-confidence \(minimumConfidence): expected 0.5 … 1")
            }
            guard (5...100).contains(pinches) else { throw ValidationError("--pinches \(pinches): expected 5 … 100") }
            guard (0...500).contains(taps) else { throw ValidationError("--taps \(taps): expected 0 … 500") }
            if directory != nil, record != nil { throw ValidationError("--record goes with --device") }
        }

        func run() async throws {
            if let device {
                let folder = record ?? output + ".recordings"
                try await LiveEnrolment(device: device, socket: socket, folder: folder, pinches: pinches, taps: taps)
                    .run()
                try Self.fit(
                    directory: folder, output: output, device: deviceID ?? device, minimumConfidence: minimumConfidence)
            } else if let directory {
                try Self.fit(
                    directory: directory, output: output,
                    device: deviceID ?? URL(fileURLWithPath: directory).lastPathComponent,
                    minimumConfidence: minimumConfidence)
            }
        }

        /// Fits the profile on a folder of labelled recordings and writes it (what --from does, and
        /// --device after recording).
        static func fit(directory: String, output: String, device: String, minimumConfidence: Double) throws {
            let command = "handyctl calibrate hand"
            let folder = try LabelledFolder.load(directory, command: command, hint: "a folder of labelled recordings")
            let pinches = folder.pinches.compactMap { p in HandednessEvaluation.features(p).map { ($0, p.hand) } }
            let profile: HandProfile
            do {
                profile = try HandProfile.fit(
                    pinches: pinches, taps: folder.taps.map { ($0.contact, $0.hand, $0.widthMm, $0.heightMm) },
                    device: device, minimumConfidence: minimumConfidence)
            } catch {
                StandardStream.error("\(command): \(directory): \(error.message); no profile written")
                throw ExitCode.failure
            }
            guard let json = profile.json else {
                StandardStream.error(
                    "\(command): the fitted profile has a number JSON cannot carry; no profile written")
                throw ExitCode.failure
            }
            do { try OutputFile.write(json, to: output) } catch {
                StandardStream.error("\(command): \(error.description)")
                throw ExitCode.failure
            }
            let e = profile.enrolled
            var summary =
                "\(output): \(profile.pinches) pinches (\(e.leftPinches) left, \(e.rightPinches) right; "
                + "\(HandProfile.format(e.leftAccuracy * 100)) % and \(HandProfile.format(e.rightAccuracy * 100)) % after fitting), "
                + "scale \(HandProfile.format(profile.pinch.scale)), bias \(HandProfile.format(profile.pinch.bias))"
            if let sc = profile.singleContact {
                summary +=
                    "; \(profile.taps) taps: one finger "
                    + (sc.minimumConfidence.map { "publishes a hand from \(HandProfile.format($0))" }
                        ?? "publishes no hand (the taps held out do not support one)")
            } else {
                summary +=
                    "; one-finger model unchanged (\(folder.taps.count) taps, fewer than \(HandProfile.minimumTapsPerHand) a hand with an orientation)"
            }
            print(summary)
        }
    }
}

/// A person enrolling on the device: the terminal, the socket and the files around an
/// ``EnrolmentTake``, which decides from the daemon's messages and the person's starts what to say
/// and which takes to write.
struct LiveEnrolment {
    let device: String
    let socket: String
    let folder: String
    let pinches: Int
    let taps: Int

    static let command = "handyctl calibrate hand"

    func run() async throws {
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            StandardStream.error("\(Self.command): cannot make \(folder): \(OutputFile.reason(error))")
            throw ExitCode.failure
        }
        let request = SubscribeRequest(gestures: ["pinch"], devices: [device], touches: true)
        let client = HandyClient(socketPath: socket, subscription: request, reconnect: nil)
        var take = EnrolmentTake(device: device, pinches: pinches, taps: taps)
        // The step the person has started (Enter, or the end of standard input), read on a thread
        // of its own so the daemon's messages keep flowing while the prompt waits; passed to the
        // take before each message.
        let started = NIOLockedValueBox(-1)

        func perform(_ actions: [EnrolmentTake.Action]) throws {
            for action in actions {
                switch action {
                case .say(let line): print(line)
                case .awaitStart(let step):
                    fflush(nil)  // the prompt before waiting, also into a pipe
                    Thread.detachNewThread {
                        _ = readLine(); started.withLockedValue { $0 = step }
                    }
                case .write(let r, let fileName, let label, let deviceName):
                    let text = EvemuWriter.recording(
                        description: r.device(name: deviceName).description, events: r.events,
                        comment:
                            "handyd enrolment of \(device), written by handyctl calibrate hand\nhandyd-label: \(label)")
                    do {
                        try OutputFile.write(text, to: (folder as NSString).appendingPathComponent(fileName))
                    } catch {
                        StandardStream.error("\(Self.command): \(error.description)")
                        throw ExitCode.failure
                    }
                case .finish: break
                }
            }
        }

        do {
            for try await message in client.messages() {
                let step = started.withLockedValue { $0 }
                if step >= 0 { try perform(take.handle(.started(step: step))) }
                try perform(take.handle(.message(message)))
                if take.isFinished { break }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardStream.error("\(Self.command): \(error)")
            throw ExitCode.failure
        }
        guard take.isFinished else {
            StandardStream.error(
                "\(Self.command): the daemon closed the connection at step \(take.session.step + 1) of \(take.session.steps.count); "
                    + "the recordings so far are in \(folder)")
            throw ExitCode.failure
        }
        print("Recorded \(take.written) files in \(folder).")
    }
}
