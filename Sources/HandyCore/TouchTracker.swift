/// Counts of input that was wrong but handled (never a crash).
public struct TrackerCounters: Hashable, Sendable {
    /// Frames emitted.
    public var frames: UInt64 = 0
    /// Events handled.
    public var events: UInt64 = 0
    /// ABS_MT_SLOT beyond the device's declared slots (the events for that slot are ignored).
    public var outOfRangeSlots: UInt64 = 0
    /// Axis values outside min…max (clamped). ABS_MT_ORIENTATION is exempt: the kernel lets
    /// devices with full 360° orientation exceed its maximum.
    public var outOfRangeValues: UInt64 = 0
    /// A new tracking id in a slot that had an active touch, without a lift.
    public var reusedTrackingIDs: UInt64 = 0
    /// Frames that were closed without SYN_REPORT (e.g. a new slot touched twice in one frame).
    public var missingSynReports: UInt64 = 0
    /// SYN_DROPPED resyncs.
    public var resyncs: UInt64 = 0
    /// Touches cancelled (resync, id reuse, device removed).
    public var cancelledTouches: UInt64 = 0
    /// Events of a type or code the tracker does not know (ignored).
    var unknownEvents: UInt64 = 0
    /// Events discarded after a raw-kernel SYN_DROPPED (``TouchTracker/SynDroppedHandling/discardUntilReport``).
    var discardedEvents: UInt64 = 0
    /// Protocol-A contacts beyond ``TouchTracker/maxContacts`` in one frame (ignored).
    public var droppedContacts: UInt64 = 0
    /// Events stamped earlier than an event before them (taken at the latest time seen instead).
    /// The kernel stamps on CLOCK_MONOTONIC, so only a broken or edited recording does this; left
    /// as they came, a tap would end before it began and the next one count as its double.
    public var earlierTimes: UInt64 = 0
    /// All zero.
    public init() {}

    /// The device's protocol faults, all kinds together (slots and values beyond range, tracking
    /// ids replaced without a lift, missing SYN_REPORTs, contacts beyond the maximum, resyncs,
    /// times going back): one number a reader compares to see whether anything new went wrong.
    @inlinable public var faultCount: UInt64 {
        outOfRangeSlots &+ outOfRangeValues &+ reusedTrackingIDs &+ missingSynReports &+ droppedContacts &+ resyncs
            &+ earlierTimes
    }
}

/// Turns evdev events into ``TouchFrame``s: one per SYN_REPORT.
///
/// Supports multitouch protocol B (slots: ABS_MT_SLOT, ABS_MT_TRACKING_ID), protocol A (anonymous
/// contacts closed by SYN_MT_REPORT, matched to touches by nearest neighbour) and single-touch
/// devices (ABS_X/ABS_Y + BTN_TOUCH, one touch).
///
/// Ids: each touch gets the lowest id no other touch in the same frame has; an id freed by a lift
/// is reused from the next frame on.
///
/// Phases: `moved` means the position (device units) changed; a touch whose only change is its
/// pressure, ellipse or tool is `stationary` with the new values.
///
/// Hover: on a device with ABS_MT_DISTANCE, a contact above its minimum distance is hovering, not
/// touching (kernel doc: zero distance means touching). It begins no touch; a touch whose contact
/// rises into hover ends (a lift) and a new one begins if it comes back down. With protocol B the
/// hovering contact is tracked apart (``hovering``, ids of its own): it ends `landed`
/// in the frame its touch begins, `ended` when its tracking id ends without touching. Protocol A
/// contacts that hover are dropped (no tracking id to keep them apart by).
///
/// SYN_DROPPED: by default (``SynDroppedHandling/resyncEventsFollow``) the events after SYN_DROPPED up
/// to the next SYN_REPORT are the resync libevdev produces: the device's current state. At that
/// SYN_REPORT, a touch whose slot's tracking id changed, or is −1, is **cancelled** — not ended,
/// because the lift (if any) was lost and whatever happened in between is unknown, so nothing may
/// take it as a tap or the end of a stroke. Touches whose slot kept its tracking id survive with
/// their ids; new tracking ids begin new touches. That frame has ``TouchFrame/resynced`` set so the
/// arena cancels gestures in progress. libevdev ≥ 1.10 first sends a terminating frame (−1 for
/// changed slots) and then the new state; both forms give the same result.
///
/// Malformed input never traps: out-of-range slots are ignored, out-of-range values are clamped, a
/// tracking id reused without a lift cancels the old touch, a second tracking id for a slot in one
/// frame closes the frame as if SYN_REPORT had been sent; each is counted in ``counters``.
///
/// Performance: per-slot and per-id storage is allocated at init (and grows only when more ids
/// are needed than ever before); each frame's touches are written into one reused array, so a
/// caller that drops the previous frame before the next SYN_REPORT causes no allocation.
public struct TouchTracker: Sendable {
    /// How to read what follows a SYN_DROPPED.
    public enum SynDroppedHandling: Hashable, Sendable {
        /// SYN_DROPPED, then libevdev's sync events giving the current state, then SYN_REPORT
        /// (what the input layer hands over). Touches that did not survive are cancelled.
        case resyncEventsFollow
        /// SYN_DROPPED as the kernel writes it into a raw stream or a recording: events up to and
        /// including the next SYN_REPORT are discarded (kernel doc), the real state is unknown, so
        /// every active touch is cancelled and slots stay ignored until their next tracking id.
        case discardUntilReport
    }

