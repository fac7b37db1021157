import HandyCore
import HandyProtocol
import HandyRecording
import HandyTestSupport
import HandyWire
import Testing

/// A core gesture event as the wire carries it: each field rounded to its decimals, and the
/// daemon's writers, which read the core event where it lies, writing the bytes of the
/// `GestureEvent` made from it.
@Suite struct CoreGestureEventTests {
    @Test func eachFieldIsRoundedToItsDecimals() throws {
        var e = CoreGestureEvent(
            gesture: .pan, phase: .ended, id: 7, time: Timestamp(microseconds: 1_234_567), device: "d")
        e.centroid = NormalizedPoint(x: 0.123_456_78, y: 0.5)
        e.centroidMm = PhysicalPoint(x: 12.345_678, y: -0.000_4)
        e.scale = 1.234_567_8
        e.scaleVelocity = 0.123_456
        e.spanMm = 40.123_456
        e.rotation = 0.123_456_78
        e.rotationVelocity = -1.234_56
        e.translation = NormalizedPoint(x: 0.000_006, y: -0.25)
        e.translationMm = PhysicalPoint(x: 1.000_49, y: 2.5)
        e.velocity = PhysicalPoint(x: 123.456, y: -0.04)
        e.position = NormalizedPoint(x: 0.333_333_3, y: 0.666_666_6)
        e.positionMm = PhysicalPoint(x: 66.666_66, y: 33.333_33)
        e.duration = 0.512_345
        e.glideMm = PhysicalPoint(x: 10.005, y: -3.141_59)
        e.glideScale = 1.000_05
        e.glideRotation = 0.000_049
        e.handConfidence = 0.734
        e.occlusion = OcclusionRegion(
            polygon: [NormalizedPoint(x: 0.1, y: 0.2)], polygonMm: [PhysicalPoint(x: 20.1, y: 24)])
        let w = GestureEvent(e)
        #expect(w.time == 1.234567 && w.id == 7 && w.gesture == .pan && w.phase == .ended)
        #expect(w.centroid == WirePoint(x: 0.12346, y: 0.5), "normalised: 5 decimals")
        #expect(w.centroidMm == WirePoint(x: 12.346, y: -0.0), "mm: 3 decimals")
        #expect(w.scale == 1.23457 && w.scaleVelocity == 0.1235 && w.spanMm == 40.123)
        #expect(w.rotation == 0.12346 && w.rotationVelocity == -1.2346)
        #expect(w.translation == WirePoint(x: 0.00001, y: -0.25) && w.translationMm == WirePoint(x: 1, y: 2.5))
        #expect(w.velocity == WirePoint(x: 123.5, y: -0.0), "mm/s: 1 decimal")
        #expect(w.position == WirePoint(x: 0.33333, y: 0.66667) && w.positionMm == WirePoint(x: 66.667, y: 33.333))
        #expect(w.duration == 0.5123 && w.glideScale == 1.0001 && w.glideRotation == 0)
        #expect(w.glideMm == WirePoint(x: 10.01, y: -3.14), "glide: 2 decimals")
        #expect(w.handConfidence == 0.734, "on the classifiers' grid already")
        #expect(w.occlusion == Occlusion(polygon: [WirePoint(x: 0.1, y: 0.2)], polygonMm: [WirePoint(x: 20.1, y: 24)]))
    }

    /// The demo recording through the pipeline: for every output, the full lines and the compact
    /// objects written from the core events are the bytes written from the `GestureEvent`s made of them.
    @Test func theDaemonsWritersReadTheCoreEventAsTheWireEvent() throws {
        let path = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let recording = try Recording.load(path: path)
        var pipeline = GesturePipeline(deviceID: recording.deviceID, description: recording.description)
        var out = PipelineOutput()
        var events = 0, regions = 0
        for event in recording.events {
            pipeline.handle(event, into: &out)
            guard !out.gestures.isEmpty else { continue }
            let wire = out.gestures.wireEvents
            var fromCore: [UInt8] = [], fromWire: [UInt8] = [], coreEnds: [Int] = [], wireEnds: [Int] = []
            out.gestures.withUnsafeBufferPointer {
                JSONLines.encode(eventsIn: $0, into: &fromCore, ends: &coreEnds)
            }
            wire.withUnsafeBufferPointer { JSONLines.encode(eventsIn: $0, into: &fromWire, ends: &wireEnds) }
            #expect(fromCore == fromWire, "\(String(decoding: fromCore, as: UTF8.self))")
            #expect(coreEnds == wireEnds)
            for k in out.gestures.indices {
                var compactCore: [UInt8] = [], compactWire: [UInt8] = []
                out.gestures.withUnsafeBufferPointer {
                    CoreGestureEvent.writeCompactObject(at: $0.baseAddress! + k, into: &compactCore)
                }
                wire[k].writeCompactObject(into: &compactWire)
                #expect(compactCore == compactWire)
                if out.gestures[k].occlusion != nil { regions += 1 }
            }
            events += out.gestures.count
            out.empty()
        }
        #expect(events > 100 && regions > 20, "\(events) events, \(regions) with a region")
    }
}
