import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the access tests run: as root, or wherever HANDYD_REQUIRE_ROOT=1 says they must (then not
/// being root fails instead of skipping).
enum RootGate {
    static var required: Bool { getenv("HANDYD_REQUIRE_ROOT").map { String(cString: $0) } == "1" }
    static var runs: Bool { getuid() == 0 || required }
}

/// Who may connect: the file system decides (socket 0660, owner root or the handyd user, the
/// group from --group). Checked by connecting as an unprivileged user with and without the group.
/// Needs root (to create a group and switch users). Skipped elsewhere on the host, but the qemu
/// guest runs them as root with HANDYD_REQUIRE_ROOT=1 (scripts/vm/guest/in-guest.sh), where not
/// being root is a failure: so every CI run checks them whoever runs the host suite.
@Suite(.serialized, .enabled(if: RootGate.runs, "needs root to create a group and switch users"))
struct AccessTests {
    @Test func runsAsRootWhereRequired() {
        #expect(getuid() == 0, "HANDYD_REQUIRE_ROOT=1 but uid \(getuid()): the access checks cannot run")
    }

    static let groupName = "handyd-access-test"
    /// nobody/nogroup: an unprivileged identity every Debian system has.
    static let outsiderUID: UInt32 = 65534
    static let outsiderGID: UInt32 = 65534

    @Test func onlyTheGroupMayConnect() throws {
        let gid = try Self.throwawayGroup()
        let daemon = try DaemonProcess(arguments: ["--replay", fixture(twoFingerFixture), "--group", Self.groupName])
        try Self.waitUntilListening(daemon)
        // The directories on the way are world-searchable, so only the socket's own mode decides.
        for dir in [daemon.directory.path, (daemon.socketPath as NSString).deletingLastPathComponent] {
            chmod(dir, 0o755)
        }
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o7777 == 0o660, "mode \(String(info.st_mode & 0o7777, radix: 8))")
        #expect(info.st_gid == gid)
        #expect(info.st_uid == getuid())

        let outsider = try Self.connect(
            as: Self.outsiderUID, gid: Self.outsiderGID, groups: [], socketPath: daemon.socketPath)
        #expect(outsider.status != 0)
        #expect(
            outsider.output.contains("Permission denied"),
            "an outsider is refused by the file system: \(outsider.output)")

        let member = try Self.connect(
            as: Self.outsiderUID, gid: Self.outsiderGID, groups: [gid], socketPath: daemon.socketPath)
        #expect(member.status == 0, "\(member.output)")
        #expect(
            member.output.hasPrefix("replay:EP0430M09.2-fingers-touch-release\t"),
            "a group member reads: \(member.output)")

        // The refusal happened in connect(2): the daemon never saw the outsider.
        #expect(daemon.log.components(separatedBy: "client connected").count - 1 == 1)
        #expect(daemon.log.contains("client.uid=\(Self.outsiderUID)"))
    }

    /// Without --group the socket is 0660 owned by the daemon's own user and group: only they (and
    /// root) connect.
    @Test func withoutAGroupOnlyTheDaemonsOwnGroupMayConnect() throws {
        let daemon = try DaemonProcess(arguments: ["--replay", fixture(twoFingerFixture)])
        try Self.waitUntilListening(daemon)
        for dir in [daemon.directory.path, (daemon.socketPath as NSString).deletingLastPathComponent] {
            chmod(dir, 0o755)
        }
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o660)
        #expect(info.st_gid == getgid())
        let outsider = try Self.connect(
            as: Self.outsiderUID, gid: Self.outsiderGID, groups: [], socketPath: daemon.socketPath)
        #expect(outsider.output.contains("Permission denied"), "\(outsider.output)")
    }

    /// A client can only choose what it receives. Every request that would change the daemon
    /// (stop it, reload it, reach a device, speak for the server) is an unknown type; afterwards
    /// the daemon's counters and the other clients' streams are as before.
    @Test func clientsCannotChangeTheDaemon() throws {
        let daemon = try DaemonProcess(arguments: ["--replay", fixture(twoFingerFixture), "--wait-clients", "2"])
        let watcher = try LineClient(socketPath: daemon.socketPath)
        let prober = try LineClient(socketPath: daemon.socketPath)
        _ = try watcher.readMessage()
        _ = try prober.readMessage()
        let attempts = [
            #"{"type":"shutdown","reason":"bye"}"#, #"{"type":"stop"}"#, #"{"type":"reload"}"#,
            #"{"type":"config","thresholds":{"pinch":0}}"#, #"{"type":"set","maxClients":100000}"#,
            #"{"type":"inject","device":"event0","events":[[3,57,1]]}"#, #"{"type":"grab","device":"event0"}"#,
            #"{"type":"record","path":"/etc/passwd"}"#, #"{"type":"replay","path":"/etc/shadow"}"#,
            #"{"type":"hello","version":"9","protocol":1,"devices":[]}"#, #"{"type":"gesture","gesture":"tap"}"#,
            #"{"type":"device","event":"removed","device":{"id":"event0"}}"#, #"{"type":"error","code":"x"}"#,
            #"{"type":"kick","client":1}"#, #"{"type":"subscribe","client":1,"touches":true,"for":"watcher"}"#,
        ]
        for line in attempts { try prober.send(line + "\n") }
        var replies: [String] = []
        while replies.count < attempts.count - 1 {
            guard let m = try prober.readMessage() else { Issue.record("prober disconnected"); return }
            if case .error(let e) = m { replies.append(e.code) }
        }
        #expect(replies == Array(repeating: "unknown-type", count: attempts.count - 1))
        // The last one was a valid subscribe (unknown fields ignored): it counts for the prober
        // only. The watcher's default subscription (gestures, no touches) is untouched.
        try watcher.send(#"{"type":"subscribe"}"# + "\n")
        var watcherMessages: [ServerMessage] = []
        try watcher.send(#"{"type":"status"}"# + "\n")
        while let m = try watcher.readMessage() {
            if case .status(let s) = m {
                #expect(s.clients == 2)
                #expect(s.drops == 0)
                break
            }
            watcherMessages.append(m)
        }
        // The replay ran (both subscribed), polled by status until it counts every frame; the
        // watcher got gestures and never touches.
        let deadline = Date().addingTimeInterval(20)
        var frames: UInt64 = 0
        while frames < UInt64(twoFingerFrameCount) && Date() < deadline {
            try watcher.send(#"{"type":"status"}"# + "\n")
            while let m = try watcher.readMessage() {
                if case .status(let s) = m { frames = s.frames; break }
                watcherMessages.append(m)
            }
            if frames < UInt64(twoFingerFrameCount) { usleep(20_000) }
        }
        #expect(frames == UInt64(twoFingerFrameCount))
        #expect(!watcherMessages.contains { if case .touches = $0 { true } else { false } })
        #expect(watcherMessages.contains { if case .gesture = $0 { true } else { false } })
        #expect(daemon.process.isRunning)
        #expect(Self.reviewedClientRequests.count == 2)
    }

    /// Every request a client can make, with what it can affect. A new case breaks this switch
    /// on purpose: the threat model in docs/RELIABILITY.md must be reviewed with it.
    static func effect(of message: ClientMessage) -> String {
        switch message {
        case .subscribe: "the sender's own filters"
        case .status: "nothing: read-only counters"
        }
    }
    static let reviewedClientRequests = [effect(of: .subscribe(SubscribeRequest())), effect(of: .status)]

    // MARK: helpers

    /// The socket file appears at bind(2); its mode and group are set just after, then "listening"
    /// is logged. (In between it has the umask's mode, 0700 under systemd's UMask=0077: closed,
    /// never open.)
    static func waitUntilListening(_ daemon: DaemonProcess) throws {
        let deadline = Date().addingTimeInterval(10)
        while !daemon.log.contains("listening") {
            guard Date() < deadline else { throw HarnessError("no \"listening\" in the log:\n\(daemon.log)") }
            usleep(10_000)
        }
    }

    /// The gid of a group no test identity belongs to, created if missing.
    static func throwawayGroup() throws -> gid_t {
        if let entry = getgrnam(groupName) { return entry.pointee.gr_gid }
        let add = Process()
        add.executableURL = URL(fileURLWithPath: "/usr/sbin/groupadd")
        add.arguments = ["--system", groupName]
        _ = try runToCompletion(add)
        guard let entry = getgrnam(groupName) else { throw HarnessError("groupadd \(groupName) failed") }
        return entry.pointee.gr_gid
    }

    /// Runs `handyctl devices` as another user (setpriv), returning its exit status and output.
    static func connect(as uid: UInt32, gid: UInt32, groups: [gid_t], socketPath: String) throws -> (
        status: Int32, output: String
    ) {
        let handyctl = handyctlBinary
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let groupArguments =
            groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
        process.arguments =
            ["--reuid=\(uid)", "--regid=\(gid)"] + groupArguments + [handyctl, "devices", "--socket", socketPath]
        let run = try runToCompletion(process, mergingErrors: true)
        return (run.status, run.stdoutText)
    }
}