    /// The frame layout the device uses.
    public enum Layout: Hashable, Sendable {
        /// Protocol B with this many slots.
        case slots(Int)
        /// Protocol A (SYN_MT_REPORT).
        case contacts
        /// ABS_X/ABS_Y + BTN_TOUCH only.
        case singleTouch
    }

    /// The device the events come from.
    public let description: DeviceDescription
    /// Raw values to a touch's (geometry, axes): see ``geometry``.
    let conversion: ContactConversion
    /// Protocol B, A or single touch, from the description.
    public let layout: Layout
    /// How SYN_DROPPED is read.
    public let synDroppedHandling: SynDroppedHandling
    /// Protocol A: a contact farther than this from every unmatched touch of the previous frame
    /// begins a new touch (and the old touch ends).
    var maxContactJumpMm: Double
    /// Protocol A: the most contacts read from one frame.
    let maxContacts: Int
    /// Malformed input seen so far (and frames/events).
    public internal(set) var counters = TrackerCounters()

    // MARK: storage
    // Internal, not private: the extensions in TouchTracker+Geometry, +ProtocolA and +Resync read
    // and write it. Nothing outside the tracker's files does.

    /// Raw axis values of one contact (device units).
    struct RawContact {
        var x: Int32 = 0
        var y: Int32 = 0
        var touchMajor: Int32 = 0
        var touchMinor: Int32 = 0
        var widthMajor: Int32 = 0
        var widthMinor: Int32 = 0
        var orientation: Int32 = 0
        var pressure: Int32 = 0
        var toolType: Int32 = 0
        var distance: Int32 = 0
        /// Protocol A: which of x/y this contact has sent (bit 0 x, bit 1 y).
        var positionBits: UInt8 = 0
    }

    struct Slot {
        var raw = RawContact()
        /// Kernel tracking id, −1 = no contact.
        var trackingID: Int32 = -1
        /// Id of our touch for this slot, −1 = none yet (it begins at SYN_REPORT).
        var touchID: Int32 = -1
        /// Got a tracking id in the current frame (a second one means a lost SYN_REPORT).
        var startedThisFrame = false
        /// After a raw-kernel SYN_DROPPED: the slot's contact is unknown, no touch until a new tracking id.
        var stale = false
        /// Tracking id when SYN_DROPPED arrived.
        var trackingIDAtDrop: Int32 = -1
    }

    enum IDState: UInt8 {
        case free
        case active
        /// Ended or cancelled in the frame being built; free after it is emitted.
        case finishing
    }

    /// Range of one axis, resolved at init.
    struct AxisRange {
        var exists = false
        var minimum: Int32 = 0
        var maximum: Int32 = 0
        @inline(__always) var clamps: Bool { exists && maximum > minimum }
    }

