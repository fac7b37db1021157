import HandyProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Where and how the WebSocket endpoint listens (`handyd --websocket`).
public struct WebSocketOptions: Hashable, Sendable {
    public var host: String
    public var port: Int
    /// Origins (`scheme://host[:port]`) whose pages may connect. A request with any other Origin
    /// gets 403. A request without an Origin (not a browser: a script, a kiosk agent) is accepted.
    public var allowedOrigins: Set<String>
    /// Whether WebSocket clients may subscribe to raw touches.
    public var sendsTouches: Bool
    /// WebSocket clients served at once, within `--max-clients`: the rest of those places stay for
    /// the Unix socket, so whoever can reach the port (any local user, on loopback) cannot take
    /// every place and shut out the group that may open the socket. One more gets
    /// `too-many-clients` and is closed.
    public var maximumClients: Int

    public static let defaultMaximumClients = 16

    public init(
        host: String = "127.0.0.1", port: Int, allowedOrigins: Set<String> = [], sendsTouches: Bool = false,
        maximumClients: Int = defaultMaximumClients
    ) {
        self.host = host
        self.port = port
        self.allowedOrigins = allowedOrigins
        self.sendsTouches = sendsTouches
        self.maximumClients = maximumClients
    }

    /// `PORT` (loopback), `HOST:PORT` or `[IPv6]:PORT`; nil if it is none of them.
    public init?(
        listen: String, allowedOrigins: Set<String> = [], sendsTouches: Bool = false,
        maximumClients: Int = defaultMaximumClients
    ) {
        guard let address = TCPListenAddress(listen) else { return nil }
        self.init(
            host: address.host, port: address.port, allowedOrigins: allowedOrigins, sendsTouches: sendsTouches,
            maximumClients: maximumClients)
    }

    /// Whether an upgrade request with these headers may proceed.
    func admits(_ headers: HTTPHeaders) -> Bool {
        let origins = headers["Origin"]
        guard let origin = origins.first else { return true }
        return origins.count == 1 && allowedOrigins.contains(origin)
    }
}

/// Serves the same protocol as the Unix socket over WebSocket (RFC 6455) for web kiosks: one JSON
/// message per text frame each way, the same hello, subscribe, filters, status and slow-client
/// bound, through the same ``ClientConnection`` and ``Broadcaster``. See docs/RELIABILITY.md for
/// the threat model (loopback by default, Origin list, no raw touches unless asked).
///
/// Like ``UnixSocketListener``, started and stopped from the daemon's main thread (blocking).
public final class WebSocketListener: Sendable {
    let server: any Channel

    private init(server: any Channel) { self.server = server }

    /// Connections that have not finished their handshake, at most: the client limit counts only
    /// upgraded ones, and each waiting connection holds a descriptor the devices need too.
    public static let maximumHandshakes = 16
    /// A connection whose handshake is not done by then is closed (a browser on loopback takes
    /// milliseconds).
    public static let handshakeTimeout = TimeAmount.seconds(5)

