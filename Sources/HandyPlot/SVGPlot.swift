import Foundation
import HandyCore
import HandyProtocol

/// Draws a ``PlotData`` as a standalone SVG document: the touch traces over the device surface to
/// scale, and below them a timeline of touches and recognised gestures.
///
/// Elements tests and scripts can find:
/// - `path.touch` (id `touch-<n>`, n = trace index): one per touch life;
/// - `circle.touch-start`, `rect.touch-end` (`.touch-cancel` for a lost touch), `circle.time-dot`
///   every ``timeDotMilliseconds`` along a trace, `ellipse.contact` (contact size, when reported);
/// - `g.gesture-mark` (id `gesture-<id>-<phase>`): one per gesture event whose phase is `began` or
///   `recognized`, on the timeline; `g.gesture-spot`: the same events where they happened on the surface;
/// - `polyline.scale-curve`, `polyline.rotation-curve`: pinch scale and rotation over time.
/// - `path.hover` (id `hover-<n>`, n = its index, `data-hover-id`, `data-end`): one per
///   hovering contact's life above the glass (a device that reports hover), thin and dashed,
///   under the touches; `circle.hover-landed` where one touched the glass (its touch goes on);
/// - `polygon.occlusion` (`data-gesture`, `data-hand`): the region the hand covers, where each
///   pinch with a known hand began.
public struct SVGPlot: Sendable {
    /// Spacing of the dots that show time along each path.
    public var timeDotMilliseconds: Double = 100
    /// Width of the whole picture in px.
    public var widthPx: Double = 960
    /// Largest height of the surface panel in px (the surface keeps its aspect ratio).
    public var maximumSurfaceHeightPx: Double = 560
    /// Extra line under the title, e.g. the recording's file name.
    public var subtitle: String?

    public init(subtitle: String? = nil) { self.subtitle = subtitle }

    /// Hovering fingers' colour, apart from every touch's.
    static let hoverColour = "#5fafaf"

