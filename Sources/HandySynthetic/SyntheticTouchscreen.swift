import HandyCore

/// A made-up touchscreen for tests, benchmarks and evaluation: builds the ``DeviceDescription``
/// a real device with these properties would have, and converts millimetres to its device units.
///
/// Positions start at 0 on both axes. With `resolution` 0 the description carries no resolution,
/// so ``DeviceGeometry`` uses its fallback (250 mm wide, square units); ``geometry`` then tells the
/// mm scale the tracker will use, and ``FingerPath`` positions are converted with that same scale.
public struct SyntheticTouchscreen: Hashable, Sendable {
    /// How contacts are reported.
    public enum MultitouchProtocol: Hashable, Sendable {
        /// Protocol B: `count` slots, ABS_MT_SLOT + ABS_MT_TRACKING_ID (−1 on lift).
        case slots(Int)
        /// Protocol A: anonymous contacts, each closed by SYN_MT_REPORT (N-Trig style).
        case contacts
        /// No ABS_MT_* axes: ABS_X/ABS_Y + BTN_TOUCH, one contact only.
        case singleTouch
    }

    /// Device name (N: line).
    public var name: String
    /// How contacts are reported.
    public var mtProtocol: MultitouchProtocol
    /// Largest X and Y in device units (the minimum is 0).
    public var maxX: Int32
    /// Largest Y in device units.
    public var maxY: Int32
    /// Units per mm on both position axes; 0 = the device reports none.
    public var resolution: Int32
    /// Largest ABS_MT_TOUCH_MAJOR (in X units), or nil when the device has no contact ellipse.
    public var touchMajorMax: Int32?
    /// Reports ABS_MT_TOUCH_MINOR as well (only with ``touchMajorMax``).
    public var hasTouchMinor: Bool
    /// Largest ABS_MT_WIDTH_MAJOR (approaching-tool ellipse), or nil.
    public var widthMajorMax: Int32?
    /// ABS_MT_ORIENTATION range, or nil. Kernel convention: 0 = along Y, `maximum` = along +X.
    public var orientationRange: ClosedRange<Int32>?
    /// Largest ABS_MT_PRESSURE (minimum 0), or nil.
    public var pressureMax: Int32?
    /// Reports ABS_MT_TOOL_TYPE (MT_TOOL_FINGER / MT_TOOL_PALM).
    public var hasToolType: Bool
    /// Also reports ABS_X/ABS_Y of the first contact (the kernel's pointer emulation) and BTN_TOUCH.
    public var emulatesPointer: Bool

    /// - Parameters:
    ///   - mtProtocol: protocol B with N slots (default 10), protocol A, or single touch.
    ///   - maxX/maxY: axis maxima in device units.
    ///   - resolution: units per mm, 0 for none.
    public init(
        name: String = "handyd synthetic touchscreen", mtProtocol: MultitouchProtocol = .slots(10),
        maxX: Int32 = 4095, maxY: Int32 = 2303, resolution: Int32 = 16,
        touchMajorMax: Int32? = nil, hasTouchMinor: Bool = false, widthMajorMax: Int32? = nil,
        orientationRange: ClosedRange<Int32>? = nil, pressureMax: Int32? = nil, hasToolType: Bool = false,
        emulatesPointer: Bool = true
    ) {
        self.name = name
        self.mtProtocol = mtProtocol
        self.maxX = maxX
        self.maxY = maxY
        self.resolution = resolution
        self.touchMajorMax = touchMajorMax
        self.hasTouchMinor = hasTouchMinor
        self.widthMajorMax = widthMajorMax
        self.orientationRange = orientationRange
        self.pressureMax = pressureMax
        self.hasToolType = hasToolType
        self.emulatesPointer = emulatesPointer
    }

    /// A protocol-B screen `widthMm` × `heightMm` with `unitsPerMm` resolution and every optional axis:
    /// touch ellipse, orientation ±90 (= ±π/2), pressure 0…255, tool type.
    public static func fullFeatured(
        slots: Int = 10, widthMm: Double = 200, heightMm: Double = 120, unitsPerMm: Int32 = 20
    ) -> SyntheticTouchscreen {
        SyntheticTouchscreen(
            mtProtocol: .slots(slots),
            maxX: Int32((widthMm * Double(unitsPerMm)).rounded()) - 1,
            maxY: Int32((heightMm * Double(unitsPerMm)).rounded()) - 1,
            resolution: unitsPerMm, touchMajorMax: 255 * unitsPerMm / 4, hasTouchMinor: true,
            orientationRange: -90...90, pressureMax: 255, hasToolType: true)
    }

