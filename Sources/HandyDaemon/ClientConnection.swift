import HandyProtocol
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Bounds that keep one client from costing the daemon more than its share.
public struct ServerLimits: Hashable, Sendable {
    /// Connections served at once; one more gets `too-many-clients` and is closed.
    public var maximumClients: Int
    /// Bytes written to a client but not yet taken by its socket; past this the client is sent
    /// `client-too-slow` and disconnected.
    public var maximumQueuedBytes: Int

    public static let defaultMaximumClients = 64
    public static let defaultMaximumQueuedBytes = 1 << 20

    public init(maximumClients: Int = defaultMaximumClients, maximumQueuedBytes: Int = defaultMaximumQueuedBytes) {
        self.maximumClients = maximumClients
        self.maximumQueuedBytes = maximumQueuedBytes
    }
}

/// One subscriber's connection: reads its requests line by line, holds its subscription, and
/// writes what the ``Broadcaster`` gives it while watching its backlog.
///
/// `@unchecked Sendable`: a channel handler lives on its channel's event loop, which is the
/// server's one loop, the ``Broadcaster``'s too; the broadcaster keeps a reference to call it there.
final class ClientConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let broadcaster: Broadcaster
    private var logger: Logger
    private var context: ChannelHandlerContext?
    private var splitter = LineSplitter()
    private(set) var subscription = Subscription()
    private(set) var hasSubscribed = false
    /// Lines from this client that were not a valid message (only the first is logged at info).
    private var invalidMessages = 0
    /// Set once the connection is being closed; nothing more is queued.
    private var closing = false
    private var registered = false
    /// False for WebSocket clients unless `--websocket-touches`: touch positions on an on-screen
    /// PIN pad give the PIN away, so a web page gets gestures only unless the operator says so.
    private let mayReceiveTouches: Bool
    /// For a WebSocket client, how many of them may be served at once (``WebSocketOptions``); nil
    /// for a client of the Unix socket.
    let webLimit: Int?

    init(broadcaster: Broadcaster, logger: Logger, mayReceiveTouches: Bool = true, webLimit: Int? = nil) {
        self.broadcaster = broadcaster
        self.webLimit = webLimit
        var logger = logger
        if broadcaster.groupSize > 1 { logger[metadataKey: "client.eventLoop"] = "\(broadcaster.index)" }
        self.logger = logger
        self.mayReceiveTouches = mayReceiveTouches
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Added to a connection that is already up (a WebSocket after its HTTP upgrade):
        // channelActive has been and gone, so start here.
        if context.channel.isActive { start(context: context) }
    }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private var started = false

    /// Registers with the broadcaster and sends hello (or refuses: too many clients). Once.
    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        logPeer(context.channel)
        guard broadcaster.register(self) else {
            // Refused for its kind's limit when that is the one reached: a web client may find the
            // web places taken while the Unix socket still has room.
            let (limit, kind) = broadcaster.refusal(for: self)
            logger.notice("refusing client: too many \(kind)clients", metadata: ["clients.max": "\(limit)"])
            let error = ErrorMessage(
                code: ServerErrorCode.tooManyClients.rawValue,
                message: "handyd serves at most \(limit) \(kind)clients")
            closeAfter(broadcaster.encode(.error(error)), context: context)
            return
        }
        registered = true
        // The channel turns unwritable once more than the bound is queued: `dropIfBacklogged`
        // reads that flag on every batch and asks for the exact count only then.
        let bound = broadcaster.limits.maximumQueuedBytes
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark,
            value: .init(low: max(1, bound / 2), high: max(1, bound)))
        context.writeAndFlush(wrapOutboundOut(broadcaster.encode(.hello(broadcaster.hello))), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        if registered { broadcaster.unregister(self) }
        registered = false
        logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        let lines: [[UInt8]]
        do {
            lines = try splitter.append(buffer.readableBytesView)
        } catch {
            logger.notice("client line too long, closing", metadata: ["error": "\(error)"])
            closeAfter(
                broadcaster.encode(.error(ErrorMessage(code: error.code.rawValue, message: error.message))),
                context: context)
            return
        }
        for line in lines where !closing {
            handleLine(line, context: context)
        }
        context.flush()
        // Replies count against the same bound as events: a client that keeps asking for status
        // and never reads must not grow the daemon while no events flow to trigger the check.
        dropIfBacklogged()
    }

    /// The client shut down its sending side (`shutdown(SHUT_WR)`, `nc -N`, socat at the end of
    /// its input). That means "no more requests", not "stop sending": the connection stays open
    /// and keeps receiving events until the client closes it. A last line without `\n` is taken
    /// as a request, as `printf '{"type":"subscribe"}' | nc -U …` would expect.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ChannelEvent, case .inputClosed = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        logger.debug("client closed its sending side; still sending to it")
        guard !closing else { return }
        let last = splitter.pending
        if !last.isEmpty { handleLine(last, context: context) }
        context.flush()
        dropIfBacklogged()
    }

    private func handleLine(_ line: [UInt8], context: ChannelHandlerContext) {
        // Blank lines (a stray Enter in socat) are not messages.
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        do {
            switch try JSONLines.decodeClientMessage(line) {
            case .subscribe(var request):
                if request.touches == true && !mayReceiveTouches {
                    request.touches = nil
                    let error = ErrorMessage(
                        code: ServerErrorCode.touchesNotAllowed.rawValue,
                        message:
                            "raw touches are not sent to WebSocket clients unless handyd runs with --websocket-touches; the rest of the subscription applies"
                    )
                    context.write(wrapOutboundOut(broadcaster.encode(.error(error))), promise: nil)
                }
                if let form = request.form, WireForm(rawValue: form) == nil {
                    let known = WireForm.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    let error = ErrorMessage(
                        code: ServerErrorCode.unknownForm.rawValue,
                        message:
                            "unknown form \"\(form)\" (this daemon knows \(known)); the rest of the subscription applies"
                    )
                    context.write(wrapOutboundOut(broadcaster.encode(.error(error))), promise: nil)
                }
                subscription.apply(request)
                broadcaster.subscriptionsChanged()
                logger.debug("subscribed", metadata: ["subscription": "\(subscription)"])
                if !hasSubscribed {
                    hasSubscribed = true
                    broadcaster.clientSubscribed(self)
                }
            case .status:
                context.write(wrapOutboundOut(broadcaster.encode(.status(broadcaster.status))), promise: nil)
            }
        } catch {
            // The first at info, the rest at debug: a client sending garbage in a loop must not
            // fill the journal (and have journald's rate limit drop the daemon's own lines).
            invalidMessages += 1
            logger.log(
                level: invalidMessages == 1 ? .info : .debug, "invalid client message",
                metadata: ["error": "\(error)", "client.invalid": "\(invalidMessages)"])
            context.write(
                wrapOutboundOut(
                    broadcaster.encode(.error(ErrorMessage(code: error.code.rawValue, message: error.message)))),
                promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: called by the Broadcaster

    /// Writes a batch's bytes and flushes them: one pass down the pipeline for both.
    func send(_ bytes: ByteBuffer) {
        guard !closing, let context else { return }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    /// Drops the client if the bytes its socket has not taken pass the bound.
    func dropIfBacklogged() {
        // Writable: no more than the bound (the high water mark) is queued. Asking the channel for
        // the count is an option lookup with dynamic casts, ~2,000 instructions, on every batch.
        guard !closing, let context, !context.channel.isWritable else { return }
        let queued = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        guard queued > broadcaster.limits.maximumQueuedBytes else { return }
        logger.notice("client too slow, disconnecting", metadata: ["client.queuedBytes": "\(queued)"])
        broadcaster.clientDropped()
        // It no longer counts as a client, even while its last bytes drain.
        if registered { broadcaster.unregister(self) }
        registered = false
        let error = ErrorMessage(
            code: ServerErrorCode.clientTooSlow.rawValue,
            message: "more than \(broadcaster.limits.maximumQueuedBytes) bytes unread; disconnected")
        closeAfter(broadcaster.encode(.error(error)), context: context)
    }

    /// Sends the final line and closes; the future completes once the channel is closed.
    func sendFinal(_ line: ByteBuffer) -> EventLoopFuture<Void> {
        guard let context else { return broadcaster.eventLoop.makeSucceededVoidFuture() }
        if !closing { closeAfter(line, context: context) }
        return context.channel.closeFuture
    }

    /// Writes `line` (behind whatever is queued), then closes the connection.
    private func closeAfter(_ line: ByteBuffer, context: ChannelHandlerContext) {
        closing = true
        let channel = context.channel
        // A client that does not read would keep the write pending for ever: close anyway after a
        // short grace period.
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(line)).whenComplete { _ in
            timeout.cancel()
            channel.close(promise: nil)
        }
    }

    private func logPeer(_ channel: any Channel) {
        if let address = channel.remoteAddress, address.protocol != .unix {
            // TCP (the WebSocket endpoint): no peer credentials, the address says who.
            logger[metadataKey: "client.address"] = "\(address)"
            logger.info("client connected")
            return
        }
        guard let provider = channel as? any SocketOptionProvider else { return }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(PeerCredentials.optionName))
        credentials.whenComplete { [self] (result: Result<PeerCredentials, any Error>) in
            switch result {
            case .success(let cred):
                logger[metadataKey: "client.pid"] = "\(cred.pid)"
                logger[metadataKey: "client.uid"] = "\(cred.uid)"
                logger.info("client connected")
            case .failure(let error):
                logger.info("client connected (no peer credentials)", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// `struct ucred` (SO_PEERCRED), spelled out because glibc declares it only under _GNU_SOURCE.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    /// SO_PEERCRED from <asm-generic/socket.h>.
    static let optionName: Int32 = 17
}
