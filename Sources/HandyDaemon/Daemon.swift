import HandyProtocol
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Everything `handyd`'s command line decides.
public struct DaemonOptions: Sendable {
    public static let defaultSocketPath = "/run/handyd/handyd.sock"

    public var socketPath: String = defaultSocketPath
    /// Group owning the socket (mode 0660), e.g. `input`.
    public var socketGroup: String?
    public var limits = ServerLimits()
    /// Replay this recording instead of reading touchscreens.
    public var replayPath: String?
    public var replayDescPath: String?
    public var replay = ReplaySource.Options()
    /// With a replay: hold the first event until this many clients have subscribed (tests, demos).
    public var waitForClients: Int = 0
    /// The WebSocket endpoint for web kiosks; nil = off (the default).
    public var webSocket: WebSocketOptions?
    /// Run every thread under `SCHED_RR` at this priority (``RealtimeScheduling``); nil = normal
    /// scheduling. Refused by the system: logged, and the daemon runs at normal priority.
    public var realtimePriority: Int32?
    /// Event loops serving the clients (``BroadcasterGroup``): one costs the least CPU per frame;
    /// more write to many subscribers on more cores at once.
    public var eventLoops: Int = 1
    /// The accepted range of ``eventLoops``.
    public static let eventLoopRange = 1...16
    public var version: String = handydVersion
    /// `--metrics` / `--metrics-textfile` (docs/FLEET.md); nil = off (the default).
    public var metrics: MetricsOptions?

    public init() {}
}

/// Builds the daemon from `options` and runs it on the calling thread (the process's main thread)
/// until SIGTERM or SIGINT; SIGHUP reloads the devices' configuration.
///
/// Threads: the input thread (``InputLoop``: devices, recognizers), NIO's event loop (every
/// socket; `eventLoops` of them, the clients spread over them), and this one, which starts them, then sleeps in `sigwait` until a signal comes. No
/// Swift concurrency and no libdispatch global queue: an idle daemon wakes for nothing.
///
/// Start: the listeners bind only after the initial device scan reached the broadcaster, so a
/// client's first hello lists every device present at start; READY=1 waits for the same moment.
/// Stop: STOPPING=1, the listeners close and every client gets `shutdown`, then the input
/// thread frees the devices, then the event loop ends.
public func runDaemon(options: DaemonOptions, logger: Logger) throws {
    // Before any thread exists, so that every thread inherits the mask and the scheduling policy.
    let signals = LifecycleSignals.block()
    if let priority = options.realtimePriority {
        if let refused = RealtimeScheduling.enter(priority: priority) {
            logger.notice(
                "real-time scheduling refused, running at normal priority",
                metadata: [
                    "scheduling.policy": "SCHED_RR", "scheduling.priority": "\(priority)", "error": "\(refused)",
                ])
        } else {
            logger.info(
                "real-time scheduling",
                metadata: ["scheduling.policy": "SCHED_RR", "scheduling.priority": "\(priority)"])
        }
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops)
    var stoppedOnRequest = false
    defer {
        try? group.syncShutdownGracefully()
        if stoppedOnRequest { logger.info("stopped") }
    }
    let healthBoard = DeviceHealthBoard()
    let metrics = options.metrics.map { _ in DaemonMetrics(version: options.version) }
    let broadcasters = BroadcasterGroup(
        group: group, limits: options.limits, version: options.version, logger: logger,
        healthBoard: healthBoard, metrics: metrics)
    let readiness = Readiness(
        parts: options.webSocket == nil ? ["socket", "input"] : ["socket", "input", "websocket"], logger: logger)

    let sources: [any DeviceSource]
    if let replayPath = options.replayPath {
        var replayOptions = options.replay
        replayOptions.startPaused = options.waitForClients > 0
        sources = [
            try ReplaySource.load(
                path: replayPath, descPath: options.replayDescPath, options: replayOptions, logger: logger,
                healthBoard: healthBoard)
        ]
    } else {
        sources = try liveSources(logger: logger, healthBoard: healthBoard)
    }
    let inputStarted = group.next().makePromise(of: Void.self)
    let started: @Sendable () -> Void = {
        // Queued behind the scan's notices on each event loop: they are published first.
        broadcasters.publishedSoFar().whenComplete { _ in
            readiness.markReady("input")
            inputStarted.succeed()
        }
    }
    let watchdog = Watchdog.fromEnvironment(eventLoops: Array(group.makeIterator()), logger: logger)
    if let watchdog {
        logger.info(
            "watchdog: telling systemd every \(Double(watchdog.intervalNanoseconds) / 1e9) s that every thread runs")
    }
    let loop = try InputLoop(sources: sources, logger: logger, watchdog: watchdog, started: started) { notices in
        // Encoded here, on the input thread: the event loops only copy bytes to the clients.
        broadcasters.deliver(notices)
    }
    if options.waitForClients > 0 {
        broadcasters.whenSubscribed(count: options.waitForClients) { loop.send(.release) }
    }
    let address = ListenAddress.fromSystemd() ?? .path(options.socketPath, group: options.socketGroup)

    let input = try InputThread.start(loop: loop, logger: logger)
    let socket: UnixSocketListener
    var webSocket: WebSocketListener?
    // Set as soon as it listens: a later failure (the WebSocket port taken) stops it as a normal
    // stop does (clients that connected in between are sent `shutdown`, the file is removed).
    var listening: UnixSocketListener?
    do {
        try inputStarted.futureResult.wait()
        socket = try UnixSocketListener.start(
            address: address, broadcasters: broadcasters, group: group, logger: logger)
        listening = socket
        readiness.markReady("socket")
        if let options = options.webSocket {
            webSocket = try WebSocketListener.start(
                options: options, broadcasters: broadcasters, group: group, logger: logger)
            readiness.markReady("websocket")
        }
    } catch {
        webSocket?.stop()
        listening?.stop()
        input.stop()
        throw error
    }

    var metricsOutlets: MetricsOutlets?
    if let metrics, let metricsOptions = options.metrics {
        do {
            metricsOutlets = try MetricsOutlets.start(
                options: metricsOptions, metrics: metrics, broadcasters: broadcasters,
                logger: logger)
        } catch {
            webSocket?.stop()
            socket.stop()
            input.stop()
            throw error
        }
    }

    let signal = signals.waitForStop(onHangup: {
        metrics?.reloaded()
        loop.send(.reload)
    })
    logger.info("stopping", metadata: ["signal": "\(signal == SIGINT ? "SIGINT" : "SIGTERM")"])
    readiness.markStopping()
    // The WebSocket listener first: the Unix socket's stop sends every client, web ones too, `shutdown`.
    metricsOutlets?.stop()
    webSocket?.stop()
    socket.stop()
    input.stop()
    stoppedOnRequest = true
}

/// The machine's touchscreens (udev + libevdev).
func liveSources(logger: Logger, healthBoard: DeviceHealthBoard) throws -> [any DeviceSource] {
    [try LiveSource(logger: logger, healthBoard: healthBoard)]
}
