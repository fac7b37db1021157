import NIOCore
import Testing

@testable import HandyDaemon

#if canImport(Glibc)
import Glibc
#endif

/// ``ClientOutlet``'s state machine on a real socket pair, without a daemon: the transitions the
/// daemon's tests only reach by timing (`aClientFallingBehindAndCatchingUpLosesNoByteAndKeepsTheirOrder`)
/// made one by one, and the order of the bytes the peer reads checked at each step.
@Suite struct ClientOutletTests {
    /// A connected pair: the outlet's end (non-blocking, a small send buffer so a few writes fill
    /// it) and the peer's.
    static func socketPair() throws -> (outlet: Int32, peer: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw OutletTestError("socketpair: \(String(cString: strerror(errno)))")
        }
        var small: Int32 = 4096
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// Everything the peer can read now (non-blocking).
    static func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return all }
            all.append(contentsOf: chunk[..<n])
        }
    }

    /// What the channel does with bytes the outlet gave it: writes them all into `socket`, the
    /// peer reading (into `read`) whenever the socket is full.
    static func writeAsTheChannel(_ bytes: ByteBuffer, socket: Int32, peer: Int32, read: inout [UInt8]) {
        var rest = bytes
        while rest.readableBytes > 0 {
            let sent = rest.withUnsafeReadableBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { rest.moveReaderIndex(forwardBy: sent) } else { read += drain(peer) }
        }
    }

    /// A line of `count` bytes numbered `n`, so any reordering shows in what the peer reads.
    static func line(_ n: Int, count: Int = 1000) -> ByteBuffer {
        let head = Array("\(n) ".utf8)
        return ByteBuffer(bytes: head + [UInt8](repeating: UInt8(ascii: "x"), count: count - head.count - 1) + [10])
    }

    @Test func itStaysQueuedWhileTheChannelHoldsItsBytesAndKeepsTheirOrder() throws {
        let (socket, peer) = try Self.socketPair()
        defer {
            close(socket)
            close(peer)
        }
        let outlet = ClientOutlet(socket: socket, maximumPendingBytes: 1 << 20)
        // Made queued with a drain owed; the drain finds nothing and hands it back.
        #expect(outlet.currentMode == .queued)
        #expect(outlet.takePending().bytes.readableBytes == 0)
        #expect(outlet.handBack())

        // Direct: lines go straight into the socket until it is full.
        var expected: [UInt8] = []
        var n = 0
        var drainOwed = false
        while !drainOwed && n < 1000 {
            let l = Self.line(n)
            expected += Array(l.readableBytesView)
            drainOwed = outlet.write(l)
            n += 1
        }
        #expect(drainOwed, "the socket filled and the outlet turned queued")
        #expect(outlet.currentMode == .queued)
        // Queued: a write now waits, and owes no second drain.
        let late = Self.line(n)
        expected += Array(late.readableBytesView)
        #expect(!outlet.write(late))
        n += 1

        // The event loop's drain: what waits goes to the channel, which has not written it yet.
        let (taken, overflowed) = outlet.takePending()
        #expect(!overflowed && taken.readableBytes > 0)
        outlet.gaveToChannel(taken.readableBytes)
        // Asked to hand back while the channel holds those bytes, it stays queued: a direct send
        // now would overtake them.
        #expect(!outlet.handBack())
        #expect(outlet.currentMode == .queued)
        // The peer reads room into the socket; a write still does not go straight in.
        var read = Self.drain(peer)
        let afterRoom = Self.line(n)
        n += 1
        #expect(outlet.write(afterRoom), "a new drain is owed")
        #expect(Self.drain(peer).isEmpty, "nothing was sent while the channel holds bytes")

        // The channel writes what it was given (here: this test, in its place), in order.
        Self.writeAsTheChannel(taken, socket: socket, peer: peer, read: &read)
        outlet.channelWrote(taken.readableBytes)
        // The drain owed by the last write: it too goes to the channel and is written.
        let (second, _) = outlet.takePending()
        #expect(Array(second.readableBytesView) == Array(afterRoom.readableBytesView))
        outlet.gaveToChannel(second.readableBytes)
        Self.writeAsTheChannel(second, socket: socket, peer: peer, read: &read)
        outlet.channelWrote(second.readableBytes)
        expected += Array(afterRoom.readableBytesView)
        // Nothing waits anywhere: direct again, and the next line goes straight in.
        #expect(outlet.handBack())
        read += Self.drain(peer)
        let last = Self.line(n)
        expected += Array(last.readableBytesView)
        #expect(!outlet.write(last))
        read += Self.drain(peer)
        #expect(read == expected, "every byte, in order: \(read.count) of \(expected.count)")
    }

    @Test func aClosedOutletSendsNothingAndReturnsWhatWasPending() throws {
        let (socket, peer) = try Self.socketPair()
        defer {
            close(socket)
            close(peer)
        }
        let outlet = ClientOutlet(socket: socket, maximumPendingBytes: 1 << 20)
        // Queued from the start: a write waits in `pending`.
        _ = outlet.write(Self.line(0))
        let pending = outlet.close()
        #expect(pending.readableBytes == 1000)
        #expect(outlet.currentMode == .closed)
        #expect(!outlet.write(Self.line(1)))
        #expect(!outlet.handBack())
        #expect(Self.drain(peer).isEmpty)
    }
}

struct OutletTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
