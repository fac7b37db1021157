import CMallocCounter

/// One benchmark figure: printed as a table row and as one JSON line.
struct Figure {
    var name: String
    var values: [(key: String, value: Double)]
    var notes: [(key: String, value: String)] = []

    /// `{"bench":"pipeline","stream":"real",...}`, keys in insertion order (machine-readable).
    var jsonLine: String {
        var parts = ["\"bench\":\(quoted(name))"]
        for (k, v) in notes { parts.append("\(quoted(k)):\(quoted(v))") }
        for (k, v) in values { parts.append("\(quoted(k)):\(number(v))") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    private func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
    private func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String((v * 1000).rounded() / 1000)
    }
}

/// Heap allocations counted by the bench's malloc definitions (CMallocCounter).
enum AllocationCounter {
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, allocations: Int64, bytes: Int64) {
        handyd_malloc_counter_reset()
        handyd_malloc_counter_start()
        let r = try body()
        handyd_malloc_counter_stop()
        return (r, handyd_malloc_counter_allocations(), handyd_malloc_counter_bytes())
    }

    /// False if the process's malloc is not ours (e.g. statically linked differently): then counts are meaningless.
    static var works: Bool {
        let r = measure { () -> Int in
            let a = [Int](repeating: 1, count: Int.random(in: 100...200))
            return a.count
        }
        return r.allocations > 0 && r.result > 0
    }
}

/// Formats rows as an aligned text table.
func table(_ header: [String], _ rows: [[String]]) -> String {
    var widths = header.map(\.count)
    for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { i, c in
            i == 0
                ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[i] - c.count) + c
        }.joined(separator: "  ")
    }
    return ([line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line))
        .joined(separator: "\n")
}

func formatted(_ v: Double, decimals: Int = 0) -> String {
    var p = 1.0
    for _ in 0..<decimals { p *= 10 }
    let r = (v * p).rounded() / p
    if decimals == 0 {
        // Thousands separators for big counts.
        let digits = String(Int64(r))
        var out = ""
        for (i, ch) in digits.reversed().enumerated() {
            if i > 0, i % 3 == 0, ch != "-" { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }
    return String(r)
}

extension Duration {
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
