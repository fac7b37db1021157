import HandyProtocol

/// What `handyctl monitor` shows in a terminal: the daemon's devices, the touches down on each now,
/// the hand of the latest pinch and where the UI should go, and the latest gestures with their
/// fields (one row per gesture instance, updated in place, newest first).
///
/// Pure state and text, so it is tested without a terminal: ``apply(_:)`` folds in a message,
/// ``render(columns:rows:colour:)`` draws the screen.
struct MonitorScreen: Sendable {
    /// Gesture instances remembered (the screen shows as many as fit).
    var maximumGestures = 40

    private(set) var version: String?
    private(set) var devices: [DeviceInfo] = []
    /// Touches down now, per device id.
    private(set) var touches: [String: [WireTouch]] = [:]
    /// Fingers hovering above the glass now (in range, not touching), per device id: on a
    /// device that reports hover.
    private(set) var hovers: [String: [WireHover]] = [:]
    /// The latest event of each recent gesture instance, newest first.
    private(set) var gestures: [GestureEvent] = []
    /// The latest pinch event that carried a hand.
    private(set) var lastPinch: GestureEvent?
    private(set) var status: StatusMessage?
    /// The last few device, error and shutdown notices, newest last.
    private(set) var notices: [String] = []
    /// Messages folded in so far.
    private(set) var messageCount = 0

    init() {}

    mutating func apply(_ message: ServerMessage) {
        messageCount += 1
        switch message {
        case .hello(let m):
            version = m.version
            devices = m.devices
            touches = [:]
            hovers = [:]
        case .device(let m):
            devices.removeAll { $0.id == m.device.id }
            touches[m.device.id] = nil
            hovers[m.device.id] = nil
            if m.event == .added { devices.append(m.device) }
            note("device \(m.event.rawValue): \(m.device.id) \"\(m.device.name)\"")
        case .touches(let m):
            let down = m.touches.filter { $0.phase != "ended" && $0.phase != "cancelled" }
            touches[m.device] = down.isEmpty ? nil : down
            // In every touches message while a finger hovers: one without them means none hovers.
            let above = (m.hovers ?? []).filter { $0.phase == "began" || $0.phase == "hovering" }
            hovers[m.device] = above.isEmpty ? nil : above
        case .gesture(let g):
            if let i = gestures.firstIndex(where: { $0.id == g.id && $0.device == g.device }) { gestures.remove(at: i) }
            gestures.insert(g, at: 0)
            if gestures.count > maximumGestures { gestures.removeLast(gestures.count - maximumGestures) }
            if g.gesture == .pinch, g.hand != nil { lastPinch = g }
        case .status(let m):
            status = m
        case .error(let m):
            note("error \(m.code): \(m.message)")
        case .shutdown(let m):
            note("daemon shutting down: \(m.reason)")
        }
    }

    private mutating func note(_ text: String) {
        notices.append(text)
        if notices.count > 3 { notices.removeFirst(notices.count - 3) }
    }

