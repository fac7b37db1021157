import HandyProtocol

/// One line of terminal text built from styled pieces, so it can be cut to the terminal's width by
/// what is visible (escape sequences take no columns) without cutting a sequence in half.
struct TerminalLine: Sendable, Hashable {
    struct Piece: Sendable, Hashable {
        var text: String
        var sgr: String?
    }
    var pieces: [Piece] = []

    init(_ text: String = "") {
        if !text.isEmpty { pieces.append(Piece(text: text, sgr: nil)) }
    }

    /// Appends plain text.
    mutating func append(_ text: String) { pieces.append(Piece(text: text, sgr: nil)) }

    /// Appends text in a style (ANSI SGR parameters, e.g. `"1"` bold, `"7"` reverse video).
    mutating func append(_ text: String, _ style: TerminalStyle) {
        pieces.append(Piece(text: text, sgr: style.sgr))
    }

    /// Columns the text takes (one per Unicode scalar: the screen uses no wide characters).
    var width: Int { pieces.reduce(0) { $0 + $1.text.unicodeScalars.count } }

    /// The text without styling.
    var plain: String { pieces.map(\.text).joined() }

    /// The line for a terminal of `columns`, styled when `colour`.
    func rendered(columns: Int?, colour: Bool) -> String {
        var left = columns ?? Int.max
        var out = ""
        for piece in pieces where left > 0 {
            var text = piece.text
            let n = text.unicodeScalars.count
            if n > left {
                text = String(String.UnicodeScalarView(text.unicodeScalars.prefix(left)))
            }
            left -= Swift.min(n, left)
            if colour, let sgr = piece.sgr, !text.isEmpty {
                out += "\u{1B}[\(sgr)m" + text + "\u{1B}[0m"
            } else {
                out += text
            }
        }
        return out
    }
}

/// A text style for the terminal, as ANSI SGR parameters.
struct TerminalStyle: Sendable, Hashable {
    var sgr: String?
    init(sgr: String?) { self.sgr = sgr }

    static let plain = TerminalStyle(sgr: nil)
    static let bold = TerminalStyle(sgr: "1")
    static let dim = TerminalStyle(sgr: "2")
    static let reverse = TerminalStyle(sgr: "7")
    static let red = TerminalStyle(sgr: "31")
    static let green = TerminalStyle(sgr: "32")
    static let yellow = TerminalStyle(sgr: "33")
    /// Fingers hovering above the glass (`handyctl monitor`), apart from the touches.
    static let cyan = TerminalStyle(sgr: "36")
    static let boldGreen = TerminalStyle(sgr: "1;32")

    /// Right hand orange, left hand blue, as in `handyctl plot`; unknown grey.
    static func hand(_ hand: Hand, emphasised: Bool = false) -> TerminalStyle {
        let base: String
        switch hand {
        case .right: base = "38;5;208"
        case .left: base = "38;5;33"
        case .unknown: base = "38;5;245"
        }
        return TerminalStyle(sgr: emphasised ? "1;7;" + base : "1;" + base)
    }
}
