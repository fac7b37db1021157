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
/// The input thread only writes to its ``outlet`` (locked) and calls ``scheduleDrain()``.
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
    /// A Unix-socket client's bytes go through its outlet, written by whichever thread has them
    /// while its socket has room (``ClientOutlet``); nil for a WebSocket client, whose bytes the
    /// event loop frames and writes. Set once, in ``start(context:)``, before it is registered.
    private(set) var outlet: ClientOutlet?
    /// Writes given to the channel from the outlet and not completed yet: at 0, with nothing
    /// pending, the outlet is handed back to direct writes.
    private var channelWritesOutstanding = 0

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
    func handlerRemoved(context: ChannelHandlerContext) {
        outlet?.close()
        self.context = nil
    }

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

    /// A Unix-socket client's outlet, made when it first subscribes (before the groups the input
    /// thread reads are made again): a client that never subscribes (a status poller, a storm of
    /// connections) costs the input thread nothing. It starts queued, behind what the channel
    /// holds. Only with one event loop (see ``ClientOutlet`` on its descriptor).
    private func openOutlet(context: ChannelHandlerContext) -> Bool {
        guard outlet == nil, webLimit == nil, broadcaster.groupSize == 1 else { return false }
        let bound = broadcaster.limits.maximumQueuedBytes
        outlet =
            (try? context.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
                ClientOutlet(socket: $0, maximumPendingBytes: bound)
            }) ?? nil
        return outlet != nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        outlet?.close()
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
                    reply(broadcaster.encode(.error(error)), context: context)
                }
                if let form = request.form, WireForm(rawValue: form) == nil {
                    let known = WireForm.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    let error = ErrorMessage(
                        code: ServerErrorCode.unknownForm.rawValue,
                        message:
                            "unknown form \"\(form)\" (this daemon knows \(known)); the rest of the subscription applies"
                    )
                    reply(broadcaster.encode(.error(error)), context: context)
                }
                subscription.apply(request)
                // Set before the groups are made: the input thread reads it from their snapshot.
                let first = !hasSubscribed
                hasSubscribed = true
                let opened = openOutlet(context: context)
                broadcaster.subscriptionsChanged()
                // The drain it was made owing: hands it to direct writes once the channel is empty.
                if opened { drainOutlet() }
                logger.debug("subscribed", metadata: ["subscription": "\(subscription)"])
                if first { broadcaster.clientSubscribed(self) }
            case .status:
                if let outlet {
                    // Counted and written with no batch published in between (the input thread
                    // writes to outlets); the drain, which may drop the client, after.
                    if broadcaster.writeStatus({ outlet.write($0) }) { drainOutlet() }
                } else {
                    // Without an outlet every batch is published on this event loop: nothing
                    // can come between the count and the reply.
                    reply(broadcaster.encode(.status(broadcaster.status)), context: context)
                }
            }
        } catch {
            // The first at info, the rest at debug: a client sending garbage in a loop must not
            // fill the journal (and have journald's rate limit drop the daemon's own lines).
            invalidMessages += 1
            logger.log(
                level: invalidMessages == 1 ? .info : .debug, "invalid client message",
                metadata: ["error": "\(error)", "client.invalid": "\(invalidMessages)"])
            reply(
                broadcaster.encode(.error(ErrorMessage(code: error.code.rawValue, message: error.message))),
                context: context)
        }
    }

    /// A reply to a request: through the outlet, behind the batches written before it (the
    /// caller flushes a WebSocket client's).
    private func reply(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard let outlet else {
            context.write(wrapOutboundOut(bytes), promise: nil)
            return
        }
        if outlet.write(bytes) { drainOutlet() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection error", metadata: ["error": "\(error)"])
        outlet?.close()
        context.close(promise: nil)
    }

    // MARK: called by the Broadcaster

    /// Writes a batch's bytes and flushes them: one pass down the pipeline for both (a client
    /// without an outlet; the others are written through it).
    func send(_ bytes: ByteBuffer) {
        guard !closing, let context else { return }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    /// Any thread: has the event loop drain the outlet (a write made a drain owed).
    func scheduleDrain() {
        broadcaster.eventLoop.execute { self.drainOutlet() }
    }

    /// Event loop: gives the outlet's pending bytes to the channel, behind what it holds, or hands
    /// the outlet back to direct writes when the channel holds nothing. A client whose backlog
    /// passed the bound (in the channel, or pending while the event loop was away) is dropped.
    func drainOutlet() {
        guard let outlet, !closing, let context else { return }
        let (bytes, overflowed) = outlet.takePending()
        if overflowed {
            dropAsTooSlow(queuedBytes: outlet.maximumPendingBytes, context: context)
            return
        }
        // Judged before the new bytes are added, as a batch on the event loop is.
        dropIfBacklogged()
        guard !closing else { return }
        if bytes.readableBytes > 0 {
            writeFromOutlet(bytes, context: context)
        } else {
            handBackIfChannelEmpty(context: context)
        }
    }

    /// Hands the outlet back to direct writes once the channel holds nothing: none of the outlet's
    /// writes outstanding, nor anything written to the channel before the outlet was made (asked
    /// of the channel, ~2,000 instructions, only here, on the way back from queued).
    private func handBackIfChannelEmpty(context: ChannelHandlerContext) {
        guard channelWritesOutstanding == 0, !closing, let outlet else { return }
        let buffered = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 1
        guard buffered == 0 else { return }
        outlet.handBack()
    }

    /// Writes what the outlet held to the channel, counting it until written.
    private func writeFromOutlet(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        channelWritesOutstanding += 1
        let count = bytes.readableBytes
        outlet?.gaveToChannel(count)
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { [self] result in
            channelWritesOutstanding -= 1
            outlet?.channelWrote(count)
            // A failed write closes the channel: nothing is handed back.
            guard case .success = result, let context = self.context else { return }
            handBackIfChannelEmpty(context: context)
        }
    }

    /// Drops the client if the bytes its socket has not taken pass the bound.
    func dropIfBacklogged() {
        // Writable: no more than the bound (the high water mark) is queued. Asking the channel for
        // the count is an option lookup with dynamic casts, ~2,000 instructions, on every batch.
        guard !closing, let context, !context.channel.isWritable else { return }
        let queued = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        guard queued > broadcaster.limits.maximumQueuedBytes else { return }
        dropAsTooSlow(queuedBytes: queued, context: context)
    }

    private func dropAsTooSlow(queuedBytes queued: Int, context: ChannelHandlerContext) {
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
        // No more direct writes; what the outlet held goes first.
        if let rest = outlet?.close(), rest.readableBytes > 0 { context.write(wrapOutboundOut(rest), promise: nil) }
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
