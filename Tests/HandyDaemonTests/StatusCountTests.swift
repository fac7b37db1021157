import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

/// A status reply's counts against the stream its client read, while the input thread writes
/// batches straight into the client's socket (``ClientOutlet``). In DaemonTests' serialized suite:
/// its replay at 8× would load the machine under the timing tests beside it.
extension DaemonTests {
    /// Every status reply counts exactly the frames written to its client before it: requests sent
    /// one after another as the replies come, for 4 s while the replay runs at 8× (thousands),
    /// each against the touch frames read before its reply. (A reply that read the count and then
    /// let a batch go ahead of it said one frame fewer than its client had; seen once in a CI run
    /// by `aClientThatNeverReadsIsDroppedAndTheOthersMissNothing`, which asks ten times a second.)
    @Test func everyStatusCountsExactlyTheFramesBeforeIt() throws {
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture(busyFixture), "--loop", "--speed", "8", "--wait-clients", "1",
        ])
        let reader = try LineClient(socketPath: daemon.socketPath)
        _ = try reader.readMessage()
        try reader.send(#"{"type":"subscribe","touches":true,"gestures":[]}"# + "\n")
        let touchesPrefix = Array(#"{"type":"touches""#.utf8)
        var frames: UInt64 = 0
        // What the daemon had counted before this client subscribed: the same in every reply.
        var offset: Int64?
        var replies = 0
        var wrong: [String] = []
        let end = Date().addingTimeInterval(4)
        while Date() < end {
            guard let s = try reader.requestStatus(countingAndSkipping: touchesPrefix, count: &frames) else {
                Issue.record("reader disconnected: \(daemon.log.suffix(1500))")
                return
            }
            replies += 1
            let now = Int64(s.frames) - Int64(frames)
            if offset == nil, frames > 0 { offset = now }
            if let offset, now != offset, wrong.count < 5 {
                wrong.append(
                    "reply \(replies): status \(s.frames) frames, \(frames) read (offset \(now), was \(offset))")
            }
        }
        #expect(replies >= 200, "\(replies) replies in 4 s")
        #expect(frames > 200, "a stream to count: \(frames) frames read")
        #expect(wrong.isEmpty, "\(wrong)")
    }
}
