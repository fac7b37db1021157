import HandyCore

/// Turns ``FingerPath``s into the evdev events a ``SyntheticTouchscreen`` would send, frame by frame,
/// as the kernel does it:
///
/// - Protocol B: ABS_MT_SLOT only when the slot changes (the stream starts in slot 0), a new
///   ABS_MT_TRACKING_ID per contact (incrementing, wrapping at 65535), −1 on lift, and only values
///   that differ from the slot's last value (the kernel filters repeats per slot, even across contacts).
///   A new finger takes the lowest free slot; a slot freed in a frame is not reused in that frame.
/// - Protocol A: every contact's values in every frame, each closed by SYN_MT_REPORT; a frame in
///   which the last contact lifted holds a lone SYN_MT_REPORT.
/// - Single touch: ABS_X/ABS_Y of the first finger down.
/// - Pointer emulation (when the device has it): BTN_TOUCH and ABS_X/ABS_Y of the oldest contact.
///
/// Frames are at ``frameRateHz``; frame `k` is at `start + k / frameRateHz`. A finger is down from
/// the first frame at or after its ``FingerPath/downSeconds`` and lifted in the first later frame at
/// or after its ``FingerPath/upSeconds`` (so every finger is down for at least one frame).
public struct SyntheticStream: Sendable {
    /// The device whose events are produced.
    public var device: SyntheticTouchscreen
    /// Frames per second (the device's report rate).
    public var frameRateHz: Double
    /// Time of frame 0.
    public var start: Timestamp
    /// Protocol B / single touch: also emit frames in which nothing changed (a lone SYN_REPORT).
    /// Real devices mostly don't; recognizers must then rely on timers.
    public var emitsUnchangedFrames: Bool
    /// Protocol A: list the contacts in reverse order on odd frames (real protocol-A devices do
    /// not keep a stable order, so the tracker must match by distance).
    public var reversesContactOrderOnOddFrames: Bool
    /// The first tracking id handed out (protocol B).
    public var firstTrackingID: Int32

    /// A stream for `device` at `frameRateHz`, frame 0 at `start`.
    public init(
        device: SyntheticTouchscreen, frameRateHz: Double = 100, start: Timestamp = Timestamp(seconds: 100),
        emitsUnchangedFrames: Bool = false, reversesContactOrderOnOddFrames: Bool = false, firstTrackingID: Int32 = 0
    ) {
        self.device = device
        self.frameRateHz = frameRateHz > 0 ? frameRateHz : 100
        self.start = start
        self.emitsUnchangedFrames = emitsUnchangedFrames
        self.reversesContactOrderOnOddFrames = reversesContactOrderOnOddFrames
        self.firstTrackingID = firstTrackingID
    }

    /// Time of frame `k`.
    public func time(ofFrame k: Int) -> Timestamp {
        start.advanced(byMicroseconds: Int64((Double(k) * 1_000_000 / frameRateHz).rounded()))
    }

    /// The events, flattened.
    public func events(_ fingers: [FingerPath]) -> [InputEvent] { frames(fingers).flatMap { $0 } }

    /// The events grouped per frame, each group ending with its SYN_REPORT. Frames in which nothing
    /// was sent are left out unless ``emitsUnchangedFrames``.
    public func frames(_ fingers: [FingerPath]) -> [[InputEvent]] {
        frameRecords(fingers).map(\.events)
    }

    /// One emitted frame: its index `k` (time = ``time(ofFrame:)``), its events, and which finger
    /// (index into the paths) is in which slot after it (protocol B; -1 = free).
    public struct FrameRecord: Sendable {
        /// Frame number `k` (its time is ``SyntheticStream/time(ofFrame:)``).
        public var index: Int
        /// Its events, ending with SYN_REPORT.
        public var events: [InputEvent]
        /// For each slot, the index of the finger path in it after this frame, −1 when free.
        public var fingerInSlot: [Int]
    }

    private enum FingerState { case pending, down(slot: Int), done }

    /// Values last sent per slot, per ABS_MT code (protocol B filtering).
    private struct SlotValues {
        var values: [UInt16: Int32] = [:]
    }

