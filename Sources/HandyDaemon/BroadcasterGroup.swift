import HandyProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The daemon's broadcasters: one per event loop of the server (`handyd --event-loops N`, one by
/// default). NIO places each accepted client on a loop of the group in turn; the client is served
/// by that loop's ``Broadcaster``. The input thread encodes each batch once and delivers it to
/// every broadcaster, so with N loops the writes to the clients run on N threads at once instead of
/// one after another (docs/PERFORMANCE.md section 2: the server's part of the latency at 64
/// subscribers). One loop costs the least CPU per frame (one hop), so it stays the default.
///
/// What spans the loops is counted in one ``ClientTally``: the clients (for `--max-clients` and
/// `status`), those subscribed (for `--wait-clients`) and the drops. Every broadcaster publishes
/// every batch, so each knows every device and counts every frame and event.
public final class BroadcasterGroup: Sendable {
    /// One per event loop, in the group's order; the first hands published arrays back.
    public let broadcasters: [Broadcaster]
    /// The broadcaster when there is one (the default): delivered to without the loop below.
    private let single: Broadcaster?
    let tally: ClientTally
    let metrics: DaemonMetrics?
    let healthBoard: DeviceHealthBoard

    /// A broadcaster on each of `eventLoops` (distinct loops, at least one).
    public init(
        eventLoops: [any EventLoop], limits: ServerLimits, version: String, logger: Logger,
        healthBoard: DeviceHealthBoard = DeviceHealthBoard(), metrics: DaemonMetrics? = nil
    ) {
        precondition(!eventLoops.isEmpty, "a broadcaster group needs an event loop")
        let tally = ClientTally()
        self.tally = tally
        self.metrics = metrics
        self.healthBoard = healthBoard
        broadcasters = eventLoops.enumerated().map { i, loop in
            Broadcaster(
                eventLoop: loop, limits: limits, version: version, logger: logger, tally: tally, index: i,
                of: eventLoops.count,
                healthBoard: healthBoard)
        }
        single = broadcasters.count == 1 ? broadcasters[0] : nil
    }

    /// A broadcaster on each loop of `group`.
    public convenience init(
        group: MultiThreadedEventLoopGroup, limits: ServerLimits, version: String, logger: Logger,
        healthBoard: DeviceHealthBoard = DeviceHealthBoard(), metrics: DaemonMetrics? = nil
    ) {
        self.init(
            eventLoops: Array(group.makeIterator()), limits: limits, version: version, logger: logger,
            healthBoard: healthBoard,
            metrics: metrics)
    }

    /// The broadcaster serving the clients on `eventLoop` (a client channel's loop).
    func broadcaster(on eventLoop: any EventLoop) -> Broadcaster {
        guard let found = broadcasters.first(where: { $0.eventLoop === eventLoop }) else {
            preconditionFailure("handyd bug: a client on an event loop without a broadcaster")
        }
        return found
    }

    /// Called on the input thread: encodes `notices` once, in every form some client of some
    /// broadcaster receives, and hands the batch to each broadcaster (one hop per loop).
    public func deliver(_ notices: [InputNotice]) {
        guard let metrics else {
            publish(notices)
            return
        }
        // Metrics on: the batch counted by device, kind and hand, and the time from here to the
        // first event loop having published it.
        metrics.count(notices)
        let handedOver = MonotonicInstant.now()
        if publish(notices) {
            // Published here, on the input thread: its bytes are in the clients' sockets.
            metrics.latency.recordNanoseconds(MonotonicInstant.now().nanoseconds - handedOver.nanoseconds)
            return
        }
        // Queued behind the batch's publication on the same loop.
        broadcasters[0].eventLoop.execute {
            metrics.latency.recordNanoseconds(MonotonicInstant.now().nanoseconds - handedOver.nanoseconds)
        }
    }