    /// Binds `options.host:options.port`; an error names the address and the errno in one line.
    public static func start(
        options: WebSocketOptions, broadcasters: BroadcasterGroup, group: any EventLoopGroup,
        logger: Logger
    ) throws -> WebSocketListener {
        let handshakes = HandshakeCount(maximum: maximumHandshakes)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // A fixed send buffer: TCP autotuning would let the kernel hold megabytes for a web
            // client that does not read, hiding it from the slow-client bound that NIO's backlog
            // enforces (as a Unix socket's fixed buffer does not). Fixed, the bound means the same.
            .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: 64 * 1024)
            .childChannelInitializer { channel in
                guard let ticket = handshakes.enter() else {
                    logger.notice("WebSocket connection refused: \(maximumHandshakes) handshakes already waiting")
                    return channel.close()
                }
                let timeout = channel.eventLoop.scheduleTask(in: handshakeTimeout) {
                    guard !ticket.hasLeft else { return }
                    logger.notice("WebSocket connection closed: no handshake within \(handshakeTimeout)")
                    channel.close(promise: nil)
                }
                // Cancelled on close too: a connection closed in its handshake would otherwise stay
                // in memory (its channel, held by the timer) for the rest of the 5 s.
                channel.closeFuture.whenComplete { _ in
                    ticket.leave()
                    timeout.cancel()
                }
                let refusal = HTTPRefusal(options: options)
                let upgrader = NIOWebSocketServerUpgrader(
                    // A browser frame is far below this; a message over the line limit is refused (1009).
                    maxFrameSize: JSONLines.maximumLineLength,
                    automaticErrorHandling: true,
                    shouldUpgrade: { channel, head in
                        let upgrade = options.admits(head.headers) && HTTPRefusal.malformation(of: head) == nil
                        return channel.eventLoop.makeSucceededFuture(upgrade ? HTTPHeaders() : nil)
                    },
                    upgradePipelineHandler: { channel, _ in
                        ticket.leave()
                        timeout.cancel()
                        return channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            // Upgraded: the refusal (an HTTP handler) goes before any frame passes it.
                            // (Removal of a plain handler completes at once; never wait on the event loop.)
                            _ = sync.removeHandler(refusal)
                            // Fragmented messages are joined, up to the same limit as a line.
                            try sync.addHandler(WebSocketFrameCheck())
                            // Empty fragments are legal (RFC 6455 5.4); their count is bounded
                            // so that they cannot pile up without bytes to count.
                            try sync.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0,
                                    maxAccumulatedFrameCount: WebSocketLineBridge.maximumFragments,
                                    maxAccumulatedFrameSize: JSONLines.maximumLineLength))
                            try sync.addHandler(WebSocketLineBridge(logger: logger))
                            try sync.addHandler(
                                ClientConnection(
                                    broadcaster: broadcasters.broadcaster(on: channel.eventLoop), logger: logger,
                                    mayReceiveTouches: options.sendsTouches,
                                    webLimit: options.maximumClients))
                        }
                    })
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                ).flatMap {
                    channel.pipeline.addHandler(refusal)
                }
            }
        let server: any Channel
        do {
            server = try bootstrap.bind(host: options.host, port: options.port).wait()
        } catch {
            throw DaemonError(
                "cannot listen for WebSocket clients on \(options.host):\(options.port): \(UnixSocketListener.reason(error))"
            )
        }
        logger.info(
            "listening for WebSocket clients",
            metadata: [
                "websocket.address": "\(server.localAddress.map { "\($0)" } ?? "\(options.host):\(options.port)")",
                "websocket.origins": "\(options.allowedOrigins.sorted())",
                "websocket.touches": "\(options.sendsTouches)",
            ])
        return WebSocketListener(server: server)
    }

    /// Stops accepting. Clients get `shutdown` from ``UnixSocketListener/stop()``'s
    /// broadcaster shutdown, which covers every client; here only the listener closes.
    public func stop() {
        try? server.close().wait()
    }
}

/// How many connections are between accept and the end of their handshake (upgraded, refused
/// or closed), across every event loop.
final class HandshakeCount: Sendable {
    private let waiting = NIOLockedValueBox(0)
    let maximum: Int

    init(maximum: Int) { self.maximum = maximum }

    /// A place for one more connection, or nil when `maximum` are waiting.
    func enter() -> Ticket? {
        let admitted = waiting.withLockedValue { n in
            guard n < maximum else { return false }
            n += 1
            return true
        }
        return admitted ? Ticket(count: self) : nil
    }

    /// One connection's place: given back once, whichever comes first (the upgrade, the close).
    final class Ticket: Sendable {
        private let count: HandshakeCount
        private let left = NIOLockedValueBox(false)

        fileprivate init(count: HandshakeCount) { self.count = count }

        var hasLeft: Bool { left.withLockedValue { $0 } }

        func leave() {
            let first = left.withLockedValue { wasLeft in
                defer { wasLeft = true }
                return !wasLeft
            }
            if first { count.waiting.withLockedValue { $0 -= 1 } }
        }
    }
}

