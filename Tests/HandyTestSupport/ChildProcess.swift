import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a child process wrote and how it ended.
package struct FinishedProcess {
    package var status: Int32
    package var stdout: [UInt8]
    package var stderr: [UInt8]
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// The child did not finish within its time; it was killed.
package struct ChildTimedOut: Error, CustomStringConvertible {
    package var description: String
}

/// Runs `process` to its end with its standard output and error on pipes (`mergingErrors`: both
/// on one pipe, read as `stdout`), reading both as they fill so a full pipe cannot block it.
/// Kills it and throws when it has not ended within `timeoutSeconds`: a child that hangs fails
/// its test and never hangs the run.
package func runToCompletion(_ process: Process, mergingErrors: Bool = false, timeoutSeconds: Double = 60) throws
    -> FinishedProcess
{
    let out = Pipe(), err = mergingErrors ? out : Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    func fail(_ what: String) -> ChildTimedOut {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return ChildTimedOut(
            description:
                "\(process.executableURL?.lastPathComponent ?? "child") \(process.arguments ?? []): \(what) within \(timeoutSeconds) s"
        )
    }
    // Our copies of the write ends would keep the pipes open past the child's exit.
    try? out.fileHandleForWriting.close()
    if !mergingErrors { try? err.fileHandleForWriting.close() }
    var open = [out.fileHandleForReading.fileDescriptor: [UInt8]()]
    if !mergingErrors { open[err.fileHandleForReading.fileDescriptor] = [] }
    var collected = open
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while !open.isEmpty {
        var fds = open.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let remainingMs = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        guard remainingMs > 0 else { throw fail("output not closed") }
        let rc = poll(&fds, nfds_t(fds.count), remainingMs)
        if rc < 0 { if errno == EINTR { continue }; throw ChildTimedOut(description: "poll: \(errno)") }
        if rc == 0 { throw fail("output not closed") }
        for p in fds where p.revents != 0 {
            let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                collected[p.fd, default: []] += chunk[..<n]
            } else if n == 0 || errno != EINTR {
                open[p.fd] = nil
            }
        }
    }
    while process.isRunning {
        guard Date() < deadline else { throw fail("no exit") }
        usleep(2_000)
    }
    process.waitUntilExit()
    return FinishedProcess(
        status: process.terminationStatus, stdout: collected[out.fileHandleForReading.fileDescriptor] ?? [],
        stderr: mergingErrors ? [] : collected[err.fileHandleForReading.fileDescriptor] ?? [])
}
