import ArgumentParser
import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySettings
import HandySynthetic

/// A folder of labelled recordings (`# handyd-label: hand=… tier=…`, docs/HANDEDNESS.md): the
/// pinch recordings (`eval handedness`, `calibrate hand`) and the one-finger tap recordings (label
/// `gesture=tap`: each touch's contact at its first per-touch gesture event, `calibrate hand`), and
/// every one-finger recording (`gesture=tap` or `gesture=draw`) for `eval`'s one-finger table.
struct LabelledFolder {
    var pinches: [LabelledPinch] = []
    /// One finger at a time (labels `gesture=tap` or `gesture=draw`): every touch judged by `eval`.
    var oneFinger: [LabelledPinch] = []
    /// Each tap's contact, label, display size in mm, and the name of its recording.
    var taps: [(contact: HandednessContact, hand: Hand, widthMm: Double, heightMm: Double, name: String)] = []
    var tapRecordings = 0
    var skipped = 0

    /// Reads every `.evemu` file of `directory`; a missing folder or one without a labelled
    /// recording is an error on stderr (prefixed with `command`) and exit status 1.
    static func load(_ directory: String, command: String, hint: String) throws -> LabelledFolder {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            StandardStream.error(
                "\(command): \(directory): "
                    + (FileManager.default.fileExists(atPath: directory) ? "not a folder" : "no such folder")
                    + " (\(hint))")
            throw ExitCode.failure
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".evemu") }
                .sorted()
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
                let labelled = LabelledPinch(
                    name: name, description: rec.description, calibration: calibration,
                    events: rec.events, hand: label.hand, tier: label.tier)
                if LabelledPinch.isOneFinger(text) {
                    folder.oneFinger.append(labelled)
                    if gestureLabel(ofRecording: text) == "tap" {
                        folder.tapRecordings += 1
                        for t in HandednessEvaluation.tapContacts(
                            description: rec.description, calibration: calibration, events: rec.events)
                        {
                            folder.taps.append((t.contact, label.hand, t.widthMm, t.heightMm, name))
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