/// Answers an HTTP request that is not an acceptable WebSocket upgrade: 403 for a refused Origin,
/// 400 for a malformed upgrade (RFC 6455 4.2.1: not a GET, no Host, a key that is not 16 bytes in
/// base64), 426 for anything else (this endpoint serves nothing but the WebSocket; it names the
/// version it speaks, 4.4). An HTTP request the parser cannot read is closed at once.
final class HTTPRefusal: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let options: WebSocketOptions
    init(options: WebSocketOptions) { self.options = options }

    /// What makes `head` a malformed WebSocket upgrade, or nil when it is not one (a plain
    /// request, or a good upgrade). NIO's upgrader checks the Upgrade, Connection and version
    /// headers and the key's presence, not these.
    static func malformation(of head: HTTPRequestHead) -> String? {
        guard head.headers["Upgrade"].contains(where: { $0.lowercased() == "websocket" }) else { return nil }
        if head.method != .GET { return "an upgrade must be a GET" }
        if head.version.major < 1 || (head.version.major == 1 && head.version.minor < 1) {
            return "an upgrade needs HTTP/1.1"
        }
        if head.headers["Host"].isEmpty { return "no Host header" }
        let keys = head.headers["Sec-WebSocket-Key"]
        guard keys.count == 1, isSixteenBytesInBase64(keys[0]) else {
            return "Sec-WebSocket-Key must be 16 bytes in base64"
        }
        return nil
    }

    /// 16 bytes in base64 are 22 characters of its alphabet and "==" (without Foundation, which
    /// the daemon keeps out of its memory).
    static func isSixteenBytesInBase64(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[..<22].allSatisfy { b in
            (0x41...0x5a).contains(b) || (0x61...0x7a).contains(b) || (0x30...0x39).contains(b) || b == 0x2b
                || b == 0x2f
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let refusedOrigin = !options.admits(head.headers)
        let malformed = refusedOrigin ? nil : Self.malformation(of: head)
        let status: HTTPResponseStatus = refusedOrigin ? .forbidden : malformed != nil ? .badRequest : .upgradeRequired
        let text =
            refusedOrigin
            ? "origin not allowed (handyd --websocket-origin)\n"
            : malformed.map { "bad WebSocket upgrade: \($0)\n" }
                ?? "handyd: WebSocket endpoint; connect with a WebSocket client\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(text.utf8.count)")
        headers.add(name: "Connection", value: "close")
        if status == .upgradeRequired {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Sec-WebSocket-Version", value: "13")
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// A request the HTTP parser could not read has had its 400 from NIO's error handler (before
    /// this one); the connection then closes instead of holding a handshake place for 5 s.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }
}

/// Each frame as it comes off the wire, before fragments are joined (joining unmasks them): a
/// client's frames are masked (RFC 6455 5.1), carry no RSV bit (no extension was agreed, 5.2) and
/// no reserved opcode (5.2). A violation goes on as an error, for ``WebSocketLineBridge`` to close
/// with 1002; nothing after it is read.
final class WebSocketFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    struct Violation: Error { var what: String }
    private var violated = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !violated else { return }
        let frame = unwrapInboundIn(data)
        let problem: String?
        if frame.maskKey == nil {
            problem = "an unmasked frame"
        } else if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            problem = "RSV bits set"
        } else if ![.continuation, .text, .binary, .connectionClose, .ping, .pong].contains(frame.opcode) {
            problem = "reserved opcode \(frame.opcode)"
        } else {
            problem = nil
        }
        if let problem {
            violated = true
            context.fireErrorCaught(Violation(what: problem))
            return
        }
        context.fireChannelRead(data)
    }
}

