import CLibsystemd
import HandyProtocol
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Where the listening socket comes from.
public enum ListenAddress: Hashable, Sendable {
    /// Bind a new socket at this path (parent directory created, a stale socket removed).
    case path(String, group: String?)
    /// A socket systemd passed (socket activation).
    case inherited(fileDescriptor: Int32)

    /// The socket systemd passed, if it started us that way (LISTEN_FDS), else nil.
    public static func fromSystemd() -> ListenAddress? {
        // unset_environment=1: children must not believe the fds are theirs.
        let count = sd_listen_fds(1)
        guard count >= 1 else { return nil }
        return .inherited(fileDescriptor: SD_LISTEN_FDS_START)
    }
}

/// The Unix socket: bound at a path (or taken from systemd), serving every client through the
/// ``Broadcaster`` of the event loop NIO places it on, from the moment
/// ``start(address:broadcasters:group:logger:)`` returns until ``stop()``, which says goodbye to
/// every client.
///
/// Both block the calling thread (never call them on an event loop): the daemon's main thread
/// starts the listeners after the initial device scan and stops them on SIGTERM.
public final class UnixSocketListener: Sendable {
    let server: any Channel
    /// The socket file this listener created, removed on stop (nil under socket activation).
    let boundPath: String?
    let broadcasters: BroadcasterGroup
    let logger: Logger

    private init(server: any Channel, boundPath: String?, broadcasters: BroadcasterGroup, logger: Logger) {
        self.server = server
        self.boundPath = boundPath
        self.broadcasters = broadcasters
        self.logger = logger
    }

    /// Binds (or, under socket activation, accepts on) `address`. Errors name the path and the
    /// errno in one line; a socket whose permissions cannot be set is closed and removed. `group`:
    /// the loops of `broadcasters`, over which the clients are spread.
    public static func start(
        address: ListenAddress, broadcasters: BroadcasterGroup, group: any EventLoopGroup,
        logger: Logger
    ) throws -> UnixSocketListener {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            // A client's half-close (SHUT_WR) is its last request, not its departure: see
            // ClientConnection.userInboundEventTriggered.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ClientConnection(broadcaster: broadcasters.broadcaster(on: channel.eventLoop), logger: logger))
                }
            }

        switch address {
        case .inherited(let fd):
            let server = try bootstrap.withBoundSocket(fd).wait()
            logger.info("listening on socket from systemd", metadata: ["socket.fd": "\(fd)"])
            return UnixSocketListener(server: server, boundPath: nil, broadcasters: broadcasters, logger: logger)
        case .path(let path, let groupName):
            try prepare(path: path)
            let server: any Channel
            do {
                server = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
            } catch {
                throw DaemonError("cannot listen on \(path): \(reason(error))")
            }
            do { try setPermissions(path: path, groupName: groupName) } catch {
                // Never leave a socket with the wrong owner behind.
                try? server.close().wait()
                unlink(path)
                throw error
            }
            logger.info("listening", metadata: ["socket.path": "\(path)"])
            return UnixSocketListener(server: server, boundPath: path, broadcasters: broadcasters, logger: logger)
        }
    }

    /// Stops accepting, sends every client (WebSocket ones too) `shutdown`, waits until each
    /// connection is closed, and removes the socket file it created.
    public func stop() {
        logger.info("stopping: sending shutdown to clients")
        try? server.close().wait()
        broadcasters.shutdown(reason: "daemon stopping")
        if let boundPath { unlink(boundPath) }
    }

    /// Creates the socket's directory (0755) if missing; refuses a path whose existing file is not a socket.
    /// Errors name the path and the errno, in one line an operator can act on.
    static func prepare(path: String) throws {
        // sockaddr_un's sun_path: 108 bytes with the terminating NUL.
        if path.utf8.count > 107 {
            throw DaemonError(
                "cannot create socket \(path): \(path.utf8.count) bytes, a Unix socket path has at most 107: \(errnoText(ENAMETOOLONG))"
            )
        }
        try makeDirectories(for: path)
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw DaemonError("\(path) exists and is not a socket; not removing it")
        }
        // A socket someone still accepts on belongs to a running handyd: never steal it. Only a
        // stale one (connection refused) is removed, by the bind below.
        if isListening(path: path) {
            throw DaemonError("another handyd is already listening on \(path)")
        }
    }

    /// `mkdir -p` of the socket's parent directory, mode 0755.
    static func makeDirectories(for path: String) throws {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast().map(String.init)
        var current = path.hasPrefix("/") ? "" : "."
        components.reverse()
        while let next = components.popLast() {
            current += "/" + next
            var info = stat()
            if stat(current, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw DaemonError("cannot create socket \(path): \(current): \(errnoText(ENOTDIR))")
                }
                continue
            }
            let statError = errno
            guard statError == ENOENT else {
                throw DaemonError("cannot create socket \(path): \(current): \(errnoText(statError))")
            }
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw DaemonError("cannot create socket \(path): mkdir \(current): \(errnoText(errno))")
            }
        }
    }

    /// An error from binding, as one line: NIO's IOError carries the errno.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return errnoText(io.errnoCode) }
        return "\(error)"
    }

    /// Whether connecting to the Unix socket at `path` succeeds.
    static func isListening(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Mode 0660 and, when given, the group (so members of e.g. `input` may connect).
    static func setPermissions(path: String, groupName: String?) throws {
        guard chmod(path, 0o660) == 0 else { throw DaemonError("chmod \(path): \(String(cString: strerror(errno)))") }
        guard let groupName else { return }
        guard let entry = getgrnam(groupName) else { throw DaemonError("unknown group \(groupName)") }
        guard chown(path, uid_t.max, entry.pointee.gr_gid) == 0 else {
            throw DaemonError("chgrp \(groupName) \(path): \(String(cString: strerror(errno)))")
        }
    }
}
