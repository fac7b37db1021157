import HandyCore
import HandyProtocol
import HandyRecording
import HandyTestSupport
import HandyWire
import Testing

/// The covered region on the wire lists each corner once: clipping at a display edge and the wire's
/// rounding (0.1 mm, 0.001 of the display) must not leave two equal neighbours (the demo recording's
/// one-finger pans near the bottom edge did).
@Suite struct OcclusionCornerTests {
    @Test func everyRegionOfTheDemoListsEachCornerOnce() throws {
        let path = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
        let recording = try Recording.load(path: path)
        var pipeline = GesturePipeline(
            deviceID: "demo", description: recording.description,
            geometry: DeviceGeometry(description: recording.description, calibration: .identity))
        var out = PipelineOutput()
        for e in recording.events {
            if let deadline = pipeline.nextDeadline, deadline <= e.time {
                out.gestures += pipeline.advanceTime(to: e.time)
            }
            pipeline.handle(e, into: &out)
        }
        let regions = out.gestures.wireEvents.compactMap(\.occlusion)
        #expect(regions.count > 20)
        for o in regions {
            #expect(o.polygon.count == o.polygonMm.count)
            #expect(o.polygonMm.count >= 3, "\(o)")
            for corners in [o.polygon, o.polygonMm] {
                for i in corners.indices {
                    let next = corners[(i + 1) % corners.count]
                    #expect(corners[i] != next, "corner \(i) repeated: \(corners)")
                }
            }
        }
    }
}
