import HandyCore
import HandyProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Counters reported by `{"type":"status"}`.
public struct DaemonCounters: Hashable, Sendable {
    /// Touch frames published (frames in which something changed).
    public var frames: UInt64 = 0
    /// Gesture events published.
    public var events: UInt64 = 0
    /// Clients disconnected because they read too slowly.
    public var drops: UInt64 = 0
    public init() {}
}

/// The fan-out point: knows the devices and the connected clients, encodes each message once and
/// writes it to every client that wants it.
///
/// Confined to one event loop (the server's); the input thread reaches it through
/// ``EventLoop/execute(_:)``. Nothing here blocks: writes go to NIO's per-channel buffer and a client
/// whose buffer passes ``ServerLimits/maximumQueuedBytes`` is dropped.
///
/// `@unchecked Sendable`: its mutable state (clients, devices, counters) is touched only on
/// ``eventLoop`` (checked by `preconditionInEventLoop`), which is how NIO confines state; other
/// threads only call `eventLoop.execute`.
public final class Broadcaster: @unchecked Sendable {
    public let eventLoop: any EventLoop
    let limits: ServerLimits
    let logger: Logger
    let version: String
    let startedAt = MonotonicInstant.now()

    private var clients: [ObjectIdentifier: ClientConnection] = [:]
    private var devices: [DeviceInfo] = []
    private(set) var counters = DaemonCounters()
    private var subscribedClients = 0
    /// Called once when `subscribedClients` reaches the `--wait-clients` count.
    var onSubscribedClients: (count: Int, action: @Sendable () -> Void)?
    private var shuttingDown = false
    /// Read by the input thread (``encode(_:)``), written on the event loop.
    private let touchesWanted = NIOLockedValueBox(false)

    public init(eventLoop: any EventLoop, limits: ServerLimits, version: String, logger: Logger) {
        self.eventLoop = eventLoop
        self.limits = limits
        self.version = version
        self.logger = logger
    }

    var clientCount: Int { clients.count }

    // MARK: clients

    /// Registers a connected client; false when the server is full (the caller refuses it).
    func register(_ client: ClientConnection) -> Bool {
        eventLoop.preconditionInEventLoop()
        guard !shuttingDown, clients.count < limits.maximumClients else { return false }
        clients[ObjectIdentifier(client)] = client
        return true
    }

    func unregister(_ client: ClientConnection) {
        eventLoop.preconditionInEventLoop()
        if clients.removeValue(forKey: ObjectIdentifier(client)) != nil, client.hasSubscribed {
            subscribedClients -= 1
        }
        subscriptionsChanged()
    }

    func clientSubscribed(_ client: ClientConnection) {
        eventLoop.preconditionInEventLoop()
        subscribedClients += 1
        if let waiting = onSubscribedClients, subscribedClients >= waiting.count {
            onSubscribedClients = nil
            logger.info("enough clients subscribed, starting replay", metadata: ["clients.subscribed": "\(subscribedClients)"])
            waiting.action()
        }
    }

    func clientDropped() { counters.drops += 1 }

    var hello: HelloMessage { HelloMessage(version: version, devices: devices) }

    var status: StatusMessage {
        let unreadable = devices.filter { !$0.isReadable }
        return StatusMessage(clients: clients.count, devices: devices.count - unreadable.count, frames: counters.frames,
                             events: counters.events, drops: counters.drops,
                             uptime: Double((MonotonicInstant.now().nanoseconds - startedAt.nanoseconds) / 1_000_000) / 1000,
                             unreadable: unreadable.isEmpty ? nil : unreadable)
    }

    // MARK: input side

    /// Encodes the frames and gesture events of `notices` for ``publish(_:)``. Called on the input
    /// thread (any thread): the event loop then only copies bytes. A touches line is made only
    /// while some client subscribes to touches.
    public func encode(_ notices: [InputNotice]) -> EncodedBatch {
        EncodedBatch(notices, touches: touchesWanted.withLockedValue { $0 })
    }

    /// Publishes what the input thread produced (encoded there by ``encode(_:)``), in order.
    public func publish(_ batch: EncodedBatch) {
        eventLoop.preconditionInEventLoop()
        guard !shuttingDown else { return }
        counters.frames += batch.frames
        counters.events += batch.events
        // The backlog is judged before new data is added: what is still unwritten from earlier
        // batches, after the event loop had time to write it. A burst (a replay catching up after
        // a stall) to a client that reads fine is not a slow client.
        for client in clients.values { client.dropIfBacklogged() }
        // Clients with the same subscription get the same bytes: each distinct subscription's
        // lines for this batch go into one buffer, and each client gets ONE write and one flush
        // per batch, instead of one NIO write per line per client (10-20 % less event-loop CPU,
        // measured in docs/PERFORMANCE.md section 2).
        var subscriptions: [Subscription] = []
        var members: [[ClientConnection]] = []
        for client in clients.values {
            if let i = subscriptions.firstIndex(of: client.subscription) {
                members[i].append(client)
            } else {
                subscriptions.append(client.subscription)
                members.append([client])
            }
        }
        var batches = [ByteBuffer](repeating: ByteBuffer(), count: subscriptions.count)
        var line: [UInt8] = []
        for item in batch.items {
            switch item {
            case .added(let info):
                // A device that could not be read and now can is announced again under its id.
                devices.removeAll { $0.id == info.id }
                devices.append(info)
                if info.isReadable {
                    logger.info("device added", metadata: ["device.id": "\(info.id)", "device.name": "\(info.name)"])
                }
                line.removeAll(keepingCapacity: true)
                JSONLines.encode(.device(DeviceMessage(event: .added, device: info)), into: &line)
                for i in batches.indices { batches[i].writeBytes(line) }
            case .removed(let info):
                devices.removeAll { $0.id == info.id }
                logger.info("device removed", metadata: ["device.id": "\(info.id)"])
                line.removeAll(keepingCapacity: true)
                JSONLines.encode(.device(DeviceMessage(event: .removed, device: info)), into: &line)
                for i in batches.indices { batches[i].writeBytes(line) }
            case .lines(let device, let range):
                // A filter may name the kernel node instead of the id.
                let node = devices.first { $0.id == device }?.node
                for i in subscriptions.indices {
                    // Consecutive wanted lines are one copy.
                    var run: Int?
                    for l in range {
                        let start = batch.start(ofLine: l)
                        let wanted = batch.lines[l].gesture.map { subscriptions[i].wants(gesture: $0, device: device, node: node) }
                            ?? subscriptions[i].wantsTouches(device: device, node: node)
                        if wanted, run == nil { run = start }
                        if !wanted, let from = run {
                            batches[i].writeBytes(batch.bytes[from..<start])
                            run = nil
                        }
                    }
                    if let from = run, let last = range.last { batches[i].writeBytes(batch.bytes[from..<batch.lines[last].end]) }
                }
            }
        }
        for i in batches.indices where batches[i].readableBytes > 0 {
            for client in members[i] {
                client.enqueue(batches[i])
                client.flush()
            }
        }
    }

