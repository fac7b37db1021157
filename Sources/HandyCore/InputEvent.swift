/// A point in time on the device's clock (the kernel's event timestamps), in microseconds.
///
/// Every recognizer takes its time from these values, never from a wall clock, so a replay
/// gives the same output every time.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the clock's epoch.
    public var microseconds: Int64

    /// A time in microseconds.
    public init(microseconds: Int64) { self.microseconds = microseconds }
    // The arithmetic saturates at Int64's ends instead of trapping: a device or a recording may
    // carry any 64-bit time, and no time may crash the daemon (issue 8: `handyd --replay` and
    // `handyctl replay` trapping on a recording near the end of Int64's range).
    /// A time from `struct timeval`'s parts, saturating at Int64's ends.
    public init(seconds: Int64, microseconds: Int64) {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        self.microseconds = overflow ? (seconds < 0 ? .min : .max) : Self.saturatingSum(scaled, microseconds)
    }
    /// A time in seconds, rounded to the microsecond, saturating.
    public init(seconds: Double) { self.microseconds = Self.saturating(seconds * 1_000_000) }

    /// The epoch.
    public static let zero = Timestamp(microseconds: 0)

    /// The time in seconds.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// This time plus `ms` milliseconds, saturating.
    public func advanced(byMilliseconds ms: Double) -> Timestamp {
        Timestamp(microseconds: Self.saturatingSum(microseconds, Self.saturating(ms * 1000)))
    }
    /// This time plus `us` microseconds, saturating.
    public func advanced(byMicroseconds us: Int64) -> Timestamp {
        Timestamp(microseconds: Self.saturatingSum(microseconds, us))
    }

    /// Milliseconds from `earlier` to `self` (negative when `earlier` is later).
    public func milliseconds(since earlier: Timestamp) -> Double {
        (Double(microseconds) - Double(earlier.microseconds)) / 1000
    }
    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    public func seconds(since earlier: Timestamp) -> Double {
        (Double(microseconds) - Double(earlier.microseconds)) / 1_000_000
    }

    /// `v` rounded to Int64, clamped to its range (NaN → 0).
    @inline(__always) package static func saturating(_ v: Double) -> Int64 {
        guard !v.isNaN else { return 0 }
        // 2^63 is not an Int64; the largest Double below it is.
        if v >= 9_223_372_036_854_774_784 { return .max }
        if v <= -9_223_372_036_854_775_808 { return .min }
        return Int64(v.rounded())
    }

    /// `a + b` clamped to Int64's range.
    @inline(__always) package static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }

    /// Earlier first.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    /// Seconds with six decimals.
    public var description: String { String(format6(seconds)) }
}

@inline(__always) func format6(_ v: Double) -> String {
    // Avoids Foundation's String(format:) in a pure module.
    let us = Timestamp.saturating(v * 1_000_000)
    let sign = us < 0 ? "-" : ""
    let a = us.magnitude
    let frac = String(a % 1_000_000)
    return "\(sign)\(a / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
}

/// One evdev event as the kernel reports it (`struct input_event`).
public struct InputEvent: Hashable, Sendable, CustomStringConvertible {
    /// When the kernel stamped it.
    public var time: Timestamp
    /// EV_* (see ``EventType``)
    public var type: UInt16
    /// The event code (ABS_MT_POSITION_X, SYN_REPORT, …).
    public var code: UInt16
    /// The value.
    public var value: Int32

    /// An event from `struct input_event`'s fields.
    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// True for SYN_REPORT, the end of a frame.
    public var isSynReport: Bool { type == EventType.syn && code == SynCode.report }
    /// True for SYN_DROPPED: the kernel's buffer overflowed, events were lost.
    public var isSynDropped: Bool { type == EventType.syn && code == SynCode.dropped }
    var isSynMTReport: Bool { type == EventType.syn && code == SynCode.mtReport }

    /// Time, type, code and value, as evemu writes them.
    public var description: String { "\(time) \(type) \(code) \(value)" }
}