    var slots: ContiguousArray<Slot>
    var currentSlot: Int
    /// Touch values per id, valid where `idStates` is not `.free`.
    var touchesByID: ContiguousArray<Touch>
    var idStates: ContiguousArray<IDState>
    /// Protocol A: contacts of the frame being read, and the one being read.
    var contacts: ContiguousArray<RawContact>
    var contactCount = 0
    var pendingContact = RawContact()
    var pendingContactHasValues = false
    /// Protocol A matching scratch: distance per (touch, contact) and matched flags.
    var contactMm: ContiguousArray<PhysicalPoint>
    var matchedContact: ContiguousArray<Bool>
    var matchedTouch: ContiguousArray<Bool>
    /// Single-touch state.
    var singleRaw = RawContact()
    var singleDown = false
    var singleTouchID: Int32 = -1

    var resyncing = false
    var discarding = false
    /// The next frame reports a resync.
    var resyncedFrame = false
    /// The latest event time seen: no event is taken as earlier (``TrackerCounters/earlierTimes``).
    var latestTime = Timestamp(microseconds: .min)
    var frameBuffer: [Touch]

    // Axis ranges (codes ABS_MT_TOUCH_MAJOR 0x30 … ABS_MT_PRESSURE 0x3a at index code - 0x30).
    var mtAxes: ContiguousArray<AxisRange>
    let xAxis: AxisRange
    let yAxis: AxisRange
    /// ABS_MT_DISTANCE: contacts above `touchDistanceMax` hover.
    let hasDistance: Bool
    let touchDistanceMax: Int32
    /// Hovering contacts are tracked (protocol B with ABS_MT_DISTANCE, hover not turned off): the
    /// one test the frame path makes for them; everything below is empty otherwise.
    public let tracksHover: Bool
    let distanceAxis: AxisRange
    /// Per slot, the id of its hovering contact (−1 = none).
    var slotHoverIDs: ContiguousArray<Int32>
    /// Hovering contacts per id, valid where `hoverStates` is not `.free`.
    var hoversByID: ContiguousArray<HoverContact>
    var hoverStates: ContiguousArray<IDState>
    /// The hovering contacts at the frame the tracker returned last, ordered by id, with those that
    /// landed, ended or were cancelled in it; read it after each frame (it is rewritten at the
    /// next). Always empty without hover. Apart from ``TouchFrame``, so that a device without
    /// hover pays nothing for it (a second array in every frame cost 73 instructions a frame in
    /// retains and releases, docs/PERFORMANCE.md), and so that no recognizer can read it: a
    /// hovering contact never makes a gesture, tap or palm decision.
    public internal(set) var hovering: [HoverContact]
    /// Velocity smoothing time constant (seconds).
    static let velocityTimeConstantSeconds = 0.03
    /// Upper bound on slots allocated whatever the description claims.
    static let maxSlots = DeviceDescription.maxTrackedSlots

    // MARK: init

    /// A tracker reading SYN_DROPPED as libevdev's resync (``SynDroppedHandling/resyncEventsFollow``).
    public init(description: DeviceDescription, geometry: DeviceGeometry? = nil, tracksHover: Bool = true) {
        self.init(
            description: description, geometry: geometry, synDroppedHandling: .resyncEventsFollow,
            tracksHover: tracksHover)
    }

