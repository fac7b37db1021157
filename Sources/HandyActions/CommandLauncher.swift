import Foundation
import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts commands without waiting for them, and reaps them later: the gesture stream never waits
/// for a command, and a finished command leaves no zombie. A command that cannot start, or exits
/// with a failure, is logged with the binding it came from and changes nothing else.
public final class CommandLauncher: Sendable {
    private let logger: Logger
    /// Running children: pid → what to call it in the log.
    private let running = NIOLockedValueBox<[pid_t: String]>([:])

    public init(logger: Logger) { self.logger = logger }

    /// Starts `argv[0]` (looked up in PATH) with `argv`, the environment of this process plus
    /// `environment`, and standard input from /dev/null; standard output and error are this
    /// process's (the journal under systemd).
    /// - Returns: the child's pid, or nil when it could not start (logged).
    @discardableResult
    public func launch(_ argv: [String], environment: [String: String], label: String) -> pid_t? {
        guard let program = argv.first, !program.isEmpty else {
            logger.error("\(label): nothing to run")
            return nil
        }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        let envStrings = env.map { "\($0.key)=\($0.value)" }.sorted()

        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // This process ignores SIGHUP (reload) and may block signals; a child must start with the
        // default dispositions and an empty mask, or `kill -HUP` would not stop it. Its own process
        // group keeps a Ctrl-C meant for `handyctl actions` from reaching it.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        var pid: pid_t = 0
        let rc = withCStrings(argv) { cArgv in
            withCStrings(envStrings) { cEnv in
                posix_spawnp(&pid, program, &fileActions, &attributes, cArgv, cEnv)
            }
        }
        let shown = Self.show(argv)
        guard rc == 0 else {
            logger.error("\(label): cannot run \(shown): \(String(cString: strerror(rc)))")
            return nil
        }
        running.withLockedValue { $0[pid] = "\(label): \(shown) (pid \(pid))" }
        logger.info("\(label): started \(shown) (pid \(pid))")
        return pid
    }

    /// Collects every child that has finished, logging each failure (exit status ≠ 0, or a signal).
    /// - Returns: how many finished.
    @discardableResult
    public func reap() -> Int {
        let pids = running.withLockedValue { Array($0.keys) }
        var finished = 0
        for pid in pids {
            var status: Int32 = 0
            let rc = waitpid(pid, &status, WNOHANG)
            guard rc == pid || (rc < 0 && errno == ECHILD) else { continue }
            let what = running.withLockedValue { $0.removeValue(forKey: pid) } ?? "pid \(pid)"
            finished += 1
            guard rc == pid else { continue }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            let signal = status & 0x7f
            if signal == 0 {
                let code = (status >> 8) & 0xff
                if code == 0 {
                    logger.debug("\(what) exited")
                } else {
                    logger.warning("\(what) failed: exit status \(code)")
                }
            } else if signal != 0x7f {
                logger.warning("\(what) failed: killed by signal \(signal)")
            }
        }
        return finished
    }

    /// Children started and not reaped yet.
    public var runningCount: Int { running.withLockedValue { $0.count } }
    public var runningProcessIDs: [pid_t] { running.withLockedValue { Array($0.keys) } }

    /// Reaps every `interval` until the task is cancelled.
    public func reapPeriodically(every interval: Duration = .milliseconds(200)) async {
        while !Task.isCancelled {
            reap()
            try? await Task.sleep(for: interval)
        }
    }

    /// `["touch", "/tmp/a b"]` → `touch '/tmp/a b'`, for log lines.
    static func show(_ argv: [String]) -> String {
        argv.map { arg in
            let plain =
                !arg.isEmpty
                && arg.unicodeScalars.allSatisfy {
                    CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%".unicodeScalars.contains($0)
                }
            return plain ? arg : "'" + arg.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated C array of copies of `strings`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return body(pointers)
}