    /// Colours for touches, in trace order (repeating after ten).
    static let palette = [
        "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
        "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    ]
    static func colour(_ index: Int) -> String { palette[index % palette.count] }
    static func handColour(_ hand: Hand?) -> String {
        switch hand {
        case .right: "#d4640b"
        case .left: "#1f6fbf"
        default: "#555555"
        }
    }

    static let marginPx = 48.0
    /// Left edge of the timeline: room for the lane names ("touch-swipe").
    static let timelineLeftPx = 96.0

    /// The SVG document.
    public func render(_ data: PlotData) -> String {
        var svg = SVGBuffer()
        let m = Self.marginPx
        let innerWidth = widthPx - 2 * m
        let surfaceW = max(data.widthMm, 1), surfaceH = max(data.heightMm, 1)
        let scale = min(innerWidth / surfaceW, maximumSurfaceHeightPx / surfaceH)
        let surfaceX = m + (innerWidth - surfaceW * scale) / 2
        let surfaceY = m + (subtitle == nil ? 30 : 46)
        func px(_ p: PhysicalPoint) -> (x: Double, y: Double) { (surfaceX + p.x * scale, surfaceY + p.y * scale) }

        // Timeline layout, computed first so the document's height is known.
        let duration = max(data.endTime.seconds(since: data.startTime), 0.001)
        let kinds = GestureKind.allCases.filter { k in data.gestures.contains { $0.gesture == k } }
        let touchRows = (data.traces.map(\.id).max() ?? -1) + 1
        let rowH = 22.0
        let timelineTop = surfaceY + surfaceH * scale + 64
        let touchLanesTop = timelineTop + 24
        let gestureLanesTop = touchLanesTop + Double(touchRows) * 14 + 16
        let pinchScales = data.gestures.filter { $0.gesture == .pinch && $0.scale != nil }
        let rotations = data.gestures.filter { $0.gesture == .rotate && $0.rotation != nil }
        var y = gestureLanesTop + Double(kinds.count) * rowH + 40
        let chartH = 90.0
        let scaleChartTop = pinchScales.isEmpty ? nil : y
        if scaleChartTop != nil { y += chartH + 28 }
        let rotationChartTop = rotations.isEmpty ? nil : y
        if rotationChartTop != nil { y += chartH + 28 }
        let heightPx = y + 24

        svg.open(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "version": "1.1",
                "width": f(widthPx), "height": f(heightPx), "viewBox": "0 0 \(f(widthPx)) \(f(heightPx))",
                "font-family": "DejaVu Sans, Helvetica, Arial, sans-serif", "font-size": "11",
            ])
        svg.element("rect", ["x": "0", "y": "0", "width": f(widthPx), "height": f(heightPx), "fill": "#ffffff"])

        // Title.
        let sizeNote =
            data.hasKernelResolution
            ? "kernel resolution" : "no resolution: \(Int(DeviceGeometry.fallbackWidthMm)) mm width assumed"
        svg.text(
            m, m + 4, "\(data.deviceName) — \(f1(data.widthMm)) × \(f1(data.heightMm)) mm (\(sizeNote))",
            ["font-size": "15", "font-weight": "bold", "class": "title"])
        var legendY = m + 22
        if let subtitle {
            svg.text(m, m + 20, subtitle, ["fill": "#555", "class": "subtitle"])
            legendY += 16
        }
        svg.text(
            m, legendY,
            "\(data.traces.count) touches, \(data.gestures.count) gesture events over \(f2(duration)) s · "
                + "○ put down  ■ lifted  ✕ lost  · dot every \(Int(dotStepMicroseconds / 1000)) ms",
            ["fill": "#555", "class": "legend"])

        // Surface with a 10 mm grid.
        svg.open("g", ["class": "surface"])
        svg.element(
            "rect",
            [
                "x": f(surfaceX), "y": f(surfaceY), "width": f(surfaceW * scale), "height": f(surfaceH * scale),
                "fill": "#f7f7f4", "stroke": "#888", "stroke-width": "1",
            ])
        let gridMm = Self.niceStep(max(surfaceW, surfaceH) / 12, choices: [1, 2, 5, 10, 20, 50, 100])
        var grid = ""
        var gx = gridMm
        while gx < surfaceW {
            let p = px(PhysicalPoint(x: gx, y: 0)); grid += "M\(f(p.x)) \(f(surfaceY))v\(f(surfaceH * scale))";
            gx += gridMm
        }
        var gy = gridMm
        while gy < surfaceH {
            let p = px(PhysicalPoint(x: 0, y: gy)); grid += "M\(f(surfaceX)) \(f(p.y))h\(f(surfaceW * scale))";
            gy += gridMm
        }
        if !grid.isEmpty {
            svg.element(
                "path", ["class": "grid", "d": grid, "stroke": "#e2e2dc", "stroke-width": "0.7", "fill": "none"])
        }
        svg.text(
            surfaceX, surfaceY + surfaceH * scale + 14, "grid \(f(gridMm)) mm", ["fill": "#777", "font-size": "10"])
        svg.close("g")

        // The region the hand covers (docs/HANDEDNESS.md "The covered region"), for each pinch with
        // a known hand, where it began (every gesture carries one; the pinches alone keep the
        // surface readable): under everything else.
        svg.open("g", ["class": "occlusions"])
        for g in data.gestures where g.gesture == .pinch && g.phase == .began && (g.hand == .left || g.hand == .right) {
            guard let o = g.occlusion, o.polygonMm.count >= 3 else { continue }
            let points = o.polygonMm.map { px(PhysicalPoint(x: $0.x, y: $0.y)) }.map { "\(f($0.x)),\(f($0.y))" }.joined(
                separator: " ")
            let colour = Self.handColour(g.hand)
            svg.element(
                "polygon",
                [
                    "class": "occlusion", "points": points, "fill": colour, "fill-opacity": "0.08",
                    "stroke": colour, "stroke-opacity": "0.6", "stroke-dasharray": "5 3", "stroke-width": "1",
                    "data-gesture": g.gesture.rawValue, "data-hand": g.hand?.rawValue ?? "unknown",
                ])
        }
        svg.close("g")

        // Contact ellipses under the paths, so the paths stay readable.
        svg.open("g", ["class": "contacts"])
        for trace in data.traces {
            for t in dotTimes(trace) {
                guard let s = trace.sample(at: t), let major = s.majorMm, major > 0, let p = trace.position(at: t)
                else { continue }
                let minor = s.minorMm ?? major
                let c = px(p)
                var attributes = [
                    "class": "contact", "cx": f(c.x), "cy": f(c.y), "rx": f(minor / 2 * scale),
                    "ry": f(major / 2 * scale),
                    "fill": Self.colour(trace.index), "fill-opacity": "0.10", "stroke": "none",
                ]
                // Kernel orientation: 0 = major along Y, clockwise positive; SVG rotate() is clockwise in y-down too.
                if let o = s.orientation, o != 0 {
                    attributes["transform"] = "rotate(\(f(o * 180 / .pi)) \(f(c.x)) \(f(c.y)))"
                }
                svg.element("ellipse", attributes)
            }
        }
        svg.close("g")

        // Hovering fingers: their own style (thin, dashed, grey-cyan), never a touch's colour.
        if !data.hoverTraces.isEmpty {
            svg.open("g", ["class": "hovers"])
            for (index, trace) in data.hoverTraces.enumerated() {
                var d = ""
                for (i, s) in trace.samples.enumerated() {
                    let p = px(s)
                    d += (i == 0 ? "M" : "L") + "\(f(p.x)) \(f(p.y))"
                }
                if trace.samples.count == 1, let p = trace.samples.first.map(px) { d += "L\(f(p.x)) \(f(p.y))" }
                svg.element(
                    "path",
                    [
                        "class": "hover", "id": "hover-\(index)", "d": d, "fill": "none", "stroke": Self.hoverColour,
                        "stroke-width": "1.2", "stroke-dasharray": "2 3", "stroke-linecap": "round",
                        "data-hover-id": "\(trace.id)", "data-end": trace.end?.rawValue ?? "hovering",
                    ])
                if trace.end == .landed, let last = trace.samples.last.map(px) {
                    svg.element(
                        "circle",
                        [
                            "class": "hover-landed", "cx": f(last.x), "cy": f(last.y), "r": "3", "fill": "none",
                            "stroke": Self.hoverColour, "stroke-width": "1.2",
                        ])
                }
            }
            svg.close("g")
        }

        // Touch paths, time dots, start/end marks.
        svg.open("g", ["class": "touches"])
        for trace in data.traces {
            let colour = Self.colour(trace.index)
            var d = ""
            for (i, s) in trace.samples.enumerated() {
                let p = px(s.mm)
                d += (i == 0 ? "M" : "L") + "\(f(p.x)) \(f(p.y))"
            }
            if trace.samples.count == 1, let p = trace.samples.first.map({ px($0.mm) }) { d += "L\(f(p.x)) \(f(p.y))" }
            svg.open("g", ["class": "trace", "id": "trace-\(trace.index)"])
            svg.element(
                "title", [:],
                text: "touch \(trace.id) (#\(trace.index)) \(trace.tool.rawValue): "
                    + "\(f2(trace.beganAt.seconds(since: data.startTime)))–\(f2(trace.lastTime.seconds(since: data.startTime))) s, "
                    + (trace.end?.rawValue ?? "still down"))
            svg.element(
                "path",
                [
                    "class": "touch", "id": "touch-\(trace.index)", "d": d, "fill": "none", "stroke": colour,
                    "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round",
                    "data-touch-id": "\(trace.id)",
                ])
            for t in dotTimes(trace).dropFirst() {
                guard let p = trace.position(at: t).map(px) else { continue }
                svg.element("circle", ["class": "time-dot", "cx": f(p.x), "cy": f(p.y), "r": "1.8", "fill": colour])
            }
            if let first = trace.samples.first {
                let p = px(first.mm)
                svg.element(
                    "circle",
                    [
                        "class": "touch-start", "cx": f(p.x), "cy": f(p.y), "r": "4.5", "fill": "#fff",
                        "stroke": colour, "stroke-width": "2",
                    ])
                svg.text(
                    p.x + 6, p.y - 6, "\(trace.index) @\(f2(first.time.seconds(since: data.startTime)))s",
                    ["fill": colour, "font-size": "10", "class": "touch-label"])
            }
            if let last = trace.samples.last {
                let p = px(last.mm)
                if trace.end == .cancelled {
                    svg.element(
                        "path",
                        [
                            "class": "touch-cancel", "d": "M\(f(p.x - 4)) \(f(p.y - 4))l8 8m0 -8l-8 8",
                            "stroke": "#c00", "stroke-width": "2",
                        ])
                } else if trace.end == .ended {
                    svg.element(
                        "rect",
                        [
                            "class": "touch-end", "x": f(p.x - 3.5), "y": f(p.y - 3.5), "width": "7", "height": "7",
                            "fill": colour,
                        ])
                }
            }
            svg.close("g")
        }
        svg.close("g")

        // Gestures where they happened on the surface.
        svg.open("g", ["class": "gesture-spots"])
        // Per-touch sub-gestures (touch-tap, touch-pan, ...) only on the timeline: on the surface they
        // would sit on top of the gesture they belong to.
        for g in data.gestures
        where (g.phase == .began || g.phase == .recognized) && !g.gesture.rawValue.hasPrefix("touch-") {
            guard let where_ = g.positionMm ?? g.centroidMm else { continue }
            let p = px(PhysicalPoint(x: where_.x, y: where_.y))
            let colour = Self.handColour(g.hand)
            svg.open("g", ["class": "gesture-spot", "data-gesture": g.gesture.rawValue])
            svg.element(
                "path",
                [
                    "d": "M\(f(p.x)) \(f(p.y - 6))l6 6l-6 6l-6 -6z", "fill": "none", "stroke": colour,
                    "stroke-width": "1.5",
                ])
            svg.text(p.x + 8, p.y + 12, Self.shortLabel(g), ["fill": colour, "font-size": "10"])
            svg.close("g")
        }
        svg.close("g")

        // Timeline axis.
        let x0 = Self.timelineLeftPx, x1 = widthPx - m
        func tx(_ seconds: Double) -> Double { x0 + (seconds - data.startTime.seconds) / duration * (x1 - x0) }
        let lanesBottom = gestureLanesTop + Double(kinds.count) * rowH
        svg.open("g", ["class": "timeline"])
        svg.text(m, timelineTop, "Timeline (s from the first event)", ["font-weight": "bold", "font-size": "12"])
        // Beyond the choices (a recording spanning days, or centuries), a plain twelfth: never more
        // than a dozen ticks, whatever the span.
        let step = Swift.max(
            Self.niceStep(
                duration / 12, choices: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600]),
            duration / 12)
        var tick = 0.0
        var ticks = ""
        while tick <= duration + 1e-9 {
            let x = tx(data.startTime.seconds + tick)
            ticks += "M\(f(x)) \(f(touchLanesTop - 6))V\(f(lanesBottom))"
            svg.text(x, lanesBottom + 12, f(tick), ["fill": "#777", "font-size": "9", "text-anchor": "middle"])
            tick += step
        }
        svg.element("path", ["class": "ticks", "d": ticks, "stroke": "#eee", "stroke-width": "1"])

