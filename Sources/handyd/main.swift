import ArgumentParser
import HandyDaemon
import HandyInput
import HandyProtocol
import HandySettings
import Logging

/// `handyd`: the multitouch gesture daemon.
@main
struct Handyd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handyd",
        abstract: "Recognises multitouch gestures and publishes them as JSON lines on a Unix socket.",
        version: handydVersion)

    @Option(help: "Unix socket path (ignored under systemd socket activation).")
    var socket: String = DaemonOptions.defaultSocketPath
    @Option(help: "Group owning the socket (mode 0660).")
    var group: String?
    @Option(help: "Maximum number of clients.")
    var maxClients: Int = ServerLimits.defaultMaximumClients
    @Option(help: "Bytes a client may leave unread before it is disconnected.")
    var clientQueueBytes: Int = ServerLimits.defaultMaximumQueuedBytes
    @Option(help: "Replay this recording (evemu, or libinput record YAML) as a device instead of reading touchscreens.")
    var replay: String?
    @Option(help: "Device description (.desc) for a replayed .events file.")
    var desc: String?
    @Flag(help: "Replay the recording over and over.")
    var loop = false
    @Option(help: "Replay speed factor.")
    var speed: Double = 1
    @Option(help: "Hold the replay until this many clients have subscribed.")
    var waitClients: Int = 0
    @Option(
        help: ArgumentHelp(
            "A udev property for the replayed device, as a live one would have (repeatable): thresholds, calibration, size, e.g. HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250 (docs/DEVICES.md).",
            valueName: "NAME=VALUE"))
    var deviceProperty: [String] = []
    @Option(
        help: ArgumentHelp(
            "Also serve the protocol over WebSocket for web kiosks: PORT (on 127.0.0.1), or HOST:PORT to listen elsewhere explicitly. Off by default.",
            valueName: "[HOST:]PORT"))
    var websocket: String?
    @Option(
        help: ArgumentHelp(
            "An Origin (scheme://host[:port]) whose pages may connect to the WebSocket endpoint (repeatable). Requests with any other Origin get 403; requests without one (not a browser) are accepted.",
            valueName: "ORIGIN"))
    var websocketOrigin: [String] = []
    @Flag(
        help:
            "Let WebSocket clients subscribe to raw touches (off: touch positions on an on-screen PIN pad give the PIN away)."
    )
    var websocketTouches = false
    @Option(
        help: ArgumentHelp(
            "WebSocket clients served at once, counted within --max-clients; the other places stay for the Unix socket, so whoever can reach the port cannot shut out the socket's group. (default: 16, or --max-clients if lower)",
            valueName: "N"))
    var websocketMaxClients: Int?
    @Option(
        help: ArgumentHelp(
            "Run under SCHED_RR at this priority (\(RealtimeScheduling.priorities.lowerBound) … \(RealtimeScheduling.priorities.upperBound)), so a busy machine does not delay frames (systemd/handyd.service uses 10). Refused by the system: a notice, and normal priority. Off by default.",
            valueName: "N"))
    var realtimePriority: Int32?
    @Option(
        help: ArgumentHelp(
            "Event loops writing to the clients (\(DaemonOptions.eventLoopRange.lowerBound) … \(DaemonOptions.eventLoopRange.upperBound)): one costs the least CPU per frame; with many subscribers, more write to them on more cores at once (docs/PERFORMANCE.md).",
            valueName: "N"))
    var eventLoops: Int = 1
    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://[HOST:]PORT/metrics: PORT (on 127.0.0.1), or HOST:PORT to listen elsewhere explicitly (docs/FLEET.md). Off by default.",
            valueName: "[HOST:]PORT"))
    var metrics: String?
    @Option(
        help: ArgumentHelp(
            "Write the same metrics to this file every 15 s (and at exit), atomically, for node_exporter's textfile collector (a directory it reads, e.g. /var/lib/prometheus/node-exporter/handyd.prom). Off by default.",
            valueName: "PATH"))
    var metricsTextfile: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown log level \(logLevel)") }
        guard maxClients > 0 else { throw ValidationError("--max-clients must be positive") }
        guard DaemonOptions.eventLoopRange.contains(eventLoops) else {
            throw ValidationError(
                "--event-loops \(eventLoops): expected \(DaemonOptions.eventLoopRange.lowerBound) … \(DaemonOptions.eventLoopRange.upperBound)"
            )
        }
        guard clientQueueBytes > 0 else { throw ValidationError("--client-queue-bytes must be positive") }
        // More than --max-clients could never all connect: the replay would never start.
        guard waitClients >= 0, waitClients <= maxClients else {
            throw ValidationError("--wait-clients \(waitClients): expected 0 … \(maxClients) (--max-clients)")
        }
        guard !socket.isEmpty else { throw ValidationError("--socket needs a path") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number") }
        guard replay != nil || (desc == nil && !loop && waitClients == 0 && deviceProperty.isEmpty) else {
            throw ValidationError("--desc, --loop, --wait-clients and --device-property need --replay")
        }
        if let websocket, TCPListenAddress(websocket) == nil {
            throw ValidationError("--websocket \(websocket): \(TCPListenAddress.expected)")
        }
        guard websocket != nil || (websocketOrigin.isEmpty && !websocketTouches && websocketMaxClients == nil) else {
            throw ValidationError(
                "--websocket-origin, --websocket-touches and --websocket-max-clients need --websocket")
        }
        if let websocketMaxClients, !(1...maxClients).contains(websocketMaxClients) {
            throw ValidationError(
                "--websocket-max-clients \(websocketMaxClients): expected 1 … \(maxClients) (--max-clients)")
        }
        for origin in websocketOrigin
        where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.hasSuffix("/") {
            throw ValidationError(
                "--websocket-origin \(origin): expected scheme://host[:port] as a browser sends it, e.g. http://127.0.0.1:8080"
            )
        }
        if let metrics, TCPListenAddress(metrics) == nil {
            throw ValidationError("--metrics \(metrics): \(TCPListenAddress.expected)")
        }
        if let metricsTextfile, metricsTextfile.isEmpty || metricsTextfile.hasSuffix("/") {
            throw ValidationError("--metrics-textfile \(metricsTextfile): expected the path of a file")
        }
        let priorities = RealtimeScheduling.priorities
        if let realtimePriority, !priorities.contains(realtimePriority) {
            throw ValidationError(
                "--realtime-priority \(realtimePriority): expected \(priorities.lowerBound) … \(priorities.upperBound)")
        }
        do { _ = try DeviceConfiguration.properties(fromAssignments: deviceProperty) } catch {
            throw ValidationError(error.description)
        }
    }

    /// Synchronous on purpose: an async main would run on Swift concurrency's global executor,
    /// whose libdispatch workqueue monitor wakes the idle daemon once a second.
    func run() throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        // stderr without colours: systemd's journal stores it as is.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "handyd")
        var options = DaemonOptions()
        options.socketPath = socket
        options.socketGroup = group
        options.limits = ServerLimits(maximumClients: maxClients, maximumQueuedBytes: clientQueueBytes)
        options.replayPath = replay
        options.replayDescPath = desc
        // Checked in validate(); a bad value (not a bad NAME=VALUE form) is the device's problem.
        let properties = (try? DeviceConfiguration.properties(fromAssignments: deviceProperty)) ?? [:]
        options.replay = .init(loop: loop, speed: speed, deviceProperties: properties)
        options.waitForClients = waitClients
        options.realtimePriority = realtimePriority
        options.eventLoops = eventLoops
        options.webSocket = websocket.flatMap {
            WebSocketOptions(
                listen: $0, allowedOrigins: Set(websocketOrigin), sendsTouches: websocketTouches,
                maximumClients: websocketMaxClients ?? min(WebSocketOptions.defaultMaximumClients, maxClients))
        }
        if metrics != nil || metricsTextfile != nil {
            let listen = metrics.flatMap(TCPListenAddress.init)
            options.metrics = MetricsOptions(host: listen?.host, port: listen?.port, textfilePath: metricsTextfile)
        }
        do {
            try runDaemon(options: options, logger: logger)
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode(1)
        } catch {
            // Anything else still gets one line and status 1, not a crash dump.
            logger.critical("\(String(describing: error))")
            throw ExitCode(1)
        }
    }
}
