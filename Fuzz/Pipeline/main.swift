import HandyCore

// libFuzzer harness: the fuzz bytes are a device description followed by an event program for
// TouchTracker + GestureArena (through GesturePipeline, as the daemon runs them). Invariants are
// in PipelineCheck: no trap, unique touch ids per frame, gestures begin once and end once, nothing
// left active after the device is removed, every wire line is one line of UTF-8.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzBytes(Array(UnsafeBufferPointer(start: data, count: size)))
    let (description, handling) = fuzzDescription(&input)
    var check = PipelineCheck(description: description, synDroppedHandling: handling)
    var time = Timestamp(microseconds: Int64(input.uint16()) * 1000)
    var events = 0
    while !input.isAtEnd, events < 20_000 {
        time = fuzzAdvance(time, &input)
        for event in fuzzEvents(at: time, &input) {
            check.feed(event)
            events += 1
        }
        if input.byte() & 0x7 == 0 { check.advance(to: time) }
    }
    check.finish(at: time)
    return 0
}

/// Layout (slots / protocol A / single touch), axes and their ranges from the first bytes.
func fuzzDescription(_ input: inout FuzzBytes) -> (DeviceDescription, TouchTracker.SynDroppedHandling) {
    let mode = input.byte()
    var axes: [UInt16: AbsInfo] = [:]
    func axis(_ code: UInt16) {
        let a = input.interestingInt32(), b = input.interestingInt32()
        // Mostly min <= max as the kernel guarantees; sometimes reversed, which readers refuse but
        // a hand-built description could still hold.
        let (lo, hi) = input.byte() < 240 ? (Swift.min(a, b), Swift.max(a, b)) : (a, b)
        let resolution = input.byte() < 200 ? Int32(input.byte()) : input.interestingInt32()
        axes[code] = AbsInfo(value: input.interestingInt32(), minimum: lo, maximum: hi, resolution: resolution)
    }
    switch mode % 3 {
    case 0:
        let slotMax = input.byte()
        axes[AbsCode.mtSlot] = AbsInfo(
            minimum: 0, maximum: slotMax < 250 ? Int32(slotMax % 12) : input.interestingInt32())
        axis(AbsCode.mtTrackingID)
        axis(AbsCode.mtPositionX)
        axis(AbsCode.mtPositionY)
    case 1:
        axis(AbsCode.mtPositionX)
        axis(AbsCode.mtPositionY)
    default:
        axis(AbsCode.x)
        axis(AbsCode.y)
        if mode & 0x40 != 0 { axis(AbsCode.pressure) }
    }
    let optional = input.byte()
    let optionalCodes = [
        AbsCode.mtTouchMajor, AbsCode.mtTouchMinor, AbsCode.mtWidthMajor, AbsCode.mtOrientation,
        AbsCode.mtPressure, AbsCode.mtToolType, AbsCode.mtDistance, AbsCode.mtWidthMinor,
    ]
    for (bit, code) in optionalCodes.enumerated() where optional & (1 << bit) != 0 { axis(code) }
    let description = DeviceDescription(
        name: "fuzz", properties: mode & 0x08 != 0 ? [] : [InputProperty.direct],
        supportedEvents: [EventType.key: [KeyCode.btnTouch, KeyCode.btnToolFinger]], absAxes: axes)
    return (description, mode & 0x10 != 0 ? .discardUntilReport : .resyncEventsFollow)
}

/// Time mostly moves forward by a frame; sometimes it stands still, jumps far, or goes back.
func fuzzAdvance(_ time: Timestamp, _ input: inout FuzzBytes) -> Timestamp {
    let step = input.byte()
    switch step {
    case 0..<200: return Timestamp(microseconds: time.microseconds &+ Int64(step) * 500)
    case 200..<250: return time
    case 250: return Timestamp(microseconds: time.microseconds &- Int64(input.uint16()) * 1000)
    case 251: return Timestamp(microseconds: time.microseconds &+ Int64(input.int32()) * 1000)
    case 252: return Timestamp(microseconds: Int64.max - Int64(input.uint16()))
    case 253: return Timestamp(microseconds: Int64.min + Int64(input.uint16()))
    default: return Timestamp(microseconds: Int64(input.uint16()) * 1_000_000)
    }
}

/// One instruction's events, all at `time`.
func fuzzEvents(at time: Timestamp, _ input: inout FuzzBytes) -> [InputEvent] {
    func abs(_ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: time, type: EventType.abs, code: code, value: value)
    }
    func syn(_ code: UInt16) -> InputEvent { InputEvent(time: time, type: EventType.syn, code: code, value: 0) }
    let op = input.byte()
    switch op % 16 {
    case 0, 1:
        return [abs(AbsCode.mtPositionX, Int32(input.uint16())), abs(AbsCode.mtPositionY, Int32(input.uint16()))]
    case 2, 3, 4: return [syn(SynCode.report)]
    case 5: return [abs(AbsCode.mtSlot, Int32(input.byte() % 12))]
    case 6: return [abs(AbsCode.mtTrackingID, Int32(input.byte()))]
    case 7: return [abs(AbsCode.mtTrackingID, -1)]
    case 8: return [abs(AbsCode.x, Int32(input.uint16())), abs(AbsCode.y, Int32(input.uint16()))]
    case 9: return [InputEvent(time: time, type: EventType.key, code: KeyCode.btnTouch, value: Int32(input.byte() & 1))]
    case 10: return [syn(SynCode.mtReport)]
    case 11: return [syn(SynCode.dropped)]
    case 12: return [abs(UInt16(AbsCode.mtTouchMajor) + UInt16(input.byte() % 12), input.interestingInt32())]
    case 13: return [abs(input.byte() < 128 ? AbsCode.mtSlot : AbsCode.mtTrackingID, input.interestingInt32())]
    case 14:
        // A whole contact: slot, new tracking id, position, report.
        return [
            abs(AbsCode.mtSlot, Int32(input.byte() % 12)), abs(AbsCode.mtTrackingID, Int32(input.byte())),
            abs(AbsCode.mtPositionX, Int32(input.uint16())), abs(AbsCode.mtPositionY, Int32(input.uint16())),
            syn(SynCode.report),
        ]
    default:
        // Anything at all.
        return [
            InputEvent(
                time: time, type: UInt16(input.byte() & 0x1f), code: input.uint16() & 0x3ff,
                value: input.interestingInt32())
        ]
    }
}
