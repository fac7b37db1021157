import HandyCore
import HandyProtocol
import NIOConcurrencyHelpers
import Prometheus

/// The daemon's metrics in the Prometheus text format (docs/FLEET.md), for `--metrics` (an HTTP
/// endpoint) and `--metrics-textfile` (node_exporter's textfile collector).
///
/// Pulled, not pushed: the counts the daemon keeps anyway (the health board, the client tally, the
/// broadcaster's counters) are read when a scrape comes, and only what has no home elsewhere is
/// counted for the metrics — each device's frames and gestures by kind and hand, once per batch on
/// the input thread, and the batch-to-socket latency. With metrics off none of that runs.
///
/// Series are swift-prometheus's (`PrometheusCollectorRegistry`, which implements swift-metrics'
/// CoreMetrics types); the registry is this object's, not the process-wide `MetricsSystem`.
public final class DaemonMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// From the input thread's hand-over of a batch to the event loop having written it.
    let latency: DurationHistogram
    private let reloads: Counter
    private let tally = NIOLockedValueBox(DeliveryTally())
    /// Last values written into each counter (counters only go up: the registry gets the difference).
    private let written = NIOLockedValueBox([String: Double]())

    public init(version: String) {
        latency = registry.makeDurationHistogram(
            descriptor: Self.descriptor(
                "handyd_frame_to_socket_seconds",
                "From the input thread handing a batch of frames over to the event loop having written it to the clients"
            ),
            buckets: [
                .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(250),
            ])
        reloads = registry.makeCounter(
            descriptor: Self.descriptor("handyd_reloads_total", "Configuration reloads (SIGHUP, udev change events)"))
        registry.makeGauge(
            descriptor: Self.descriptor("handyd_build_info", "The daemon's version (always 1)"),
            labels: [("version", version)]
        ).set(1.0)
    }

    func reloaded() { reloads.increment() }

    /// The frames and gestures of a batch, by device, kind and hand (input thread; one lock a batch).
    func count(_ notices: [InputNotice]) {
        tally.withLockedValue { tally in
            for notice in notices {
                guard case .output(let device, let output) = notice else { continue }
                tally.count(device: device, output)
            }
        }
    }

    /// What a scrape needs from the broadcaster (read on its event loop).
    struct DaemonState {
        var devices: [DeviceInfo]
        var clients: Int
        var webClients: Int
        var slowClientDrops: UInt64
        var health: [String: DeviceHealth]
    }

    /// A series' whole name and its help text (the name is not split into namespace and unit: it is
    /// written as given).
    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The exposition of `state` with every series brought up to date.
    func exposition(_ state: DaemonState) -> [UInt8] {
        let counts = tally.withLockedValue { $0 }
        written.withLockedValue { written in
            func counter(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Double) {
                let key = name + labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
                let delta = value - (written[key] ?? 0)
                let c = registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
                if delta > 0 { c.increment(by: delta) }
                written[key] = Swift.max(value, written[key] ?? 0)
            }
            func gauge(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Double) {
                registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels).set(value)
            }
            gauge(
                "handyd_clients", "Clients connected now, by transport", [("transport", "unix")],
                Double(state.clients - state.webClients))
            gauge(
                "handyd_clients", "Clients connected now, by transport", [("transport", "websocket")],
                Double(state.webClients))
            counter(
                "handyd_slow_client_disconnects_total", "Clients disconnected for reading too slowly", [],
                Double(state.slowClientDrops))
            var ids = Set(state.health.keys)
            for d in state.devices { ids.insert(d.id) }
            for (id, c) in counts.devices { ids.insert(id); _ = c }
            for id in ids.sorted() {
                let device = [("device", id)]
                let info = state.devices.first { $0.id == id }
                gauge(
                    "handyd_device_readable", "1 while the device is there and read, 0 while unreadable or gone",
                    device, info.map { $0.isReadable ? 1 : 0 } ?? 0)
                let h = state.health[id] ?? DeviceHealth()
                let c = counts.devices[id] ?? DeliveryTally.Device()
                counter("handyd_device_frames_total", "Touch frames with a change", device, Double(c.frames))
                for (kind, byHand) in c.gestures.sorted(by: { $0.key < $1.key }) {
                    for (hand, n) in byHand.sorted(by: { $0.key < $1.key }) {
                        counter(
                            "handyd_gestures_total",
                            "Gestures begun or recognised, by kind and by the hand that made them",
                            device + [("gesture", kind), ("hand", hand)], Double(n))
                    }
                }
                counter(
                    "handyd_device_kernel_drops_total", "Kernel event drops (SYN_DROPPED)", device,
                    Double(h.kernelDrops))
                counter(
                    "handyd_device_faults_total", "Multitouch protocol faults the tracker coped with", device,
                    Double(h.faults))
                counter(
                    "handyd_device_stuck_contacts_total", "Contacts found stuck and left out of recognition", device,
                    Double(h.stuckContacts))
                gauge("handyd_device_stuck_contacts", "Contacts stuck now", device, Double(h.stuckNow))
                counter(
                    "handyd_device_losses_total", "Times the device went away without being asked (unplug, USB reset)",
                    device, Double(h.losses))
                counter(
                    "handyd_device_floods_total", "Episodes of events far beyond any touchscreen's rate", device,
                    Double(h.floods))
                if let age = h.secondsSinceLastTouch {
                    gauge(
                        "handyd_device_seconds_since_last_touch",
                        "Seconds since a finger last went down, moved or lifted", device, age)
                }
            }
        }
        return registry.emitToBuffer()
    }
}

/// Frames and gestures counted for the metrics, by device (id), gesture kind and hand.
struct DeliveryTally: Sendable {
    struct Device: Sendable {
        var frames: UInt64 = 0
        var gestures: [String: [String: UInt64]] = [:]
    }
    var devices: [String: Device] = [:]

    mutating func count(device: String, _ output: PipelineOutput) {
        var d = devices[device] ?? Device()
        for frame in output.frames where frame.hasChanges { d.frames &+= 1 }
        for g in output.gestures where g.phase == .began || g.phase == .recognized {
            d.gestures[g.gesture.rawValue, default: [:]][(g.hand ?? .unknown).rawValue, default: 0] &+= 1
        }
        devices[device] = d
    }
}
