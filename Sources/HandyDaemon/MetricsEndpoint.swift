import HandyFiles
import HandyProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Where the metrics go (docs/FLEET.md): an HTTP endpoint, a textfile for node_exporter, or both.
public struct MetricsOptions: Hashable, Sendable {
    /// `--metrics [HOST:]PORT`: GET /metrics on this address (loopback unless a host is named).
    public var host: String?
    public var port: Int?
    /// `--metrics-textfile PATH`: the same text written there (atomically) every ``textfileIntervalSeconds``.
    public var textfilePath: String?
    public var textfileIntervalSeconds: Double = 15

    public init(
        host: String? = nil, port: Int? = nil, textfilePath: String? = nil, textfileIntervalSeconds: Double = 15
    ) {
        self.host = host; self.port = port; self.textfilePath = textfilePath;
        self.textfileIntervalSeconds = textfileIntervalSeconds
    }
}

/// GET /metrics over HTTP/1.1 (SwiftNIO's HTTP codec): the Prometheus text of ``DaemonMetrics``.
/// Anything else is refused (404, 405); a request line or headers beyond NIO's limits, or a client
/// that sends nothing within ``requestTimeout``, is closed. At most ``maximumConnections`` at once.
final class MetricsEndpoint: Sendable {
    static let maximumConnections = 16
    static let requestTimeout = TimeAmount.seconds(5)

    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    static func start(
        host: String, port: Int, group: any EventLoopGroup, logger: Logger,
        exposition: @escaping @Sendable () -> EventLoopFuture<[UInt8]>
    ) throws -> MetricsEndpoint {
        let open = NIOLockedConnectionCount(maximum: maximumConnections)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 16)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard open.enter() else { return channel.close() }
                let timeout = channel.eventLoop.scheduleTask(in: requestTimeout) { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in
                    open.leave(); timeout.cancel()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(exposition: exposition))
                }
            }
        do {
            let channel = try bootstrap.bind(host: host, port: port).wait()
            logger.info("metrics on http://\(host.contains(":") ? "[\(host)]" : host):\(port)/metrics")
            return MetricsEndpoint(channel: channel)
        } catch {
            throw DaemonError("--metrics \(host):\(port): cannot listen: \(error)")
        }
    }

    func stop() { try? channel.close().wait() }
}

/// Connections open now, under a lock (touched when one opens or closes, never per frame).
final class NIOLockedConnectionCount: Sendable {
    private let count: NIOLockedValueBox<Int>
    let maximum: Int
    init(maximum: Int) { self.maximum = maximum; count = NIOLockedValueBox(0) }
    func enter() -> Bool {
        count.withLockedValue {
            guard $0 < maximum else { return false }; $0 += 1; return true
        }
    }
    func leave() { count.withLockedValue { $0 -= 1 } }
}

private final class MetricsHTTPHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let exposition: @Sendable () -> EventLoopFuture<[UInt8]>
    init(exposition: @escaping @Sendable () -> EventLoopFuture<[UInt8]>) { self.exposition = exposition }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard path == "/metrics" else {
            return respond(context, .notFound, Array("only /metrics is here\n".utf8), head)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return respond(context, .methodNotAllowed, Array("GET /metrics\n".utf8), head, allow: true)
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        exposition().hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let text):
                handler.respond(context, .ok, head.method == .HEAD ? [] : text, head, length: text.count)
            case .failure: handler.respond(context, .serviceUnavailable, Array("metrics unavailable\n".utf8), head)
            }
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ body: [UInt8], _ request: HTTPRequestHead,
        allow: Bool = false, length: Int? = nil
    ) {
        var headers = HTTPHeaders()
        headers.add(
            name: "Content-Type",
            value: status == .ok ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(length ?? body.count)")
        headers.add(name: "Connection", value: "close")
        if allow { headers.add(name: "Allow", value: "GET, HEAD") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil)
        if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// `--metrics-textfile`: the exposition written to PATH.tmp beside PATH, synced, and renamed over
/// PATH, so node_exporter's textfile collector never reads half a file.
enum MetricsTextfile {
    static func write(_ text: [UInt8], to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DaemonError("\(temporary): open: \(String(cString: strerror(errno)))") }
        var written = 0
        let failure: String? = text.withUnsafeBytes { raw in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return "write: \(String(cString: strerror(errno)))" }
                written += n
            }
            return fsync(fd) == 0 ? nil : "fsync: \(String(cString: strerror(errno)))"
        }
        close(fd)
        if let failure {
            unlink(temporary)
            throw DaemonError("\(temporary): \(failure)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw DaemonError("\(path): rename: \(reason)")
        }
    }
}

