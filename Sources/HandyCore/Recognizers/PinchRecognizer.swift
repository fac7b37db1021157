#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HandyProtocol

/// Pinch: two or more fingers spreading or closing. Reports `scale` (span now / span at began,
/// the span being twice the mean distance of all fingers from their centroid), `scaleVelocity`
/// (1/s), `spanMm`, `centroid`, `fingers`, and the `hand` that made it with `handConfidence` and
/// `clearSide`, decided when it begins and repeated on every event of the gesture. On `ended`:
/// release `scaleVelocity` and `glideScale` (momentum).
///
/// ```
///          2+ fingers                 span ratio ≥ pinchRatio (or ≤ 1/pinchRatio)
///  idle ─────────────▶ possible ──── and each finger moved ≥ decideMotionPerFingerMm ───▶ active ─┐
///   ▲ ◀── < 2 fingers ───┘ │ ▲  pan travel > transformWindowMm: reference slides forward  │ ▲    │ changed
///   │                      │ └─────────────────────────────────┘                          │ └────┘
///   │                      └─ policy forbids / cancel ─▶ blocked ◀─ palm / cancel ────────┤ (cancelled)
///   │                                                     │ all fingers up                │ < 2 fingers (ended)
///   └─────────────────────────────────────────────────────┘◀──────────────────────────────┘──▶ possible if 1 left
/// ```
public struct PinchRecognizer: Sendable {
    enum State: Sendable {
        case idle
        case possible(Reference)
        case active(Active)
        case blocked
    }
    struct Reference: Sendable {
        var scale: Double = 1
        var travelMm = PhysicalPoint.zero
    }
    struct Active: Sendable {
        var id: UInt64
        var scale: Double
        var participants: TouchMask
        var fingers: Int
        var hand: Hand
        var handConfidence: Double
    }

    private(set) var state: State = .idle
    private var velocity = VelocityEstimator()
    private var lastCentroidMm = PhysicalPoint.zero
    private var lastCentroidNormalized = NormalizedPoint(x: 0, y: 0)
    private var lastSpanMm = 0.0
    /// The handedness classifier; nil = ``EvidenceHandednessClassifier`` (docs/HANDEDNESS.md).
    /// ``SeedHandednessRule`` stays available for comparison.
    public var classifier: (any HandednessClassifier)?

    public init(classifier: (any HandednessClassifier)? = nil) {
        self.classifier = classifier
    }

    var nextDeadline: Timestamp? { nil }

    mutating func handle(_ input: RecognizerInput, _ ctx: inout ArenaContext, into out: inout [GestureEvent]) {
        switch input {
        case .frame(let m): frame(m, &ctx, &out)
        case .timeAdvanced: break
        case .cancel(let time, let reason): cancel(at: time, reason: reason, &ctx, &out)
        }
    }

    private mutating func frame(_ m: FrameMotion, _ ctx: inout ArenaContext, _ out: inout [GestureEvent]) {
        let c = ctx.configuration
        if m.fingers >= 2 {
            lastCentroidMm = m.centroidMm
            lastCentroidNormalized = m.centroidNormalized
            lastSpanMm = m.spanMm
        }
        switch state {
        case .idle:
            if m.fingers >= 2 { state = .possible(Reference()) }
        case .blocked:
            if m.fingers == 0 { state = .idle }
        case .possible(var r):
            if m.fingers < 2 { state = m.fingers == 0 ? .idle : .possible(Reference()); return }
            r.scale *= m.deltaScale
            r.travelMm = r.travelMm + m.deltaMm
            let ratio = Swift.max(r.scale, 1 / r.scale)
            // Radial motion of each finger: half the span change since the reference.
            let radialMm = Swift.abs(m.spanMm - m.spanMm / r.scale) / 2
            if ratio >= c.pinchRatio && radialMm >= c.decideMotionPerFingerMm {
                guard ctx.mayStart(.pinch) else { state = .blocked; return }
                let decided = Self.decideHand(m.frame, mask: m.fingerMask, classifier ?? EvidenceHandednessClassifier())
                let a = Active(id: ctx.start(.pinch), scale: 1, participants: m.fingerMask, fingers: m.fingers,
                               hand: decided.hand, handConfidence: decided.confidence)
                velocity.reset()
                velocity.add(m.time, x: 1, pauseMs: c.velocityPauseMs)
                state = .active(a)
                var began = event(.began, a, m.time, ctx)
                began.touches = a.participants.ids   // once per gesture: which touches it started with
                out.append(began)
                return
            }
            if r.travelMm.length > c.transformWindowMm { r = Reference() }
            state = .possible(r)
        case .active(var a):
            if m.newPalmMask.intersects(a.participants), c.policy.palmCancels {
                cancel(at: m.time, reason: "palm", &ctx, &out); return
            }
            if m.cancelledMask.intersects(a.participants) {
                cancel(at: m.time, reason: "touch-cancelled", &ctx, &out); return
            }
            let changedScale = m.deltaScale != 1
            a.scale *= m.deltaScale
            if changedScale { velocity.add(m.time, x: a.scale, pauseMs: c.velocityPauseMs) }
            if m.fingers < 2 {
                var e = event(.ended, a, m.time, ctx)
                let v = velocity.velocityX(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                e.scaleVelocity = wireRounded(v, 4)
                e.glideScale = wireRounded(exp(c.momentumTimeConstantSeconds * v / Swift.max(a.scale, 1e-6)), 4)
                out.append(e)
                state = m.fingers == 0 ? .idle : .possible(Reference())
                return
            }
            let fingersChanged = a.fingers != m.fingers
            a.fingers = m.fingers
            a.participants = a.participants | m.fingerMask
            state = .active(a)
            if changedScale || fingersChanged || m.deltaMm != .zero {
                let v = velocity.velocityX(at: m.time, windowMs: c.velocityWindowMs, pauseMs: c.velocityPauseMs)
                out.append(event(.changed, a, m.time, ctx)) { e in e.scaleVelocity = wireRounded(v, 4) }
            }
        }
    }

    /// Hand of the fingers down in `frame` (those in `mask`), by the classifier.
    static func decideHand(_ frame: TouchFrame, mask: TouchMask, _ classifier: any HandednessClassifier) -> (hand: Hand, confidence: Double) {
        guard let f = HandednessFeatures(touches: frame.touches.filter { mask.contains($0.id) && !$0.phase.isFinished }) else {
            return (.unknown, 0)
        }
        return classifier.classify(f)
    }

    private mutating func cancel(at time: Timestamp, reason: String, _ ctx: inout ArenaContext, _ out: inout [GestureEvent]) {
        switch state {
        case .active(let a):
            var e = event(.cancelled, a, time, ctx)
            e.reason = reason
            out.append(e)
            state = .blocked
        case .possible: state = .blocked
        case .idle, .blocked: break
        }
    }

    private func event(_ phase: GesturePhase, _ a: Active, _ time: Timestamp, _ ctx: ArenaContext) -> GestureEvent {
        var e = ctx.event(.pinch, phase, id: a.id, time: time)
        e.fingers = a.fingers
        e.scale = wireRounded(a.scale, 5)
        e.spanMm = wireRounded(lastSpanMm, 3)
        e.centroid = ctx.wire(lastCentroidNormalized)
        e.centroidMm = ctx.wire(lastCentroidMm)
        e.hand = a.hand
        e.handConfidence = a.handConfidence
        e.clearSide = a.hand.clearSide
        return e
    }
}
