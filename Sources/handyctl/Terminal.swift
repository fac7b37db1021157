#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal of `handyctl monitor`'s live screen: whether stdout is one, its size,
/// and the alternate screen that is left again however the program ends.
enum Terminal {
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Columns and rows of stdout's terminal; nil when it is not one (or reports 0).
    static var size: (columns: Int, rows: Int)? {
        var w = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 else { return nil }
        return (Int(w.ws_col), Int(w.ws_row))
    }

    /// `NO_COLOR` (https://no-color.org) turns colour off when it is set to anything.
    static var noColourRequested: Bool { getenv("NO_COLOR").map { $0.pointee != 0 } ?? false }

    /// Switches to the alternate screen with the cursor hidden, and makes Ctrl-C, SIGTERM and
    /// SIGHUP restore the normal screen before exiting.
    static func enterFullScreen() {
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
        let handler: @convention(c) (Int32) -> Void = { sig in
            // Only async-signal-safe calls here: write(2) of a constant, then _exit(2).
            let restore: StaticString = "\u{1B}[?25h\u{1B}[?1049l"
            _ = Glibc.write(STDOUT_FILENO, restore.utf8Start, restore.utf8CodeUnitCount)
            _exit(128 + sig)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        signal(SIGHUP, handler)
    }

    /// Back to the normal screen with the cursor shown (the daemon went away with `--once`).
    static func leaveFullScreen() {
        write("\u{1B}[?25h\u{1B}[?1049l")
    }

    /// Writes straight to stdout (no buffering between redraws).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
        bytes.removeAll()
    }
}
