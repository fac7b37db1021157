/// The inputs of every recognizer's state machine: time only comes in through them.
package enum RecognizerInput: Sendable {
    case frame(FrameMotion)
    case timeAdvanced(to: Timestamp)
    case cancel(at: Timestamp, reason: String)
}
