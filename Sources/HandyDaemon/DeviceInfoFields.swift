import HandyCore
import HandyProtocol

// Helpers for the fields of a `DeviceInfo` that both device sources (live, replay) fill in.

/// A display size for the wire, rounded to 0.1 mm; nil when not finite: JSON has no infinity, and
/// a hello or device message that cannot be encoded would stop the daemon.
func wireSizeMm(_ mm: Double) -> Double? {
    let r = rounded(mm, 1)
    return r.isFinite ? r : nil
}

/// A configuration's problems for the wire: absent when there are none (the field is optional).
func wireProblems(_ problems: [String]) -> [String]? {
    problems.isEmpty ? nil : problems
}

/// Whether a device reports hover, for the wire: true, or absent (the field is optional), so
/// the device lines of devices without hover stay as they were.
func wireHover(_ tracker: TouchTracker) -> Bool? {
    tracker.tracksHover ? true : nil
}
