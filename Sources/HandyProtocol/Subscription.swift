/// What one client asked to receive. The default is every gesture of every device and no touches.
///
/// A `subscribe` request replaces only the fields it carries (see docs/PROTOCOL.md), so a client
/// can turn touches on without repeating its gesture list.
public struct Subscription: Hashable, Sendable {
    /// Gesture names (nil = all). Unknown names are kept: a newer client may name gestures this
    /// daemon does not make yet, which is not an error within one protocol version.
    public var gestures: Set<String>?
    /// Device ids, or kernel node names (`event5`) (nil = all).
    public var devices: Set<String>?
    public var touches: Bool
    /// How gestures and touches are written (docs/PROTOCOL.md "frame (compact form)").
    public var form: WireForm
    /// Whether touches frames carry the hovering contacts (with ``touches`` only). After `form`:
    /// the log's description of a subscription reads as before for the fields it had.
    public var hover: Bool

    public init(
        gestures: Set<String>? = nil, devices: Set<String>? = nil, touches: Bool = false, form: WireForm = .full,
        hover: Bool = false
    ) {
        self.hover = hover
        self.gestures = gestures
        self.devices = devices
        self.touches = touches
        self.form = form
    }

    /// Applies a request: absent fields keep their value, and so does a `form` this daemon does
    /// not know (the caller reports it).
    public mutating func apply(_ request: SubscribeRequest) {
        if let g = request.gestures { gestures = Set(g) }
        if let d = request.devices { devices = Set(d) }
        if let t = request.touches { touches = t }
        if let h = request.hover { hover = h }
        if let f = request.form.flatMap(WireForm.init(rawValue:)) { form = f }
    }

    /// `node` is the device's kernel node name (``DeviceInfo/node``), which a filter may name instead of its id.
    public func wants(gesture: GestureKind, device: String, node: String? = nil) -> Bool {
        wants(device: device, node: node) && (gestures?.contains(gesture.rawValue) ?? true)
    }

    public func wantsTouches(device: String, node: String? = nil) -> Bool {
        touches && wants(device: device, node: node)
    }

    /// Whether the touches frames of `device` carry its hovering contacts.
    public func wantsHover(device: String, node: String? = nil) -> Bool {
        hover && wantsTouches(device: device, node: node)
    }

    /// Whether every gesture and every touches line of every device is wanted: no filter, touches on.
    public var wantsEveryLine: Bool { gestures == nil && devices == nil && touches }

    public func wants(device: String, node: String? = nil) -> Bool {
        guard let devices else { return true }
        return devices.contains(device) || (node.map { devices.contains($0) } ?? false)
    }
}