    /// The frames with their index and slot assignment (see ``FrameRecord``).
    public func frameRecords(_ fingers: [FingerPath]) -> [FrameRecord] {
        let geometry = device.geometry
        let slotCount =
            device.mtProtocol == .contacts
            ? fingers.count : Swift.max(device.slotCount, device.mtProtocol == .singleTouch ? 1 : 0)
        var states = [FingerState](repeating: .pending, count: fingers.count)
        var fingerInSlot = [Int](repeating: -1, count: slotCount)
        var slotValues = [SlotValues](repeating: SlotValues(), count: slotCount)
        var currentSlot = 0
        var nextTrackingID = firstTrackingID
        var lastPointer: (x: Int32, y: Int32)? = nil
        var touchDown = false
        var downOrder: [Int] = []  // fingers in the order they went down (pointer emulation follows the oldest)
        var records: [FrameRecord] = []
        let endSeconds = fingers.map { $0.upSeconds }.max() ?? 0
        let epsilon = 1e-9
        var k = 0
        while true {
            let t = Double(k) / frameRateHz
            let time = time(ofFrame: k)
            var events: [InputEvent] = []
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                events.append(InputEvent(time: time, type: type, code: code, value: value))
            }
            // Lifts first; the freed slots stay unused until the next frame.
            var freedThisFrame = Set<Int>()
            var lifted: [(finger: Int, slot: Int)] = []
            for (i, f) in fingers.enumerated() {
                if case .down(let slot) = states[i], f.lifts, t + epsilon >= f.upSeconds {
                    states[i] = .done
                    fingerInSlot[slot] = -1
                    freedThisFrame.insert(slot)
                    lifted.append((i, slot))
                    downOrder.removeAll { $0 == i }
                }
            }
            var began: [Int] = []
            for (i, f) in fingers.enumerated() {
                if case .pending = states[i], t + epsilon >= f.downSeconds {
                    guard
                        let slot = (0..<slotCount).first(where: {
                            fingerInSlot[$0] == -1 && !freedThisFrame.contains($0)
                        })
                    else {
                        continue  // no free slot: the device cannot report this finger (yet)
                    }
                    states[i] = .down(slot: slot)
                    fingerInSlot[slot] = i
                    began.append(i)
                    downOrder.append(i)
                }
            }
            let activeCount = downOrder.count

            switch device.mtProtocol {
            case .slots:
                for slot in 0..<slotCount {
                    var slotEvents: [(UInt16, Int32)] = []
                    if lifted.contains(where: { $0.slot == slot }) {
                        slotEvents.append((AbsCode.mtTrackingID, -1))
                        slotValues[slot].values[AbsCode.mtTrackingID] = -1
                    }
                    let i = fingerInSlot[slot]
                    if i >= 0 {
                        if began.contains(i) {
                            slotEvents.append((AbsCode.mtTrackingID, nextTrackingID))
                            slotValues[slot].values[AbsCode.mtTrackingID] = nextTrackingID
                            nextTrackingID = nextTrackingID >= 65535 ? 0 : nextTrackingID + 1
                        }
                        for (code, value) in mtValues(fingers[i].sample(t), geometry)
                        where slotValues[slot].values[code] != value {
                            slotEvents.append((code, value))
                            slotValues[slot].values[code] = value
                        }
                    }
                    if !slotEvents.isEmpty {
                        if slot != currentSlot {
                            emit(EventType.abs, AbsCode.mtSlot, Int32(slot))
                            currentSlot = slot
                        }
                        for (code, value) in slotEvents { emit(EventType.abs, code, value) }
                    }
                }
            case .contacts:
                var order = downOrder.sorted()
                if reversesContactOrderOnOddFrames && k % 2 == 1 { order.reverse() }
                for i in order {
                    for (code, value) in mtValues(fingers[i].sample(t), geometry) { emit(EventType.abs, code, value) }
                    emit(EventType.syn, SynCode.mtReport, 0)
                }
                if order.isEmpty && !lifted.isEmpty { emit(EventType.syn, SynCode.mtReport, 0) }
            case .singleTouch:
                break
            }

            // Pointer emulation (and the single-touch protocol itself).
            if device.emulatesPointer || device.mtProtocol == .singleTouch {
                if (activeCount > 0) != touchDown {
                    touchDown = activeCount > 0
                    emit(EventType.key, KeyCode.btnTouch, touchDown ? 1 : 0)
                }
                if let oldest = downOrder.first {
                    let s = fingers[oldest].sample(t)
                    let p = device.devicePoint(xMm: s.xMm, yMm: s.yMm, geometry: geometry)
                    if lastPointer?.x != p.x { emit(EventType.abs, AbsCode.x, p.x) }
                    if lastPointer?.y != p.y { emit(EventType.abs, AbsCode.y, p.y) }
                    lastPointer = (p.x, p.y)
                }
            }

            if !events.isEmpty || (emitsUnchangedFrames && activeCount > 0) {
                emit(EventType.syn, SynCode.report, 0)
                records.append(FrameRecord(index: k, events: events, fingerInSlot: fingerInSlot))
            }
            let allDone = states.enumerated().allSatisfy { i, s in
                switch s {
                case .done: return true
                case .down: return !fingers[i].lifts && t + epsilon >= fingers[i].upSeconds
                case .pending: return false
                }
            }
            if (allDone && t + epsilon >= endSeconds) || k > 100_000_000 { break }
            k += 1
        }
        return records
    }

    /// ABS_MT_* values (other than the tracking id) for one sample, in the order drivers send them.
    private func mtValues(_ s: FingerSample, _ geometry: DeviceGeometry) -> [(UInt16, Int32)] {
        let p = device.devicePoint(xMm: s.xMm, yMm: s.yMm, geometry: geometry)
        var out: [(UInt16, Int32)] = []
        if device.hasToolType {
            out.append(
                (AbsCode.mtToolType, s.tool == .palm ? MTTool.palm : s.tool == .pen ? MTTool.pen : MTTool.finger))
        }
        out.append((AbsCode.mtPositionX, p.x))
        out.append((AbsCode.mtPositionY, p.y))
        if device.touchMajorMax != nil, let major = s.majorMm {
            out.append((AbsCode.mtTouchMajor, device.unitsAlongX(mm: major, geometry: geometry)))
            if device.hasTouchMinor {
                out.append((AbsCode.mtTouchMinor, device.unitsAlongX(mm: s.minorMm ?? major, geometry: geometry)))
            }
        }
        if device.widthMajorMax != nil, let major = s.majorMm {
            out.append((AbsCode.mtWidthMajor, device.unitsAlongX(mm: major, geometry: geometry)))
        }
        if device.orientationRange != nil, let o = s.orientation {
            out.append((AbsCode.mtOrientation, device.orientationValue(radians: o)))
        }
        if device.pressureMax != nil, let pr = s.pressure {
            out.append((AbsCode.mtPressure, device.pressureValue(pr)))
        }
        return out
    }
}