    /// The screen as lines. `columns` cuts every line to the terminal's width; `rows` keeps the
    /// screen to the terminal's height by showing fewer gesture rows (nil: no limit).
    func lines(rows: Int? = nil) -> [TerminalLine] {
        var top: [TerminalLine] = []
        var header = TerminalLine()
        header.append("handyd", .bold)
        if let version { header.append(" \(version)") }
        header.append("   \(devices.count) device\(devices.count == 1 ? "" : "s")", .dim)
        if let status {
            header.append(", \(status.clients) clients, \(status.frames) frames, \(status.events) events", .dim)
        }
        header.append("   Ctrl-C quits", .dim)
        top.append(header)
        top.append(TerminalLine())
        top.append(handLine)
        top.append(TerminalLine())

        top.append(sectionTitle("Devices"))
        if devices.isEmpty { top.append(TerminalLine("  none")) }
        for d in devices {
            var line = TerminalLine("  ")
            line.append(d.id, .bold)
            line.append("  \(d.name)")
            if let w = d.widthMm, let h = d.heightMm { line.append("  \(fixed(w, 0))×\(fixed(h, 0)) mm", .dim) }
            if let slots = d.slots { line.append("  \(slots) slots", .dim) }
            let down = touches[d.id] ?? []
            line.append("  ")
            if !d.isReadable {
                line.append("not readable", .red)
                top.append(line)
                top.append(TerminalLine("    \(d.reason ?? "unknown reason")"))
                if let fix = d.fix { top.append(TerminalLine("    fix: \(fix)")) }
                continue
            }
            if down.isEmpty { line.append("no touches", .dim) } else { line.append("\(down.count) down", .green) }
            let above = hovers[d.id] ?? []
            if !above.isEmpty { line.append("  \(above.count) hovering", .cyan) }
            top.append(line)
            for t in down { top.append(Self.touchLine(t)) }
            for h in above { top.append(Self.hoverLine(h)) }
        }
        // Touches of devices the hello did not list (a replay announced later): still shown.
        for (id, down) in touches.sorted(by: { $0.key < $1.key }) where !devices.contains(where: { $0.id == id }) {
            top.append(TerminalLine("  \(id)  \(down.count) down"))
            for t in down { top.append(Self.touchLine(t)) }
        }
        top.append(TerminalLine())

        var bottom: [TerminalLine] = []
        if !notices.isEmpty {
            bottom.append(TerminalLine())
            for n in notices { var l = TerminalLine(); l.append(n, .yellow); bottom.append(l) }
        }

        var gestureTitle = sectionTitle("Gestures")
        gestureTitle.append("  latest event of each, newest first", .dim)
        var rowsLeft = gestures.count
        if let rows { rowsLeft = Swift.max(0, Swift.min(rowsLeft, rows - top.count - bottom.count - 2)) }
        var middle = [gestureTitle]
        if gestures.isEmpty { middle.append(TerminalLine("  none yet")) }
        middle += gestures.prefix(rowsLeft).map(Self.gestureLine)
        if rowsLeft < gestures.count {
            var l = TerminalLine(); l.append("  … \(gestures.count - rowsLeft) more", .dim); middle.append(l)
        }
        return top + middle + bottom
    }

    /// The whole screen as text, every line cut to `columns`, styled when `colour`. `inPlace` (a
    /// terminal) starts with "cursor home" and clears what a longer previous screen left behind.
    func render(columns: Int? = nil, rows: Int? = nil, colour: Bool, inPlace: Bool = false) -> String {
        let body = lines(rows: rows).map { $0.rendered(columns: columns, colour: colour) }
        if inPlace { return "\u{1B}[H" + body.joined(separator: "\u{1B}[K\n") + "\u{1B}[K\n\u{1B}[J" }
        return body.joined(separator: "\n") + "\n"
    }

    /// The motivating use, big: which hand made the latest pinch and where the UI should go.
    var handLine: TerminalLine {
        var line = TerminalLine("  last pinch: ")
        guard let p = lastPinch, let hand = p.hand else {
            line.append("none yet", .dim)
            return line
        }
        let confidence = p.handConfidence.map { " (\(fixed($0, 2)))" } ?? ""
        line.append(" \(hand.rawValue.uppercased()) hand\(confidence) ", .hand(hand, emphasised: true))
        let side = p.clearSide ?? hand.clearSide
        line.append("  →  clear side: ")
        line.append(" \(side.rawValue.uppercased()) ", side == .unknown ? .bold : .reverse)
        line.append("   \(p.device) at \(fixed(p.time, 3)) s", .dim)
        return line
    }

    func sectionTitle(_ text: String) -> TerminalLine {
        var l = TerminalLine()
        l.append(text, .bold)
        return l
    }

