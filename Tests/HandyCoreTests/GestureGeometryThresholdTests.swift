import Testing

@testable import HandyCore

/// Thresholds that depend on what the device tells about its size.
struct GestureGeometryThresholdTests {
    static let x = AbsInfo(minimum: 0, maximum: 4095), y = AbsInfo(minimum: 0, maximum: 4095)

    @Test func palmThresholdIsWiderWhenTheSizeIsOnlyAssumed() {
        let assumed = DeviceGeometry(xAxis: Self.x, yAxis: Self.y)
        #expect(assumed.isSizeAssumed)
        #expect(GestureConfiguration().applying(assumed).palmMajorMm == 40)

        var withResolution = (Self.x, Self.y)
        withResolution.0.resolution = 16; withResolution.1.resolution = 16
        let measured = DeviceGeometry(xAxis: withResolution.0, yAxis: withResolution.1)
        #expect(!measured.isSizeAssumed)
        #expect(GestureConfiguration().applying(measured).palmMajorMm == 25)

        let configured = DeviceGeometry(xAxis: Self.x, yAxis: Self.y, sizeMm: (width: 150, height: 100))
        #expect(!configured.isSizeAssumed)
        #expect(GestureConfiguration().applying(configured).palmMajorMm == 25)
    }

    @Test func assumedSizePalmThresholdIsConfigurable() {
        var c = GestureConfiguration()
        #expect(c.apply(overrides: ["palm-major-mm-assumed-size": "33", "palm-major-mm": "20"]).isEmpty)
        #expect(c.applying(DeviceGeometry(xAxis: Self.x, yAxis: Self.y)).palmMajorMm == 33)
        #expect(c.palmMajorMm == 20)
    }
}
