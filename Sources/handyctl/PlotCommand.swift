import ArgumentParser
import Foundation
import HandyCore
import HandyPlot
import HandyRecording

/// `handyctl plot`: draws a recording's touches and the gestures handyd recognised in it as SVG.
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a recording's touch traces and recognised gestures as an SVG (or PNG) picture.",
        discussion: """
            Runs RECORDING through the same tracker and recognizers as `handyctl replay` and draws:
              - the device surface to scale in mm (10 mm grid or coarser), each touch as a path in \
            its own colour: ○ where it was put down, ■ where it was lifted, ✕ where it was lost \
            (cancelled), a dot every 100 ms along the path (closer dots = slower finger) and, when \
            the device reports contact size, a faint ellipse of the contact at each dot;
              - each gesture where it happened (◇ with its name, hand and clear side);
              - a timeline: when each touch id was down, one lane per gesture kind (▶ began, \
            ◆ recognized, | ended, ✕ cancelled with the reason), then the pinch scale and the \
            rotation (degrees) over time. Right-hand gestures are orange, left-hand blue.
            Hover a mark in a browser for every field of the event.

            PNG output (--png, or an -o name ending in .png) needs rsvg-convert \
            (Debian/Ubuntu package librsvg2-bin).

            Examples:
              handyctl plot examples/recordings/demo.evemu -o demo.svg
              handyctl plot "Tests/Fixtures/whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-circle.events" -o circle.svg --png
              handyctl plot --desc my-screen.desc capture.events -o capture.png
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Device description (.desc or any evemu file with a header); overrides the recording's own.",
            valueName: "FILE"))
    var desc: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Output file (.svg, or .png to convert). Default: standard output (SVG).", valueName: "FILE")
    )
    var output: String?

    @Flag(name: .long, help: "Also write a PNG beside the SVG (same name, .png) with rsvg-convert.")
    var png = false

    @Option(name: .long, help: ArgumentHelp("Milliseconds between the time dots along each path.", valueName: "MS"))
    var dotEvery: Double = 100

    @Argument(
        help: ArgumentHelp(
            "The recording: .evemu, .events (+ .desc beside it), or libinput record .yml.", valueName: "RECORDING"))
    var recording: String

    func validate() throws {
        // Below 1 ms a touch gets a dot per microsecond (hours of rendering for nothing the eye
        // can see); above an hour no touch gets a second dot.
        guard dotEvery >= 1, dotEvery <= 3_600_000 else {
            throw ValidationError("--dot-every must be 1…3600000 milliseconds")
        }
        if png && output == nil { throw ValidationError("--png needs -o FILE (the PNG is written beside it)") }
    }

    func run() throws {
        let loaded: Recording
        do {
            loaded = try Recording.load(path: recording, descriptionPath: desc)
        } catch {
            StandardStream.error("handyctl plot: \(error)")
            throw ExitCode.failure
        }
        var plot = SVGPlot(
            subtitle: loaded.sourcePaths.map { ($0 as NSString).lastPathComponent }.joined(separator: " + "))
        plot.timeDotMilliseconds = dotEvery
        let svg = plot.render(PlotData(recording: loaded))

        guard let output else {
            FileHandle.standardOutput.write(Data(svg.utf8))
            return
        }
        let wantsOnlyPNG = output.lowercased().hasSuffix(".png")
        // Only a PNG wanted: the SVG goes to a file of our own, never to a NAME.svg the user may have.
        let svgPath =
            wantsOnlyPNG
            ? FileManager.default.temporaryDirectory.appendingPathComponent(
                "handyctl-plot-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).svg"
            ).path
            : output
        defer { if wantsOnlyPNG { try? FileManager.default.removeItem(atPath: svgPath) } }
        do { try OutputFile.write(svg, to: svgPath) } catch {
            StandardStream.error("handyctl plot: \(error)")
            throw ExitCode.failure
        }
        if wantsOnlyPNG || png {
            let pngPath = wantsOnlyPNG ? output : (output as NSString).deletingPathExtension + ".png"
            do {
                try PNGConverter.convert(svg: svgPath, to: pngPath)
            } catch {
                StandardStream.error("handyctl plot: \(error)" + (wantsOnlyPNG ? "" : " (the SVG is in \(svgPath))"))
                throw ExitCode.failure
            }
        }
    }
}

/// SVG → PNG through `rsvg-convert` (librsvg), found on PATH.
enum PNGConverter {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/rsvg-convert"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func convert(svg: String, to png: String) throws {
        guard let tool = executable() else {
            throw Failure(description: "PNG needs rsvg-convert on PATH (apt-get install librsvg2-bin)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--format", "png", "--background-color", "white", "--output", png, svg]
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(tool): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "rsvg-convert failed with status \(process.terminationStatus)")
        }
    }
}
