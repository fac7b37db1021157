import ArgumentParser
import Foundation
import HandyCore
import HandyInput
import HandyRecording

/// `handyctl inject`: plays a recording into a real uinput device, so the kernel, udev, and a
/// running handyd see it exactly as hardware. Reproduces a bug report on any machine with
/// /dev/uinput; the qemu guest tests drive the daemon this way.
struct InjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Create a uinput device from a recording's description and play its events into it in real time.",
        discussion: """
            Needs write access to /dev/uinput (usually root). Steps: read RECORDING (the formats \
            `handyctl replay` reads), create a virtual device with the recording's name, ids, \
            properties and axes (libevdev's uinput API), wait for its /dev/input/eventN node, wait \
            --start-delay seconds so udev and readers (handyd) can open it, then write the events \
            keeping their relative timestamps (divided by --speed). SYN_DROPPED markers in the \
            recording are not written (the kernel makes its own). After the last event the device \
            stays for --hold seconds, then is destroyed (readers see it unplugged). Killing \
            handyctl (Ctrl-C, SIGKILL) destroys it too: the kernel removes a uinput device when \
            its file closes, which the guest tests use as a cable pull.

            Prints `device /dev/input/eventN` on stdout as soon as the node exists and \
            `done N events` at the end, so scripts can follow along.

            Examples:
              sudo handyctl inject "Tests/Fixtures/whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"
              sudo handyctl inject --speed 2 --hold 5 capture.yml
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Device description (.desc or any evemu file with a header); overrides the recording's own.",
            valueName: "FILE"))
    var desc: String?

    @Option(name: .long, help: ArgumentHelp("Playback speed factor (2 = twice as fast).", valueName: "X"))
    var speed: Double = 1

    @Option(name: .long, help: ArgumentHelp("Seconds to keep the device after the last event.", valueName: "SECONDS"))
    var hold: Double = 0

    @Option(
        name: .long, help: ArgumentHelp("Seconds between the node appearing and the first event.", valueName: "SECONDS")
    )
    var startDelay: Double = 0.5

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Device name to use instead of the recording's (e.g. to match a udev rule).", valueName: "NAME"))
    var name: String?

    @Argument(
        help: ArgumentHelp(
            "The recording: .evemu, .events (+ .desc beside it), or libinput record .yml.", valueName: "RECORDING"))
    var recording: String

    static let longestWaitSeconds: Double = 365 * 86_400

    func validate() throws {
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be a number > 0") }
        // At most a year: a longer time does not fit the sleep's whole seconds (and means a typo).
        guard hold.isFinite, hold >= 0, hold <= Self.longestWaitSeconds else {
            throw ValidationError("--hold must be a number of seconds from 0 to \(Int(Self.longestWaitSeconds))")
        }
        guard startDelay.isFinite, startDelay >= 0, startDelay <= Self.longestWaitSeconds else {
            throw ValidationError("--start-delay must be a number of seconds from 0 to \(Int(Self.longestWaitSeconds))")
        }
    }

    func run() throws {
        let loaded: Recording
        do {
            loaded = try Recording.load(path: recording, descriptionPath: desc)
        } catch {
            StandardStream.error("handyctl inject: \(error)")
            throw ExitCode.failure
        }
        var description = loaded.description
        if let name { description.name = name }

        let device: UInputDevice
        let node: String
        do {
            device = try UInputDevice(description: description)
            node = try device.waitForDevnode()
        } catch {
            StandardStream.error("handyctl inject: \(error)")
            if error.isPermissionDenied || error.errno == ENOENT {
                StandardStream.error(
                    "handyctl inject: needs write access to /dev/uinput (run as root, `modprobe uinput`)")
            }
            throw ExitCode.failure
        }
        defer { device.close() }
        printLine("device \(node)")
        sleepSeconds(startDelay)

        let events = loaded.events.filter { !$0.isSynDropped }
        var written = 0
        if let first = events.first {
            let start = EvdevDevice.monotonicNow()
            for event in events {
                // Real time: each event at its offset from the first, scaled by --speed.
                // In Double: the difference of two extreme times does not fit an Int64.
                let offsetUs = (Double(event.time.microseconds) - Double(first.time.microseconds)) / speed
                let due = start.advanced(byMicroseconds: Timestamp.saturating(offsetUs))
                let waitUs = due.microseconds - EvdevDevice.monotonicNow().microseconds
                if waitUs > 0 { sleepSeconds(Double(waitUs) / 1_000_000) }
                do {
                    try device.write(event)
                } catch {
                    StandardStream.error("handyctl inject: \(error)")
                    throw ExitCode.failure
                }
                written += 1
            }
        }
        sleepSeconds(hold)
        printLine("done \(written) events")
    }
}

private func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1_000_000_000))
    var left = timespec()
    while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
}

/// Unbuffered, so a script reading our stdout through a pipe sees the line at once.
private func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
