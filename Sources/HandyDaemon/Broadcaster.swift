import HandyCore
import HandyProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What one broadcaster published, reported by `{"type":"status"}` (the clients and the drops
/// span a group's broadcasters: ``ClientTally``).
struct PublishedCounts: Hashable, Sendable {
    /// Touch frames published (frames in which something changed).
    var frames: UInt64 = 0
    /// Gesture events published.
    var events: UInt64 = 0
}

/// The fan-out point of one event loop: knows the devices and the clients whose channels live on
/// that loop, and writes each batch's lines to every one of them that wants them.
///
/// Confined to its event loop; the input thread reaches it through ``encode(_:)`` and
/// ``deliver(_:)``. A batch is published on the input thread itself when every client has an
/// outlet (a Unix-socket client, ``ClientOutlet``), no earlier batch waits for the event loop
/// and it adds or removes no device: its bytes then go into the clients' sockets without waking
/// the event loop (one wake-up a frame, issue 53). Otherwise it waits in a ``DeliveryWindow``
/// for one hop. Nothing here blocks: a client whose socket is full has its bytes queued on the
/// event loop, and one whose backlog passes ``ServerLimits/maximumQueuedBytes`` is dropped. With more than one event loop
/// (`handyd --event-loops`), a ``BroadcasterGroup`` has one broadcaster per loop, each with its
/// share of the clients, and the counts that span them (clients, drops) in a ``ClientTally``.
///
/// `@unchecked Sendable`: its mutable state (clients, devices, counters) is touched only on
/// ``eventLoop`` (checked by `preconditionInEventLoop`), which is how NIO confines state; other
/// threads only call `encode` and `deliver`. What a publication on the input thread reads (the
/// groups, the counters, `shuttingDown`, the observer) is changed only under `roster`, which
/// that publication holds throughout; the devices and the group buffers it uses are changed by
/// the event loop's publications only, which never overlap it (it runs only while the
/// ``DeliveryWindow`` holds nothing, under whose lock the event loop releases what it published).
public final class Broadcaster: @unchecked Sendable {
    public let eventLoop: any EventLoop
    let limits: ServerLimits
    let logger: Logger
    let version: String
    let startedAt = MonotonicInstant.now()

    private var clients: [ObjectIdentifier: ClientConnection] = [:]
    /// One client of a group, as the input thread may use it: its outlet (nil: only the event loop
    /// writes to it) and whether it had subscribed when the groups were made.
    struct Member {
        let client: ClientConnection
        let outlet: ClientOutlet?
        let subscribed: Bool
    }
    /// Held by a publication on the input thread; taken by the event loop to change what it reads.
    private let roster = NIOLock()
    /// Every client has an outlet, so the input thread may publish (under `roster`).
    private var everyClientHasOutlet = true
    /// The clients grouped by subscription, and a buffer per group, kept by
    /// ``subscriptionsChanged()`` so that ``publish(_:direct:)`` makes no arrays per batch.
    private var groupSubscriptions: [Subscription] = []
    private var groupMembers: [[Member]] = []
    private var groupBuffers: [ByteBuffer] = []
    private var devices: [DeviceInfo] = []
    private var counters = PublishedCounts()
    /// The clients of every broadcaster of the group: the limit, `--wait-clients`, drops.
    let tally: ClientTally
    /// Which of its group's broadcasters this is, and how many there are (logs: the first one
    /// speaks for the group where they all see the same thing).
    let index: Int
    let groupSize: Int
    /// Whether a published batch's arrays go back to the input thread: only the first's in a group
    /// (they all read the same batch).
    private var recycles: Bool { index == 0 }
    private var shuttingDown = false
    /// The batches on their way from the input thread (``deliver(_:)``) to the event loop, and what
    /// flows back: the forms to encode and the arrays of a published batch.
    private let delivery = DeliveryWindow()
    /// The array the event loop takes delivered batches into (kept empty between drains).
    private var taken: [EncodedBatch] = []
    /// Called before and after each delivered batch is published (on the event loop, or on the
    /// input thread when it publishes): what the fan-out benchmark measures (docs/PERFORMANCE.md
    /// section 2). Nil in the daemon.
    @_spi(Benchmarks) public var publishObserver: PublishObserver? {
        get { roster.withLock { observer } }
        set { roster.withLock { observer = newValue } }
    }
    private var observer: PublishObserver?

    @_spi(Benchmarks) public struct PublishObserver {
        public var willPublish: () -> Void
        public var didPublish: () -> Void
        public init(willPublish: @escaping () -> Void, didPublish: @escaping () -> Void) {
            self.willPublish = willPublish
            self.didPublish = didPublish
        }
    }

    /// A broadcaster on `eventLoop`, number `index` of a group of `groupSize` that share `tally`.
    init(
        eventLoop: any EventLoop, limits: ServerLimits, version: String, logger: Logger, tally: ClientTally,
        index: Int, of groupSize: Int, healthBoard: DeviceHealthBoard = DeviceHealthBoard()
    ) {
        self.healthBoard = healthBoard
        self.eventLoop = eventLoop
        self.limits = limits
        self.version = version
        self.logger = logger
        self.tally = tally
        self.index = index
        self.groupSize = groupSize
    }

    // MARK: clients

    /// Registers a connected client; false when the server is full (the caller refuses it).
    func register(_ client: ClientConnection) -> Bool {
        eventLoop.preconditionInEventLoop()
        guard !shuttingDown, tally.admit(maximum: limits.maximumClients, webMaximum: client.webLimit) else {
            return false
        }
        clients[ObjectIdentifier(client)] = client
        subscriptionsChanged()
        return true
    }

    /// The limit a refused client met and its kind's word for the message ("WebSocket " or "").
    func refusal(for client: ClientConnection) -> (limit: Int, kind: String) {
        if let web = client.webLimit, tally.webClients >= web, tally.counts.clients < limits.maximumClients {
            return (web, "WebSocket ")
        }
        return (limits.maximumClients, "")
    }

    func unregister(_ client: ClientConnection) {
        eventLoop.preconditionInEventLoop()
        if clients.removeValue(forKey: ObjectIdentifier(client)) != nil {
            tally.leave(subscribed: client.hasSubscribed, web: client.webLimit != nil)
        }
        subscriptionsChanged()
    }

    /// The counts published so far (both threads add to them, under `roster`).
    private var published: PublishedCounts { roster.withLock { counters } }

    func clientSubscribed(_ client: ClientConnection) {
        eventLoop.preconditionInEventLoop()
        if let (subscribed, action) = tally.subscribed() {
            logger.info("enough clients subscribed, starting replay", metadata: ["clients.subscribed": "\(subscribed)"])
            action()
        }
    }

    func clientDropped() { tally.dropped() }

    var hello: HelloMessage { HelloMessage(version: version, devices: devices) }

    /// The devices announced now (on this broadcaster's loop).
    var devicesNow: [DeviceInfo] {
        eventLoop.preconditionInEventLoop()
        return devices
    }

    /// Every device's health counts (docs/PROTOCOL.md "Device health").
    let healthBoard: DeviceHealthBoard

    var status: StatusMessage {
        let unreadable = devices.filter { !$0.isReadable }
        let (clientCount, drops) = tally.counts
        let now = MonotonicInstant.now()
        // Every device announced now has an entry, with zero counts until something happens.
        var health = healthBoard.snapshot(now: now)
        for device in devices where device.isReadable && health[device.id] == nil { health[device.id] = DeviceHealth() }
        return StatusMessage(
            clients: clientCount, devices: devices.count - unreadable.count, frames: published.frames,
            events: published.events, drops: drops,
            uptime: Double((now.nanoseconds - startedAt.nanoseconds) / 1_000_000) / 1000,
            unreadable: unreadable.isEmpty ? nil : unreadable, health: health.isEmpty ? nil : health)
    }

    /// Calls `write` with the bytes of a status reply while no batch is published on the input
    /// thread: its frame and event counts are then exactly those of the batches written to this
    /// client before it. (A direct publication holds `roster` from its count to its last write; a
    /// reply read its count, then a batch went straight into the socket ahead of the reply's
    /// bytes, and a reader counted one frame more than its status said.) The other fields are read
    /// first, outside `roster` (they take their own locks). Returns what `write` returns.
    func writeStatus(_ write: (ByteBuffer) -> Bool) -> Bool {
        var message = status
        return roster.withLock {
            message.frames = counters.frames
            message.events = counters.events
            return write(encode(.status(message)))
        }
    }

    // MARK: input side

    /// Encodes the frames and gesture events of `notices` for ``publish(_:direct:)``. Called on the input
    /// thread (any thread): the event loop then only copies bytes. Each form is made only while
    /// some client receives it, and touches only while some client of that form subscribes to them.
    func encode(_ notices: [InputNotice]) -> EncodedBatch {
        let (forms, spare) = delivery.prepare()
        // The spare moved in, not swapped for a new empty one: each empty one made and destroyed was
        // ~200 instructions a batch (its seven arrays released one by one).
        return EncodedBatch(notices, forms: forms, reusingSpare: spare)
    }

    /// Keeps a published batch's arrays as `spare`, to hand back to the input thread to encode the
    /// next batch in, when they are worth it and this broadcaster recycles. Made there and freed here, each batch cost an allocation per array it filled
    /// (three in the full form, three more in the compact form), among them the ~9 KB of its bytes,
    /// freed across threads (docs/PERFORMANCE.md section 5). Only the channels keep its bytes
    /// (copied into their buffers), so the arrays are the spare's alone. A burst's large arrays are
    /// let go.
    private func offer(_ storage: consuming EncodedBatch.Storage, as spare: inout EncodedBatch.Storage?) {
        guard recycles, storage.bytes.capacity <= EncodedBatch.Storage.largestKeptBytes,
            storage.compactBytes.capacity <= EncodedBatch.Storage.largestKeptBytes
        else { return }
        spare = consume storage
    }

    /// Called on the input thread: hands `batch` (from ``encode(_:)``) to the event loop, which
    /// publishes it after every batch delivered before, and before anything the input thread
    /// queues on the event loop afterwards. The batch is moved, not captured: a hop's closure that
    /// held it cost its allocation and a copy of the batch, and there is at most one hop queued,
    /// however many batches wait (docs/PERFORMANCE.md section 5).
    ///
    /// Published here, on the input thread, when it can be (see the type's comment): true then.
    @discardableResult
    func deliver(_ batch: consuming EncodedBatch) -> Bool {
        // Only the input thread posts: idle now, nothing can be posted before this publication ends.
        if delivery.isIdle, !batch.changesDevices, publishHere(batch) {
            var spare: EncodedBatch.Storage?
            offer(batch.storage, as: &spare)
            if spare != nil { delivery.release(0, spare: &spare) }
            return true
        }
        if delivery.post(batch) {
            eventLoop.execute { self.publishDelivered() }
        }
        return false
    }

    /// Publishes `batch` on the calling (input) thread if every client can be written there;
    /// false (and nothing done) otherwise.
    private func publishHere(_ batch: borrowing EncodedBatch) -> Bool {
        roster.lock()
        defer { roster.unlock() }
        guard everyClientHasOutlet else { return false }
        guard !shuttingDown else { return true }
        observer?.willPublish()
        publish(batch, direct: true)
        observer?.didPublish()
        return true
    }

    /// For a ``BroadcasterGroup`` encoding once for all its broadcasters (input thread): what this
    /// one's clients receive, and the arrays handed back (only from a broadcaster that recycles).
    func prepareEncoding() -> (forms: EncodedForms, spare: EncodedBatch.Storage?) {
        delivery.prepare()
    }

    private func publishDelivered() {
        eventLoop.preconditionInEventLoop()
        var batches: [EncodedBatch] = []
        swap(&batches, &taken)
        delivery.take(into: &batches)
        let count = batches.count
        // Popped from the end, so each batch is moved out whole and its arrays move on to the
        // spare: nothing retained, nothing left behind to destroy. Nearly always one batch.
        if count > 1 { batches.reverse() }
        // The arrays of one go back with the release, under the same lock (the input thread
        // encodes into one spare at a time).
        var spare: EncodedBatch.Storage?
        let observer = publishObserver
        while let batch = batches.popLast() {
            observer?.willPublish()
            publish(batch, direct: false)
            observer?.didPublish()
            // Unconditionally handed on as the batch's last use, so its arrays are moved, not
            // copied (a copy retains each array and the batch's end releases them again).
            offer(batch.storage, as: &spare)
        }
        swap(&batches, &taken)
        delivery.release(count, spare: &spare)
    }

    /// Publishes one batch the input thread produced (encoded there by ``encode(_:)``); its arrays
    /// are the caller's to recycle. `direct`: on the input thread, `roster` held, every client with
    /// an outlet and no device added or removed; otherwise on the event loop.
    private func publish(_ batch: borrowing EncodedBatch, direct: Bool) {
        if direct {
            counters.frames += batch.frames
            counters.events += batch.events
        } else {
            eventLoop.preconditionInEventLoop()
            guard !shuttingDown else { return }
            roster.withLock {
                counters.frames += batch.frames
                counters.events += batch.events
            }
            // The backlog is judged before new data is added: what is still unwritten from earlier
            // batches, after the event loop had time to write it. A burst (a replay catching up
            // after a stall) to a client that reads fine is not a slow client. (A client with an
            // outlet is judged on each drain of it too, which is what happens on the input thread.)
            for client in clients.values { client.dropIfBacklogged() }
        }
        // Clients with the same subscription get the same bytes: each distinct subscription's
        // lines for this batch go into one buffer, and each client gets ONE writeAndFlush
        // per batch, instead of one NIO write per line per client (docs/PERFORMANCE.md section 2).
        // The groups are kept between batches.
        let subscriptions = groupSubscriptions
        let members = groupMembers
        var batches: [ByteBuffer] = []
        swap(&batches, &groupBuffers)
        if batches.count != subscriptions.count {
            batches = [ByteBuffer](repeating: ByteBuffer(), count: subscriptions.count)
        }
        defer {
            // Emptied, not replaced: a channel has normally written a client's bytes, and let go
            // of them, before `send` returns, so the next batch goes into the same memory instead
            // of a new allocation freed after the write (docs/PERFORMANCE.md section 5). A buffer
            // a channel still holds is replaced by `clear()`; one a burst made large is let go.
            // The array is kept for the next batch, unless the groups changed meanwhile (a client
            // whose write failed was unregistered from inside `flush`): then they came with their
            // own buffers.
            for i in batches.indices {
                if batches[i].capacity > EncodedBatch.Storage.largestKeptBytes {
                    batches[i] = ByteBuffer()
                } else {
                    batches[i].clear()
                }
            }
            if groupBuffers.isEmpty && batches.count == groupSubscriptions.count { swap(&batches, &groupBuffers) }
        }
        var line: [UInt8] = []
        // Read where they are: iterated, each item was copied (a retain and release of its device id).
        batch.storage.items.withUnsafeBufferPointer { items in
            for k in items.indices {
                switch items[k] {
                case .added(let info):
                    // A device that could not be read and now can is announced again under its id.
                    devices.removeAll { $0.id == info.id }
                    devices.append(info)
                    if info.isReadable && index == 0 {
                        logger.info(
                            "device added", metadata: ["device.id": "\(info.id)", "device.name": "\(info.name)"])
                    }
                    line.removeAll(keepingCapacity: true)
                    JSONLines.encode(.device(DeviceMessage(event: .added, device: info)), into: &line)
                    for i in batches.indices { batches[i].writeBytes(line) }
                case .removed(let info):
                    devices.removeAll { $0.id == info.id }
                    if index == 0 { logger.info("device removed", metadata: ["device.id": "\(info.id)"]) }
                    line.removeAll(keepingCapacity: true)
                    JSONLines.encode(.device(DeviceMessage(event: .removed, device: info)), into: &line)
                    for i in batches.indices { batches[i].writeBytes(line) }
                case .health(let message):
                    line.removeAll(keepingCapacity: true)
                    JSONLines.encode(.device(message), into: &line)
                    for i in batches.indices { batches[i].writeBytes(line) }
                case .lines(let device, let range, let frames, let hover):
                    // A filter may name the kernel node instead of the id; looked up only for a
                    // subscription that filters by device (a search and a string retained a batch).
                    let node =
                        subscriptions.allSatisfy { $0.devices == nil }
                        ? nil
                        : devices.firstIndex { $0.id == device }.flatMap { devices[$0].node }
                    for i in subscriptions.indices {
                        if Self.usesCompactLines(
                            subscriptions[i].form, hasFull: batch.hasFull, hasCompact: batch.hasCompact)
                        {
                            batch.writeCompact(
                                frames, device: device, node: node, for: subscriptions[i], into: &batches[i])
                            continue
                        }
                        // Every line wanted (no filter, touches on: the usual subscriber): one
                        // copy, without asking line by line (~25 instructions a line).
                        // (Not where some touches lines are for hover subscribers only, or for
                        // the others only.)
                        if subscriptions[i].wantsEveryLine, !hover, let last = range.last {
                            batches[i].writeBytes(
                                batch.storage.bytes,
                                in: batch.start(ofLine: range.lowerBound)..<batch.storage.lineEnds[last])
                            continue
                        }
                        // Consecutive wanted lines are one copy.
                        var run: Int?
                        for l in range {
                            let start = batch.start(ofLine: l)
                            let wanted =
                                batch.storage.lineGestures[l].map {
                                    subscriptions[i].wants(gesture: $0, device: device, node: node)
                                }
                                ?? (subscriptions[i].wantsTouches(device: device, node: node)
                                    && (!hover
                                        || batch.storage.hoverLines[l].map { $0 == subscriptions[i].hover } ?? true))
                            if wanted, run == nil { run = start }
                            if !wanted, let from = run {
                                batches[i].writeBytes(batch.storage.bytes, in: from..<start)
                                run = nil
                            }
                        }
                        if let from = run, let last = range.last {
                            batches[i].writeBytes(batch.storage.bytes, in: from..<batch.storage.lineEnds[last])
                        }
                    }
                }
            }
        }
        for i in batches.indices where batches[i].readableBytes > 0 {
            // A client that never subscribed did not ask for the batch encoded before it connected.
            let form = subscriptions[i].form
            let fallback =
                Self.usesCompactLines(form, hasFull: batch.hasFull, hasCompact: batch.hasCompact) != (form == .compact)
            for member in members[i] where !fallback || member.subscribed {
                if let outlet = member.outlet {
                    if outlet.write(batches[i]) { member.client.scheduleDrain() }
                } else {
                    member.client.send(batches[i])
                }
            }
        }
    }

    /// Whether a subscription of `form` gets a batch's compact lines. A subscription that just
    /// changed form may meet a batch encoded before: it gets the form the batch has
    /// (docs/PROTOCOL.md "frame (compact form)"). Static, on the flags: a batch passed by value is
    /// retained array by array.
    private static func usesCompactLines(_ form: WireForm, hasFull: Bool, hasCompact: Bool) -> Bool {
        form == .compact ? hasCompact || !hasFull : !hasFull && hasCompact
    }

    /// Groups the clients by subscription for ``publish(_:direct:)``, and keeps which forms, and touches
    /// in which, the clients receive for ``encode(_:)`` on the input thread. With no client the
    /// full form is made, as it was before forms existed (a client that connects then gets the
    /// batch in flight).
    func subscriptionsChanged() {
        eventLoop.preconditionInEventLoop()
        var subscriptions: [Subscription] = []
        var members: [[Member]] = []
        var outlets = true
        for client in clients.values {
            let member = Member(client: client, outlet: client.outlet, subscribed: client.hasSubscribed)
            if member.outlet == nil { outlets = false }
            if let i = subscriptions.firstIndex(of: client.subscription) {
                members[i].append(member)
            } else {
                subscriptions.append(client.subscription)
                members.append([member])
            }
        }
        roster.withLock {
            groupSubscriptions = subscriptions
            groupMembers = members
            groupBuffers = [ByteBuffer](repeating: ByteBuffer(), count: subscriptions.count)
            everyClientHasOutlet = outlets
        }
        var wanted = EncodedForms.nothing
        for client in clients.values { wanted.include(EncodedForms(receivedBy: client.subscription)) }
        delivery.setForms(wanted.toEncode)
    }

    // MARK: shutdown

    /// Sends every client the final `shutdown` message and closes it; the future completes when all
    /// are closed.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        // Under the lock: no publication on the input thread is under way or starts after it.
        roster.withLock { shuttingDown = true }
        let line = encode(.shutdown(ShutdownMessage(reason: reason)))
        let closes = clients.values.map { $0.sendFinal(line) }
        return EventLoopFuture.andAllComplete(closes, on: eventLoop)
    }

    func encode(_ message: ServerMessage) -> ByteBuffer {
        ByteBuffer(bytes: JSONLines.encode(message))
    }
}