    /// - Parameters:
    ///   - description: the device; its axes decide the layout (slots → protocol B, MT axes without
    ///     slots → protocol A, otherwise single touch).
    ///   - geometry: unit conversion; defaults to `DeviceGeometry(description:)`.
    ///   - synDroppedHandling: how to read what follows SYN_DROPPED.
    ///   - maxContactJumpMm: protocol A: farthest a contact may be from a touch to continue it.
    ///   - maxContacts: protocol A: most contacts per frame.
    ///   - tracksHover: false keeps hovering contacts out of ``hovering`` (a panel whose
    ///     in-range signal is noisy); they are still never touches.
    public init(
        description: DeviceDescription, geometry: DeviceGeometry? = nil, synDroppedHandling: SynDroppedHandling,
        maxContactJumpMm: Double = 40, maxContacts: Int = 32, tracksHover: Bool = true
    ) {
        let geometry = geometry ?? DeviceGeometry(description: description)
        self.description = description
        self.synDroppedHandling = synDroppedHandling
        self.maxContactJumpMm = maxContactJumpMm
        self.maxContacts = Swift.max(1, Swift.min(maxContacts, Self.maxSlots))

        let axes = description.absAxes
        func range(_ code: UInt16) -> AxisRange {
            guard let a = axes[code] else { return AxisRange() }
            return AxisRange(exists: true, minimum: a.minimum, maximum: a.maximum)
        }
        if description.usesSlots {
            layout = .slots(Swift.max(1, description.trackedSlotCount))
        } else if description.isMultitouch {
            layout = .contacts
        } else {
            layout = .singleTouch
        }
        var mt = ContiguousArray<AxisRange>()
        for code in AbsCode.mtTouchMajor...AbsCode.mtPressure { mt.append(range(code)) }
        mtAxes = mt
        if layout == .singleTouch {
            xAxis = range(AbsCode.x)
            yAxis = range(AbsCode.y)
        } else {
            xAxis = range(AbsCode.mtPositionX)
            yAxis = range(AbsCode.mtPositionY)
        }
        hasDistance = axes[AbsCode.mtDistance] != nil
        touchDistanceMax = axes[AbsCode.mtDistance]?.minimum ?? 0
        distanceAxis = range(AbsCode.mtDistance)
        // A [0,1] range is a "rotated or not" flag on some devices, not an angle.
        let orientation = axes[AbsCode.mtOrientation].flatMap { o in
            o.maximum > 1 || (o.minimum < 0 && o.maximum > 0) ? o : nil
        }
        conversion = ContactConversion(
            geometry: geometry,
            hasTouchMajor: axes[AbsCode.mtTouchMajor] != nil,
            hasTouchMinor: axes[AbsCode.mtTouchMinor] != nil,
            hasWidthMajor: axes[AbsCode.mtWidthMajor] != nil,
            hasWidthMinor: axes[AbsCode.mtWidthMinor] != nil,
            hasOrientation: orientation != nil,
            hasPressure: axes[AbsCode.mtPressure] != nil || (layout == .singleTouch && axes[AbsCode.pressure] != nil),
            hasToolType: axes[AbsCode.mtToolType] != nil,
            pressureAxis: range(layout == .singleTouch ? AbsCode.pressure : AbsCode.mtPressure),
            displayWidthMm: geometry.displayWidthMm,
            displayHeightMm: geometry.displayHeightMm,
            ellipseUnitsPerMm: geometry.unitsPerMmX > 0 ? geometry.unitsPerMmX : 1,
            orientationMax: orientation.map { Double($0.maximum) } ?? 1,
            isIdentityCalibration: geometry.calibration == .identity)

        let slotCount: Int
        if case .slots(let n) = layout { slotCount = n } else { slotCount = 1 }
        var initial = Slot()
        initial.raw = Self.initialRaw(axes)
        slots = ContiguousArray(repeating: initial, count: slotCount)
        singleRaw = initial.raw
        let startSlot = Int(axes[AbsCode.mtSlot]?.value ?? 0)
        currentSlot = startSlot >= 0 && startSlot < slotCount ? startSlot : 0
        let idCapacity = layout == .contacts ? self.maxContacts * 2 : slotCount * 2
        let blank = Touch(
            id: 0, phase: .ended, device: DevicePoint(x: 0, y: 0), mm: .zero,
            normalized: NormalizedPoint(x: 0, y: 0), beganAt: .zero, time: .zero)
        touchesByID = ContiguousArray(repeating: blank, count: idCapacity)
        idStates = ContiguousArray(repeating: .free, count: idCapacity)
        contacts = ContiguousArray(repeating: RawContact(), count: layout == .contacts ? self.maxContacts : 0)
        matchedContact = ContiguousArray(repeating: false, count: layout == .contacts ? self.maxContacts : 0)
        contactMm = ContiguousArray(repeating: .zero, count: layout == .contacts ? self.maxContacts : 0)
        matchedTouch = ContiguousArray(repeating: false, count: layout == .contacts ? idCapacity : 0)
        frameBuffer = []
        frameBuffer.reserveCapacity(idCapacity)
        let hover = tracksHover && hasDistance && description.usesSlots
        self.tracksHover = hover
        slotHoverIDs = ContiguousArray(repeating: -1, count: hover ? slotCount : 0)
        hoversByID = ContiguousArray(repeating: Self.blankHover, count: hover ? slotCount : 0)
        hoverStates = ContiguousArray(repeating: .free, count: hover ? slotCount : 0)
        hovering = []
    }

