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
    /// Stopped at the events' limit with more to read, some perhaps already in libevdev's queue
    /// (where poll does not see them): drain again without waiting for the descriptor.
    case more
}

/// One evdev node read through libevdev, non-blocking.
///
/// Not `Sendable`: one thread owns it (the daemon's input thread) and polls ``fileDescriptor``.
/// Event times use CLOCK_MONOTONIC so they compare with ``monotonicNow()``, which the daemon
/// uses to arm recognizer timeouts.
public final class EvdevDevice {
    /// The node this was opened from, e.g. "/dev/input/event5".
    public let path: String
    /// What the device is, read once at open (libevdev keeps it current, the axes do not change).
    public let description: DeviceDescription
    /// Poll this for POLLIN, then call ``drain(_:)``.
    public var fileDescriptor: CInt { fd }

    private let fd: CInt
    private let raw: OpaquePointer

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
        self.raw = dev
        self.description = LibevdevHandle.describe(dev)
    }

    deinit {
        libevdev_free(raw)
        close(fd)
    }

    /// Reads every pending event and hands each to `body`, in kernel order.
    ///
    /// When the kernel's buffer overflowed, `body` first gets the SYN_DROPPED event, then the
    /// events libevdev synthesises to bring the caller's state to the device's current state
    /// (ending in a SYN_REPORT), then the events that follow normally. A tracker treats
    /// everything between SYN_DROPPED and that SYN_REPORT as one resync frame.
    ///
    /// At most `maximumEvents` events in the normal flow (a resync's replay of the device's state
    /// is always read whole): a device that never stops sending must not keep the caller from its
    /// other devices.
    ///
    /// - Returns: `.gone` when the device was unplugged (ENODEV), `.more` when the limit stopped it
    ///   with events left, `.open` otherwise.
    /// - Throws: ``InputError`` for any other read error.
    public func drain(maximumEvents: Int = .max, _ body: (InputEvent) -> Void) throws(InputError) -> DrainStatus {
        var ev = input_event()
        let normal = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        let sync = LIBEVDEV_READ_FLAG_SYNC.rawValue
        let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
        var left = maximumEvents
        while true {
            if left <= 0 {
                // libevdev_has_event_pending: its queue first (no system call), then poll(0).
                return libevdev_has_event_pending(raw) > 0 ? .more : .open
            }
            let rc = libevdev_next_event(raw, normal, &ev)
            if rc == 0 {
                left &-= 1  // no overflow check: it starts at most at Int.max
                body(Self.event(ev))
            } else if rc == statusSync {
                // ev is the SYN_DROPPED itself; then libevdev replays the device state.
                body(Self.event(ev))
                while true {
                    let src = libevdev_next_event(raw, sync, &ev)
                    if src == statusSync {
                        body(Self.event(ev))
                    } else if src == -EAGAIN {
                        break
                    } else if src == -ENODEV {
                        return .gone
                    } else if src == -EINTR {
                        continue
                    } else {
                        throw InputError(path: path, errno: -src, what: "libevdev_next_event(SYNC)")
                    }
                }
            } else if rc == -EAGAIN {
                return .open
            } else if rc == -ENODEV {
                return .gone
            } else if rc == -EINTR {
                continue
            } else {
                throw InputError(path: path, errno: -rc, what: "libevdev_next_event")
            }
        }
    }

    /// libevdev's view of one slot's axis after the events read so far (nil if no such slot/axis).
    public func slotValue(slot: Int, code: UInt16) -> Int32? {
        var value: Int32 = 0
        guard libevdev_fetch_slot_value(raw, UInt32(slot), UInt32(code), &value) != 0 else { return nil }
        return value
    }

    /// libevdev's view of a non-slot code (e.g. EV_KEY BTN_TOUCH) after the events read so far.
    public func value(type: UInt16, code: UInt16) -> Int32? {
        var value: Int32 = 0
        guard libevdev_fetch_event_value(raw, UInt32(type), UInt32(code), &value) != 0 else { return nil }
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
