import Logging

#if canImport(Glibc)
import Glibc
#endif

/// inotify IN_ATTRIB watches on the directories that hold device nodes handyd could not open, so a
/// chmod, chgrp or ACL change (udev's uaccess, a rule's GROUP=/MODE= applied by a trigger) is seen
/// at once. The directory, not the node: inotify_add_watch needs read permission on what it
/// watches, which is exactly what an unreadable node lacks, while a directory watch reports its
/// entries' IN_ATTRIB too. A directory is watched only while a node of interest is in it, so an
/// idle daemon whose devices are all readable has no watch to wake it.
final class NodeAttributeWatch {
    /// The inotify instance (non-blocking), polled by the input loop.
    let fileDescriptor: Int32
    /// Directory ("/dev/input") → its watch.
    private var watches: [String: Int32] = [:]
    private let logger: Logger

    init(logger: Logger) throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw DaemonError("inotify_init1: \(String(cString: strerror(errno)))") }
        fileDescriptor = fd
        self.logger = logger
    }

    deinit { Glibc.close(fileDescriptor) }

    /// Watches exactly the directories that hold `nodes`.
    func watchDirectories(of nodes: some Sequence<String>) {
        let wanted = Set(nodes.map(Self.directory(of:)))
        for (directory, watch) in watches where !wanted.contains(directory) {
            inotify_rm_watch(fileDescriptor, watch)
            watches[directory] = nil
        }
        for directory in wanted where watches[directory] == nil {
            let watch = inotify_add_watch(fileDescriptor, directory, UInt32(IN_ATTRIB))
            if watch < 0 {
                logger.warning(
                    "cannot watch the device directory; only udev change events and SIGHUP retry its devices",
                    metadata: ["directory": "\(directory)", "error": "\(String(cString: strerror(errno)))"])
                continue
            }
            watches[directory] = watch
        }
    }

    /// Drains the queue: the paths (directory + "/" + name) whose attributes changed since the last call.
    func changedPaths() -> Set<String> {
        var changed = Set<String>()
        let directoryByWatch = Dictionary(watches.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        let bufferSize = 4096
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: bufferSize, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let n = read(fileDescriptor, buffer, bufferSize)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                if length > 0, offset + header + length <= n, let directory = directoryByWatch[event.wd] {
                    // The name is NUL-padded to `len` bytes.
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: length)
                    let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    changed.insert(directory + "/" + name)
                }
                offset += header + length
            }
        }
        return changed
    }

    static func directory(of node: String) -> String {
        guard let slash = node.lastIndex(of: "/") else { return "." }
        return slash == node.startIndex ? "/" : String(node[..<slash])
    }
}
