import HandyCore
import HandyProtocol

// A hand profile's document (docs/HANDEDNESS.md "Per-device enrolment"): JSON, read and written
// here through HandyProtocol's `JSONDocument`, so the core keeps the profile and its checks and
// formats nothing. The daemon reads the files, `handyctl calibrate hand` writes them.

extension HandProfile {
    /// Decodes and checks a profile document (``validate()``); every refusal says what is wrong.
    public static func decode(_ bytes: some Collection<UInt8>) throws(HandProfileError) -> HandProfile {
        let probe: VersionProbe
        do { probe = try JSONDocument.decode(VersionProbe.self, from: bytes) } catch {
            throw HandProfileError(.corrupt, "not a hand profile (corrupt JSON): \(error.description)")
        }
        guard let version = probe.version else {
            throw HandProfileError(.corrupt, "not a hand profile: no \"version\"")
        }
        guard version == currentVersion else {
            throw HandProfileError(
                .unsupportedVersion, "version \(version): this handyd reads version \(currentVersion) profiles only")
        }
        let profile: HandProfile
        do { profile = try JSONDocument.decode(HandProfile.self, from: bytes) } catch {
            throw HandProfileError(.corrupt, "not a hand profile (corrupt JSON): \(error.description)")
        }
        try profile.validate()
        return profile
    }

    /// The document, indented with sorted keys; nil only for a profile ``validate()`` refuses
    /// (a non-finite number).
    public var json: String? { JSONDocument.encode(self) }

}

/// A profile's version, read before the rest so another version is named as such.
private struct VersionProbe: Decodable { var version: Int? }
