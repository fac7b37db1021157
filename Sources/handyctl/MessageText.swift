import HandyProtocol

extension ServerMessage {
    /// One human-readable line, as `handyctl monitor` prints it:
    /// `12.345 pinch began scale=1.00 hand=right(0.82) clearSide=left fingers=2`.
    var humanReadableLine: String {
        switch self {
        case .hello(let m):
            let devices = m.devices.map { "\($0.id) \"\($0.name)\"\($0.isReadable ? "" : " (not readable)")" }.joined(
                separator: ", ")
            return "hello protocol=\(m.protocol) version=\(m.version) devices=[\(devices)]"
        case .device(let m):
            var line = "device \(m.event.rawValue) \(m.device.id) \"\(m.device.name)\""
            if let node = m.device.node { line += " \(node)" }
            if !m.device.isReadable { line += " not readable: \(m.device.reason ?? "unknown reason")" }
            return line
        case .status(let m):
            var line =
                "status clients=\(m.clients) devices=\(m.devices) frames=\(m.frames) events=\(m.events) drops=\(m.drops)"
            if let unreadable = m.unreadable, !unreadable.isEmpty {
                line += " unreadable=[\(unreadable.map(\.id).joined(separator: ", "))]"
            }
            return line
        case .error(let m):
            return "error \(m.code): \(m.message)"
        case .shutdown(let m):
            return "shutdown \(m.reason)"
        case .touches(let m):
            let touches = m.touches.map { t in
                "#\(t.id) \(t.phase) \(fixed(t.xMm, 1)),\(fixed(t.yMm, 1))mm"
            }.joined(separator: " ")
            return "\(fixed(m.time, 3)) touches \(m.device) \(touches)"
        case .gesture(let g):
            return g.humanReadableLine
        }
    }
}

extension GestureEvent {
    /// `12.345 pinch began scale=1.00 hand=right(0.82) clearSide=left fingers=2`: the fields that
    /// are set, in a fixed order.
    var humanReadableLine: String {
        var parts = [fixed(time, 3), gesture.rawValue, phase.rawValue]
        if let scale { parts.append("scale=\(fixed(scale, 2))") }
        if let rotation { parts.append("rotation=\(fixed(rotation, 3))rad") }
        if let t = translationMm { parts.append("translation=\(fixed(t.x, 1)),\(fixed(t.y, 1))mm") }
        if let direction { parts.append("direction=\(direction.rawValue)") }
        if let edge { parts.append("edge=\(edge.rawValue)") }
        if let taps { parts.append("taps=\(taps)") }
        if let p = positionMm { parts.append("at=\(fixed(p.x, 1)),\(fixed(p.y, 1))mm") }
        if let duration { parts.append("duration=\(fixed(duration, 2))s") }
        if let hand {
            parts.append("hand=\(hand.rawValue)" + (handConfidence.map { "(\(fixed($0, 2)))" } ?? ""))
        }
        if let clearSide { parts.append("clearSide=\(clearSide.rawValue)") }
        if let fingers { parts.append("fingers=\(fingers)") }
        if let touch { parts.append("touch=\(touch)") }
        if let reason { parts.append("reason=\(reason)") }
        parts.append("device=\(device)")
        return parts.joined(separator: " ")
    }
}

/// `v` with exactly `digits` decimals, without Foundation's String(format:).
func fixed(_ v: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    // Beyond Int64 (a daemon may send any finite number) the plain form, not a trap.
    guard v.isFinite, (v.magnitude * scale) < 9e18 else { return "\(v)" }
    let n = Int64((abs(v) * scale).rounded())
    let whole = n / Int64(scale)
    var text = (v < 0 && n != 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let frac = String(n % Int64(scale))
        text += "." + String(repeating: "0", count: digits - frac.count) + frac
    }
    return text
}

extension DeviceInfo {
    /// The lines `handyctl devices` prints for this device: id, name, size, slots, "hover" when it
    /// reports hovering contacts, node; then one
    /// indented line each for "not readable" with its reason, the fix, and every settings problem.
    var listingLines: [String] {
        var line = "\(id)\t\(name)"
        if let w = widthMm, let h = heightMm { line += "\t\(Self.wholeMm(w))x\(Self.wholeMm(h)) mm" }
        if let slots { line += "\t\(slots) slots" }
        if reportsHover { line += "\thover" }
        if let path { line += "\t\(path)" }
        var lines = [line]
        if !isReadable {
            lines.append("\tnot readable: \(reason ?? "unknown reason")")
            if let fix { lines.append("\tfix: \(fix)") }
        }
        for problem in problems ?? [] { lines.append("\tproblem: \(problem)") }
        return lines
    }

    /// Whole millimetres; any number a daemon sends prints (Int(1e300) would trap).
    static func wholeMm(_ mm: Double) -> String {
        let r = mm.rounded()
        return r.magnitude < 1e15 ? String(Int64(r)) : "\(mm)"
    }
}

extension DeviceHealth {
    /// `health: 1 stuck now (3 found), 2 losses, 0 floods, 5 kernel drops, 0 faults; last touch 12 s ago`.
    var listingLine: String {
        var line =
            "health: \(stuckNow) stuck now (\(stuckContacts) found), \(losses) losses, \(floods) floods, "
            + "\(kernelDrops) kernel drops, \(faults) faults"
        if let age = secondsSinceLastTouch {
            line += "; last touch \(fixed(age, 0)) s ago"
        } else {
            line += "; no touch yet"
        }
        return line
    }
}