/// The metrics' endpoint and textfile as the daemon runs them: both read the same exposition.
/// They run on a loop of their own, so rendering the text for a scrape never queues in front of
/// the frames on a loop that writes to clients (scripts/metrics_soak.py, docs/PERFORMANCE.md).
final class MetricsOutlets: Sendable {
    let group: MultiThreadedEventLoopGroup
    let endpoint: MetricsEndpoint?
    let textfile: RepeatedTask?
    let exposition: @Sendable () -> EventLoopFuture<[UInt8]>
    let write: (@Sendable ([UInt8]) -> Void)?

    private init(
        group: MultiThreadedEventLoopGroup, endpoint: MetricsEndpoint?, textfile: RepeatedTask?,
        exposition: @escaping @Sendable () -> EventLoopFuture<[UInt8]>, write: (@Sendable ([UInt8]) -> Void)?
    ) {
        self.group = group
        (self.endpoint, self.textfile, self.exposition, self.write) = (endpoint, textfile, exposition, write)
    }

    static func start(
        options: MetricsOptions, metrics: DaemonMetrics, broadcasters: BroadcasterGroup,
        logger: Logger
    ) throws -> MetricsOutlets {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let exposition: @Sendable () -> EventLoopFuture<[UInt8]> = {
            // The state is gathered on the broadcaster's loop (a few reads); the text is made here.
            broadcasters.metricsState().hop(to: loop).map { metrics.exposition($0) }
        }
        var endpoint: MetricsEndpoint?
        if let port = options.port {
            do {
                endpoint = try MetricsEndpoint.start(
                    host: options.host ?? "127.0.0.1", port: port, group: group, logger: logger,
                    exposition: exposition)
            } catch {
                try? group.syncShutdownGracefully()
                throw error
            }
        }
        guard let path = options.textfilePath else {
            return MetricsOutlets(group: group, endpoint: endpoint, textfile: nil, exposition: exposition, write: nil)
        }
        let lastFailure = NIOLockedValueBox<String?>(nil)
        let write: @Sendable ([UInt8]) -> Void = { text in
            do {
                try MetricsTextfile.write(text, to: path)
                if lastFailure.withLockedValue({ $0 }) != nil {
                    lastFailure.withLockedValue { $0 = nil }
                    logger.notice("metrics textfile written again", metadata: ["path": "\(path)"])
                }
            } catch {
                // Said once per distinct failure, not every period: the daemon carries on.
                let text = "\(error)"
                if lastFailure.withLockedValue({ $0 }) != text {
                    lastFailure.withLockedValue { $0 = text }
                    logger.warning(
                        "cannot write the metrics textfile; trying again every period", metadata: ["error": "\(text)"])
                }
            }
        }
        let period = TimeAmount.nanoseconds(Int64(options.textfileIntervalSeconds * 1e9))
        let task = loop.scheduleRepeatedTask(initialDelay: .zero, delay: period) { _ in
            // The write and fsync block: on NIO's thread pool, not on a loop that serves clients.
            exposition().whenSuccess { text in NIOThreadPool.singleton.submit { _ in write(text) } }
        }
        return MetricsOutlets(group: group, endpoint: endpoint, textfile: task, exposition: exposition, write: write)
    }

    /// Stops serving (called on the main thread, not an event loop); the textfile is written one last time.
    func stop() {
        endpoint?.stop()
        textfile?.cancel()
        if let write, let text = try? exposition().wait() { write(text) }
        try? group.syncShutdownGracefully()
    }
}
