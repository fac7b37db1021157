import ArgumentParser
import HandyClient
import HandyProtocol
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// `handyctl monitor`: what the daemon publishes, live — a full-screen view in a terminal, lines
/// otherwise — until interrupted.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Show handyd's devices, touches and gestures live.",
        discussion: """
            In a terminal: a live screen with the devices, the touches down on each now, the hand of \
            the latest pinch and its clear side (where a popover should go), and the latest event of \
            each gesture with its fields. Hands are coloured (right orange, left blue), clear sides \
            in reverse video. NO_COLOR or --colour never turns colour off.

            Not in a terminal (or with --lines): one line per message, e.g.
              12.345 pinch began scale=1.00 hand=right(0.82) clearSide=left fingers=2 device=elan-touchscreen@pci-0000:00:14.0-usb-0:2:1.0
            With --json: the daemon's JSON lines, for scripts. Reconnects when the daemon restarts
            unless --once.

            Examples:
              handyctl monitor
              handyctl monitor --gestures pinch,rotate
              handyctl monitor --lines | grep pinch
              handyctl monitor --json --touches --socket /tmp/handyd.sock
              handyctl monitor --screen --colour never --once > screens.txt
            """)

    enum Colour: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "handyd's socket.")
    var socket: String = HandyClient.defaultSocketPath

    @Flag(help: "Print the daemon's JSON lines (for scripts).")
    var json = false

    @Flag(help: "One human-readable line per message, even in a terminal.")
    var lines = false

    @Flag(help: "The live screen even when stdout is not a terminal (each redraw follows the last).")
    var screen = false

    @Option(help: "Colour: auto (a terminal without NO_COLOR), always or never.")
    var colour: Colour = .auto

    @Option(help: ArgumentHelp("Only these gestures, comma-separated (e.g. pinch,rotate).", valueName: "NAMES"))
    var gestures: String?

    @Option(
        help: ArgumentHelp("Only these devices, comma-separated: ids, or kernel node names (event5).", valueName: "IDS")
    )
    var devices: String?

    @Flag(help: "Also print touch frames (--lines, --json; the screen always shows touches).")
    var touches = false

    @Flag(help: "Exit when the daemon closes the connection instead of reconnecting.")
    var once = false

    func validate() throws {
        if json && (lines || screen) { throw ValidationError("--json goes alone, without --lines or --screen.") }
        if lines && screen { throw ValidationError("choose --lines or --screen.") }
    }

    func run() async throws {
        let showScreen = screen || (!json && !lines && Terminal.isTerminal)
        let request = SubscribeRequest(
            gestures: gestures.map(Self.list), devices: devices.map(Self.list), touches: touches || showScreen,
            hover: touches || showScreen ? true : nil)
        var client = HandyClient(socketPath: socket, subscription: request, reconnect: once ? nil : .init())
        // Waiting for a daemon that is not there is said once on stderr (again if the reason changes).
        let lastSaid = NIOLockedValueBox<String?>(nil)
        client.onConnectionFailure = { error in
            let text = "handyctl monitor: waiting for handyd: \(error)"
            if lastSaid.withLockedValue({ said in
                defer { said = text }; return said != text
            }) {
                StandardStream.error(text)
            }
        }
        if showScreen {
            try await runScreen(client)
            return
        }
        for try await message in client.messages() {
            if json {
                print(String(decoding: JSONLines.encode(message).dropLast(), as: UTF8.self))
            } else {
                print(message.humanReadableLine)
            }
            // One line at a time even into a pipe (`handyctl monitor --lines | grep pinch`).
            fflush(nil)
        }
    }

    private func runScreen(_ client: HandyClient) async throws {
        let terminal = Terminal.isTerminal
        let useColour = colour == .always || (colour == .auto && terminal && !Terminal.noColourRequested)
        let view = LiveScreen(colour: useColour, fullScreen: terminal)
        if terminal { Terminal.enterFullScreen() }
        await view.draw()
        do {
            for try await message in client.messages() { await view.apply(message) }
        } catch {
            await view.finish()
            if terminal { Terminal.leaveFullScreen() }
            throw error
        }
        await view.finish()
        if terminal { Terminal.leaveFullScreen() }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Redraws the ``MonitorScreen`` at most 30 times a second: a burst of messages (a pinch sends
/// ~100 frames and events a second) costs one redraw per 33 ms, and the last state of a burst is
/// drawn by one deferred redraw — no timer runs while nothing arrives.
actor LiveScreen {
    private var screen = MonitorScreen()
    private let colour: Bool
    private let fullScreen: Bool
    private var lastDraw: ContinuousClock.Instant?
    private var redrawPending = false
    private var drawnCount = -1
    static let interval = Duration.milliseconds(33)

    init(colour: Bool, fullScreen: Bool) {
        self.colour = colour
        self.fullScreen = fullScreen
    }

    func apply(_ message: ServerMessage) {
        screen.apply(message)
        let now = ContinuousClock.now
        if let last = lastDraw, now - last < Self.interval {
            guard !redrawPending else { return }
            redrawPending = true
            let wait = Self.interval - (now - last)
            Task {
                try? await Task.sleep(for: wait)
                self.deferredDraw()
            }
        } else {
            draw()
        }
    }

    private func deferredDraw() {
        redrawPending = false
        draw()
    }

    func draw() {
        guard drawnCount != screen.messageCount else { return }
        drawnCount = screen.messageCount
        lastDraw = .now
        let size = fullScreen ? Terminal.size : nil
        // Without a terminal each screen ends with a form feed, so a file of screens splits cleanly.
        let text = screen.render(
            columns: size?.columns, rows: size.map { $0.rows - 1 }, colour: colour, inPlace: fullScreen)
        Terminal.write(fullScreen ? text : text + "\u{0C}\n")
    }

    /// The last state, drawn before exiting.
    func finish() {
        draw()
    }
}