    static func initialRaw(_ axes: [UInt16: AbsInfo]) -> RawContact {
        var r = RawContact()
        r.x = axes[AbsCode.mtPositionX]?.value ?? axes[AbsCode.x]?.value ?? 0
        r.y = axes[AbsCode.mtPositionY]?.value ?? axes[AbsCode.y]?.value ?? 0
        r.touchMajor = axes[AbsCode.mtTouchMajor]?.value ?? 0
        r.touchMinor = axes[AbsCode.mtTouchMinor]?.value ?? 0
        r.widthMajor = axes[AbsCode.mtWidthMajor]?.value ?? 0
        r.widthMinor = axes[AbsCode.mtWidthMinor]?.value ?? 0
        r.orientation = axes[AbsCode.mtOrientation]?.value ?? 0
        r.pressure = axes[AbsCode.mtPressure]?.value ?? axes[AbsCode.pressure]?.value ?? 0
        r.toolType = 0
        r.distance = axes[AbsCode.mtDistance]?.value ?? 0
        return r
    }

    // MARK: events

    /// Feeds one event; returns the frame completed by a SYN_REPORT (or by a lost SYN_REPORT
    /// detected at this event), else nil.
    public mutating func handle(_ event: InputEvent) -> TouchFrame? {
        counters.events &+= 1
        // Frames, touches and recognizers all read these times: they must not run backwards.
        var event = event
        if event.time < latestTime {
            counters.earlierTimes &+= 1
            event.time = latestTime
        } else {
            latestTime = event.time
        }
        if discarding {
            // Raw-kernel SYN_DROPPED: drop everything up to and including the next SYN_REPORT.
            counters.discardedEvents &+= 1
            if event.isSynReport {
                discarding = false
                return finishDiscardResync(at: event.time)
            }
            return nil
        }
        switch event.type {
        case EventType.syn:
            switch event.code {
            case SynCode.report:
                return emitFrame(at: event.time)
            case SynCode.mtReport:
                if layout == .contacts { closeContact() }
                return nil
            case SynCode.dropped:
                beginResync()
                return nil
            case SynCode.config:
                return nil
            default:
                counters.unknownEvents &+= 1
                return nil
            }
        case EventType.abs:
            return handleAbs(event)
        case EventType.key:
            if event.code == KeyCode.btnTouch && layout == .singleTouch {
                singleDown = event.value != 0
            }
            return nil
        case EventType.msc, EventType.rel, EventType.sw, EventType.led, EventType.snd, EventType.rep,
            EventType.ff, EventType.pwr, EventType.ffStatus:
            return nil
        default:
            counters.unknownEvents &+= 1
            return nil
        }
    }

    mutating func handleAbs(_ event: InputEvent) -> TouchFrame? {
        let code = event.code
        switch layout {
        case .slots:
            if code == AbsCode.mtSlot {
                let v = Int(event.value)
                if v >= 0 && v < slots.count {
                    currentSlot = v
                } else {
                    currentSlot = -1
                    counters.outOfRangeSlots &+= 1
                }
                return nil
            }
            if code == AbsCode.mtTrackingID {
                guard currentSlot >= 0 else { return nil }
                return setTrackingID(event.value, at: event.time)
            }
            if code >= AbsCode.mtTouchMajor && code <= AbsCode.mtDistance {
                guard currentSlot >= 0 else { return nil }
                var raw = slots[currentSlot].raw
                setValue(code: code, value: event.value, in: &raw)
                slots[currentSlot].raw = raw
                return nil
            }
            if code <= AbsCode.max { return nil }  // ABS_X/Y pointer emulation, ABS_MT_TOOL_X/Y, ...: not needed
            counters.unknownEvents &+= 1
            return nil
        case .contacts:
            if code >= AbsCode.mtTouchMajor && code <= AbsCode.mtDistance && code != AbsCode.mtBlobID
                && code != AbsCode.mtTrackingID
            {
                var raw = pendingContact
                setValue(code: code, value: event.value, in: &raw)
                pendingContact = raw
                pendingContactHasValues = true
                return nil
            }
            if code <= AbsCode.max { return nil }
            counters.unknownEvents &+= 1
            return nil
        case .singleTouch:
            switch code {
            case AbsCode.x: singleRaw.x = clamped(event.value, xAxis)
            case AbsCode.y: singleRaw.y = clamped(event.value, yAxis)
            case AbsCode.pressure: singleRaw.pressure = clamped(event.value, pressureAxis)
            default:
                if code > AbsCode.max { counters.unknownEvents &+= 1 }
            }
            return nil
        }
    }

