import HandyProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A subscriber of handyd: connects to its socket, subscribes, and delivers what the daemon sends
/// as typed ``ServerMessage``s. Reconnects with backoff when the daemon restarts.
///
/// ```swift
/// let client = HandyClient(subscription: SubscribeRequest(gestures: ["pinch"]))
/// for try await message in client.messages() {
///     if case .gesture(let g) = message { print(g.phase, g.scale ?? 1, g.hand ?? .unknown) }
/// }
/// ```
public struct HandyClient: Sendable {
    /// How long to wait between connection attempts: `initialDelaySeconds`, doubled after each
    /// failure up to `maximumDelaySeconds`, back to the start after a successful connection.
    public struct Backoff: Sendable, Hashable {
        public var initialDelaySeconds: Double
        public var maximumDelaySeconds: Double
        public init(initialDelaySeconds: Double = 0.1, maximumDelaySeconds: Double = 5) {
            self.initialDelaySeconds = initialDelaySeconds
            self.maximumDelaySeconds = maximumDelaySeconds
        }
    }

    /// handyd's default socket.
    public static let defaultSocketPath = "/run/handyd/handyd.sock"

    public var socketPath: String
    /// Sent after every (re)connection; nil keeps the daemon's default (all gestures, no touches).
    public var subscription: SubscribeRequest?
    /// Ask for `status` after every (re)connection (after the subscription): its reply comes in
    /// the stream in order with the events.
    public var asksStatus = false
    /// nil: no reconnection; the stream ends when the connection does, and a failed connect throws.
    public var reconnect: Backoff?
    /// Messages received and not yet taken by the consumer at which the socket's reading stops
    /// (it goes on at half of it): see ``messages()``.
    public var maximumBufferedMessages: Int
    /// Called after each failed connection attempt while reconnecting (a command-line tool says
    /// it is waiting for the daemon, instead of waiting in silence). Not called when
    /// ``reconnect`` is nil: the failure is thrown then.
    public var onConnectionFailure: (@Sendable (ConnectionError) -> Void)?

    /// - Parameters:
    ///   - socketPath: the daemon's socket.
    ///   - subscription: what to receive (see docs/PROTOCOL.md).
    ///   - reconnect: backoff for reconnecting, or nil to stop at the first disconnection.
    ///   - maximumBufferedMessages: how far the consumer may fall behind before the socket is
    ///     left unread (at least 2).
    public init(
        socketPath: String = defaultSocketPath, subscription: SubscribeRequest? = nil, reconnect: Backoff? = Backoff(),
        maximumBufferedMessages: Int = 4096
    ) {
        self.socketPath = socketPath
        self.subscription = subscription
        self.reconnect = reconnect
        self.maximumBufferedMessages = max(2, maximumBufferedMessages)
    }

    /// The daemon's messages, starting with `hello` (again after each reconnection). Ends when the
    /// consumer stops iterating; with ``reconnect`` nil also when the connection closes.
    ///
    /// A consumer that falls behind (``maximumBufferedMessages`` received and not yet taken)
    /// stops the reading of the socket until it has caught up to half of that, so what it has
    /// not read waits in the daemon, whose bound for slow clients then applies (it drops
    /// the connection with `client-too-slow`; with ``reconnect``, a new one follows), instead
    /// of in this process's memory without a bound.
    public func messages() -> Messages {
        let (stream, continuation) = AsyncThrowingStream<ServerMessage, any Error>.makeStream()
        let flow = ReadFlow(highWatermark: max(2, maximumBufferedMessages))
        // NIO's lock (a pthread mutex), not Synchronization's Mutex: ThreadSanitizer cannot see the
        // latter on Linux and reported this hand-over as a race (docs/RELIABILITY.md).
        let current = NIOLockedValueBox<(any Channel)?>(nil)
        let task = Task { [self] in
            var delay = reconnect?.initialDelaySeconds ?? 0
            while !Task.isCancelled {
                do {
                    let channel = try await connect(continuation, flow: flow)
                    current.withLockedValue { $0 = channel }
                    if Task.isCancelled { try? await channel.close() }
                    delay = reconnect?.initialDelaySeconds ?? 0
                    if asksStatus {
                        try await channel.writeAndFlush(ByteBuffer(bytes: JSONLines.encode(.status)))
                    }
                    if let subscription {
                        try await channel.writeAndFlush(ByteBuffer(bytes: JSONLines.encode(.subscribe(subscription))))
                    }
                    try? await channel.closeFuture.get()
                    current.withLockedValue { $0 = nil }
                } catch {
                    guard reconnect != nil else {
                        continuation.finish(throwing: error)
                        return
                    }
                    if let error = error as? ConnectionError { onConnectionFailure?(error) }
                }
                guard let backoff = reconnect else { break }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(max(delay * 2, backoff.initialDelaySeconds), backoff.maximumDelaySeconds)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            current.withLockedValue { $0?.close(promise: nil) }
        }
        return Messages(stream: stream, flow: flow)
    }

    /// What ``messages()`` returns: the daemon's messages, each counted as taken when the
    /// consumer's loop takes it (so the socket's reading can follow the consumer).
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = ServerMessage

        let stream: AsyncThrowingStream<ServerMessage, any Error>
        let flow: ReadFlow

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator
            let flow: ReadFlow

            public mutating func next() async throws -> ServerMessage? {
                let message = try await base.next()
                if message != nil { flow.taken() }
                return message
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), flow: flow)
        }
    }

    /// Connects once and returns the daemon's `hello` (its version and devices).
    public func hello() async throws -> HelloMessage {
        try await greeting(askingStatus: false).hello
    }

    /// The daemon's `hello` and its reply to `status` (one connection, no subscription).
    public func helloAndStatus() async throws -> (HelloMessage, StatusMessage) {
        let greeting = try await greeting(askingStatus: true)
        guard let status = greeting.status else { throw HandyClientError.closedBeforeHello }
        return (greeting.hello, status)
    }

    /// One connection without reconnecting or subscribing: the hello, and with `askingStatus` the
    /// reply to `status` too.
    private func greeting(askingStatus: Bool) async throws -> (hello: HelloMessage, status: StatusMessage?) {
        var once = self
        once.reconnect = nil
        once.subscription = nil
        once.asksStatus = askingStatus
        var hello: HelloMessage?
        for try await message in once.messages() {
            switch message {
            case .hello(let h):
                if !askingStatus { return (h, nil) }
                hello = h
            case .status(let s):
                if let hello { return (hello, s) }
            default:
                break
            }
        }
        throw HandyClientError.closedBeforeHello
    }

    private func connect(_ continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation, flow: ReadFlow)
        async throws -> any Channel
    {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        flow.attach(channel)
                        try channel.pipeline.syncOperations.addHandler(
                            MessageReader(continuation: continuation, flow: flow))
                    }
                }
                .connect(unixDomainSocketPath: socketPath)
                .get()
        } catch let error as IOError {
            throw ConnectionError(socketPath: socketPath, errno: error.errnoCode)
        } catch SocketAddressError.unixDomainSocketPathTooLong {
            throw ConnectionError(socketPath: socketPath, errno: ENAMETOOLONG)
        }
    }

    /// The daemon's socket could not be connected to: says where, why, and what to check.
    public struct ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
        public var socketPath: String
        /// The connect(2) errno (ENOENT: no socket there; ECONNREFUSED: nobody listening;
        /// EACCES: not allowed; ENAMETOOLONG: longer than a Unix socket path may be).
        public var errno: Int32

        public var description: String {
            let reason: String
            switch errno {
            case ENOENT, ECONNREFUSED: reason = "is handyd running? (systemctl status handyd.socket handyd)"
            case EACCES, EPERM:
                reason =
                    "not allowed: the socket is mode 0660, for its owner and group (handyd's under systemd; docs/PROTOCOL.md)"
            case ENAMETOOLONG: reason = "a Unix socket path is at most 107 bytes"
            default: reason = "see handyd's journal (journalctl -u handyd)"
            }
            return "cannot connect to handyd at \(socketPath): \(String(cString: strerror(errno))); \(reason)"
        }
    }
}

