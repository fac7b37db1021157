/// Range and resolution of one absolute axis (`struct input_absinfo`).
public struct AbsInfo: Hashable, Sendable {
    /// The axis's current value.
    public var value: Int32
    /// The smallest value the axis reports.
    public var minimum: Int32
    /// The largest value the axis reports.
    public var maximum: Int32
    /// Noise the kernel filters out, in axis units.
    public var fuzz: Int32
    /// Dead zone around the centre, in axis units.
    public var flat: Int32
    /// Units per millimetre for position axes (units per radian for ABS_MT_ORIENTATION); 0 = unknown.
    public var resolution: Int32

    /// An axis from `struct input_absinfo`'s fields.
    public init(
        value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0
    ) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// Number of distinct values (maximum - minimum + 1), at least 1.
    public var span: Int64 { Swift.max(1, Int64(maximum) - Int64(minimum) + 1) }
    /// Distance from minimum to maximum (maximum - minimum), at least 1.
    public var extent: Int64 { Swift.max(1, Int64(maximum) - Int64(minimum)) }
    /// True when `v` is within minimum…maximum.
    public func contains(_ v: Int32) -> Bool { v >= minimum && v <= maximum }
}

/// What a device is: identity, properties and axes, as evemu-describe / libinput record / libevdev see it.
public struct DeviceDescription: Hashable, Sendable {
    /// The device's name, as the kernel gives it.
    public var name: String
    /// The bus type (BUS_USB, BUS_I2C, …).
    public var bustype: UInt16
    /// The vendor id.
    public var vendor: UInt16
    /// The product id.
    public var product: UInt16
    /// The version id.
    public var version: UInt16
    /// INPUT_PROP_* bits that are set.
    public var properties: Set<UInt16>
    /// Supported codes per event type (EV_KEY -> {BTN_TOUCH, ...}).
    public var supportedEvents: [UInt16: Set<UInt16>]
    /// Every ABS axis with its range.
    public var absAxes: [UInt16: AbsInfo]

    /// A description from its parts; the absolute axes imply their EV_ABS codes.
    public init(
        name: String, bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: Set<UInt16> = [], supportedEvents: [UInt16: Set<UInt16>] = [:], absAxes: [UInt16: AbsInfo] = [:]
    ) {
        self.name = name
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.supportedEvents = supportedEvents
        self.absAxes = absAxes
        // Axes imply their event codes, so callers may give either.
        if !absAxes.isEmpty {
            self.supportedEvents[EventType.abs, default: []].formUnion(absAxes.keys)
        }
    }

    /// Number of multitouch slots (ABS_MT_SLOT range), 0 when the device has no slots.
    public var slotCount: Int {
        guard let slot = absAxes[AbsCode.mtSlot] else { return 0 }
        return Int(Swift.max(0, Int64(slot.maximum) + 1))
    }
    /// INPUT_PROP_DIRECT: a touchscreen rather than a touchpad.
    var isDirect: Bool { properties.contains(InputProperty.direct) }
    /// Reports ABS_MT_POSITION_X/Y.
    public var isMultitouch: Bool { absAxes[AbsCode.mtPositionX] != nil && absAxes[AbsCode.mtPositionY] != nil }
    /// Protocol B (slots); otherwise protocol A (SYN_MT_REPORT).
    var usesSlots: Bool { absAxes[AbsCode.mtSlot] != nil }

    /// Most slots a tracker keeps, whatever the device declares: a hostile ABS_MT_SLOT maximum of
    /// 2³¹−1 must not allocate 2³¹ slots (the kernel's own drivers declare tens at most).
    static let maxTrackedSlots = 256

    /// The slots handyd tracks: ``slotCount`` up to ``maxTrackedSlots`` (0 without slots). What
    /// `device` messages report, so a client sizes its tables by what can really arrive.
    package var trackedSlotCount: Int { Swift.min(slotCount, Self.maxTrackedSlots) }

    /// Why the position axes cannot place a touch, or nil when they can (or are absent): the axes
    /// the tracker reads (ABS_MT_POSITION_X/Y on a multitouch device, ABS_X/Y otherwise) need a
    /// maximum above their minimum. With an empty range every position is one device unit wide
    /// and every touch lands on one edge; libinput refuses such a device too ("min == max").
    public var positionRangeProblem: String? {
        let axes: [(UInt16, String)] =
            isMultitouch
            ? [(AbsCode.mtPositionX, "ABS_MT_POSITION_X"), (AbsCode.mtPositionY, "ABS_MT_POSITION_Y")]
            : [(AbsCode.x, "ABS_X"), (AbsCode.y, "ABS_Y")]
        for (code, name) in axes {
            guard let axis = absAxes[code], axis.maximum <= axis.minimum else { continue }
            return
                "\(name) has an empty range (minimum \(axis.minimum), maximum \(axis.maximum)): it cannot place a touch"
        }
        return nil
    }

    /// True when the device supports event `type` with `code`.
    public func has(type: UInt16, code: UInt16) -> Bool { supportedEvents[type]?.contains(code) ?? false }

    /// "vvvv:pppp" as udev and libinput print it.
    var usbID: String { hex4(vendor) + ":" + hex4(product) }
}

func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: Swift.max(0, 4 - s.count)) + s
}
