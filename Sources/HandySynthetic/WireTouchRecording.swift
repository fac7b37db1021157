import HandyCore
import HandyProtocol

/// The touches a daemon publishes (`touches` messages), written back as a recording: a protocol-B
/// touchscreen the size of the display, in the display frame at ``unitsPerMm``, with the axes the
/// touches carried (contact ellipse, orientation in degrees, pressure). What `handyctl calibrate
/// hand --device` records of a person's enrolment, so the recordings replay through the same
/// pipeline as any other (`calibrate hand --from`, `eval handedness`).
public struct WireTouchRecording: Sendable {
    public static let unitsPerMm = 10.0
    public let widthMm: Double
    public let heightMm: Double
    public private(set) var events: [InputEvent] = []
    /// Touch id → slot of the touches down now.
    private var slots: [Int: Int] = [:]
    private var nextTrackingID: Int32 = 1
    private var firstTime: Double?
    private(set) var hasEllipse = false
    private(set) var hasOrientation = false
    private(set) var hasPressure = false
    /// Ten slots: more fingers than that are not an enrolment.
    public static let slotCount = 10

    public init(widthMm: Double, heightMm: Double) {
        self.widthMm = Swift.max(widthMm, 1)
        self.heightMm = Swift.max(heightMm, 1)
    }

    /// Touches down now.
    public var touchesDown: Int { slots.count }
    public var isEmpty: Bool { events.isEmpty }

    /// One published frame: its touches that began, moved, ended or were cancelled.
    public mutating func append(_ m: TouchesMessage) {
        let start = firstTime ?? m.time
        firstTime = start
        let time = Timestamp(seconds: Swift.max(0, m.time - start))
        let wasDown = !slots.isEmpty
        var frame: [InputEvent] = []
        func abs(_ code: UInt16, _ value: Int32) {
            frame.append(InputEvent(time: time, type: EventType.abs, code: code, value: value))
        }
        func units(_ mm: Double) -> Int32 { Int32((Swift.min(Swift.max(mm, 0), 100_000) * Self.unitsPerMm).rounded()) }
        for t in m.touches {
            let lifted = t.phase == "ended" || t.phase == "cancelled"
            var slot = slots[t.id]
            if slot == nil {
                guard !lifted, let free = (0..<Self.slotCount).first(where: { s in !slots.values.contains(s) }) else {
                    continue
                }
                slot = free
                slots[t.id] = free
                abs(AbsCode.mtSlot, Int32(free))
                abs(AbsCode.mtTrackingID, nextTrackingID)
                nextTrackingID = nextTrackingID == 65_535 ? 1 : nextTrackingID + 1
            } else if let slot {
                abs(AbsCode.mtSlot, Int32(slot))
            }
            if lifted {
                abs(AbsCode.mtTrackingID, -1)
                slots[t.id] = nil
                continue
            }
            abs(AbsCode.mtPositionX, units(t.xMm))
            abs(AbsCode.mtPositionY, units(t.yMm))
            if let major = t.majorMm, major.isFinite {
                hasEllipse = true
                abs(AbsCode.mtTouchMajor, units(major))
                abs(AbsCode.mtTouchMinor, units(t.minorMm ?? major))
            }
            if let o = t.orientation, o.isFinite {
                hasOrientation = true
                abs(
                    AbsCode.mtOrientation,
                    Int32((Swift.min(Swift.max(o, -Double.pi / 2), Double.pi / 2) * 180 / Double.pi).rounded()))
            }
            if let p = t.pressure, p.isFinite {
                hasPressure = true
                abs(AbsCode.mtPressure, Int32((Swift.min(Swift.max(p, 0), 1) * 1000).rounded()))
            }
        }
        guard !frame.isEmpty else { return }
        if wasDown != !slots.isEmpty {
            frame.append(
                InputEvent(time: time, type: EventType.key, code: KeyCode.btnTouch, value: slots.isEmpty ? 0 : 1))
        }
        frame.append(InputEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0))
        events += frame
    }

    /// The device the recording is made on: the display's size, the axes the touches carried.
    public func device(name: String) -> SyntheticTouchscreen {
        SyntheticTouchscreen(
            name: name, mtProtocol: .slots(Self.slotCount),
            maxX: Int32((widthMm * Self.unitsPerMm).rounded()), maxY: Int32((heightMm * Self.unitsPerMm).rounded()),
            resolution: Int32(Self.unitsPerMm), touchMajorMax: hasEllipse ? 1_000 : nil, hasTouchMinor: hasEllipse,
            orientationRange: hasOrientation ? -90...90 : nil, pressureMax: hasPressure ? 1_000 : nil,
            hasToolType: false, emulatesPointer: false)
    }

    /// What the device reports, as the handedness classifier tiers it.
    public var tier: HandednessTier {
        if hasOrientation { return .orientation }
        return hasEllipse || hasPressure ? .size : .positions
    }
}
