import CLibevdev
import HandyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a device is still there after ``EvdevDevice/drain(_:)``.
public enum DrainStatus: Sendable, Equatable {
    /// Everything readable was read; poll the descriptor again.
    case open
    /// The kernel answered ENODEV: the device was unplugged. Close it.
    case gone
    /// Stopped at the events' limit with events already read and not yet handed on (where poll
    /// does not see them): drain again without waiting for the descriptor.
    case more
}

/// One evdev node, non-blocking: described through libevdev at open, its events read straight.
///
/// Not `Sendable`: one thread owns it (the daemon's input thread) and polls ``fileDescriptor``.
/// Event times use CLOCK_MONOTONIC so they compare with ``monotonicNow()``, which the daemon
/// uses to arm recognizer timeouts.
public final class EvdevDevice {
    /// The node this was opened from, e.g. "/dev/input/event5".
    public let path: String
    /// What the device is, read once at open (the axes do not change).
    public let description: DeviceDescription
    /// Poll this for POLLIN, then call ``drain(_:)``.
    public var fileDescriptor: CInt { fd }

    private let fd: CInt

    /// Opens `path` O_RDONLY|O_NONBLOCK|O_CLOEXEC and reads its description.
    public init(path: String) throws(InputError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(path: path, errno: Glibc.errno, what: "open") }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            close(fd)
            throw InputError(path: path, errno: -rc, what: "libevdev_new_from_fd")
        }
        let clockRC = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        guard clockRC == 0 else {
            libevdev_free(dev)
            close(fd)
            throw InputError(path: path, errno: -clockRC, what: "libevdev_set_clock_id(CLOCK_MONOTONIC)")
        }
        self.path = path
        self.fd = fd
        self.description = LibevdevHandle.describe(dev)
        // The clock is the open file's (EVIOCSCLOCKID), not the handle's: it outlives the handle.
        libevdev_free(dev)
    }

    deinit {
        chunk.deallocate()
        close(fd)
    }

    /// Reads every pending event and hands each to `body`, in kernel order.
    ///
    /// When the kernel's buffer overflowed, `body` first gets the SYN_DROPPED event, then the
    /// device's whole state now (keys, axes, each slot's values: ``resync(after:_:)``, ending in a
    /// SYN_REPORT), then the events that follow normally. A tracker treats everything between
    /// SYN_DROPPED and that SYN_REPORT as one resync frame.
    ///
    /// The events are read straight from the descriptor, ``chunkEvents`` a `read`, not through
    /// `libevdev_next_event`: libevdev checked and mirrored every event (~4,500 instructions a
    /// frame in the guest, 12 % of the daemon's; docs/PERFORMANCE.md section 5) for a state only
    /// a resync needs, and a resync asks the kernel for it instead. The kernel sends only the
    /// codes a device declares, stamped on the clock set at open.
    ///
    /// At most `maximumEvents` events in the normal flow (a resync's replay of the device's state
    /// is always read whole): a device that never stops sending must not keep the caller from its
    /// other devices.
    ///
    /// - Returns: `.gone` when the device was unplugged (ENODEV), `.more` when the limit stopped it
    ///   with events left, `.open` otherwise.
    /// - Throws: ``InputError`` for any other read error.
    public func drain(maximumEvents: Int = .max, _ body: (InputEvent) -> Void) throws(InputError) -> DrainStatus {
        var left = maximumEvents
        while true {
            if chunkStart == chunkEnd {
                // Stopped with nothing of ours left: what the kernel still holds, poll sees.
                if left <= 0 { return .open }
                switch try readChunk() {
                case .events: continue
                case .gone: return .gone
                case .empty: return .open
                }
            }
            // Events read and not handed on sit here, where poll does not see them.
            if left <= 0 { return .more }
            let ev = chunk[chunkStart]
            chunkStart &+= 1
            if ev.type == UInt16(EV_SYN) && ev.code == UInt16(SYN_DROPPED) {
                if try resync(after: ev, body) == .gone { return .gone }
                continue
            }
            left &-= 1  // no overflow check: it starts at most at Int.max
            body(Self.event(ev))
        }
    }

    /// Events a `read` takes at most: a two-finger frame is ~7, a ten-finger one ~40.
    static let chunkEvents = 64
    /// The events of the last `read`; `chunkStart..<chunkEnd` not yet handed on.
    private let chunk = UnsafeMutablePointer<input_event>.allocate(capacity: EvdevDevice.chunkEvents)
    private var chunkStart = 0
    private var chunkEnd = 0

    private enum ReadResult { case events, empty, gone }

    /// One `read` into ``chunk``: `.events` with events read, `.empty` when there were none
    /// (EAGAIN), `.gone` when the device was unplugged (ENODEV). The kernel hands out whole events.
    private func readChunk() throws(InputError) -> ReadResult {
        while true {
            let n = read(fd, chunk, Self.chunkEvents * MemoryLayout<input_event>.stride)
            if n > 0 {
                chunkStart = 0
                chunkEnd = n / MemoryLayout<input_event>.stride
                return chunkEnd > 0 ? .events : .empty
            }
            if n == 0 { return .empty }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN: return .empty
            case ENODEV: return .gone
            case let e: throw InputError(path: path, errno: e, what: "read")
            }
        }
    }

    /// After SYN_DROPPED (handed on first): what the kernel still holds is left out (it came before
    /// the state read next; libevdev drops it too), then the device's state now is handed on as
    /// events — each key, each axis, each slot's values — and a SYN_REPORT, all stamped now. The
    /// whole state, not what changed: a resyncing tracker keeps a touch whose slot kept its
    /// tracking id (TouchTracker's `resyncEventsFollow`).
    private func resync(after dropped: input_event, _ body: (InputEvent) -> Void) throws(InputError) -> DrainStatus {
        body(Self.event(dropped))
        chunkStart = chunkEnd
        // Bounded, as libevdev's own drain: a device that never stops sending ends it too.
        drop: for _ in 0..<64 {
            switch try readChunk() {
            case .events: continue
            case .empty: break drop
            case .gone: return .gone
            }
        }
        chunkStart = chunkEnd
        var now: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &now)
        guard rc == 0, let now else {
            if rc == -ENODEV { return .gone }
            throw InputError(path: path, errno: -rc, what: "libevdev_new_from_fd (resync)")
        }
        defer { libevdev_free(now) }
        let time = Self.monotonicNow()
        func emit(_ type: Int32, _ code: UInt32, _ value: Int32) {
            body(InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: value))
        }
        for code in 0...UInt32(KEY_MAX) where libevdev_has_event_code(now, UInt32(EV_KEY), code) != 0 {
            emit(EV_KEY, code, libevdev_get_event_value(now, UInt32(EV_KEY), code))
        }
        for code in 0..<UInt32(ABS_MT_SLOT) where libevdev_has_event_code(now, UInt32(EV_ABS), code) != 0 {
            emit(EV_ABS, code, libevdev_get_event_value(now, UInt32(EV_ABS), code))
        }
        let slots = libevdev_get_num_slots(now)
        if slots > 0 {
            for slot in 0..<slots {
                emit(EV_ABS, UInt32(ABS_MT_SLOT), slot)
                for code in UInt32(ABS_MT_SLOT) + 1...UInt32(ABS_MAX)
                where libevdev_has_event_code(now, UInt32(EV_ABS), code) != 0 {
                    emit(EV_ABS, code, libevdev_get_slot_value(now, UInt32(slot), code))
                }
            }
            emit(EV_ABS, UInt32(ABS_MT_SLOT), libevdev_get_current_slot(now))
        }
        emit(EV_SYN, UInt32(SYN_REPORT), 0)
        return .open
    }

    /// One slot's axis as the kernel has it now (nil if no such slot/axis): after a drain, the
    /// state the events read so far left. Asks the kernel through a fresh libevdev handle, whose
    /// EVIOCGKEY takes EV_KEY events still queued out of the queue: call it after a drain.
    public func slotValue(slot: Int, code: UInt16) -> Int32? {
        var now: OpaquePointer?
        guard libevdev_new_from_fd(fd, &now) == 0, let now else { return nil }
        defer { libevdev_free(now) }
        var value: Int32 = 0
        guard libevdev_fetch_slot_value(now, UInt32(slot), UInt32(code), &value) != 0 else { return nil }
        return value
    }

    /// A non-slot code (e.g. EV_KEY BTN_TOUCH) as the kernel has it now (as ``slotValue(slot:code:)``).
    public func value(type: UInt16, code: UInt16) -> Int32? {
        var now: OpaquePointer?
        guard libevdev_new_from_fd(fd, &now) == 0, let now else { return nil }
        defer { libevdev_free(now) }
        var value: Int32 = 0
        guard libevdev_fetch_event_value(now, UInt32(type), UInt32(code), &value) != 0 else { return nil }
        return value
    }

    /// The current time on CLOCK_MONOTONIC, the clock event times are on.
    public static func monotonicNow() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), microseconds: Int64(ts.tv_nsec) / 1000)
    }

    static func event(_ ev: input_event) -> InputEvent {
        InputEvent(
            time: Timestamp(seconds: Int64(ev.time.tv_sec), microseconds: Int64(ev.time.tv_usec)),
            type: ev.type, code: ev.code, value: ev.value)
    }
}

