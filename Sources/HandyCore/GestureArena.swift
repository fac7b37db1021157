import HandyProtocol

/// Thresholds and policy for the recognizers; every value overridable per device.
/// STUB: completed by the recognizers issue.
public struct GestureConfiguration: Hashable, Sendable {
    public init() {}
}

/// Runs every recognizer over the same frames.
/// STUB: completed by the recognizers issue.
public struct GestureArena: Sendable {
    public let deviceID: String
    public let geometry: DeviceGeometry
    public var configuration: GestureConfiguration

    public init(deviceID: String, geometry: DeviceGeometry, configuration: GestureConfiguration = .init()) {
        self.deviceID = deviceID
        self.geometry = geometry
        self.configuration = configuration
    }

    /// Feeds one frame; returns the gesture events it caused, in order.
    public mutating func handle(_ frame: TouchFrame) -> [GestureEvent] { [] }

    /// Delivers timers (tap timeout, long-press delay) up to `time`.
    public mutating func advanceTime(to time: Timestamp) -> [GestureEvent] { [] }

    /// Cancels every gesture in progress (device removed, resync).
    public mutating func cancelAll(at time: Timestamp, reason: String) -> [GestureEvent] { [] }

    /// The earliest time a recognizer waits for; the caller arms a timer for it. nil = no timer.
    public var nextDeadline: Timestamp? { nil }
}