/// Between WebSocket frames and the line protocol ``ClientConnection`` speaks: a text message in
/// is one line (its CR and LF bytes, JSON whitespace, read as spaces, so one message is one
/// request); the lines going out (a batch may hold several) are one text frame each. Pings are
/// answered while the client reads; a close is echoed. RFC 6455's refusals: a binary frame 1003
/// (unsupported data), text that is not UTF-8 1007, a message over the line limit or in more than
/// ``maximumFragments`` fragments 1009, and 1002 for a protocol error (an unmasked frame, RSV bits
/// without an extension, a reserved opcode, broken fragments, a malformed close). Nothing is sent
/// after the close frame.
final class WebSocketLineBridge: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Fragments of one message, at most (a browser sends a message of this size in one frame).
    static let maximumFragments = 1024

    private var sentClose = false
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // After our close frame only the client's close is awaited (RFC 6455 5.5.1).
        guard !sentClose else { return }
        switch frame.opcode {
        case .text:
            var line = frame.unmaskedData
            guard String(validating: line.readableBytesView, as: UTF8.self) != nil else {
                refuse(context: context, code: .dataInconsistentWithMessage, "text that is not UTF-8")
                return
            }
            for i in line.readerIndex..<line.writerIndex
            where line.getInteger(at: i, as: UInt8.self).map({ $0 == 0x0a || $0 == 0x0d }) == true {
                line.setInteger(UInt8(ascii: " "), at: i)
            }
            line.writeInteger(UInt8(ascii: "\n"))
            context.fireChannelRead(wrapInboundOut(line))
        case .ping:
            // Only while the client reads what it is sent: a client that pings and never reads
            // would otherwise queue pongs without bound, a queue the slow-client bound never sees
            // (it is checked on lines and batches). RFC 6455 5.5.3 lets a pong answer only the
            // latest ping; these go unanswered.
            guard context.channel.isWritable else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            if let problem = Self.closeProblem(frame.unmaskedData) {
                refuse(context: context, code: problem.code, problem.what)
            } else {
                sendClose(context: context, code: .normalClosure)
            }
        case .binary:
            sendClose(context: context, code: .unacceptableData)
        case .pong:
            break  // unsolicited pongs are allowed (5.5.3)
        default:
            refuse(context: context, code: .protocolError, "reserved opcode \(frame.opcode)")
        }
    }

    /// What is wrong with a close frame's body (RFC 6455 5.5.1, 7.4): a lone byte, a code no
    /// endpoint may send (below 1000, 1004–1006, 1015, 1016–2999, 5000 and up), a reason that is
    /// not UTF-8. Empty is a close without a code.
    static func closeProblem(_ body: ByteBuffer) -> (code: WebSocketErrorCode, what: String)? {
        guard body.readableBytes > 0 else { return nil }
        guard let code = body.getInteger(at: body.readerIndex, as: UInt16.self) else {
            return (.protocolError, "a close body of 1 byte")
        }
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: break
        default: return (.protocolError, "close code \(code)")
        }
        let reason = Array(body.readableBytesView.dropFirst(2))
        guard String(validating: reason, as: UTF8.self) != nil else {
            return (.dataInconsistentWithMessage, "a close reason that is not UTF-8")
        }
        return nil
    }

    private func refuse(context: ChannelHandlerContext, code: WebSocketErrorCode, _ what: String) {
        logger.notice("WebSocket client closed: \(what)", metadata: ["websocket.close": "\(code)"])
        sendClose(context: context, code: code)
    }

    /// The aggregator's refusals close this client with the code RFC 6455 names, not the 1001
    /// (going away) that a close from further in would send; anything else goes on in.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let violation = error as? WebSocketFrameCheck.Violation {
            refuse(context: context, code: .protocolError, violation.what)
            return
        }
        guard let error = error as? NIOWebSocketFrameAggregator.Error else {
            context.fireErrorCaught(error)
            return
        }
        let code: WebSocketErrorCode
        switch error {
        case .accumulatedFrameSizeIsTooLarge, .tooManyFragments: code = .messageTooLarge
        default: code = .protocolError
        }
        logger.notice("WebSocket client closed: \(error)", metadata: ["websocket.close": "\(code)"])
        sendClose(context: context, code: code)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // No data frame after the close frame (RFC 6455 5.5.1): what was still to go is dropped.
        guard !sentClose else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        var buffer = unwrapOutboundIn(data)
        // One text frame per line, without its newline.
        var last: EventLoopFuture<Void>?
        while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readerIndex
            guard let line = buffer.readSlice(length: length) else { break }
            buffer.moveReaderIndex(forwardBy: 1)
            last = context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)))
        }
        if buffer.readableBytes > 0 {
            last = context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
        }
        if let promise {
            if let last { last.cascade(to: promise) } else { promise.succeed() }
        }
    }

    /// The connection closes (shutdown, a slow client, an error line): say so with a close frame.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all && !sentClose && context.channel.isActive {
            sentClose = true
            var data = context.channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: .goingAway)
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        }
        context.close(mode: mode, promise: promise)
    }

    private func sendClose(context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !sentClose else { return }
        sentClose = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
            .whenComplete { _ in
                channel.close(promise: nil)
            }
    }
}
