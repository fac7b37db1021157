import HandyProtocol

/// The hand of a discrete gesture (tap, swipe), decided the way a continuous gesture decides it
/// (``ArenaContext/decideHand(_:mask:fingers:)``) from the frame with the most fingers down: decided
/// again whenever more fingers are down than before, so a two-finger tap whose second finger lands
/// a frame late is judged on both fingers, and kept when fingers lift.
struct HandAtMostFingers: Sendable {
    private(set) var decision: HandDecision = .undecided
    private var fingers = 0

    mutating func observe(_ m: FrameMotion, _ ctx: inout ArenaContext) {
        guard m.fingers > fingers else { return }
        fingers = m.fingers
        decision = ctx.decideHand(m.frame, mask: m.fingerMask, fingers: m.fingers)
    }
}
