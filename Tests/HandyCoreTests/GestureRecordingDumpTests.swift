import Foundation
import HandyCore
import HandyProtocol
import Testing

@Suite struct GestureRecordingDump {
    @Test func dump() throws {
        guard ProcessInfo.processInfo.environment["HANDYD_DUMP"] != nil else { return }
        let root = GestureFixtures.path("")
        let files = FileManager.default.enumerator(atPath: root)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".events") || $0.hasSuffix(".evemu") || $0.hasSuffix(".yml") }.sorted()
        for f in files {
            guard let r = try? GestureFixtures.replay(f) else { print("SKIP \(f)"); continue }
            let multi = r.gestures.filter { !$0.gesture.rawValue.hasPrefix("touch-") }
            var lines: [String] = []
            for e in multi where e.phase != .changed {
                var s = "\(e.gesture.rawValue) \(e.phase.rawValue) t=\(e.time)"
                if let v = e.fingers { s += " f=\(v)" }
                if let v = e.taps { s += " taps=\(v)" }
                if let v = e.scale { s += " scale=\(v)" }
                if let v = e.rotation { s += " rot=\(v)" }
                if let v = e.translationMm { s += " tr=\(v.x),\(v.y)" }
                if let v = e.direction { s += " dir=\(v)" }
                if let v = e.hand { s += " hand=\(v)" }
                if let v = e.reason { s += " reason=\(v)" }
                lines.append(s)
            }
            let touchKinds = Dictionary(grouping: r.gestures.filter { $0.gesture.rawValue.hasPrefix("touch-") && $0.phase != .changed }, by: { "\($0.gesture.rawValue) \($0.phase.rawValue)" }).mapValues(\.count)
            print("== \(f) frames=\(r.frames.count) bugs=\(r.bugs.count)\n  " + lines.joined(separator: "\n  ") + "\n  per-touch: \(touchKinds.sorted { $0.key < $1.key })")
        }
    }
}
