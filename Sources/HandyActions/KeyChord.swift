import HandyInput

/// Keys pressed together, e.g. `ctrl+alt+f1` or `KEY_LEFTCTRL+KEY_F1`: pressed in the order
/// written (write modifiers first), released in reverse.
public struct KeyChord: Sendable, Equatable {
    /// EV_KEY codes in press order.
    public var codes: [UInt16]
    /// The chord as written in the file.
    public var source: String

    /// Why a chord does not parse.
    public struct Problem: Error, Sendable, Equatable { public var message: String }

    /// Short names for the keys people write most (libinput and xkb spell them the same way);
    /// any other name is a kernel key name with or without `KEY_` (`f1`, `KEY_F1`, `back`).
    static let aliases: [String: String] = [
        "ctrl": "KEY_LEFTCTRL", "control": "KEY_LEFTCTRL", "rctrl": "KEY_RIGHTCTRL",
        "shift": "KEY_LEFTSHIFT", "rshift": "KEY_RIGHTSHIFT",
        "alt": "KEY_LEFTALT", "altgr": "KEY_RIGHTALT", "ralt": "KEY_RIGHTALT",
        "super": "KEY_LEFTMETA", "meta": "KEY_LEFTMETA", "win": "KEY_LEFTMETA", "logo": "KEY_LEFTMETA",
        "esc": "KEY_ESC", "escape": "KEY_ESC", "return": "KEY_ENTER", "del": "KEY_DELETE",
        "pgup": "KEY_PAGEUP", "pgdn": "KEY_PAGEDOWN", "pagedown": "KEY_PAGEDOWN", "pageup": "KEY_PAGEUP",
    ]

    public init(parsing source: String) throws(Problem) {
        self.source = source
        let names = source.split(separator: "+", omittingEmptySubsequences: false).map { String($0).trimmed(of: " \t") }
        guard !names.isEmpty, !names.contains(where: \.isEmpty) else {
            throw Problem(message: "\"\(source)\" is not a chord: key names joined by \"+\", e.g. \"ctrl+alt+f1\"")
        }
        var codes: [UInt16] = []
        for name in names {
            let kernelName =
                Self.aliases[name.lowercased()]
                ?? {
                    let upper = name.uppercased()
                    return upper.hasPrefix("KEY_") ? upper : "KEY_" + upper
                }()
            guard let code = KeyCodes.code(named: kernelName), code > 0 else {
                throw Problem(
                    message: "unknown key \"\(name)\" in \"\(source)\" (names as in linux/input-event-codes.h, "
                        + "e.g. KEY_F1 or f1, or ctrl, shift, alt, altgr, super, esc)")
            }
            guard !codes.contains(code) else { throw Problem(message: "\"\(name)\" twice in \"\(source)\"") }
            codes.append(code)
        }
        self.codes = codes
    }

    /// The kernel names (`KEY_LEFTCTRL+KEY_F1`), for log lines.
    public var kernelNames: String {
        codes.map { KeyCodes.name(of: $0) ?? "\($0)" }.joined(separator: "+")
    }
}

extension String {
    func trimmed(of set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
