#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failure of one input device or of udev, with the path it concerns.
///
/// One bad device fails alone: the daemon logs this and carries on with the others.
public struct InputError: Error, Sendable, CustomStringConvertible {
    /// The device node, syspath or "udev" the error is about.
    public var path: String
    /// The errno value (positive) when a system or library call failed, nil otherwise.
    public var errno: Int32?
    /// What was being done, e.g. "open", "libevdev_new_from_fd".
    public var what: String

    public init(path: String, errno: Int32? = nil, what: String) {
        self.path = path
        self.errno = errno
        self.what = what
    }

    /// ENODEV: the device was unplugged.
    public var isDeviceGone: Bool { errno == ENODEV }
    /// EACCES / EPERM: no permission (not in the `input` group, or DeviceAllow missing).
    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM }

    public var description: String {
        if let errno {
            return "\(path): \(what): \(String(cString: strerror(errno))) (errno \(errno))"
        }
        return "\(path): \(what)"
    }
}
