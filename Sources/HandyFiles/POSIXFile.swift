#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whole-file reads and writes on a descriptor by POSIX calls, for the readers and writers that
/// must name the system's reason when they fail (strerror's words, not a Foundation error's dump)
/// and bound what they read (a wrong path to `/dev/zero` must not fill memory). Each caller opens
/// the file its own way (its flags, its checks of the file's type) and words its own errors.
public enum POSIXFile {
    /// Why a read stopped short.
    public enum ReadFailure: Error, Equatable, Sendable {
        /// read(2) failed with this errno.
        case system(Int32)
        /// More than the caller's bound was there.
        case tooLarge
    }

    /// Everything `fd` gives until end of file, at most `maximumBytes`. `sizeHint` (the size stat
    /// gave, say) is only a first allocation: a file may change while it is read. Interrupted
    /// reads (EINTR) are tried again.
    public static func readAll(_ fd: Int32, maximumBytes: Int, sizeHint: Int = 0) -> Result<[UInt8], ReadFailure> {
        var bytes = [UInt8](repeating: 0, count: Swift.min(Swift.max(sizeHint, 0), maximumBytes) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                // Full: one byte beyond the bound tells "too large" from "exactly the bound".
                guard count <= maximumBytes else { return .failure(.tooLarge) }
                let more = Swift.min(Swift.max(bytes.count, 4096), maximumBytes + 1 - count)
                bytes.append(contentsOf: repeatElement(0, count: more))
            }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maximumBytes else { return .failure(.tooLarge) }
        bytes.removeSubrange(count...)
        return .success(bytes)
    }

    /// Writes every byte to `fd`, trying again after a short or interrupted write. Returns 0, or
    /// the errno of the write(2) that failed.
    public static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Int32 {
        let result = bytes.withContiguousStorageIfAvailable { writeAll(fd, UnsafeRawBufferPointer($0)) }
        return result ?? Array(bytes).withUnsafeBytes { writeAll(fd, $0) }
    }

    static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return 0
    }

    /// strerror's words for an errno.
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