        // One lane per touch id: when each touch was down.
        for row in 0..<touchRows {
            svg.text(
                x0 - 4, touchLanesTop + Double(row) * 14 + 9, "t\(row)",
                ["fill": "#777", "font-size": "9", "text-anchor": "end"])
        }
        for trace in data.traces {
            let a = tx(trace.beganAt.seconds), b = max(tx(trace.lastTime.seconds), a + 1.5)
            svg.element(
                "rect",
                [
                    "class": "touch-span", "x": f(a), "y": f(touchLanesTop + Double(trace.id) * 14), "width": f(b - a),
                    "height": "9", "rx": "2", "fill": Self.colour(trace.index),
                ])
        }

        // One lane per gesture kind.
        var instanceSpans: [UInt64: (first: Double, last: Double, kind: GestureKind, cancelled: Bool)] = [:]
        for g in data.gestures {
            var span = instanceSpans[g.id] ?? (g.time, g.time, g.gesture, false)
            span.first = min(span.first, g.time)
            span.last = max(span.last, g.time)
            if g.phase == .cancelled { span.cancelled = true }
            instanceSpans[g.id] = span
        }
        for (i, kind) in kinds.enumerated() {
            let laneY = gestureLanesTop + Double(i) * rowH
            svg.text(
                x0 - 4, laneY + 13, kind.rawValue,
                ["fill": "#333", "font-size": "10", "text-anchor": "end", "class": "lane-label"])
            svg.element("path", ["d": "M\(f(x0)) \(f(laneY + rowH - 1))H\(f(x1))", "stroke": "#f0f0f0"])
        }
        for (id, span) in instanceSpans.sorted(by: { $0.key < $1.key }) where span.last > span.first {
            guard let lane = kinds.firstIndex(of: span.kind) else { continue }
            let laneY = gestureLanesTop + Double(lane) * rowH
            svg.element(
                "rect",
                [
                    "class": "gesture-span", "data-id": "\(id)", "x": f(tx(span.first)), "y": f(laneY + 6),
                    "width": f(max(tx(span.last) - tx(span.first), 1)), "height": "8", "rx": "2",
                    "fill": span.cancelled ? "#e8b4b4" : "#cfd8e3",
                ])
        }
        for g in data.gestures {
            guard let lane = kinds.firstIndex(of: g.gesture) else { continue }
            let laneY = gestureLanesTop + Double(lane) * rowH
            let x = tx(g.time)
            switch g.phase {
            case .began, .recognized:
                let colour = Self.handColour(g.hand)
                svg.open(
                    "g",
                    [
                        "class": "gesture-mark", "id": "gesture-\(g.id)-\(g.phase.rawValue)",
                        "data-gesture": g.gesture.rawValue, "data-phase": g.phase.rawValue,
                    ])
                svg.element("title", [:], text: Self.longLabel(g, start: data.startTime))
                if g.phase == .began {
                    svg.element("path", ["d": "M\(f(x - 5)) \(f(laneY + 3))l10 7l-10 7z", "fill": colour])
                } else {
                    svg.element("path", ["d": "M\(f(x)) \(f(laneY + 3))l7 7l-7 7l-7 -7z", "fill": colour])
                }
                svg.text(x + 7, laneY + 9, Self.shortLabel(g), ["fill": colour, "font-size": "9"])
                svg.close("g")
            case .cancelled:
                svg.element(
                    "path",
                    [
                        "class": "gesture-cancel", "d": "M\(f(x - 4)) \(f(laneY + 6))l8 8m0 -8l-8 8",
                        "stroke": "#c00", "stroke-width": "2",
                    ])
                svg.text(x + 6, laneY + 20, g.reason ?? "cancelled", ["fill": "#c00", "font-size": "8"])
            case .ended:
                svg.element(
                    "path",
                    ["class": "gesture-end", "d": "M\(f(x)) \(f(laneY + 4))v12", "stroke": "#333", "stroke-width": "2"])
            case .changed:
                break
            }
        }

