import HandyCore
import HandyProtocol

/// What the input side hands to the ``Broadcaster``.
public enum InputNotice: Sendable {
    // Boxed: inline, a device's description made every notice as large as itself, and each
    // frame's notice was copied whole (a memcpy) wherever it was matched. A device comes and
    // goes rarely; a frame's notice is now a string and two arrays.
    indirect case added(DeviceInfo)
    indirect case removed(DeviceInfo)
    /// A device's health changed (docs/PROTOCOL.md "Device health").
    indirect case health(DeviceMessage)
    /// Frames and gestures of one device (its id).
    case output(device: String, PipelineOutput)
}
