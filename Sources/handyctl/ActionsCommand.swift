import ArgumentParser
import Dispatch
import Foundation
import HandyActions
import HandyClient
import HandyInput
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `handyctl actions CONFIG`: gestures to commands and key chords (docs/ACTIONS.md).
struct ActionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Run commands and press keys when gestures happen (bindings in a TOML file).",
        discussion: """
            Subscribes to handyd and, for every gesture event, runs the action of each [[binding]] \
            that matches it: a command (run = ["program", "arg"], no shell unless shell = true) or \
            a key chord on a virtual uinput keyboard (keys = "ctrl+alt+f1"). Reconnects when handyd \
            restarts; SIGHUP re-reads the file (a bad new file is logged, the old one stays). \
            A bad file at start: one error naming its line, exit status 78. Format and examples: \
            docs/ACTIONS.md.

            Examples:
              handyctl actions /etc/handyd/actions.toml
              handyctl actions --check /etc/handyd/actions.toml
              handyctl actions --socket /tmp/handyd.sock actions.toml
            """)

    @Argument(help: "The bindings (TOML).")
    var config: String

    @Option(help: "handyd's socket.")
    var socket: String = HandyClient.defaultSocketPath

    @Flag(help: "Check the file, print its bindings and exit (status 78 when it is bad).")
    var check = false

    @Option(help: "Name of the virtual keyboard that key chords are pressed on.")
    var keyboardName: String = VirtualKeyboard.defaultName

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    /// sysexits.h EX_CONFIG: systemd's RestartPreventExitStatus keeps a bad file from restart loops.
    static let badConfigurationStatus: Int32 = 78

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown log level \(logLevel)") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "handyctl-actions")
        if check {
            do {
                let configuration = try ActionsConfiguration.load(path: config)
                for b in configuration.bindings { print("\(b.label): \(b.summary)") }
                print("\(config): \(configuration.bindings.count) bindings, OK")
                return
            } catch {
                printError("handyctl actions: \(error)")
                throw ExitCode(Self.badConfigurationStatus)
            }
        }
        let service: ActionsService
        do {
            service = try ActionsService(
                configurationPath: config, socketPath: socket, keyboardName: keyboardName, logger: logger)
        } catch {
            printError("handyctl actions: \(error)")
            throw ExitCode(Self.badConfigurationStatus)
        }
        // SIGHUP's default action ends the process; take it over for reload (as handyd does).
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { service.reload() }
        hangup.resume()
        service.prepareKeyboard()
        let main = Task { await service.run() }
        var stops: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                logger.info("stopping (signal \(sig))")
                main.cancel()
            }
            source.resume()
            stops.append(source)
        }
        await main.value
        hangup.cancel()
        for s in stops { s.cancel() }
        service.close()
    }
}

extension GestureBinding {
    /// `swipe down fingers=3 → run touch /tmp/x`, for `--check`.
    var summary: String {
        var parts: [String] = []
        if let health {
            parts.append("health=\(health.event.rawValue)")
            if let v = health.device { parts.append("device=\(v)") }
        }
        if let match {
            parts.append(match.gesture.rawValue)
            if match.phase != match.gesture.firingPhase { parts.append("phase=\(match.phase.rawValue)") }
            if let v = match.fingers { parts.append("fingers=\(v)") }
            if let v = match.taps { parts.append("taps=\(v)") }
            if let v = match.direction { parts.append("direction=\(v.rawValue)") }
            if let v = match.edge { parts.append("edge=\(v.rawValue)") }
            if let v = match.hand { parts.append("hand=\(v.rawValue)") }
            if let v = match.device { parts.append("device=\(v)") }
        }
        switch action {
        case .run(let argv): parts.append("→ run " + argv.map(\.source).joined(separator: " "))
        case .shell(let script): parts.append("→ sh -c " + script)
        case .keys(let chord): parts.append("→ keys " + chord.kernelNames)
        }
        return parts.joined(separator: " ")
    }
}

private func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
