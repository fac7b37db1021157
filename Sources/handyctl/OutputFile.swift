import Foundation
import HandyFiles

#if canImport(Glibc)
import Glibc
#endif

/// A command's `-o FILE`, written the way a shell's `>` writes it: into the file at the path
/// (created 0644, or emptied), so `-o /dev/stdout`, a FIFO or a symlink receive the bytes. An
/// atomic write (a new file renamed over the path) replaced them with a regular file instead: run
/// as root, `-o /dev/null` replaced the system's device node.
enum OutputFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ text: String, to path: String) throws(Failure) {
        guard !path.isEmpty else { throw Failure(description: "cannot write an empty path") }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        var failure = POSIXFile.writeAll(fd, text.utf8)
        // close(2) may report a write the kernel could not finish (NFS, a full disk).
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure != 0 { throw Failure(description: "cannot write \(path): \(POSIXFile.reason(failure))") }
    }

    /// The POSIX reason inside a Foundation file error ("Not a directory", "Permission denied"),
    /// not its "NSCocoaErrorDomain Code=512" dump.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return ns.localizedDescription
    }
}
