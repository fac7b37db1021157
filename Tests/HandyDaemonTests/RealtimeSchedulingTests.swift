import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handyd --realtime-priority N`: every thread of the daemon under SCHED_RR N when the system
/// allows it; when it does not, a notice and normal scheduling, and the daemon serves all the same.
@Suite(.serialized)
struct RealtimeSchedulingTests {
    /// (policy, real-time priority) of the daemon's own threads, from /proc/PID/task/TID/stat
    /// (fields 41 and 40; SCHED_RR is 2): the main thread, the input thread and NIO's event loop.
    /// Others are left out: a sanitizer's runtime starts its own thread before `main`.
    static func scheduling(of pid: Int32) throws -> [String: (policy: Int, priority: Int)] {
        var threads: [String: (policy: Int, priority: Int)] = [:]
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let name = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let role =
                tid == "\(pid)"
                ? "main" : name == "handyd-input" ? "input" : name.hasPrefix("NIO-ELT-") ? "event loop" : nil
            guard let role else { continue }
            let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8)
            // After the command name in parentheses: field 3 onwards.
            let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
            threads[role] = (Int(fields[41 - 3]) ?? -1, Int(fields[40 - 3]) ?? -1)
        }
        return threads
    }

    /// The daemon serves a replay: hello names its device, and a subscriber gets gesture lines.
    static func expectServes(_ daemon: DaemonProcess) throws {
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello(let hello) = try client.readMessage() else {
            Issue.record("no hello: \(daemon.stateForFailure)"); return
        }
        #expect(hello.devices.count == 1)
        try client.send(#"{"type":"subscribe"}"# + "\n")
        var gestures = 0
        while gestures < 3, let message = try client.readMessage(timeoutSeconds: 10) {
            if case .gesture = message { gestures += 1 }
        }
        #expect(gestures == 3, "\(daemon.stateForFailure)")
    }

    static let arguments = ["--replay", fixture(twoFingerFixture), "--loop", "--realtime-priority", "7"]

    @Test func grantedEveryThreadRunsRoundRobin() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(14), &limit)  // RLIMIT_RTPRIO (a macro Swift does not import)
        // Root has CAP_SYS_NICE (CI runs as root); anyone else needs RLIMIT_RTPRIO >= 7.
        let allowed = geteuid() == 0 || limit.rlim_cur >= 7
        let daemon = try DaemonProcess(arguments: Self.arguments)
        try Self.expectServes(daemon)
        let threads = try Self.scheduling(of: daemon.process.processIdentifier)
        #expect(threads.count == 3, "main, input thread, event loop: \(threads)")
        if allowed {
            #expect(threads.values.allSatisfy { $0.policy == 2 && $0.priority == 7 }, "\(threads)")
            #expect(daemon.log.contains("real-time scheduling") && !daemon.log.contains("refused"), "\(daemon.log)")
        } else {
            #expect(threads.values.allSatisfy { $0.policy == 0 }, "\(threads)")
            #expect(daemon.log.contains("real-time scheduling refused"), "\(daemon.log)")
        }
    }

    /// Without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 (a container, a unit without LimitRTPRIO=):
    /// refused, logged once, normal scheduling, and the replay is served as usual.
    @Test func refusedTheDaemonRunsAtNormalPriority() throws {
        let dropCapability =
            geteuid() == 0
            ? ["/usr/bin/setpriv", "--bounding-set=-sys_nice", "--inh-caps=-sys_nice", "--"] : []
        let daemon = try DaemonProcess(
            arguments: Self.arguments, launcher: ["/usr/bin/prlimit", "--rtprio=0:0"] + dropCapability)
        try Self.expectServes(daemon)
        let threads = try Self.scheduling(of: daemon.process.processIdentifier)
        #expect(threads.count == 3 && threads.values.allSatisfy { $0.policy == 0 && $0.priority == 0 }, "\(threads)")
        #expect(daemon.log.components(separatedBy: "real-time scheduling refused").count == 2, "\(daemon.log)")
        #expect(daemon.log.contains("Operation not permitted"), "\(daemon.log)")
    }

    @Test func aPriorityOutsideTheRangeIsAUsageError() throws {
        for value in ["0", "50", "-1", "x"] { try expectUsageError(["--realtime-priority", value]) }
    }
}