/// EV_* event types (linux/input-event-codes.h).
public enum EventType {
    /// EV_SYN.
    public static let syn: UInt16 = 0x00
    /// EV_KEY.
    public static let key: UInt16 = 0x01
    /// EV_REL.
    public static let rel: UInt16 = 0x02
    /// EV_ABS.
    public static let abs: UInt16 = 0x03
    /// EV_MSC.
    public static let msc: UInt16 = 0x04
    /// EV_SW.
    public static let sw: UInt16 = 0x05
    /// EV_LED.
    public static let led: UInt16 = 0x11
    /// EV_SND.
    public static let snd: UInt16 = 0x12
    /// EV_REP.
    public static let rep: UInt16 = 0x14
    /// EV_FF.
    public static let ff: UInt16 = 0x15
    /// EV_PWR.
    public static let pwr: UInt16 = 0x16
    static let ffStatus: UInt16 = 0x17
    /// EV_MAX.
    public static let max: UInt16 = 0x1f
}

/// SYN_* codes.
public enum SynCode {
    /// SYN_REPORT: end of a frame.
    public static let report: UInt16 = 0
    /// SYN_CONFIG.
    public static let config: UInt16 = 1
    /// SYN_MT_REPORT: end of one contact in multitouch protocol A.
    public static let mtReport: UInt16 = 2
    /// SYN_DROPPED: the kernel's buffer overflowed; state must be resynchronised.
    public static let dropped: UInt16 = 3
}

/// ABS_* axis codes.
public enum AbsCode {
    /// ABS_X.
    public static let x: UInt16 = 0x00
    /// ABS_Y.
    public static let y: UInt16 = 0x01
    /// ABS_PRESSURE.
    public static let pressure: UInt16 = 0x18
    /// ABS_MT_SLOT
    public static let mtSlot: UInt16 = 0x2f
    /// ABS_MT_TOUCH_MAJOR
    public static let mtTouchMajor: UInt16 = 0x30
    /// ABS_MT_TOUCH_MINOR
    public static let mtTouchMinor: UInt16 = 0x31
    /// ABS_MT_WIDTH_MAJOR
    public static let mtWidthMajor: UInt16 = 0x32
    /// ABS_MT_WIDTH_MINOR
    public static let mtWidthMinor: UInt16 = 0x33
    /// ABS_MT_ORIENTATION
    public static let mtOrientation: UInt16 = 0x34
    /// ABS_MT_POSITION_X
    public static let mtPositionX: UInt16 = 0x35
    /// ABS_MT_POSITION_Y
    public static let mtPositionY: UInt16 = 0x36
    /// ABS_MT_TOOL_TYPE
    public static let mtToolType: UInt16 = 0x37
    /// ABS_MT_BLOB_ID
    static let mtBlobID: UInt16 = 0x38
    /// ABS_MT_TRACKING_ID
    public static let mtTrackingID: UInt16 = 0x39
    /// ABS_MT_PRESSURE
    public static let mtPressure: UInt16 = 0x3a
    /// ABS_MT_DISTANCE
    public static let mtDistance: UInt16 = 0x3b
    static let mtToolX: UInt16 = 0x3c
    static let mtToolY: UInt16 = 0x3d
    /// ABS_MAX.
    public static let max: UInt16 = 0x3f
}

/// KEY_/BTN_ codes handyd cares about.
public enum KeyCode {
    /// BTN_TOUCH.
    public static let btnTouch: UInt16 = 0x14a
    /// BTN_TOOL_FINGER.
    public static let btnToolFinger: UInt16 = 0x145
    static let btnToolPen: UInt16 = 0x140
    static let btnToolDoubleTap: UInt16 = 0x14d
}

/// INPUT_PROP_* device properties.
public enum InputProperty {
    /// INPUT_PROP_POINTER.
    public static let pointer: UInt16 = 0x00
    /// INPUT_PROP_DIRECT: a touchscreen (not a touchpad).
    public static let direct: UInt16 = 0x01
    static let buttonpad: UInt16 = 0x02
    static let semiMT: UInt16 = 0x03
    static let topButtonpad: UInt16 = 0x04
    static let pointingStick: UInt16 = 0x05
    static let accelerometer: UInt16 = 0x06
}

/// MT_TOOL_* values of ABS_MT_TOOL_TYPE.
public enum MTTool {
    /// MT_TOOL_FINGER.
    public static let finger: Int32 = 0
    /// MT_TOOL_PEN.
    public static let pen: Int32 = 1
    /// MT_TOOL_PALM.
    public static let palm: Int32 = 2
}