/// Failures of ``HandyClient`` beyond the socket's own errors.
public enum HandyClientError: Error, Sendable {
    /// The daemon closed the connection before sending `hello`.
    case closedBeforeHello
}

/// Stops and restarts the reading of the connection's socket as the consumer falls behind and
/// catches up: messages yielded (on the event loop) against messages taken (by the consumer's
/// task). The decision is applied on the event loop from the state at that moment, so a pause
/// and a resume that cross cannot leave reading on while the consumer is behind.
final class ReadFlow: Sendable {
    let highWatermark: Int
    let lowWatermark: Int

    init(highWatermark: Int) {
        self.highWatermark = highWatermark
        lowWatermark = highWatermark / 2
    }

    private struct State {
        var outstanding = 0
        var paused = false
        var channel: (any Channel)?
    }
    private let state = NIOLockedValueBox(State())

    /// A new connection (on its event loop, before any read): paused at once if the consumer is
    /// still behind with what the previous one delivered.
    func attach(_ channel: any Channel) {
        state.withLockedValue { s in
            s.channel = channel
            s.paused = s.outstanding >= highWatermark
        }
        apply(on: channel)
    }

    /// One message yielded to the consumer (on the event loop).
    func yielded(on channel: any Channel) {
        let pause = state.withLockedValue { s in
            s.outstanding += 1
            guard !s.paused, s.outstanding >= highWatermark else { return false }
            s.paused = true
            return true
        }
        if pause { apply(on: channel) }
    }

    /// One message taken by the consumer (on its task).
    func taken() {
        let resume: (any Channel)? = state.withLockedValue { s in
            s.outstanding -= 1
            guard s.paused, s.outstanding <= lowWatermark else { return nil }
            s.paused = false
            return s.channel
        }
        guard let resume else { return }
        resume.eventLoop.execute { self.apply(on: resume) }
    }

    /// Sets the channel's autoRead from the state now (on the channel's event loop).
    private func apply(on channel: any Channel) {
        let paused = state.withLockedValue { $0.paused }
        // Turning autoRead on again also asks for a read.
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: !paused)
    }
}

/// Splits the daemon's bytes into lines and yields each decoded message.
final class MessageReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation
    private let flow: ReadFlow
    private let splitter = NIOLockedValueBox(LineSplitter())

    init(continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation, flow: ReadFlow) {
        self.continuation = continuation
        self.flow = flow
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let lines: [[UInt8]]
        do {
            lines = try splitter.withLockedValue { try $0.append(buffer.readableBytesView) }
        } catch {
            // A line over the protocol's limit: the stream ends with that error (said, not a
            // silent close and reconnect).
            continuation.finish(throwing: error)
            context.close(promise: nil)
            return
        }
        for line in lines {
            // A newer daemon may send message types, or values of a field (a new gesture kind),
            // that this client does not know: such a line is skipped, the stream goes on.
            guard let message = try? JSONLines.decodeServerMessage(line) else { continue }
            if case .enqueued = continuation.yield(message) { flow.yielded(on: context.channel) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
