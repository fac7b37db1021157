import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where one Unix-socket client's bytes go: straight into its socket from whichever thread has
/// them while the socket takes them, or into its channel on the event loop once it does not.
///
/// Why: handing every batch from the input thread to the event loop woke two threads a frame
/// (the input thread on the device, the event loop on the hop), and the second wake-up was most
/// of the daemon's CPU a frame in the qemu guest (issue 53, docs/PERFORMANCE.md section 5). A
/// client that keeps up has room in its socket, so the input thread writes its bytes itself
/// with one non-blocking `send`; only a client that falls behind costs the event loop anything,
/// and its bytes then wait in NIO's buffer, bounded as before (``ServerLimits``), so it never
/// slows the reading of devices or the other clients.
///
/// The state machine, under `lock` (every transition, and every `send`, holds it, so bytes keep
/// their order whichever thread writes):
///
/// - ``Mode/direct``: nothing of this client's waits anywhere in the daemon. ``write(_:)`` sends
///   at once; what the socket does not take (a short write, `EAGAIN`, an error) is kept in
///   `pending` and the outlet turns ``Mode/queued``, a drain owed.
/// - ``Mode/queued``: bytes wait in `pending` (not yet given to the channel) or in the channel.
///   ``write(_:)`` appends to `pending`, never sends. The event loop owes a drain while
///   `drainOwed` is set: ``takePending()`` moves `pending` to the channel (clearing it), and once
///   the channel has written all it was given and nothing more is pending, ``handBack()`` turns
///   it ``Mode/direct`` again. `pending` and what the channel holds
///   together past the client's bound mark it overflowed: the event loop drops the client as
///   too slow on the drain owed.
/// - ``Mode/closed``: the connection is closing or closed; writes are dropped, the descriptor is
///   never used again.
///
/// An outlet is made when its client first subscribes and starts ``Mode/queued`` with a drain
/// owed: what the channel already holds (hello, replies, batches written by the event loop) goes
/// first, and whatever a batch brought in the meantime after it.
///
/// The descriptor is the channel's own (a duplicate would count twice against the descriptors a
/// client may use, docs/RELIABILITY.md). Every close the daemon starts marks the outlet closed
/// first; NIO closes it on its own only on a failed write (the outlet is queued then, nothing is
/// sent) or a reset it sees, and marks it closed in `channelInactive` in the same turn of the
/// event loop. In that gap the number could only be reused by a socket made on another thread
/// (`send` on anything else fails, `ENOTSOCK`): outlets are made only with one event loop, whose
/// thread makes the sockets; the input thread makes none while clients are served.
///
/// `@unchecked Sendable`: every stored property but the constants is touched only under `lock`.
final class ClientOutlet: @unchecked Sendable {
    enum Mode: Equatable { case direct, queued, closed }

    private let lock = NIOLock()
    private var mode = Mode.queued
    /// The channel's socket (non-blocking).
    private let fileDescriptor: Int32
    private var pending = ByteBuffer()
    private var drainOwed = true
    private var overflowed = false
    /// Bytes given to the channel and not yet written by it: with `pending`, all the daemon holds
    /// for this client, which the bound is judged on (as NIO's count alone was before outlets).
    private var inChannelBytes = 0
    /// Past this many bytes pending and in the channel the client is too slow (its bound,
    /// ``ServerLimits/maximumQueuedBytes``).
    let maximumPendingBytes: Int

    /// An outlet on the channel's `socket`.
    init(socket: Int32, maximumPendingBytes: Int) {
        fileDescriptor = socket
        self.maximumPendingBytes = maximumPendingBytes
    }

    /// The mode now (tests, logs).
    var currentMode: Mode { lock.withLock { mode } }

    /// Any thread: sends `bytes` behind everything written before. True when the caller must have
    /// the event loop drain the outlet (a drain became owed by this write).
    func write(_ bytes: ByteBuffer) -> Bool {
        lock.withLock {
            switch mode {
            case .closed:
                return false
            case .direct:
                let sent = sendNow(bytes)
                if sent == bytes.readableBytes { return false }
                var rest = bytes
                rest.moveReaderIndex(forwardBy: sent)
                pending.writeImmutableBuffer(rest)
                mode = .queued
                drainOwed = true
                return true
            case .queued:
                if !overflowed {
                    // Judged before the new bytes are added, as the event loop judges a batch.
                    if pending.readableBytes + inChannelBytes > maximumPendingBytes {
                        // More than the bound waits for it in the daemon: let go of what is
                        // pending, the drain drops the client.
                        overflowed = true
                        pending = ByteBuffer()
                    } else {
                        pending.writeImmutableBuffer(bytes)
                    }
                }
                if drainOwed { return false }
                drainOwed = true
                return true
            }
        }
    }

    /// Event loop, on the drain owed: what waits, to give to the channel (in order, after
    /// everything given to it before), and whether the client passed its bound meanwhile.
    func takePending() -> (bytes: ByteBuffer, overflowed: Bool) {
        lock.withLock {
            var taken = ByteBuffer()
            swap(&taken, &pending)
            drainOwed = false
            return (taken, overflowed)
        }
    }

    /// Event loop: `count` bytes taken from `pending` were given to the channel.
    func gaveToChannel(_ count: Int) {
        lock.withLock { inChannelBytes += count }
    }

    /// Event loop: the channel has written (or failed) a write of `count` bytes.
    func channelWrote(_ count: Int) {
        lock.withLock { inChannelBytes -= count }
    }

    /// Event loop, once the channel has written everything it was given: back to direct unless
    /// more came meanwhile (then a drain is owed and will call again). True if it is direct now.
    /// The outlet keeps its own invariant too: while bytes it gave the channel are not written, it
    /// stays queued whoever asks (a direct `send` then would overtake them).
    @discardableResult
    func handBack() -> Bool {
        lock.withLock {
            if mode == .queued && !drainOwed && !overflowed && pending.readableBytes == 0 && inChannelBytes == 0 {
                mode = .direct
            }
            return mode == .direct
        }
    }

    /// Event loop, before the channel is closed: nothing more is sent (a `send` under way has
    /// finished: it holds the lock); what was pending is returned (to go before a last line).
    @discardableResult
    func close() -> ByteBuffer {
        lock.withLock {
            mode = .closed
            var taken = ByteBuffer()
            swap(&taken, &pending)
            return overflowed ? ByteBuffer() : taken
        }
    }

    /// One non-blocking `send` (again on `EINTR`): the bytes the socket took, 0 when it took none
    /// or failed (the channel's own write then meets the failure and closes the connection).
    private func sendNow(_ bytes: ByteBuffer) -> Int {
        bytes.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return 0 }
            while true {
                let n = send(fileDescriptor, base, raw.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
                if n >= 0 { return n }
                if errno != EINTR { return 0 }
            }
        }
    }
}
