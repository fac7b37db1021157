/// Counts of input that was wrong but handled (never a crash).
public struct TrackerCounters: Hashable, Sendable {
    public var frames: UInt64 = 0
    public var events: UInt64 = 0
    /// ABS_MT_SLOT beyond the device's declared slots.
    public var outOfRangeSlots: UInt64 = 0
    /// Axis values outside min…max (clamped).
    public var outOfRangeValues: UInt64 = 0
    /// A new tracking id in a slot that had an active touch, without a lift.
    public var reusedTrackingIDs: UInt64 = 0
    /// Frames that were closed without SYN_REPORT (e.g. a new slot touched twice in one frame).
    public var missingSynReports: UInt64 = 0
    /// SYN_DROPPED resyncs.
    public var resyncs: UInt64 = 0
    /// Touches cancelled (resync, id reuse, device removed).
    public var cancelledTouches: UInt64 = 0
    public init() {}
}

/// Turns evdev events into ``TouchFrame``s: one per SYN_REPORT.
///
/// STUB: replaced by the real tracker (issue 2).
public struct TouchTracker: Sendable {
    public let description: DeviceDescription
    public let geometry: DeviceGeometry
    public private(set) var counters = TrackerCounters()

    public init(description: DeviceDescription, geometry: DeviceGeometry? = nil) {
        self.description = description
        self.geometry = geometry ?? DeviceGeometry(description: description)
    }

    /// Feeds one event; returns the frame completed by a SYN_REPORT, else nil.
    public mutating func handle(_ event: InputEvent) -> TouchFrame? {
        counters.events += 1
        return nil
    }

    /// Ends every active touch as cancelled (device removed); nil when none was active.
    public mutating func cancelAll(at time: Timestamp) -> TouchFrame? {
        nil
    }
}
