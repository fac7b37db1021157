import Foundation
import HandyCore
import HandyProtocol
import HandyRecording
import HandySettings
import HandySynthetic
import HandyTestSupport
import Testing

/// Per-device enrolment on real recordings (docs/HANDEDNESS.md "Per-device enrolment"): DISPEL's
/// pinches per phone, CapFingerId's taps, and `handyctl calibrate hand` then `eval --hand-profile`.
@Suite struct HandProfileRecordingTests {
    static let dispel = FixturePaths.fixtures.appendingPathComponent("realhands/dispel").path
    static let capfingerid = FixturePaths.fixtures.appendingPathComponent("realhands/capfingerid").path

    /// The pinches of one DISPEL phone (file name prefix), in file order.
    static func phone(_ prefix: String) throws -> [(HandednessFeatures, Hand)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dispel).filter {
            $0.hasPrefix(prefix + "-") && $0.hasSuffix(".evemu")
        }.sorted()
        return try names.compactMap { name in
            let path = dispel + "/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let (label, calibration) = LabelledPinch.annotations(ofRecording: text)
            let l = try #require(label)
            let rec = try Recording.load(path: path)
            let p = LabelledPinch(
                name: name, description: rec.description, calibration: calibration, events: rec.events, hand: l.hand,
                tier: l.tier)
            return HandednessEvaluation.features(p).map { ($0, l.hand) }
        }
    }

    static func firstPerHand(_ samples: [(HandednessFeatures, Hand)], _ k: Int) -> [(HandednessFeatures, Hand)] {
        Array(samples.filter { $0.1 == .left }.prefix(k) + samples.filter { $0.1 == .right }.prefix(k))
    }

    /// The Reno2 Z's left level reads as right hands (the seed rule calls all 9 right): its
    /// enrolment contradicts the model and is refused, where another phone's is accepted.
    @Test func theReno2ZsEnrolmentContradictsTheModelAndIsRefused() throws {
        let reno = try Self.phone("reno2z")
        #expect(reno.filter { $0.1 == .left }.count == 9)
        let fitted = Result { () throws(HandProfileError) -> HandProfile in
            try HandProfile.fit(pinches: Self.firstPerHand(reno, 5), device: "reno2z")
        }
        switch fitted {
        case .success: Issue.record("the Reno2 Z's enrolment was accepted")
        case .failure(let e): #expect(e.kind == .contradictingLabels, "\(e)")
        }
        let galaxy = try HandProfile.fit(
            pinches: Self.firstPerHand(try Self.phone("galaxys10"), 5), device: "galaxys10")
        #expect(galaxy.pinch.scale > 0 && galaxy.pinches == 10)
    }

    static func taps(_ names: [String]) throws -> [(contact: HandednessContact, hand: Hand, w: Double, h: Double)] {
        try names.flatMap { name in
            let path = capfingerid + "/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let (label, calibration) = LabelledPinch.annotations(ofRecording: text)
            let hand = try #require(label?.hand)
            let rec = try Recording.load(path: path)
            return HandednessEvaluation.tapContacts(
                description: rec.description, calibration: calibration, events: rec.events
            )
            .map { ($0.contact, hand, $0.widthMm, $0.heightMm) }
        }
    }

    /// Each touch of a CapFingerId tap file gives one contact, with its orientation; a profile's
    /// one-finger model then decides the hand of the arena's one-finger gestures.
    @Test func tapsGiveOneContactATouchAndTheArenaUsesTheProfilesOneFingerModel() throws {
        let name = "p15-thumb-right.evemu"
        let taps = try Self.taps([name])
        #expect(taps.count >= 35 && taps.count <= 41, "\(taps.count)")
        #expect(taps.allSatisfy { $0.contact.orientation != nil && $0.w > 60 && $0.h > 100 })

        let pinches = try Self.firstPerHand(try Self.phone("galaxys10"), 5)
        var profile = try HandProfile.fit(pinches: pinches, device: "nexus5")
        func touchGestureHands(_ profile: HandProfile?) throws -> [CoreGestureEvent] {
            let rec = try Recording.load(path: Self.capfingerid + "/" + name)
            var pipeline = GesturePipeline(deviceID: "t", description: rec.description)
            pipeline.arena.setHandProfile(profile)
            var out = PipelineOutput()
            for e in rec.events { pipeline.handle(e, into: &out) }
            out.gestures += pipeline.advanceTime(
                to: (rec.events.last?.time ?? .zero).advanced(byMicroseconds: 2_000_000))
            return out.gestures.filter {
                $0.touch != nil && $0.phase != .ended && $0.phase != .cancelled && $0.rightHandProbability != nil
            }
        }
        // Without a one-finger model (or without a profile) one finger publishes no hand.
        let plain = try touchGestureHands(nil)
        #expect(!plain.isEmpty && plain.allSatisfy { $0.hand == .unknown })
        #expect(try touchGestureHands(profile).map(\.rightHandProbability) == plain.map(\.rightHandProbability))
        // A one-finger model that leans far right and publishes from 0.6: every tap right, claiming
        // the 0.6 its enrolled taps backed (not its P, over 0.99).
        profile.singleContact = HandProfile.SingleContact(
            model: SingleContactHandedness.fitted, bias: 10, minimumConfidence: 0.6)
        let profiled = try touchGestureHands(profile)
        #expect(
            profiled.count == plain.count
                && profiled.allSatisfy {
                    $0.hand == .right && $0.handConfidence == 0.6 && $0.rightHandProbability == 0.6
                })
    }

    /// Issue 52's promise for one finger, on CapFingerId's people left out of their own enrolment
    /// (15 taps a hand enrolled, 10 draws; p8 at 20): where a refitted model publishes a hand, every
    /// judged band of what it claims is right at least its mean claim − 0.05. Claiming P instead of
    /// the confidence the enrolled taps backed, p20's band from 0.75 is right 4 of 10 times at
    /// 0.774; backing a threshold by the held-out share itself (no standard error off it), p8's
    /// band from 0.60 is right 6 of 13 times.
    @Test func aOneFingerProfilesClaimIsKeptOnTheTapsLeftOut() throws {
        var publishing = 0
        for (person, k) in [("p3", 15), ("p14", 15), ("p15", 15), ("p18", 15), ("p20", 15), ("p8", 20)] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.capfingerid).filter {
                $0.hasPrefix(person + "-") && $0.hasSuffix(".evemu")
            }.sorted()
            let taps = try Self.taps(names).map { ($0.contact, $0.hand, $0.w, $0.h) }
            let row = try #require(HandProfileEvaluation.tapRow(group: person, taps: taps, k: k, seed: 3))
            if k == 15 { publishing += row.publishing }
            if let worst = row.profiled.worstBand {
                #expect(
                    worst.margin >= 0,
                    "\(person): from \(worst.lower) \(worst.count) answers \(worst.accuracy) right at \(worst.meanConfidence)"
                )
            }
        }
        // Not a promise kept by publishing nothing: most of these enrolments publish a hand.
        #expect(publishing >= 25, "\(publishing) of 50 enrolments publish")
    }

    /// Enrolled on one person's taps (both fingers, both hands): a one-finger model refitted.
    @Test func onePersonsTapsRefitTheOneFingerModel() throws {
        let taps = try Self.taps([
            "p15-index-left.evemu", "p15-index-right.evemu", "p15-thumb-left.evemu", "p15-thumb-right.evemu",
        ])
        let profile = try HandProfile.fit(
            pinches: Self.firstPerHand(try Self.phone("galaxys10"), 5),
            taps: taps.map { ($0.contact, $0.hand, $0.w, $0.h) })
        let single = try #require(profile.singleContact)
        #expect(profile.taps == taps.count && single.model != SingleContactHandedness.fitted)
    }

    /// `handyctl calibrate hand --from DIR -o PROFILE`, then `eval handedness DIR --hand-profile` on
    /// the same folder; a folder whose labels contradict is refused, nothing written.
    @Test func calibrateThenEvaluateOnTheSameFolder() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let enrol = folder.appendingPathComponent("enrol")
        try FileManager.default.createDirectory(at: enrol, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.dispel) where name.hasPrefix("galaxys10-")
        {
            try FileManager.default.copyItem(
                atPath: Self.dispel + "/" + name, toPath: enrol.appendingPathComponent(name).path)
        }
        for name in ["p15-index-left.evemu", "p15-thumb-right.evemu"] {
            try FileManager.default.copyItem(
                atPath: Self.capfingerid + "/" + name, toPath: enrol.appendingPathComponent(name).path)
        }
        let profilePath = folder.appendingPathComponent("galaxy.json").path
        let calibrate = try HandyctlProcess.run([
            "calibrate", "hand", "--from", enrol.path, "-o", profilePath, "--device-id", "galaxy",
        ])
        #expect(calibrate.status == 0, "\(calibrate.stderr)")
        let text = String(decoding: calibrate.stdout, as: UTF8.self)
        #expect(text.contains("60 pinches (30 left, 30 right") && text.contains("taps"), "\(text)")
        let data = try #require(FileManager.default.contents(atPath: profilePath))
        let profile = try HandProfile.decode(Array(data))
        #expect(profile.device == "galaxy" && profile.pinches == 60 && profile.singleContact != nil)

        // The pinches in --json (the taps are judged in a one-finger table of their own, without --json).
        let pinchFolder = folder.appendingPathComponent("pinches")
        try FileManager.default.createDirectory(at: pinchFolder, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: enrol.path) where name.hasPrefix("galaxys10-") {
            try FileManager.default.copyItem(
                atPath: enrol.appendingPathComponent(name).path, toPath: pinchFolder.appendingPathComponent(name).path)
        }
        let eval = try HandyctlProcess.run([
            "eval", "handedness", pinchFolder.path, "--hand-profile", profilePath, "--json",
        ])
        #expect(eval.status == 0, "\(eval.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(eval.stdout)) as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["classifier"] as? String }) == ["profiled", "evidence", "seed"])
        let profiled = try #require(
            rows.first { $0["classifier"] as? String == "profiled" }?["metrics"] as? [String: Any])
        let evidence = try #require(
            rows.first { $0["classifier"] as? String == "evidence" }?["metrics"] as? [String: Any])
        // On its own enrolment the profile answers more of the 60 pinches than the uncalibrated classifier.
        #expect(profiled["pinches"] as? Int == 60 && profiled["missed"] as? Int == 0)
        #expect((profiled["coverage"] as? Double ?? 0) > (evidence["coverage"] as? Double ?? 1))
        // The whole folder as a table: the taps' one-finger table (the profile's one-finger model
        // applied), then the pinches with the profiled rows.
        let table = try HandyctlProcess.run(["eval", "handedness", enrol.path, "--hand-profile", profilePath])
        let text2 = String(decoding: table.stdout, as: UTF8.self)
        #expect(
            table.status == 0 && text2.contains("one finger:") && text2.contains("| positions | profiled | 60 | 0 |"),
            "\(text2) \(table.stderr)")
        // The same folder in --json: one document holding both kinds of rows (the taps' were
        // dropped, or printed as a second document, before); with --enrolment the taps' rows.
        let mixed = try HandyctlProcess.run(["eval", "handedness", enrol.path, "--hand-profile", profilePath, "--json"])
        let both = try #require(
            try JSONSerialization.jsonObject(with: Data(mixed.stdout)) as? [String: Any], "\(mixed.stderr)")
        #expect(Set(both.keys) == ["oneFinger", "pinches"])
        #expect((both["oneFinger"] as? [String: Any])?["touches"] as? Int == profile.taps)
        #expect((both["pinches"] as? [[String: Any]])?.count == 3)
        let enrolled = try HandyctlProcess.run(["eval", "handedness", enrol.path, "--enrolment", "10", "--json"])
        let split = try #require(
            try JSONSerialization.jsonObject(with: Data(enrolled.stdout)) as? [String: Any], "\(enrolled.stderr)")
        #expect((split["taps"] as? [[String: Any]])?.compactMap { $0["group"] as? String } == ["p15"])
        #expect((split["pinches"] as? [[String: Any]])?.compactMap { $0["group"] as? String } == ["galaxys10"])

        // Contradicting labels: refused, exit 1, the reason said, no file.
        let reno = folder.appendingPathComponent("reno")
        try FileManager.default.createDirectory(at: reno, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.dispel) where name.hasPrefix("reno2z-") {
            try FileManager.default.copyItem(
                atPath: Self.dispel + "/" + name, toPath: reno.appendingPathComponent(name).path)
        }
        let renoProfile = folder.appendingPathComponent("reno.json").path
        let refused = try HandyctlProcess.run(["calibrate", "hand", "--from", reno.path, "-o", renoProfile])
        #expect(
            refused.status == 1 && refused.stderr.contains("labels contradict")
                && refused.stderr.contains("no profile written"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: renoProfile))

        // replay --hand-profile: applied; a bad one is an error.
        let demo = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let replay = try HandyctlProcess.run(["replay", demo, "--hand-profile", profilePath])
        #expect(replay.status == 0, "\(replay.stderr)")
        let bad = folder.appendingPathComponent("bad.json").path
        try Data("{\"version\": 2}".utf8).write(to: URL(fileURLWithPath: bad))
        let badReplay = try HandyctlProcess.run(["replay", demo, "--hand-profile", bad])
        #expect(badReplay.status == 1 && badReplay.stderr.contains("version 2"), "\(badReplay.stderr)")
    }
}
