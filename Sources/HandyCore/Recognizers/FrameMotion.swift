import HandyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of small touch ids (0…63) as a bit mask: no allocation on the hot path. Touch ids are the
/// tracker's "lowest free" ids, so they stay far below 64; a touch with a larger id is ignored by
/// the recognizers (and counted in ``GestureArena/ignoredTouches``).
struct TouchMask: Hashable, Sendable {
    package var bits: UInt64
    package init(bits: UInt64 = 0) { self.bits = bits }
    package static let capacity = 64
    @inline(__always) package func contains(_ id: Int) -> Bool { id >= 0 && id < 64 && bits & (1 << UInt64(id)) != 0 }
    @inline(__always) package mutating func insert(_ id: Int) { if id >= 0 && id < 64 { bits |= 1 << UInt64(id) } }
    @inline(__always) package mutating func remove(_ id: Int) { if id >= 0 && id < 64 { bits &= ~(1 << UInt64(id)) } }
    @inline(__always) package func intersects(_ o: TouchMask) -> Bool { bits & o.bits != 0 }
    package var isEmpty: Bool { bits == 0 }
    package var count: Int { bits.nonzeroBitCount }
    /// The ids in ascending order.
    package var ids: [Int] {
        var out: [Int] = []
        var b = bits
        while b != 0 { let i = b.trailingZeroBitCount; out.append(i); b &= b - 1 }
        return out
    }
    package static func | (a: TouchMask, b: TouchMask) -> TouchMask { TouchMask(bits: a.bits | b.bits) }
}

/// What one frame means for the multi-finger recognizers, computed once by the arena.
///
/// Fingers are touches that are not pens and not palms. Deltas (translation, scale, rotation) are
/// measured over the touches present in both this and the previous frame, so a finger joining or
/// lifting never makes a jump: the cumulative values are products / sums of these deltas.
package struct FrameMotion: Sendable {
    package var frame: TouchFrame
    package var time: Timestamp
    /// Fingers still down after this frame.
    package var fingers: Int = 0
    var fingerMask = TouchMask()
    /// Fingers that began, lifted (ended normally) or were lost (cancelled) in this frame.
    var beganMask = TouchMask()
    var liftedMask = TouchMask()
    var cancelledMask = TouchMask()
    /// Touches that became palms in this frame (they are not fingers any more).
    var newPalmMask = TouchMask()
    /// Centroid of the fingers down after this frame (unchanged when none is down).
    package var centroidMm = PhysicalPoint.zero
    var centroidNormalized = NormalizedPoint(x: 0, y: 0)
    /// Mean distance of the fingers from their centroid ×2 (the distance of two fingers), mm.
    package var spanMm: Double = 0
    /// Centroid translation since the previous frame over the common fingers, mm.
    var deltaMm = PhysicalPoint.zero
    /// Span ratio since the previous frame over the common fingers (1 when fewer than two).
    var deltaScale: Double = 1
    /// Rotation since the previous frame over the common fingers, radians clockwise (y down).
    var deltaRotation: Double = 0
    /// Some finger still down moved further than `touchSlopMm` from where it began.
    var anyFingerBeyondSlop = false

    package init(frame: TouchFrame) {
        self.frame = frame
        self.time = frame.time
    }
}

/// Computes ``FrameMotion`` from consecutive frames: the previous positions per touch id live in
/// fixed storage, so the hot path allocates nothing.
struct MotionTracker: Sendable {
    private var previousMm = [PhysicalPoint](repeating: .zero, count: TouchMask.capacity)
    private var previousMask = TouchMask()
    /// Touches judged palms, until they lift.
    private(set) var palmMask = TouchMask()
    var ignoredTouches: UInt64 = 0

    mutating func reset() {
        previousMask = TouchMask()
        palmMask = TouchMask()
    }

