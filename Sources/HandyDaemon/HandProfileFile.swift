import HandyCore
import HandyFiles
import HandyInput
import HandySettings
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A device's hand profile file (``HandProfile``, docs/HANDEDNESS.md "Per-device enrolment"):
/// HANDYD_HAND_PROFILE, else `/var/lib/handyd/hands/<device id>.json` when it exists. Read when the
/// device opens and on every reload; a file that cannot be read or is refused is a warning naming
/// the file and the problem, and the device keeps the default model.
enum HandProfileFile {
    /// Largest profile read (a profile is a few hundred bytes).
    static let maximumBytes = 64 * 1024

    /// The profile for a device, or nil (no file, or a bad one: then a warning says why).
    static func load(configuration: DeviceConfiguration, deviceID: String, directory: String?, logger: Logger)
        -> HandProfile?
    {
        guard let (path, explicit) = configuration.handProfileFile(deviceID: deviceID, directory: directory) else {
            return nil
        }
        switch read(path) {
        case .success(let bytes):
            do {
                let profile = try HandProfile.decode(bytes)
                logger.info(
                    "hand profile applied",
                    metadata: [
                        "device.id": "\(deviceID)", "profile.file": "\(path)", "profile.pinches": "\(profile.pinches)",
                        "profile.taps": "\(profile.taps)",
                        "profile.single-contact-hand": "\(profile.singleContact?.minimumConfidence != nil)",
                    ])
                return profile
            } catch {
                logger.warning(
                    "bad hand profile, default model used",
                    metadata: [
                        "device.id": "\(deviceID)", "profile.file": "\(path)", "problem": "\(error.message)",
                    ])
                return nil
            }
        case .failure(let failure):
            let code = failure.code
            // The default file is optional; a file named by HANDYD_HAND_PROFILE must be there.
            if code == ENOENT && !explicit { return nil }
            logger.warning(
                "bad hand profile, default model used",
                metadata: [
                    "device.id": "\(deviceID)", "profile.file": "\(path)",
                    "problem": "cannot read it: \(POSIXFile.reason(code))",
                ])
            return nil
        }
    }

    struct ReadError: Error { var code: Int32 }

    static func read(_ path: String) -> Result<[UInt8], ReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadError(code: errno)) }
        defer { close(fd) }
        switch POSIXFile.readAll(fd, maximumBytes: maximumBytes) {
        case .success(let bytes): return .success(bytes)
        case .failure(let failure):
            switch failure {
            case .tooLarge: return .failure(ReadError(code: EFBIG))
            case .system(let code): return .failure(ReadError(code: code))
            }
        }
    }
}
