import HandyCore
import Logging

/// Tells the journal when a device breaks the multitouch protocol. The tracker copes with each
/// fault and counts it (``TrackerCounters``); without this, only `handyctl replay --summary` of a
/// recording would show them. A warning the first time a kind of fault is seen on a device, then
/// each time its count reaches ten times the count last reported: a device that misbehaves all
/// day writes a few lines, not one a frame.
struct DeviceFaultReport {
    /// The counts at the last warning, per kind (only the fault kinds below are used).
    private var reported = TrackerCounters()
    /// ``TrackerCounters/faultCount`` at the last check.
    private var checkedFaultCount: UInt64 = 0

    /// Called by a reader after each turn: one comparison, and the full check only when the
    /// device's fault count moved (the full check is too dear for every frame).
    @inline(__always)
    mutating func checkIfChanged(_ counters: TrackerCounters, device: String, logger: Logger) {
        if counters.faultCount != checkedFaultCount { check(counters, device: device, logger: logger) }
    }

    /// Compares `counters` with what was reported, warns of what is new.
    mutating func check(_ counters: TrackerCounters, device: String, logger: Logger) {
        checkedFaultCount = counters.faultCount
        Self.report(
            counters.outOfRangeSlots, &reported.outOfRangeSlots, "slot numbers beyond its slots (events ignored)",
            device, logger)
        Self.report(
            counters.outOfRangeValues, &reported.outOfRangeValues, "axis values beyond their range (clamped)", device,
            logger)
        Self.report(
            counters.reusedTrackingIDs, &reported.reusedTrackingIDs,
            "tracking ids replaced without a lift (touches cancelled)", device, logger)
        Self.report(
            counters.missingSynReports, &reported.missingSynReports, "frames without SYN_REPORT (closed by the next)",
            device, logger)
        Self.report(
            counters.droppedContacts, &reported.droppedContacts,
            "protocol-A contacts beyond the tracked maximum (ignored)", device, logger)
        Self.report(
            counters.resyncs, &reported.resyncs, "SYN_DROPPED: events lost in the kernel's buffer (resynchronised)",
            device, logger)
        Self.report(
            counters.earlierTimes, &reported.earlierTimes,
            "event times earlier than the one before (taken at the latest)", device, logger)
    }

    @inline(__always)
    private static func report(
        _ count: UInt64, _ last: inout UInt64, _ fault: String, _ device: String, _ logger: Logger
    ) {
        guard count > last, last == 0 || count / 10 >= last else { return }
        last = count
        logger.warning(
            "device breaks the multitouch protocol",
            metadata: [
                "device.id": "\(device)", "fault": "\(fault)", "count": "\(count)",
            ])
    }
}