    mutating func motion(for frame: TouchFrame, configuration c: GestureConfiguration) -> FrameMotion {
        var m = FrameMotion(frame: frame)
        let slop2 = c.touchSlopMm * c.touchSlopMm
        // Pass 1: palms, masks, centroids of the active fingers and of the common set.
        var n = 0
        var sum = PhysicalPoint.zero, sumNX = 0.0, sumNY = 0.0
        var common = 0
        var prevSum = PhysicalPoint.zero, curSum = PhysicalPoint.zero
        for t in frame.touches {
            let id = t.id
            guard id >= 0 && id < TouchMask.capacity else { ignoredTouches &+= 1; continue }
            if t.tool == .pen { continue }
            if t.phase.isFinished {
                if palmMask.contains(id) { palmMask.remove(id); continue }
            } else if !palmMask.contains(id), t.tool == .palm || (t.majorMm ?? 0) > c.palmMajorMm {
                palmMask.insert(id)
                m.newPalmMask.insert(id)
            }
            if palmMask.contains(id) { continue }
            switch t.phase {
            case .began: m.beganMask.insert(id)
            case .ended: m.liftedMask.insert(id)
            case .cancelled: m.cancelledMask.insert(id)
            case .moved, .stationary: break
            }
            if t.phase != .cancelled, previousMask.contains(id) {
                common += 1
                prevSum = prevSum + previousMm[id]
                curSum = curSum + t.mm
            }
            if !t.phase.isFinished {
                n += 1
                m.fingerMask.insert(id)
                sum = sum + t.mm
                sumNX += t.normalized.x
                sumNY += t.normalized.y
                let dx = t.mm.x - t.startMm.x, dy = t.mm.y - t.startMm.y
                if dx * dx + dy * dy > slop2 { m.anyFingerBeyondSlop = true }
            }
        }
        m.fingers = n
        if n > 0 {
            let inv = 1 / Double(n)
            m.centroidMm = sum * inv
            m.centroidNormalized = NormalizedPoint(x: sumNX * inv, y: sumNY * inv)
        }
        // Pass 2: span of the active fingers; scale and rotation of the common set.
        if common > 0 {
            let inv = 1 / Double(common)
            let pc = prevSum * inv, cc = curSum * inv
            m.deltaMm = cc - pc
            if common >= 2 {
                var prevR = 0.0, curR = 0.0, cross = 0.0, dot = 0.0
                for t in frame.touches {
                    let id = t.id
                    guard id >= 0 && id < TouchMask.capacity, t.tool != .pen, t.phase != .cancelled,
                        previousMask.contains(id), !palmMask.contains(id)
                    else { continue }
                    let p = previousMm[id] - pc, q = t.mm - cc
                    prevR += p.length
                    curR += q.length
                    cross += p.x * q.y - p.y * q.x
                    dot += p.x * q.x + p.y * q.y
                }
                // Fingers reported on one spot (a bad device) have no span: no scale change then.
                if prevR > 1e-6 && curR > 1e-6 { m.deltaScale = curR / prevR }
                if cross != 0 || dot != 0 { m.deltaRotation = atan2(cross, dot) }
            }
        }
        // Floating-point dust (a mirrored or translated stream) is no motion: only real changes
        // make `changed` events.
        if Swift.abs(m.deltaMm.x) < 1e-9 && Swift.abs(m.deltaMm.y) < 1e-9 { m.deltaMm = .zero }
        if Swift.abs(m.deltaScale - 1) < 1e-12 { m.deltaScale = 1 }
        if Swift.abs(m.deltaRotation) < 1e-12 { m.deltaRotation = 0 }
        if n >= 2 {
            var r = 0.0
            for t in frame.touches where m.fingerMask.contains(t.id) && !t.phase.isFinished {
                r += t.mm.distance(to: m.centroidMm)
            }
            m.spanMm = 2 * r / Double(n)
        }
        // Remember the fingers still down for the next frame.
        previousMask = m.fingerMask
        for t in frame.touches where m.fingerMask.contains(t.id) && !t.phase.isFinished {
            previousMm[t.id] = t.mm
        }
        return m
    }
}

/// Direction of a displacement when it lies within `maxAngleDegrees` of an axis, else nil.
func swipeDirection(_ d: PhysicalPoint, maxAngleDegrees: Double) -> SwipeDirection? {
    let ax = Swift.abs(d.x), ay = Swift.abs(d.y)
    guard ax > 0 || ay > 0 else { return nil }
    let limit = tan(maxAngleDegrees * Double.pi / 180)
    if ax >= ay {
        guard ay <= ax * limit else { return nil }
        return d.x > 0 ? .right : .left
    } else {
        guard ax <= ay * limit else { return nil }
        return d.y > 0 ? .down : .up
    }
}

extension Timestamp {
    /// `advanced(byMilliseconds:)` that saturates instead of trapping: a device (or a file) may send
    /// any 64-bit time, and a deadline must never crash the daemon.
    /// The delay is a configured threshold: converted saturating too (`Int64(1e300)` trapped on the
    /// first touch with `HANDYD_THRESHOLD_LONG_PRESS_MS=1e300`), NaN or a negative delay is "now".
    @inline(__always) func after(milliseconds ms: Double) -> Timestamp {
        let delayUs = ms > 0 ? Timestamp.saturating(ms * 1000) : 0
        return Timestamp(microseconds: Timestamp.saturatingSum(microseconds, delayUs))
    }
    /// Milliseconds since `earlier`, computed in Double (no overflow on extreme timestamps).
    @inline(__always) func ms(since earlier: Timestamp) -> Double {
        (Double(microseconds) - Double(earlier.microseconds)) / 1000
    }
    /// Seconds since `earlier`, computed in Double.
    @inline(__always) func s(since earlier: Timestamp) -> Double {
        (Double(microseconds) - Double(earlier.microseconds)) / 1_000_000
    }
}
