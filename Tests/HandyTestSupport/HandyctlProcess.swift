import Foundation

/// The built `handyctl`'s path (``HandyctlProcess/path()``), or where it should be when it is not
/// built (starting it then fails with that path in the error).
package let handyctlBinary: String =
    (try? HandyctlProcess.path())
    ?? URL(fileURLWithPath: handydBinary).deletingLastPathComponent().appendingPathComponent("handyctl").path

/// The built `handyctl` run as a process, as a user runs it.
package enum HandyctlProcess {
    package struct Run {
        package var status: Int32
        package var stdout: [UInt8]
        package var stderr: String
        package var lines: [ArraySlice<UInt8>] { stdout.split(separator: UInt8(ascii: "\n")) }
        /// Standard output then standard error, for a check that looks in either.
        package var output: String { String(decoding: stdout, as: UTF8.self) + stderr }
    }

    /// `handyctl` sits beside `handyd` (``handydBinary``: `$HANDYD_BINARY`'s folder, so a sanitizer
    /// build's tests run that build's handyctl too) or beside the test bundle in the build folder.
    package static func path() throws -> String {
        let folders = searchedFolders
        for folder in folders {
            let candidate = folder.appendingPathComponent("handyctl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NotBuilt(searched: folders.map(\.path))
    }

    static var searchedFolders: [URL] {
        var folders = [URL(fileURLWithPath: handydBinary).deletingLastPathComponent()]
        if let exe = Bundle.main.executableURL { folders.append(exe.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        if let arg0 = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: arg0).deletingLastPathComponent())
        }
        folders.append(FixturePaths.packageRoot.appendingPathComponent(".build/debug"))
        return folders
    }

    package struct NotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        package var description: String {
            "handyctl binary not found (build it: swift build --product handyctl); looked in \(searched)"
        }
    }

    /// Runs `handyctl arguments` with standard input at its end; killed and thrown past
    /// `timeoutSeconds`.
    package static func run(_ arguments: [String], timeoutSeconds: Double = 60) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let run = try runToCompletion(process, timeoutSeconds: timeoutSeconds)
        return Run(status: run.status, stdout: run.stdout, stderr: run.stderrText)
    }
}