    /// Whether some client subscribes to touches, kept for ``encode(_:)`` on the input thread.
    func subscriptionsChanged() {
        eventLoop.preconditionInEventLoop()
        let wanted = clients.values.contains { $0.subscription.touches }
        touchesWanted.withLockedValue { $0 = wanted }
    }

    // MARK: shutdown

    /// Sends every client the final `shutdown` message and closes it; the future completes when all
    /// are closed.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        shuttingDown = true
        let line = encode(.shutdown(ShutdownMessage(reason: reason)))
        let closes = clients.values.map { $0.sendFinal(line) }
        return EventLoopFuture.andAllComplete(closes, on: eventLoop)
    }

    func encode(_ message: ServerMessage) -> ByteBuffer {
        ByteBuffer(bytes: JSONLines.encode(message))
    }
}

/// What the input side hands to the ``Broadcaster``.
public enum InputNotice: Sendable {
    case added(DeviceInfo)
    case removed(DeviceInfo)
    /// Frames and gestures of one device (its id).
    case output(device: String, PipelineOutput)
}

/// A batch of ``InputNotice``s with every frame and gesture event already a line of JSON: the
/// lines back to back in one array, and for each what a subscription filters on. Made on the input
/// thread, so the event loop gets bytes: no gesture event crosses threads, and the event loop,
/// which also serves the clients, does no encoding.
public struct EncodedBatch: Sendable {
    enum Item: Sendable {
        case added(DeviceInfo)
        case removed(DeviceInfo)
        /// These lines (indices into ``lines``) are of this device (its id).
        case lines(device: String, Range<Int>)
    }

    struct Line: Sendable {
        /// Where the line ends in ``bytes`` (it starts where the one before it ends).
        var end: Int
        /// The gesture of a gesture event; nil for a touches line.
        var gesture: GestureKind?
    }

    private(set) var items: [Item] = []
    private(set) var bytes: [UInt8] = []
    private(set) var lines: [Line] = []
    /// Frames in which something changed, and gesture events: the status counters.
    private(set) var frames: UInt64 = 0
    private(set) var events: UInt64 = 0

    /// `touches`: whether to make touches lines (someone subscribes to them).
    init(_ notices: [InputNotice], touches: Bool) {
        // Sized once: grown line by line, the copies and reallocations cost a tenth of the encoding.
        var lineCount = 0
        for case .output(_, let output) in notices {
            lineCount += output.gestures.count + (touches ? output.frames.count : 0)
        }
        items.reserveCapacity(notices.count)
        lines.reserveCapacity(lineCount)
        bytes.reserveCapacity(lineCount * Self.typicalLineBytes + Self.lineBoundSlack)
        for notice in notices {
            switch notice {
            case .added(let info): items.append(.added(info))
            case .removed(let info): items.append(.removed(info))
            case .output(let device, let output):
                let first = lines.count
                for frame in output.frames where frame.hasChanges {
                    frames += 1
                    guard touches else { continue }
                    JSONLines.encode(.touches(frame.wireMessage(device: device)), into: &bytes)
                    lines.append(Line(end: bytes.count, gesture: nil))
                }
                // By index: no copy of the array per event (each event is still copied once to be
                // encoded: ~1,000 instructions per frame in the guest, docs/PERFORMANCE.md).
                for k in output.gestures.indices {
                    JSONLines.encode(output.gestures[k], into: &bytes)
                    lines.append(Line(end: bytes.count, gesture: output.gestures[k].gesture))
                }
                events += UInt64(output.gestures.count)
                if lines.count > first { items.append(.lines(device: device, first..<lines.count)) }
            }
        }
    }

    func start(ofLine index: Int) -> Int { index == 0 ? 0 : lines[index - 1].end }

    /// Room reserved per line: most gesture lines, with a covered region, and touches lines of
    /// two or three touches fit (a longer one grows the array once).
    static let typicalLineBytes = 1024
    /// And once for the batch: the writer asks for room for its bound on a line (~2.5 KB for an
    /// event with every field and a region), not for what it writes.
    static let lineBoundSlack = 4096
}