    /// Encodes `notices` once, in every form some loop's clients receive, and hands the batch to
    /// every loop. True when every loop's clients got it on this thread (``Broadcaster/deliver(_:)``).
    @inline(__always)
    @discardableResult
    private func publish(_ notices: [InputNotice]) -> Bool {
        if let single {
            return single.deliver(single.encode(notices))
        }
        var forms = EncodedForms.nothing
        var storage: EncodedBatch.Storage?
        for broadcaster in broadcasters {
            let (wanted, spare) = broadcaster.prepareEncoding()
            forms.include(wanted)
            // Only one loop holds the spare at a time (the input thread encodes into one at a time).
            if spare != nil { storage = consume spare }
        }
        let batch = EncodedBatch(notices, forms: forms.toEncode, reusingSpare: consume storage)
        var here = true
        for broadcaster in broadcasters where !broadcaster.deliver(batch) { here = false }
        return here
    }

    /// What a scrape reads, on the first broadcaster's loop.
    func metricsState() -> EventLoopFuture<DaemonMetrics.DaemonState> {
        let broadcaster = broadcasters[0]
        let tally = tally
        let board = healthBoard
        return broadcaster.eventLoop.submit {
            let (clients, drops) = tally.counts
            return DaemonMetrics.DaemonState(
                devices: broadcaster.devicesNow, clients: clients, webClients: tally.webClients,
                slowClientDrops: drops, health: board.snapshot())
        }
    }

    /// Runs `action` (on some event loop) once `count` clients have subscribed, over all loops.
    public func whenSubscribed(count: Int, _ action: @escaping @Sendable () -> Void) {
        tally.whenSubscribed(count: count, action)
    }

    /// Blocks until every broadcaster has sent each of its clients `shutdown` and they are closed.
    /// Never call it on an event loop.
    func shutdown(reason: String) {
        let closed = broadcasters.map { broadcaster in
            broadcaster.eventLoop.flatSubmit { broadcaster.shutdown(reason: reason) }
        }
        for future in closed { try? future.wait() }
    }

    /// Completes once every broadcaster has published what the input thread delivered before this
    /// call (the initial device scan: a client's hello then lists every device).
    func publishedSoFar() -> EventLoopFuture<Void> {
        let loop = broadcasters[0].eventLoop
        let published = broadcasters.map { broadcaster in
            // Queued behind the batches delivered so far (their drain is queued on the same loop).
            broadcaster.eventLoop.submit {}
        }
        return EventLoopFuture.andAllSucceed(published, on: loop)
    }
}

/// The counts that span a group's broadcasters, under one lock: touched when a client comes, goes,
/// subscribes or is dropped, never per frame.
final class ClientTally: Sendable {
    private struct State {
        var clients = 0
        /// Of `clients`, those on the WebSocket endpoint.
        var webClients = 0
        var subscribed = 0
        var drops: UInt64 = 0
        /// Run once when `subscribed` reaches `count` (`--wait-clients`).
        var waiting: (count: Int, action: @Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())

    /// Counts a new client unless `maximum` are connected already or, for a WebSocket client
    /// (`webMaximum` given), `webMaximum` WebSocket clients are; false: refuse it.
    func admit(maximum: Int, webMaximum: Int? = nil) -> Bool {
        state.withLockedValue { state in
            guard state.clients < maximum else { return false }
            if let webMaximum {
                guard state.webClients < webMaximum else { return false }
                state.webClients += 1
            }
            state.clients += 1
            return true
        }
    }

    func leave(subscribed: Bool, web: Bool = false) {
        state.withLockedValue { state in
            state.clients -= 1
            if web { state.webClients -= 1 }
            if subscribed { state.subscribed -= 1 }
        }
    }

    var webClients: Int { state.withLockedValue { $0.webClients } }

    /// Counts a client's first subscription; the `--wait-clients` action (and the count) when this
    /// one reached it, to be run by the caller outside the lock.
    func subscribed() -> (count: Int, action: @Sendable () -> Void)? {
        state.withLockedValue { state in
            state.subscribed += 1
            guard let waiting = state.waiting, state.subscribed >= waiting.count else { return nil }
            state.waiting = nil
            return (state.subscribed, waiting.action)
        }
    }

    func whenSubscribed(count: Int, _ action: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.waiting = (count, action) }
    }

    func dropped() { state.withLockedValue { $0.drops += 1 } }

    /// Connected clients and drops, for `status`.
    var counts: (clients: Int, drops: UInt64) { state.withLockedValue { ($0.clients, $0.drops) } }
}
