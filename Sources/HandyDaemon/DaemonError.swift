#if canImport(Glibc)
import Glibc
#endif

/// "Permission denied (errno 13, EACCES)": what strerror says, and the number to search for.
func errnoText(_ code: Int32) -> String {
    let names: [Int32: String] = [
        EACCES: "EACCES", EPERM: "EPERM", ENOENT: "ENOENT", ENOTDIR: "ENOTDIR",
        EROFS: "EROFS", EADDRINUSE: "EADDRINUSE", ENAMETOOLONG: "ENAMETOOLONG", ENOSPC: "ENOSPC",
    ]
    let name = names[code].map { ", \($0)" } ?? ""
    return "\(String(cString: strerror(code))) (errno \(code)\(name))"
}

/// A startup or configuration error, printed as is.
public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
