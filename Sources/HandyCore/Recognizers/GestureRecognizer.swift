import HandyProtocol

/// One recognizer of the arena: a state machine whose only inputs are ``RecognizerInput``s, which
/// reports the gesture kinds in ``kinds``. The arena feeds every recognizer of its table
/// (``ArenaRecognizers``) in a fixed order; a new gesture is a type conforming to this and its
/// line in that table (docs/ARCHITECTURE.md "Adding a gesture").
///
/// The arena holds each recognizer as its concrete type and visits them with a generic visitor,
/// so every call is specialised: no existential, no dynamic dispatch on the per-frame path.
protocol GestureRecognizer: Sendable {
    /// The kinds it reports (a test checks that every ``GestureKind`` has exactly one recognizer).
    static var kinds: [GestureKind] { get }
    /// Per-touch sub-gestures are a layer of their own: a palm does not cancel them, and the
    /// transition log leaves them out.
    static var isPerTouch: Bool { get }
    /// Whether it waits for time to pass without frames (``nextDeadline(_:)``): only those are fed
    /// `timeAdvanced`.
    static var usesTimers: Bool { get }

    mutating func handle(_ input: RecognizerInput, _ context: inout ArenaContext, into out: inout [CoreGestureEvent])
    /// Called after it handled an input, before the next recognizer sees it.
    func afterHandling(_ context: inout ArenaContext)
    /// The earliest time it waits for; nil: none.
    func nextDeadline(_ context: ArenaContext) -> Timestamp?
    /// The case name of its state, for the transition log (``GestureArena/tracesTransitions``).
    var stateName: String { get }
}

extension GestureRecognizer {
    static var isPerTouch: Bool { false }
    static var usesTimers: Bool { false }
    func afterHandling(_ context: inout ArenaContext) {}
    func nextDeadline(_ context: ArenaContext) -> Timestamp? { nil }
    var stateName: String { "" }

    /// The name of `state`'s case without its associated values (`waiting`, not `waiting(…)`).
    static func caseName(_ state: Any) -> String {
        let s = String(describing: state)
        return s.firstIndex(of: "(").map { String(s[..<$0]) } ?? s
    }
}

/// An operation on every recognizer of ``ArenaRecognizers``, in their order.
protocol RecognizerVisitor {
    mutating func visit<R: GestureRecognizer>(
        _ recognizer: inout R, _ context: inout ArenaContext, _ out: inout [CoreGestureEvent])
}
