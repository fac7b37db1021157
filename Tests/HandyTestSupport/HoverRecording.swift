import Foundation

/// The Atmel maXTouch (ABS_MT_DISTANCE 0…1) with what hid-multitouch sends for a Win8 panel
/// with In Range: slot 0 comes into range at (200, 200), moves, lands at 20 ms, moves, rises at
/// 40 ms and leaves at 50 ms; slot 1 hovers at (600, 300) from 0 to 60 ms without landing;
/// then a tap with no hover at 500 ms.
package func writeHoverRecording() throws -> String {
    let original = try String(
        contentsOfFile: fixture("whot-evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"),
        encoding: .utf8)
    let header = original.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("E:") }
    // (time, type, code, value): 3 = EV_ABS, 1 = EV_KEY, 0 = SYN_REPORT.
    let slot = 0x2f, tracking = 0x39, x = 0x35, y = 0x36, distance = 0x3b, touch = 0x14a
    let events: [(Double, Int, Int, Int)] = [
        (0, 3, slot, 0), (0, 3, tracking, 10), (0, 3, x, 200), (0, 3, y, 200), (0, 3, distance, 1),
        (0, 3, slot, 1), (0, 3, tracking, 11), (0, 3, x, 600), (0, 3, y, 300), (0, 3, distance, 1),
        (0, 1, touch, 1), (0, 0, 0, 0),
        (0.01, 3, slot, 0), (0.01, 3, x, 210), (0.01, 0, 0, 0),
        (0.02, 3, distance, 0), (0.02, 0, 0, 0),
        (0.03, 3, x, 230), (0.03, 0, 0, 0),
        (0.04, 3, distance, 1), (0.04, 0, 0, 0),
        (0.05, 3, tracking, -1), (0.05, 0, 0, 0),
        (0.06, 3, slot, 1), (0.06, 3, tracking, -1), (0.06, 1, touch, 0), (0.06, 0, 0, 0),
        (0.5, 3, slot, 0), (0.5, 3, tracking, 12), (0.5, 3, x, 400), (0.5, 3, y, 240), (0.5, 3, distance, 0),
        (0.5, 1, touch, 1), (0.5, 0, 0, 0),
        (0.56, 3, tracking, -1), (0.56, 1, touch, 0), (0.56, 0, 0, 0),
    ]
    var text = header.joined(separator: "\n") + "\n"
    for (t, type, code, value) in events {
        text += "E: \(String(format: "%.6f", 1 + t)) \(String(format: "%04x %04x", type, code)) \(value)\n"
    }
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("hover-wire-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).events").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
