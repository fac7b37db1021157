import ArgumentParser
import HandyProtocol

/// `handyctl`: the command-line tool for handyd. Each subcommand lives in its own file.
///
/// `@main` on an async root (not top-level code in main.swift) so async subcommands such as
/// `monitor` run on ArgumentParser's async entry point.
@main
struct Handyctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handyctl",
        abstract: "Talk to handyd, and replay touch recordings through its gesture pipeline.",
        version: handydVersion,
        // Every subcommand, one per line (other commands add their line here).
        subcommands: [
            ReplayCommand.self,
            InjectCommand.self,
            GenerateCommand.self,
            DevicesCommand.self,
            MonitorCommand.self,
            EvalCommand.self,
            CalibrateCommand.self,
            PlotCommand.self,
            RecordCommand.self,
            ActionsCommand.self,
        ]
    )
}