    static func touchLine(_ t: WireTouch) -> TerminalLine {
        var text = "      #\(t.id) \(pad(t.tool, 6)) \(padLeft(fixed(t.xMm, 1), 6)),\(padLeft(fixed(t.yMm, 1), 6)) mm"
        if let major = t.majorMm {
            text += "  \(fixed(major, 1))" + (t.minorMm.map { "×\(fixed($0, 1))" } ?? "") + " mm"
        }
        if let o = t.orientation { text += "  \(fixed(o * 180 / Double.pi, 0))°" }
        if let p = t.pressure { text += "  p=\(fixed(p, 2))" }
        if let vx = t.vxMm, let vy = t.vyMm { text += "  v=\(fixed(vx, 0)),\(fixed(vy, 0)) mm/s" }
        var line = TerminalLine()
        line.append(text, t.tool == "palm" ? .red : .plain)
        return line
    }

    /// A hovering finger, apart from the touches: `~` before its id (its own ids), its height.
    static func hoverLine(_ h: WireHover) -> TerminalLine {
        var text = "      ~\(h.id) hover  "
        text += h.xMm.map { padLeft(fixed($0, 1), 6) } ?? padLeft(fixed(h.x, 3), 6)
        text += "," + (h.yMm.map { padLeft(fixed($0, 1), 6) + " mm" } ?? padLeft(fixed(h.y, 3), 6))
        text += "  distance \(h.distance) (\(fixed(h.distanceNormalized, 2)))"
        var line = TerminalLine()
        line.append(text, .cyan)
        return line
    }

    /// `    12.345 pinch       began      2f hand=right(0.82) clearSide=left scale=1.20 …  event5`.
    static func gestureLine(_ g: GestureEvent) -> TerminalLine {
        var line = TerminalLine(padLeft(fixed(g.time, 3), 10) + " ")
        line.append(pad(g.gesture.rawValue, 11), .bold)
        line.append(" ")
        let phaseStyle: TerminalStyle
        switch g.phase {
        case .began: phaseStyle = .green
        case .changed: phaseStyle = .plain
        case .recognized: phaseStyle = .boldGreen
        case .ended: phaseStyle = .dim
        case .cancelled: phaseStyle = .red
        }
        line.append(pad(g.phase.rawValue, 10), phaseStyle)
        line.append(" ")
        var fields: [String] = []
        if let v = g.fingers { fields.append("\(v)f") }
        if let v = g.touch { fields.append("#\(v)") }
        line.append(fields.joined(separator: " "))
        // Hand and clear side first, so a narrow terminal cuts the numbers, not them.
        if let hand = g.hand {
            line.append(" ")
            line.append("hand=\(hand.rawValue)" + (g.handConfidence.map { "(\(fixed($0, 2)))" } ?? ""), .hand(hand))
        }
        if let side = g.clearSide {
            line.append(" ")
            line.append("clearSide=\(side.rawValue)", side == .unknown ? .plain : .reverse)
        }
        fields = []
        if let v = g.scale { fields.append("scale=\(fixed(v, 2))") }
        if let v = g.spanMm { fields.append("span=\(fixed(v, 1))mm") }
        if let v = g.rotation { fields.append("rotation=\(fixed(v * 180 / Double.pi, 1))°") }
        if let t = g.translationMm { fields.append("moved=\(fixed(t.x, 1)),\(fixed(t.y, 1))mm") }
        if let v = g.direction { fields.append("direction=\(v.rawValue)") }
        if let v = g.edge { fields.append("edge=\(v.rawValue)") }
        if let v = g.taps { fields.append("taps=\(v)") }
        if let p = g.positionMm ?? g.centroidMm { fields.append("at=\(fixed(p.x, 1)),\(fixed(p.y, 1))mm") }
        if let v = g.duration { fields.append("held=\(fixed(v, 2))s") }
        if let m = g.glideMm { fields.append("glide=\(fixed(m.x, 1)),\(fixed(m.y, 1))mm") }
        if !fields.isEmpty { line.append(" " + fields.joined(separator: " ")) }
        if let v = g.reason { line.append(" "); line.append("reason=\(v)", .red) }
        line.append("  \(g.device)", .dim)
        return line
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
