import HandyProtocol
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

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
    /// nil: no reconnection; the stream ends when the connection does, and a failed connect throws.
    public var reconnect: Backoff?

    /// - Parameters:
    ///   - socketPath: the daemon's socket.
    ///   - subscription: what to receive (see docs/PROTOCOL.md).
    ///   - reconnect: backoff for reconnecting, or nil to stop at the first disconnection.
    public init(socketPath: String = defaultSocketPath, subscription: SubscribeRequest? = nil, reconnect: Backoff? = Backoff()) {
        self.socketPath = socketPath
        self.subscription = subscription
        self.reconnect = reconnect
    }

    /// The daemon's messages, starting with `hello` (again after each reconnection). Ends when the
    /// consumer stops iterating; with ``reconnect`` nil also when the connection closes.
    public func messages() -> AsyncThrowingStream<ServerMessage, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ServerMessage, any Error>.makeStream()
        // NIO's lock (a pthread mutex), not Synchronization's Mutex: ThreadSanitizer cannot see the
        // latter on Linux and reported this hand-over as a race (docs/RELIABILITY.md).
        let current = NIOLockedValueBox<(any Channel)?>(nil)
        let task = Task { [self] in
            var delay = reconnect?.initialDelaySeconds ?? 0
            while !Task.isCancelled {
                do {
                    let channel = try await connect(continuation)
                    current.withLockedValue { $0 = channel }
                    if Task.isCancelled { try? await channel.close() }
                    delay = reconnect?.initialDelaySeconds ?? 0
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
        return stream
    }

    /// Connects once and returns the daemon's `hello` (its version and devices).
    public func hello() async throws -> HelloMessage {
        var once = self
        once.reconnect = nil
        once.subscription = nil
        for try await message in once.messages() {
            if case .hello(let hello) = message { return hello }
        }
        throw HandyClientError.closedBeforeHello
    }

    private func connect(_ continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MessageReader(continuation: continuation))
                }
            }
            .connect(unixDomainSocketPath: socketPath)
            .get()
    }
}

/// Failures of ``HandyClient`` beyond the socket's own errors.
public enum HandyClientError: Error, Sendable {
    /// The daemon closed the connection before sending `hello`.
    case closedBeforeHello
}

/// Splits the daemon's bytes into lines and yields each decoded message.
final class MessageReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation
    private let splitter = NIOLockedValueBox(LineSplitter())

    init(continuation: AsyncThrowingStream<ServerMessage, any Error>.Continuation) {
        self.continuation = continuation
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
            continuation.yield(message)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