    /// False for a hovering contact (ABS_MT_DISTANCE above its minimum).
    @inline(__always) func isTouching(_ raw: RawContact) -> Bool {
        !hasDistance || raw.distance <= touchDistanceMax
    }

    @inline(__always) mutating func clamped(_ v: Int32, _ axis: AxisRange) -> Int32 {
        guard axis.clamps else { return v }
        if v < axis.minimum { counters.outOfRangeValues &+= 1; return axis.minimum }
        if v > axis.maximum { counters.outOfRangeValues &+= 1; return axis.maximum }
        return v
    }

    @inline(__always) mutating func setValue(code: UInt16, value: Int32, in raw: inout RawContact) {
        switch code {
        case AbsCode.mtPositionX:
            raw.x = clamped(value, xAxis)
            raw.positionBits |= 1
        case AbsCode.mtPositionY:
            raw.y = clamped(value, yAxis)
            raw.positionBits |= 2
        case AbsCode.mtTouchMajor: raw.touchMajor = clamped(value, mtAxes[0])
        case AbsCode.mtTouchMinor: raw.touchMinor = clamped(value, mtAxes[1])
        case AbsCode.mtWidthMajor: raw.widthMajor = clamped(value, mtAxes[2])
        case AbsCode.mtWidthMinor: raw.widthMinor = clamped(value, mtAxes[3])
        case AbsCode.mtOrientation: raw.orientation = value  // may exceed max (360° devices)
        case AbsCode.mtPressure: raw.pressure = clamped(value, mtAxes[Int(AbsCode.mtPressure - AbsCode.mtTouchMajor)])
        case AbsCode.mtToolType: raw.toolType = value
        case AbsCode.mtDistance: raw.distance = value
        default: break  // ABS_MT_BLOB_ID, ABS_MT_TRACKING_ID handled elsewhere
        }
    }

    /// ABS_MT_TRACKING_ID for the current slot.
    mutating func setTrackingID(_ value: Int32, at time: Timestamp) -> TouchFrame? {
        let s = currentSlot
        if resyncing {
            // The state after the resync decides at SYN_REPORT; nothing begins or ends here.
            slots[s].trackingID = value < 0 ? -1 : value
            return nil
        }
        if value < 0 {
            if slots[s].startedThisFrame {
                // Began and lifted in one frame: the SYN_REPORT between them was lost.
                counters.missingSynReports &+= 1
                let closed = emitFrame(at: time)
                _ = setTrackingID(value, at: time)
                return closed
            }
            if slots[s].touchID >= 0 {
                finish(touchID: Int(slots[s].touchID), phase: .ended, at: time)
                slots[s].touchID = -1
            }
            if tracksHover { finishHover(slot: s, phase: .ended, at: time) }  // left the range
            slots[s].trackingID = -1
            slots[s].stale = false
            return nil
        }
        if value == slots[s].trackingID { return nil }  // repeated value
        var closed: TouchFrame? = nil
        if slots[s].startedThisFrame {
            // Two contacts started in one slot in one frame: the SYN_REPORT between them was lost.
            counters.missingSynReports &+= 1
            closed = emitFrame(at: time)
        }
        if slots[s].trackingID >= 0 && !slots[s].stale {
            // New contact without a lift: the old one's end is unknown, so cancel it.
            counters.reusedTrackingIDs &+= 1
            if slots[s].touchID >= 0 {
                finish(touchID: Int(slots[s].touchID), phase: .cancelled, at: time)
                slots[s].touchID = -1
            }
            if tracksHover { finishHover(slot: s, phase: .cancelled, at: time) }
        }
        slots[s].trackingID = value
        slots[s].stale = false
        slots[s].startedThisFrame = true
        return closed
    }

    // MARK: frames

