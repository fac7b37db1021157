import Foundation
import HandyProtocol
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

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
    public var version: String = handydVersion

    public init() {}
}

/// Builds the services from `options` and runs them until SIGTERM/SIGINT.
public func runDaemon(options: DaemonOptions, logger: Logger) async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let broadcaster = Broadcaster(eventLoop: group.next(), limits: options.limits, version: options.version, logger: logger)
    let readiness = Readiness(parts: options.webSocket == nil ? ["socket", "input"] : ["socket", "input", "websocket"], logger: logger)

    let sources: [any DeviceSource]
    if let replayPath = options.replayPath {
        var replayOptions = options.replay
        replayOptions.startPaused = options.waitForClients > 0
        sources = [try ReplaySource.load(path: replayPath, descPath: options.replayDescPath, options: replayOptions, logger: logger)]
    } else {
        sources = try liveSources(logger: logger)
    }
    let window = DeliveryWindow()
    // The socket accepts clients only after the initial scan reached the broadcaster, so the first
    // hello lists every device present at start; READY=1 waits for the same moment.
    // One stream per listener (an AsyncStream has one consumer).
    let (inputStarted, inputStartedContinuation) = AsyncStream.makeStream(of: Void.self)
    let (inputStartedForWeb, inputStartedForWebContinuation) = AsyncStream.makeStream(of: Void.self)
    let started: @Sendable () -> Void = {
        // Queued behind the scan's notices on the same event loop: they are published first.
        broadcaster.eventLoop.execute {
            readiness.markReady("input")
            for c in [inputStartedContinuation, inputStartedForWebContinuation] {
                c.yield()
                c.finish()
            }
        }
    }
    let loop = try InputLoop(sources: sources, logger: logger, started: started) { notices in
        window.acquire()
        broadcaster.eventLoop.execute {
            broadcaster.publish(notices)
            window.release()
        }
    }
    if options.waitForClients > 0 {
        let count = options.waitForClients
        try await broadcaster.eventLoop.submit {
            broadcaster.onSubscribedClients = (count, { loop.send(.release) })
        }.get()
    }

    let address = ListenAddress.fromSystemd() ?? .path(options.socketPath, group: options.socketGroup)
    let socket = SocketService(address: address, broadcaster: broadcaster, group: group, readiness: readiness,
                               acceptAfter: inputStarted, logger: logger)
    let input = InputService(loop: loop, readiness: readiness, logger: logger)
    var services: [any Service] = [input, socket]
    if let webSocket = options.webSocket {
        // Listed after the Unix socket: stopped first, and the Unix socket service's shutdown
        // sends every client, WebSocket ones too, the `shutdown` message.
        services.append(WebSocketService(options: webSocket, broadcaster: broadcaster, group: group, readiness: readiness,
                                         acceptAfter: inputStartedForWeb, logger: logger))
    } else {
        inputStartedForWebContinuation.finish()
    }
    // Stopped in reverse order: on shutdown clients get `shutdown` first, then input stops.
    let serviceGroup = ServiceGroup(configuration: .init(
        services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    do {
        try await serviceGroup.run()
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
    try? await group.shutdownGracefully()
    logger.info("stopped")
}

/// The machine's touchscreens (udev + libevdev).
func liveSources(logger: Logger) throws -> [any DeviceSource] {
    [try LiveSource(logger: logger)]
}
