import HandyFiles
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct POSIXFileTests {
    /// A pipe whose write end is filled by `bytes` and closed, read back through `readAll`.
    private func readBack(_ bytes: [UInt8], maximumBytes: Int, sizeHint: Int = 0) -> Result<
        [UInt8], POSIXFile.ReadFailure
    > {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { Issue.record("pipe: \(errno)"); return .failure(.system(errno)) }
        // A writer thread: a pipe holds 64 KiB, the reads below take more.
        var writer = pthread_t()
        let box = Unmanaged.passRetained(WriteJob(fd: ends[1], bytes: bytes))
        pthread_create(
            &writer, nil,
            { raw in
                let job = Unmanaged<WriteJob>.fromOpaque(raw!).takeRetainedValue()
                job.result = POSIXFile.writeAll(job.fd, job.bytes)
                close(job.fd)
                return nil
            }, box.toOpaque())
        let result = POSIXFile.readAll(ends[0], maximumBytes: maximumBytes, sizeHint: sizeHint)
        close(ends[0])
        pthread_join(writer, nil)
        return result
    }

    private final class WriteJob: @unchecked Sendable {
        let fd: Int32, bytes: [UInt8]
        var result: Int32 = -1
        init(fd: Int32, bytes: [UInt8]) { (self.fd, self.bytes) = (fd, bytes) }
    }

    @Test(arguments: [0, 1, 4095, 4096, 65_536, 300_001])
    func whatIsWrittenIsReadWhole(_ count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(readBack(bytes, maximumBytes: 1 << 20) == .success(bytes))
        // A wrong size hint (too small, too large) changes nothing.
        #expect(readBack(bytes, maximumBytes: 1 << 20, sizeHint: 10) == .success(bytes))
        #expect(readBack(bytes, maximumBytes: 1 << 20, sizeHint: 900_000) == .success(bytes))
    }

    @Test func theBoundIsExact() {
        let bytes = [UInt8](repeating: 0x61, count: 10_000)
        #expect(readBack(bytes, maximumBytes: 10_000) == .success(bytes))
        #expect(readBack(bytes, maximumBytes: 9_999) == .failure(.tooLarge))
        #expect(readBack(bytes, maximumBytes: 9_999, sizeHint: 10_000) == .failure(.tooLarge))
    }

    @Test func anEndlessSourceStopsAtTheBound() {
        let fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(POSIXFile.readAll(fd, maximumBytes: 1 << 20) == .failure(.tooLarge))
    }

    @Test func failuresGiveTheirErrno() {
        // A directory: read(2) says EISDIR.
        let dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(dir >= 0)
        defer { close(dir) }
        #expect(POSIXFile.readAll(dir, maximumBytes: 100) == .failure(.system(EISDIR)))
        #expect(POSIXFile.writeAll(dir, [1, 2, 3]) == EBADF)
        #expect(POSIXFile.writeAll(-1, Array("x".utf8)) == EBADF)
        #expect(POSIXFile.writeAll(-1, [UInt8]()) == 0, "nothing to write is no failure")
        #expect(POSIXFile.reason(ENOENT) == "No such file or directory")
    }

    @Test func aStringsBytesAreWrittenAsTheyAre() {
        let text = "pinch → right ✋ " + String(repeating: "x", count: 70_000)
        let fd = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(POSIXFile.writeAll(fd, text.utf8) == 0)
        #expect(readBack(Array(text.utf8), maximumBytes: 1 << 20) == .success(Array(text.utf8)))
    }
}