    /// Marks a touch ended or cancelled in the frame being built. It keeps the values of the last
    /// frame it was in: drivers often zero pressure or the ellipse in the lift frame itself, and
    /// Android's InputReader reports the lift with the previous values too. For a lift, the
    /// velocity decays by the time since that frame, so a finger that stopped before lifting has
    /// no fling.
    mutating func finish(touchID id: Int, phase: TouchPhase, at time: Timestamp) {
        guard id >= 0 && id < idStates.count && idStates[id] == .active else { return }
        if phase == .ended {
            let dt = (Double(time.microseconds) - Double(touchesByID[id].time.microseconds)) / 1_000_000
            if dt > 0 {
                touchesByID[id].velocity =
                    touchesByID[id].velocity
                    * (Self.velocityTimeConstantSeconds / (Self.velocityTimeConstantSeconds + dt))
            }
        }
        touchesByID[id].phase = phase
        touchesByID[id].time = time
        idStates[id] = .finishing
        if phase == .cancelled { counters.cancelledTouches &+= 1 }
    }

    /// Lowest free id (ids finishing in this frame are not free yet).
    mutating func allocateID() -> Int {
        for i in idStates.indices where idStates[i] == .free {
            idStates[i] = .active
            return i
        }
        // More touches than ever before (e.g. cancellations plus new touches in one frame).
        let blank = touchesByID[0]
        touchesByID.append(blank)
        idStates.append(.active)
        return idStates.count - 1
    }

    mutating func begin(from raw: RawContact, at time: Timestamp) -> Int {
        let id = allocateID()
        let p = DevicePoint(x: raw.x, y: raw.y)
        let n = normalized(p)
        let mm = PhysicalPoint(x: n.x * displayWidthMm, y: n.y * displayHeightMm)
        var t = touchesByID[id]
        t.id = id
        t.phase = .began
        t.device = p
        t.mm = mm
        t.normalized = n
        t.startMm = mm
        t.beganAt = time
        t.time = time
        t.velocity = .zero
        fillAttributes(&t, raw)
        touchesByID[id] = t
        return id
    }

    /// Updates an active touch from raw values: position, phase (moved/stationary), velocity, attributes.
    mutating func update(id: Int, from raw: RawContact, at time: Timestamp) {
        // Changed where it lies (copied out and stored back, each update moved the touch, ~200
        // bytes, twice), by the conversion, a part of `self` apart from the touches.
        conversion.apply(
            raw, at: time, to: &touchesByID[id], velocityTimeConstantSeconds: Self.velocityTimeConstantSeconds)
    }

    /// SYN_REPORT (or a detected missing one): applies the frame and returns it.
    mutating func emitFrame(at time: Timestamp) -> TouchFrame {
        switch layout {
        case .slots:
            let wasResync = resyncing
            resyncing = false
            for s in slots.indices {
                if slots[s].touchID < 0 && slots[s].trackingID < 0 {
                    // Idle slot: nothing to copy. Written only when set: each write to the
                    // array checks that it is not shared (a call), ten slots a frame.
                    if slots[s].startedThisFrame { slots[s].startedThisFrame = false }
                    continue
                }
                var slot = slots[s]
                slot.startedThisFrame = false
                if wasResync && slot.trackingID != slot.trackingIDAtDrop {
                    if slot.touchID >= 0 {
                        // Lost or replaced during the drop: cancelled, never ended (see the type's doc).
                        finish(touchID: Int(slot.touchID), phase: .cancelled, at: time)
                        slot.touchID = -1
                    }
                    if tracksHover { finishHover(slot: s, phase: .cancelled, at: time) }
                    slot.stale = false  // a contact the resync introduced is known again
                }
                if slot.touchID >= 0 {
                    if isTouching(slot.raw) {
                        update(id: Int(slot.touchID), from: slot.raw, at: time)
                    } else {
                        finish(touchID: Int(slot.touchID), phase: .ended, at: time)  // rose into hover
                        slot.touchID = -1
                        if tracksHover { hover(slot: s, from: slot.raw, at: time) }
                    }
                } else if slot.trackingID >= 0 && !slot.stale && isTouching(slot.raw) {
                    slot.touchID = Int32(begin(from: slot.raw, at: time))
                    if tracksHover {  // landed: its hover ends as this touch
                        finishHover(slot: s, phase: .landed, touchID: Int(slot.touchID), at: time)
                    }
                } else if tracksHover && slot.trackingID >= 0 && !slot.stale {
                    hover(slot: s, from: slot.raw, at: time)  // above the glass
                }
                slots[s] = slot
            }
        case .contacts:
            resyncing = false
            if pendingContactHasValues { closeContact() }  // the last SYN_MT_REPORT may be omitted
            matchContacts(at: time)
            contactCount = 0
        case .singleTouch:
            resyncing = false
            if singleDown {
                if singleTouchID >= 0 {
                    update(id: Int(singleTouchID), from: singleRaw, at: time)
                } else {
                    singleTouchID = Int32(begin(from: singleRaw, at: time))
                }
            } else if singleTouchID >= 0 {
                // A lift learnt from a resync is not a real lift: cancel.
                finish(touchID: Int(singleTouchID), phase: resyncedFrame ? .cancelled : .ended, at: time)
                singleTouchID = -1
            }
        }
        return buildFrame(at: time)
    }