/// Conversions between a libevdev context and ``DeviceDescription`` (internal: pointers stay here).
enum LibevdevHandle {
    /// INPUT_PROP_CNT
    static let propertyCount: UInt32 = 0x20
    /// EV_CNT
    static let typeCount: UInt32 = 0x20

    static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        let name = libevdev_get_name(dev).map { String(cString: $0) } ?? ""
        var properties = Set<UInt16>()
        for p in 0..<propertyCount where libevdev_has_property(dev, p) != 0 {
            properties.insert(UInt16(p))
        }
        var supported: [UInt16: Set<UInt16>] = [:]
        var axes: [UInt16: AbsInfo] = [:]
        for type in 0..<typeCount where libevdev_has_event_type(dev, type) != 0 {
            let maxCode = libevdev_event_type_get_max(type)
            var codes = Set<UInt16>()
            if maxCode >= 0 {
                for code in 0...UInt32(maxCode) where libevdev_has_event_code(dev, type, code) != 0 {
                    codes.insert(UInt16(code))
                    if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(dev, code) {
                        axes[UInt16(code)] = AbsInfo(
                            value: info.pointee.value, minimum: info.pointee.minimum, maximum: info.pointee.maximum,
                            fuzz: info.pointee.fuzz, flat: info.pointee.flat, resolution: info.pointee.resolution)
                    }
                }
            }
            supported[UInt16(type)] = codes
        }
        return DeviceDescription(
            name: name,
            bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)),
            properties: properties, supportedEvents: supported, absAxes: axes)
    }
}