        // Pinch scale and rotation over time, one curve per gesture instance.
        if let top = scaleChartTop {
            drawChart(
                &svg, top: top, height: chartH, title: "pinch scale", events: pinchScales, value: { $0.scale ?? 1 },
                reference: 1, unit: "×", className: "scale-curve", tx: tx)
        }
        if let top = rotationChartTop {
            drawChart(
                &svg, top: top, height: chartH, title: "rotation", events: rotations,
                value: { ($0.rotation ?? 0) * 180 / .pi },
                reference: 0, unit: "°", className: "rotation-curve", tx: tx)
        }
        svg.close("g")
        svg.close("svg")
        return svg.text
    }

    private func drawChart(
        _ svg: inout SVGBuffer, top: Double, height: Double, title: String, events: [GestureEvent],
        value: (GestureEvent) -> Double, reference: Double, unit: String, className: String,
        tx: (Double) -> Double
    ) {
        let x0 = Self.timelineLeftPx, x1 = widthPx - Self.marginPx
        let values = events.map(value)
        var low = min(values.min() ?? reference, reference), high = max(values.max() ?? reference, reference)
        if high - low < 1e-9 { low -= 1; high += 1 }
        let pad = (high - low) * 0.08
        low -= pad; high += pad
        func vy(_ v: Double) -> Double { top + height - (v - low) / (high - low) * height }
        svg.open("g", ["class": "chart", "data-chart": className])
        svg.element(
            "rect",
            ["x": f(x0), "y": f(top), "width": f(x1 - x0), "height": f(height), "fill": "none", "stroke": "#ddd"])
        svg.text(Self.marginPx, top - 4, title, ["font-weight": "bold", "font-size": "11"])
        svg.element(
            "path", ["d": "M\(f(x0)) \(f(vy(reference)))H\(f(x1))", "stroke": "#bbb", "stroke-dasharray": "4 3"])
        svg.text(
            x0 - 4, vy(reference) + 3, "\(f2(reference))\(unit)",
            ["fill": "#777", "font-size": "9", "text-anchor": "end"])
        svg.text(
            x0 - 4, vy(high - pad) + 3, "\(f2(high - pad))\(unit)",
            ["fill": "#777", "font-size": "9", "text-anchor": "end"])
        svg.text(
            x0 - 4, vy(low + pad) + 3, "\(f2(low + pad))\(unit)",
            ["fill": "#777", "font-size": "9", "text-anchor": "end"])
        var byInstance: [UInt64: [GestureEvent]] = [:]
        var order: [UInt64] = []
        for e in events {
            if byInstance[e.id] == nil { order.append(e.id) }
            byInstance[e.id, default: []].append(e)
        }
        for id in order {
            let instance = byInstance[id] ?? []
            let colour = Self.handColour(instance.first { $0.hand != nil }?.hand)
            let points = instance.map { "\(f(tx($0.time))),\(f(vy(value($0))))" }.joined(separator: " ")
            svg.element(
                "polyline",
                [
                    "class": className, "data-id": "\(id)", "points": points, "fill": "none",
                    "stroke": colour, "stroke-width": "2",
                ])
            if let last = instance.last {
                svg.text(
                    tx(last.time) + 4, vy(value(last)) + 3, "\(f2(value(last)))\(unit)",
                    ["fill": colour, "font-size": "9"])
            }
        }
        svg.close("g")
    }

    /// ``timeDotMilliseconds`` in µs, kept within 1 ms … 1 day so any value converts to an integer
    /// step (1e19 ms trapped) and no trace gets a dot per microsecond.
    var dotStepMicroseconds: Double {
        timeDotMilliseconds.isNaN ? 100_000 : Swift.min(Swift.max(timeDotMilliseconds * 1000, 1000), 86_400e6)
    }

    /// Times of the dots along a trace: its start, then every ``timeDotMilliseconds``.
    func dotTimes(_ trace: TouchTrace) -> [Timestamp] {
        guard timeDotMilliseconds > 0, !trace.samples.isEmpty else { return [] }
        var out: [Timestamp] = []
        var t = trace.beganAt
        // At most ~1,000 dots a touch: a touch held for days gets them further apart, not a
        // picture of megabytes.
        let spanUs = Double(trace.lastTime.microseconds) - Double(trace.beganAt.microseconds)
        let stepUs = Int64(Swift.max(dotStepMicroseconds, spanUs / 1000))
        while t <= trace.lastTime && out.count < 1_001 {
            out.append(t)
            t = t.advanced(byMicroseconds: stepUs)
        }
        return out
    }

    /// A few words for a mark: what, how many fingers, the hand and its clear side.
    static func shortLabel(_ g: GestureEvent) -> String {
        var parts = [g.gesture.rawValue]
        if let n = g.fingers, g.gesture != .tap || n > 1 { parts.append("\(n)f") }
        if let taps = g.taps, taps > 1 { parts.append("×\(taps)") }
        if let d = g.direction { parts.append(d.rawValue) }
        if let hand = g.hand, hand != .unknown {
            parts.append("\(hand.rawValue) hand")
            if let side = g.clearSide, side != .unknown { parts.append("clear \(side.rawValue)") }
        }
        return parts.joined(separator: " ")
    }

    /// Every field worth reading, for the mark's tooltip.
    static func longLabel(_ g: GestureEvent, start: Timestamp) -> String {
        var parts = ["\(g.gesture.rawValue) \(g.phase.rawValue) #\(g.id) at \(f3(g.time - start.seconds)) s"]
        if let v = g.fingers { parts.append("fingers \(v)") }
        if let v = g.touches { parts.append("touches \(v.map(String.init).joined(separator: ","))") }
        if let v = g.centroidMm { parts.append("centroid \(f1(v.x)),\(f1(v.y)) mm") }
        if let v = g.positionMm { parts.append("position \(f1(v.x)),\(f1(v.y)) mm") }
        if let v = g.spanMm { parts.append("span \(f1(v)) mm") }
        if let v = g.scale { parts.append("scale \(f3(v))") }
        if let v = g.rotation { parts.append("rotation \(f1(v * 180 / .pi))°") }
        if let v = g.hand { parts.append("hand \(v.rawValue)" + (g.handConfidence.map { " (\(f2($0)))" } ?? "")) }
        if let v = g.clearSide { parts.append("clearSide \(v.rawValue)") }
        if let v = g.taps { parts.append("taps \(v)") }
        if let v = g.duration { parts.append("duration \(f2(v)) s") }
        if let v = g.direction { parts.append("direction \(v.rawValue)") }
        if let v = g.translationMm { parts.append("translation \(f1(v.x)),\(f1(v.y)) mm") }
        return parts.joined(separator: ", ")
    }

    /// The smallest choice at least `raw` (or the largest choice).
    static func niceStep(_ raw: Double, choices: [Double]) -> Double {
        choices.first { $0 >= raw } ?? choices.last ?? 1
    }
}