    /// Copies every non-free touch, ordered by id, into the reused buffer; frees finished ids.
    mutating func buildFrame(at time: Timestamp) -> TouchFrame {
        // Overwritten in place, then trimmed: emptying it first would pay the generic
        // `removeAll(keepingCapacity:)` every frame before as many touches come back.
        var n = 0
        for id in idStates.indices {
            switch idStates[id] {
            case .free: continue
            case .active: break  // already updated to `time` by emitFrame
            case .finishing: idStates[id] = .free
            }
            if n < frameBuffer.count { frameBuffer[n] = touchesByID[id] } else { frameBuffer.append(touchesByID[id]) }
            n += 1
        }
        if frameBuffer.count > n { frameBuffer.removeLast(frameBuffer.count - n) }
        counters.frames &+= 1
        let resynced = resyncedFrame
        resyncedFrame = false
        if tracksHover { buildHovering() }
        return TouchFrame(time: time, touches: frameBuffer, resynced: resynced)
    }

    /// Ends every active touch as cancelled (device removed); nil when none was active.
    /// Slots that still hold a contact are ignored until their next tracking id.
    public mutating func cancelAll(at time: Timestamp) -> TouchFrame? {
        guard idStates.contains(where: { $0 != .free }) || (tracksHover && hasHover) else { return nil }
        // A lift in a frame that never got its SYN_REPORT (the device went mid-frame) is not a
        // lift the device confirmed: cancelled, like every other touch the removal ends.
        for id in idStates.indices where idStates[id] == .finishing && touchesByID[id].phase == .ended {
            touchesByID[id].phase = .cancelled
            touchesByID[id].time = time
            counters.cancelledTouches &+= 1
        }
        return cancelEveryContact(at: time)
    }

    /// Cancels every active touch (slots and the single-touch contact) and builds the frame that
    /// says so. Slots that still hold a contact are marked stale: ignored until their next
    /// tracking id, since the contact they hold was never confirmed to be the same touch.
    mutating func cancelEveryContact(at time: Timestamp) -> TouchFrame {
        for i in slots.indices {
            if slots[i].touchID >= 0 {
                finish(touchID: Int(slots[i].touchID), phase: .cancelled, at: time)
                slots[i].touchID = -1
            }
            if slots[i].trackingID >= 0 { slots[i].stale = true }
            slots[i].startedThisFrame = false
        }
        if tracksHover { cancelEveryHover(at: time) }
        // The single-touch contact's id is active too: the loop below finishes it.
        singleTouchID = -1
        for id in idStates.indices where idStates[id] == .active {
            finish(touchID: id, phase: .cancelled, at: time)
        }
        return buildFrame(at: time)
    }

    /// Number of touches currently down (not counting those that ended in the last frame).
    /// The touches down now, each `stationary`, at `time`: what the arena is told when something
    /// outside the device changes them (a contact found stuck, ``StuckContactFilter``). Allocates;
    /// not for every frame.
    func stationaryFrame(at time: Timestamp) -> TouchFrame {
        var touches: [Touch] = []
        for id in idStates.indices where idStates[id] == .active {
            var t = touchesByID[id]
            t.phase = .stationary
            touches.append(t)
        }
        return TouchFrame(time: time, touches: touches)
    }

    /// Touches down now (not ended or cancelled).
    public var activeTouchCount: Int { idStates.reduce(0) { $0 + ($1 == .active ? 1 : 0) } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
