import Foundation
import HandyTestSupport
import Testing

/// handyctl's output files and its errors: `-o` writes into what is there (a symlink's target, a
/// FIFO) the way a shell's `>` does, never replacing it; bad values are usage errors (64) that name
/// the option; failures say what and where in words, not a Foundation error's dump.
@Suite struct HandyctlOutputTests {
    static let demo = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path

    @Test func outputGoesThroughASymlinkAndIntoAFIFO() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target.evemu").path
        let link = folder.appendingPathComponent("link.evemu").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let run = try HandyctlProcess.run(["generate", "demo", "-o", link])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target, "the link was replaced")
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written == (try String(contentsOfFile: Self.demo, encoding: .utf8)))

        // A FIFO stays a FIFO and its reader gets the whole file. Both ends are open here before
        // handyctl starts: its open(2) cannot wait for a reader, and the reading thread sees EOF
        // only once our write end is closed after handyctl has exited (not before it opened).
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let readEnd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(readEnd >= 0)
        let writeEnd = open(fifo, O_WRONLY | O_CLOEXEC)
        try #require(writeEnd >= 0)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
        nonisolated(unsafe) var received = 0
        let done = DispatchSemaphore(value: 0)
        Thread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                received += n
            }
            done.signal()
        }.start()
        let viaFIFO = try HandyctlProcess.run(["generate", "demo", "-o", fifo])
        #expect(viaFIFO.status == 0, "\(viaFIFO.stderr)")
        close(writeEnd)
        done.wait()
        close(readEnd)
        #expect(received == written.utf8.count)
        var info = stat()
        #expect(stat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
    }

    @Test func anOutputThatCannotBeWrittenSaysWhyInWords() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try HandyctlProcess.run(["generate", "demo", "-o", folder.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot write \(folder.path): Is a directory"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
        let plot = try HandyctlProcess.run(["plot", Self.demo, "-o", folder.path + "/missing/x.svg"])
        #expect(plot.status == 1)
        #expect(plot.stderr.contains("No such file or directory"), "\(plot.stderr)")
        let eval = try HandyctlProcess.run(["eval", "handedness", Self.demo])
        #expect(eval.status == 1)
        #expect(eval.stderr.contains("not a folder") && !eval.stderr.contains("NSCocoaErrorDomain"), "\(eval.stderr)")
    }

    /// A PNG-only plot writes its SVG to a file of its own: a NAME.svg beside it is left alone.
    /// rsvg-convert is stood in for by a script copying its input (the PNG itself is not the point).
    @Test func aPNGOnlyPlotLeavesTheUsersSVGAlone() throws {
        let folder = try FixturePaths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let tool = bin.appendingPathComponent("rsvg-convert").path
        try "#!/bin/sh\nwhile [ $# -gt 1 ]; do [ \"$1\" = --output ] && out=$2; shift; done; cp \"$1\" \"$out\"\n"
            .write(toFile: tool, atomically: true, encoding: .utf8)
        #expect(chmod(tool, 0o755) == 0)
        let mine = folder.appendingPathComponent("mine.svg").path
        try "precious\n".write(toFile: mine, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try HandyctlProcess.path())
        process.arguments = ["plot", Self.demo, "-o", folder.appendingPathComponent("mine.png").path]
        process.environment = ProcessInfo.processInfo.environment.merging(["PATH": bin.path + ":/usr/bin:/bin"]) {
            _, new in new
        }
        #expect(try runToCompletion(process).status == 0)
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "precious\n")
        let png = try String(contentsOfFile: folder.appendingPathComponent("mine.png").path, encoding: .utf8)
        #expect(png.hasPrefix("<?xml"), "the converter got the plot")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
            $0.hasPrefix("handyctl-plot-\(process.processIdentifier)-")
        }
        #expect(leftovers.isEmpty, "the plot's own SVG is removed: \(leftovers)")
    }

    @Test(arguments: [
        (["plot", "--dot-every", "1e16"], "--dot-every"), (["plot", "--dot-every", "0.0001"], "--dot-every"),
        (["eval", "handedness", "/tmp", "--tier", "size"], "--tier needs --sensitivity"),
        (["eval", "handedness", "/tmp", "--weights", "positions=1,1,1"], "--weights"),
        (["eval", "handedness", "/tmp", "--weights", "positions=1,nan,1,1"], "--weights"),
        (["eval", "handedness", "/tmp", "--minimum-confidence", "nan"], "--minimum-confidence"),
        (["eval", "handedness", "/tmp", "--fit", "--json"], "--fit"),
        (["eval", "handedness", "/tmp", "--hover"], "--hover takes no DIR"),
        (["eval", "handedness", "--hover", "--count", "0"], "--count"),
        (["eval", "handedness", "--region"], "--region needs --hover"),
        (["eval", "handedness", "/tmp", "--fit-held-out"], "--fit-held-out needs --sensitivity"),
        (["eval", "handedness", "--sensitivity", "--fit-held-out", "--tier", "size"], "--fit-held-out"),
        (["eval", "handedness", "--sensitivity", "--fit-held-out", "--minimum-confidence", "0.7"], "--fit-held-out"),
        (["generate", "pinches", "/tmp/handyctl-never", "--count", "0"], "--count"),
    ])
    func valuesThatCannotWorkAreUsageErrors(_ arguments: [String], _ named: String) throws {
        let full = arguments.first == "plot" ? arguments + [Self.demo] : arguments
        let run = try HandyctlProcess.run(full)
        #expect(run.status == 64, "\(full): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains(named), "\(full): \(run.stderr)")
        // The subcommand's own usage line, not the top level's.
        #expect(run.stderr.contains("Usage: handyctl \(arguments[0])"), "\(full): \(run.stderr)")
    }

    @Test func noDaemonIsNamedWithItsSocket() throws {
        let path = "/tmp/handyd-absent-\(getpid()).sock"
        let run = try HandyctlProcess.run(["devices", "--socket", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot connect to handyd at \(path): No such file or directory"), "\(run.stderr)")
    }
}