/// Writes SVG text with attribute and text escaping; attributes in a fixed (sorted) order so the
/// output is stable from run to run.
struct SVGBuffer {
    private(set) var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    private var depth = 0

    mutating func open(_ name: String, _ attributes: [String: String]) {
        text += indent + "<\(name)\(Self.attributes(attributes))>\n"
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        text += indent + "</\(name)>\n"
    }

    mutating func element(_ name: String, _ attributes: [String: String], text body: String? = nil) {
        if let body {
            text += indent + "<\(name)\(Self.attributes(attributes))>\(Self.escape(body))</\(name)>\n"
        } else {
            text += indent + "<\(name)\(Self.attributes(attributes))/>\n"
        }
    }

    mutating func text(_ x: Double, _ y: Double, _ body: String, _ attributes: [String: String] = [:]) {
        var a = attributes
        a["x"] = f(x)
        a["y"] = f(y)
        element("text", a, text: body)
    }

    private var indent: String { String(repeating: " ", count: depth) }

    static func attributes(_ a: [String: String]) -> String {
        a.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
    }

    /// XML escaping; control characters other than tab/newline (invalid in XML 1.0) become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

/// Coordinates with at most two decimals, no trailing zeros, never "nan"/"inf" (invalid in SVG).
fileprivate func f(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 100).rounded() / 100
    if r == r.rounded() && abs(r) < 1e15 { return String(Int64(r)) }
    return String(format: "%.2f", r).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
}
fileprivate func f1(_ v: Double) -> String { v.isFinite ? String(format: "%.1f", v) : "?" }
fileprivate func f2(_ v: Double) -> String { v.isFinite ? String(format: "%.2f", v) : "?" }
fileprivate func f3(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "?" }
