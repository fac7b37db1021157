import HandyProtocol

/// What the arena lends every recognizer for one input: ids, policy, event construction.
package struct ArenaContext: Sendable {
    package let device: String
    package var configuration: GestureConfiguration { didSet { lastHand = nil } }
    package let displayWidthMm: Double
    package let displayHeightMm: Double
    /// The device's size in mm is the fallback guess (``DeviceGeometry/isSizeAssumed``).
    let isSizeAssumed: Bool
    /// Next gesture id (monotonic from 1 per arena).
    var nextID: UInt64 = 1
    /// Gesture kinds recognised since the last time no finger was down (bit = index in allCases).
    var startedKinds: UInt32 = 0
    /// False while the two-finger long-press gate is on and no two-finger long press is held.
    var gateOpen = true
    /// "handyd bug: ..." entries: impossible transitions (tests require it empty).
    package var bugs: [String] = []
    /// Decides the hand of every gesture with two or more fingers (docs/HANDEDNESS.md).
    package var classifier: any HandednessClassifier = EvidenceHandednessClassifier() { didSet { lastHand = nil } }
    /// The device's enrolled hand profile (``HandProfile``): its one-finger model, when it has one,
    /// decides the hand of one contact (its pinch recalibration is in ``classifier``).
    package var handProfile: HandProfile? { didSet { lastHand = nil } }
    /// The device's hovering contacts in range after the frame being handled (display mm), for
    /// the hand of one finger (``HoverHandedness``); always empty on a device without hover.
    private(set) var hoverMm: [PhysicalPoint] = []
    /// The frames the arena fed so far: the frame a remembered decision belongs to.
    var frameNumber: UInt64 = 0
    /// The last hand decided, with the frame, fingers and finger count it was decided on: the
    /// recognizers deciding on the same fingers of the same frame (pinch, rotate and pan beginning
    /// together; long press, swipe and tap at a finger down) score them once.
    private var lastHand: (frame: UInt64, mask: TouchMask, fingers: Int, decision: HandDecision)?

    /// The hand of the fingers in `mask` of `frame`, decided when a gesture begins: by the
    /// classifier with two or more fingers, by the contact's ellipse (``SingleContactHandedness``)
    /// with one (`fingers`: the gesture's).
    /// Below the device's `hand-minimum-confidence` the hand is published `unknown`, its
    /// probability kept (``HandDecision/published(minimumConfidence:)``).
    mutating func decideHand(_ frame: TouchFrame, mask: TouchMask, fingers: Int) -> HandDecision {
        if let last = lastHand, last.frame == frameNumber, last.mask == mask, last.fingers == fingers {
            return last.decision
        }
        let decision = scoreHand(frame, mask: mask, fingers: fingers)
        lastHand = (frameNumber, mask, fingers, decision)
        return decision
    }

    private func scoreHand(_ frame: TouchFrame, mask: TouchMask, fingers: Int) -> HandDecision {
        let touches = frame.touches.filter { mask.contains($0.id) && !$0.phase.isFinished }
        if fingers == 1 { return touches.count == 1 ? decideHand(touches[0]) : .undecided }
        guard var f = HandednessFeatures(touches: touches) else { return .undecided }
        f.sizeIsAssumed = isSizeAssumed
        return published(classifier.decide(f))
    }

    /// The device's `hand-minimum-confidence` applied: only above its default (the default
    /// classifier's own 0.6), so at the default every classifier's own threshold alone decides
    /// (the seed rule's and the single-contact rule's answers from 0.5 stay published).
    @inline(__always) private func published(_ d: HandDecision) -> HandDecision {
        let minimum = configuration.handMinimumConfidence
        return minimum > GestureConfiguration.defaultHandMinimumConfidence ? d.published(minimumConfidence: minimum) : d
    }

    /// Keeps the hovering contacts in range after the frame about to be handled (not those that
    /// landed, left or were lost in it). Called only on a device that tracks hover.
    mutating func noteHovering(_ contacts: [HoverContact]) {
        if !hoverMm.isEmpty { hoverMm.removeAll(keepingCapacity: true) }
        for c in contacts where c.phase == .began || c.phase == .hovering { hoverMm.append(c.mm) }
    }

    /// The hand of one contact (a one-finger gesture, a per-touch sub-gesture): from the fingers of
    /// its hand hovering beside it when they name one (``HoverHandedness``), else from its ellipse,
    /// under the device's `hand-minimum-confidence`.
    func decideHand(_ touch: Touch) -> HandDecision {
        if !hoverMm.isEmpty, let d = HoverHandedness.decide(touchMm: touch.mm, hoveringMm: hoverMm) {
            return published(d)
        }
        if let profile = handProfile, profile.singleContact != nil,
            let d = profile.singleContactDecision(
                HandednessContact(touch), displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm)
        {
            return published(d)
        }
        return published(
            SingleContactHandedness.decide(touch, displayWidthMm: displayWidthMm, displayHeightMm: displayHeightMm))
    }

    init(device: String, configuration: GestureConfiguration, geometry: DeviceGeometry) {
        self.device = device
        self.configuration = configuration
        self.displayWidthMm = Swift.max(geometry.displayWidthMm, 1e-6)
        self.displayHeightMm = Swift.max(geometry.displayHeightMm, 1e-6)
        self.isSizeAssumed = geometry.isSizeAssumed
    }

    /// The kind's bit in ``startedKinds``.
    @inline(__always) static func bit(_ k: GestureKind) -> UInt32 { 1 << UInt32(k.traits.index) }

    /// True when the policy lets `kind` start next to every kind already recognised in this sequence.
    func mayStart(_ kind: GestureKind) -> Bool {
        if startedKinds == 0 { return true }
        for other in GestureKind.allCases where startedKinds & Self.bit(other) != 0 {
            if !configuration.policy.allows(kind, with: other) { return false }
        }
        return true
    }

    /// Records that `kind` starts and returns its new gesture id.
    package mutating func start(_ kind: GestureKind) -> UInt64 {
        startedKinds |= Self.bit(kind)
        return allocateID()
    }

    /// Records that `kind` was recognised in this sequence without taking an id yet.
    package mutating func mark(_ kind: GestureKind) { startedKinds |= Self.bit(kind) }

    /// A new id for a gesture outside the policy table (per-touch sub-gestures).
    mutating func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    mutating func bug(_ message: String) {
        if bugs.count < 100 { bugs.append("handyd bug: \(message)") }
    }

    @inline(__always) func event(_ kind: GestureKind, _ phase: GesturePhase, id: UInt64, time: Timestamp)
        -> CoreGestureEvent
    {
        CoreGestureEvent(gesture: kind, phase: phase, id: id, time: time, device: device)
    }

    /// A translation in mm as a fraction of the display.
    @inline(__always) func normalized(_ d: PhysicalPoint) -> NormalizedPoint {
        NormalizedPoint(x: d.x / displayWidthMm, y: d.y / displayHeightMm)
    }
}

extension Array where Element == CoreGestureEvent {
    /// Appends `event` and lets `fill` set its fields in place: the hot `changed` paths avoid
    /// copying a ~450-byte event (with its reference-counted fields) into the array.
    @inline(__always) mutating func append(
        _ event: __owned CoreGestureEvent, filling fill: (inout CoreGestureEvent) -> Void
    ) {
        append(event)
        fill(&self[count - 1])
    }
}
