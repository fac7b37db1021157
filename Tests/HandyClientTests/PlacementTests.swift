import Foundation
import HandyClient
import HandyProtocol
import HandyTestSupport
import Testing

/// `placement(for:…)`: the cases shared with the JavaScript and Python clients
/// (clients/placement-cases.json, worked by hand from the rules), and properties over generated
/// events, screens and sizes.
@Suite struct PlacementTests {

    static func number(_ any: Any?) -> Double { (any as? NSNumber)?.doubleValue ?? .nan }

    @Test func sharedCases() throws {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("clients/placement-cases.json"))
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(doc["cases"] as? [[String: Any]])
        #expect(cases.count >= 23)
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let eventData = try JSONSerialization.data(withJSONObject: try #require(c["event"]))
            guard case .gesture(let event) = try JSONLines.decodeServerMessage(Array(eventData)) else {
                Issue.record("\(name): not a gesture"); continue
            }
            let size = try #require(c["size"] as? [String: Any]), view = try #require(c["view"] as? [String: Any])
            let got = placement(
                for: event, size: PlacementSize(width: Self.number(size["width"]), height: Self.number(size["height"])),
                gap: Self.number(c["gap"]),
                view: PlacementRect(
                    x: Self.number(view["x"]), y: Self.number(view["y"]),
                    width: Self.number(view["width"]), height: Self.number(view["height"])),
                margin: Self.number(c["margin"]), threshold: (c["threshold"] as? NSNumber)?.doubleValue)
            guard let want = c["expected"] as? [String: Any] else {
                #expect(got == nil, "\(name)")
                continue
            }
            let p = try #require(got, "\(name)")
            #expect(p.rule.rawValue == want["rule"] as? String, "\(name): \(p)")
            #expect(p.clear == want["clear"] as? Bool, "\(name): \(p)")
            for (value, key) in [(p.rect.x, "x"), (p.rect.y, "y"), (p.rect.width, "width"), (p.rect.height, "height")] {
                #expect(
                    abs(value - Self.number(want[key])) <= 1e-6,
                    "\(name): \(key) \(value), expected \(want[key] ?? "?")")
            }
        }
    }

    /// SplitMix64: the same events on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
            lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
        }
        mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
    }

    /// Convex hull (monotone chain), counter-clockwise in y-down coordinates.
    static func hull(_ points: [WirePoint]) -> [WirePoint] {
        let pts = Array(Set(points)).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        if pts.count < 3 { return pts }
        func cross(_ o: WirePoint, _ a: WirePoint, _ b: WirePoint) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [WirePoint] = [], upper: [WirePoint] = []
        for p in pts {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 {
                lower.removeLast()
            }
            lower.append(p)
        }
        for p in pts.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 {
                upper.removeLast()
            }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    @Test func propertiesOverGeneratedEvents() {
        var g = Generator(state: 46)
        var rules: [Placement.Rule: Int] = [:]
        for run in 0..<2000 {
            let view = PlacementRect(
                x: g.uniform(-50, 50), y: g.uniform(-50, 50), width: g.uniform(200, 2000), height: g.uniform(200, 1500))
            let margin = g.chance(0.5) ? 0 : g.uniform(0, 20)
            var size = PlacementSize(width: g.uniform(10, 400), height: g.uniform(10, 300))
            if g.chance(0.05) { size.width = view.width * g.uniform(0.9, 1.2) }
            let gap = g.uniform(0, 80)
            let c = WirePoint(x: g.uniform(0, 1), y: g.uniform(0, 1))
            let hand: Hand? = [Hand.left, .right, .unknown, nil][Int(g.next() % 4)]
            let clearSide: Side? = g.chance(0.8) ? hand?.clearSide : nil
            let p: Double? = g.chance(0.7) ? (g.uniform(0, 1) * 1000).rounded() / 1000 : nil
            let threshold: Double? = g.chance(0.5) ? nil : g.uniform(0.5, 0.9)
            var polygon: [WirePoint] = []
            let kind = g.uniform(0, 1)
            if kind < 0.6 {
                let lean = (hand == .right ? 1.0 : hand == .left ? -1.0 : 0) * g.uniform(0, 0.3)
                var pts = (0..<3).map { _ in WirePoint(x: c.x + g.uniform(-0.06, 0.06), y: c.y + g.uniform(-0.06, 0.06))
                }
                let px = c.x + lean, py = c.y + g.uniform(0.1, 0.4)
                pts += [0.0, 1.5, 3, 4.5].map { WirePoint(x: px + 0.1 * cos($0), y: py + 0.1 * sin($0)) }
                pts += [WirePoint(x: px - 0.1 + lean, y: 1.05), WirePoint(x: px + 0.1 + lean, y: 1.05)]
                polygon = pts.map { WirePoint(x: min(1, max(0, $0.x)), y: min(1, max(0, $0.y))) }
            } else if kind < 0.9 {
                polygon = (0..<(3 + Int(g.next() % 7))).map { _ in
                    WirePoint(x: g.uniform(-0.1, 1.1), y: g.uniform(-0.1, 1.1))
                }
            }
            polygon = Self.hull(
                polygon.map { WirePoint(x: ($0.x * 1000).rounded() / 1000, y: ($0.y * 1000).rounded() / 1000) })
            if polygon.count < 3 { polygon = [] }

            let result = placement(
                at: c, hand: hand, clearSide: clearSide, polygon: polygon, rightHandProbability: p,
                size: size, gap: gap, view: view, margin: margin, threshold: threshold)
            rules[result.rule, default: 0] += 1
            let what = "run \(run): \(result)"
            let r = result.rect, w = size.width, h = size.height
            let scale = max(view.width, view.height), tol = 1e-7 * scale, eps = 1e-9 * scale
            let sl = view.x + margin, st = view.y + margin, sr = view.x + view.width - margin,
                sb = view.y + view.height - margin
            let px = polygon.map { WirePoint(x: view.x + $0.x * view.width, y: view.y + $0.y * view.height) }
            let cx = view.x + c.x * view.width, cy = view.y + c.y * view.height
            guard w <= sr - sl && h <= sb - st else {
                #expect(result.rule == .tooBig, "\(what)")
                continue
            }
            #expect(
                r.x >= sl - tol && r.x + w <= sr + tol && r.y >= st - tol && r.y + h <= sb + tol, "off screen: \(what)")
            func clearAt(_ x: Double, _ y: Double) -> Bool {
                !rectOverlapsPolygon(PlacementRect(x: x, y: y, width: w, height: h), px, eps: eps)
            }
            func anyClear(_ x0: Double, _ x1: Double) -> Bool {
                for i in 0...16 {
                    for j in 0...16 where clearAt(x0 + (x1 - x0) * Double(i) / 16, st + (sb - h - st) * Double(j) / 16)
                    { return true }
                }
                return false
            }
            if result.rule == .overlapping {
                #expect(!result.clear && !anyClear(sl, sr - w), "overlapping with a clear place on screen: \(what)")
            } else {
                #expect(result.clear, "\(what)")
                // independently: no point well inside the rectangle is inside the polygon
                for i in 1..<8 {
                    for j in 1..<8 {
                        let q = WirePoint(x: r.x + w * Double(i) / 8, y: r.y + h * Double(j) / 8)
                        #expect(!Self.strictlyInside(px, q, 1e-6 * scale), "\(what) covers \(q)")
                    }
                }
            }
            if let side = placementSide(hand: hand, clearSide: clearSide, rightHandProbability: p, threshold: threshold)
            {
                let box = side == .left ? (sl, cx - gap - w) : (cx + gap, sr - w)
                if box.0 <= box.1 && anyClear(box.0, box.1) {
                    #expect(result.rule == .besideClearSide, "a clear place on the clear side, not taken: \(what)")
                    #expect(side == .left ? r.x + w <= cx - gap + tol : r.x >= cx + gap - tol, "\(what)")
                }
            } else {
                #expect([.neutralAbove, .neutralBeside, .corner, .overlapping].contains(result.rule), "\(what)")
                if result.rule == .neutralAbove { #expect(r.y + h <= cy - gap + tol, "\(what)") }
            }
            let mirrored = placement(
                at: WirePoint(x: 1 - c.x, y: c.y), hand: hand?.mirrored,
                clearSide: clearSide.map { $0 == .left ? .right : $0 == .right ? .left : $0 },
                polygon: polygon.reversed().map { WirePoint(x: 1 - $0.x, y: $0.y) },
                rightHandProbability: p.map { 1 - $0 }, size: size, gap: gap, view: view,
                margin: margin, threshold: threshold)
            #expect(mirrored.rule == result.rule, "mirror: \(what) vs \(mirrored)")
            #expect(
                abs(2 * view.x + view.width - mirrored.rect.x - w - r.x) <= 1e-6 * scale
                    && abs(mirrored.rect.y - r.y) <= 1e-6 * scale,
                "mirror: \(what) vs \(mirrored)")
        }
        #expect(Set(rules.keys) == Set(Placement.Rule.allCases), "\(rules)")
    }

    static func strictlyInside(_ poly: [WirePoint], _ q: WirePoint, _ tol: Double) -> Bool {
        guard poly.count >= 3 else { return false }
        var sign = 0.0
        for i in poly.indices {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            if len == 0 { continue }
            let d = ((b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)) / len
            if abs(d) <= tol { return false }
            if sign == 0 { sign = d > 0 ? 1 : -1 } else if (d > 0 ? 1 : -1) != sign { return false }
        }
        return true
    }
}
