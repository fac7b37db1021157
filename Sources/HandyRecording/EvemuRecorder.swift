import HandyCore
import HandyFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a live event stream to an evemu file as it arrives (what `handyctl record` uses).
///
/// The header goes out when the file is created; events are buffered and written with one
/// `write(2)` per frame (at each SYN_REPORT), so a recording cut off by Ctrl-C, a crash or a full
/// disk still ends on a whole frame and replays as far as it got.
///
/// Not `Sendable`: one thread records.
public final class EvemuRecorder {
    /// The file being written.
    public let path: String
    /// Events written so far (only whole frames count).
    public private(set) var eventCount = 0
    /// SYN_REPORTs written so far.
    public private(set) var frameCount = 0

    private var fd: CInt
    private var pending: [UInt8] = []
    private var pendingEvents = 0

    /// Creates (or truncates) `path` and writes the description header.
    public init(path: String, description: DeviceDescription, comment: String? = nil) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RecordingError(.unreadable, file: path, "cannot create: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.path = path
        try writeAll(Array(EvemuWriter.header(for: description, comment: comment).utf8))
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Adds one event; a SYN_REPORT (or SYN_DROPPED, so a resync marker is never lost) writes the frame.
    public func record(_ event: InputEvent) throws(RecordingError) {
        pending.append(contentsOf: EvemuWriter.line(for: event).utf8)
        pendingEvents += 1
        if event.type == EventType.syn && (event.code == SynCode.report || event.code == SynCode.dropped) {
            try flush()
            if event.code == SynCode.report { frameCount += 1 }
        }
    }

    /// Writes whatever is buffered (a partial frame too: call it only when stopping on purpose).
    public func flush() throws(RecordingError) {
        guard !pending.isEmpty else { return }
        let bytes = pending
        pending.removeAll(keepingCapacity: true)
        try writeAll(bytes)
        eventCount += pendingEvents
        pendingEvents = 0
    }

    /// Drops a partial frame (events after the last SYN_REPORT), syncs and closes the file.
    /// A frame without its SYN_REPORT would only confuse a replay.
    public func close() throws(RecordingError) {
        guard fd >= 0 else { return }
        pending.removeAll()
        pendingEvents = 0
        _ = fsync(fd)
        let rc = Glibc.close(fd)
        fd = -1
        guard rc == 0 else {
            throw RecordingError(.unreadable, file: path, "close failed: \(String(cString: strerror(errno)))")
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws(RecordingError) {
        guard fd >= 0 else { throw RecordingError(.unreadable, file: path, "recording already closed") }
        let code = POSIXFile.writeAll(fd, bytes)
        guard code == 0 else {
            throw RecordingError(.unreadable, file: path, "write failed: \(POSIXFile.reason(code))")
        }
    }
}