    /// Number of slots (protocol B), 0 otherwise.
    public var slotCount: Int {
        // Clamped so a silly count cannot trap or allocate gigabytes in a test.
        if case .slots(let n) = mtProtocol { return Swift.min(Swift.max(n, 1), 1024) }
        return 0
    }

    /// The description a real device like this would report.
    public var description: DeviceDescription {
        var axes: [UInt16: AbsInfo] = [:]
        let x = AbsInfo(minimum: 0, maximum: maxX, resolution: resolution)
        let y = AbsInfo(minimum: 0, maximum: maxY, resolution: resolution)
        var keys: Set<UInt16> = []
        if emulatesPointer || mtProtocol == .singleTouch {
            axes[AbsCode.x] = x
            axes[AbsCode.y] = y
            keys.insert(KeyCode.btnTouch)
        }
        if mtProtocol != .singleTouch {
            axes[AbsCode.mtPositionX] = x
            axes[AbsCode.mtPositionY] = y
            if case .slots = mtProtocol {
                axes[AbsCode.mtSlot] = AbsInfo(minimum: 0, maximum: Int32(slotCount - 1))
                axes[AbsCode.mtTrackingID] = AbsInfo(minimum: 0, maximum: 65535)
            }
            if let m = touchMajorMax {
                axes[AbsCode.mtTouchMajor] = AbsInfo(minimum: 0, maximum: m, resolution: resolution)
                if hasTouchMinor {
                    axes[AbsCode.mtTouchMinor] = AbsInfo(minimum: 0, maximum: m, resolution: resolution)
                }
            }
            if let w = widthMajorMax {
                axes[AbsCode.mtWidthMajor] = AbsInfo(minimum: 0, maximum: w, resolution: resolution)
            }
            if let o = orientationRange {
                axes[AbsCode.mtOrientation] = AbsInfo(minimum: o.lowerBound, maximum: o.upperBound)
            }
            if let p = pressureMax { axes[AbsCode.mtPressure] = AbsInfo(minimum: 0, maximum: p) }
            if hasToolType { axes[AbsCode.mtToolType] = AbsInfo(minimum: 0, maximum: MTTool.palm) }
        }
        var events: [UInt16: Set<UInt16>] = [EventType.syn: [SynCode.report, SynCode.dropped]]
        if mtProtocol == .contacts { events[EventType.syn]!.insert(SynCode.mtReport) }
        if !keys.isEmpty { events[EventType.key] = keys }
        return DeviceDescription(
            name: name, bustype: 0x03, vendor: 0x1d6b, product: 0x0104, version: 1,
            properties: [InputProperty.direct], supportedEvents: events, absAxes: axes)
    }

    /// The geometry the tracker will use by default for this device (identity calibration).
    public var geometry: DeviceGeometry { DeviceGeometry(description: description) }

    /// Device units for a position in mm (sensor frame, identity calibration), rounded, not clamped.
    public func devicePoint(xMm: Double, yMm: Double) -> DevicePoint {
        devicePoint(xMm: xMm, yMm: yMm, geometry: geometry)
    }

    /// Device units along X for a length in mm (ellipse axes use the X resolution, per the kernel doc).
    public func unitsAlongX(mm: Double) -> Int32 { Self.int32(mm * geometry.unitsPerMmX) }

    // Variants taking a geometry computed once (building the description costs dictionaries).
    func devicePoint(xMm: Double, yMm: Double, geometry g: DeviceGeometry) -> DevicePoint {
        DevicePoint(x: Self.int32(xMm * g.unitsPerMmX), y: Self.int32(yMm * g.unitsPerMmY))
    }
    func unitsAlongX(mm: Double, geometry g: DeviceGeometry) -> Int32 { Self.int32(mm * g.unitsPerMmX) }

    /// The ABS_MT_ORIENTATION value for an angle in radians (0 = along Y, π/2 = along +X), clamped to the range.
    public func orientationValue(radians: Double) -> Int32 {
        guard let r = orientationRange, r.upperBound > 0 else { return 0 }
        let v = Self.int32(radians / (Double.pi / 2) * Double(r.upperBound))
        return Swift.min(Swift.max(v, r.lowerBound), r.upperBound)
    }

    /// The ABS_MT_PRESSURE value for a pressure 0…1.
    public func pressureValue(_ p: Double) -> Int32 {
        guard let m = pressureMax else { return 0 }
        return Self.int32(Swift.min(Swift.max(p, 0), 1) * Double(m))
    }

    static func int32(_ v: Double) -> Int32 {
        guard v.isFinite else { return 0 }
        return Int32(Swift.min(Swift.max(v.rounded(), Double(Int32.min)), Double(Int32.max)))
    }
}
