import HandyCore

/// The bundled demo: one of each gesture on a synthetic full-featured touchscreen, so `handyd
/// --replay` has something worth watching on a machine without a touchscreen. `handyctl generate
/// demo` writes it as an evemu recording (examples/recordings/demo.evemu).
///
/// Hands follow the seed rule's geometry: with a right hand the index finger lands above and to the
/// right of the thumb; a left hand is the mirror image.
public enum DemoScenario {
    /// Display of the demo device: 200 × 120 mm, 20 units/mm, every optional axis.
    public static let device = SyntheticTouchscreen.fullFeatured(slots: 10, widthMm: 200, heightMm: 120, unitsPerMm: 20)

    /// What happens when (seconds from the start), for docs and tests.
    public static let timeline: [(seconds: Double, what: String)] = [
        (0.5, "right-hand pinch out (zoom in)"),
        (2.0, "left-hand pinch in (zoom out)"),
        (3.5, "two-finger rotate, 60° clockwise"),
        (5.0, "one-finger tap"),
        (5.6, "one-finger double tap"),
        (6.5, "one-finger pan, left to right"),
        (8.0, "two-finger swipe left"),
        (9.0, "long press"),
    ]

    public static var fingers: [FingerPath] {
        let thumb = (major: 12.0, minor: 9.0)
        let index = (major: 9.0, minor: 7.5)
        func pinch(
            thumbFrom: (Double, Double), thumbTo: (Double, Double), indexFrom: (Double, Double),
            indexTo: (Double, Double), at t: Double
        ) -> [FingerPath] {
            [
                FingerPath(keyframes: [
                    (
                        t,
                        FingerSample(
                            xMm: thumbFrom.0, yMm: thumbFrom.1, majorMm: thumb.major, minorMm: thumb.minor,
                            pressure: 0.6)
                    ),
                    (
                        t + 0.1,
                        FingerSample(
                            xMm: thumbFrom.0, yMm: thumbFrom.1, majorMm: thumb.major, minorMm: thumb.minor,
                            pressure: 0.6)
                    ),
                    (
                        t + 0.8,
                        FingerSample(
                            xMm: thumbTo.0, yMm: thumbTo.1, majorMm: thumb.major, minorMm: thumb.minor, pressure: 0.6)
                    ),
                ]),
                FingerPath(keyframes: [
                    (
                        t + 0.02,
                        FingerSample(
                            xMm: indexFrom.0, yMm: indexFrom.1, majorMm: index.major, minorMm: index.minor,
                            pressure: 0.5)
                    ),
                    (
                        t + 0.1,
                        FingerSample(
                            xMm: indexFrom.0, yMm: indexFrom.1, majorMm: index.major, minorMm: index.minor,
                            pressure: 0.5)
                    ),
                    (
                        t + 0.8,
                        FingerSample(
                            xMm: indexTo.0, yMm: indexTo.1, majorMm: index.major, minorMm: index.minor, pressure: 0.5)
                    ),
                ]),
            ]
        }
        var paths: [FingerPath] = []
        // Right hand: index up and to the right of the thumb; spread apart.
        paths += pinch(thumbFrom: (95, 72), thumbTo: (82, 85), indexFrom: (110, 50), indexTo: (126, 33), at: 0.5)
        // Left hand: the mirror image (about x = 100); pinch together.
        paths += pinch(thumbFrom: (118, 85), thumbTo: (105, 72), indexFrom: (74, 33), indexTo: (90, 50), at: 2.0)
        // Rotate: two fingers on opposite ends of a 40 mm diameter, turning 60° clockwise.
        let turn = Double.pi / 3
        paths.append(
            .arc(
                centerMm: (100, 60), radiusMm: 20, fromRadians: 0, toRadians: turn, startSeconds: 3.5,
                durationSeconds: 0.8))
        paths.append(
            .arc(
                centerMm: (100, 60), radiusMm: 20, fromRadians: Double.pi, toRadians: Double.pi + turn,
                startSeconds: 3.5, durationSeconds: 0.8))
        // Taps.
        paths.append(.hold(atMm: (50, 60), startSeconds: 5.0, durationSeconds: 0.07, majorMm: 8, minorMm: 7))
        paths.append(.hold(atMm: (150, 60), startSeconds: 5.6, durationSeconds: 0.07, majorMm: 8, minorMm: 7))
        paths.append(.hold(atMm: (150.5, 60.3), startSeconds: 5.78, durationSeconds: 0.07, majorMm: 8, minorMm: 7))
        // A slow drag.
        paths.append(
            .line(fromMm: (40, 95), toMm: (160, 95), startSeconds: 6.5, durationSeconds: 1.0, majorMm: 8, minorMm: 7))
        // A fast two-finger swipe to the left.
        paths.append(
            .line(fromMm: (160, 45), toMm: (60, 45), startSeconds: 8.0, durationSeconds: 0.15, majorMm: 8, minorMm: 7))
        paths.append(
            .line(fromMm: (162, 65), toMm: (62, 65), startSeconds: 8.0, durationSeconds: 0.15, majorMm: 8, minorMm: 7))
        // Long press.
        paths.append(.hold(atMm: (100, 60), startSeconds: 9.0, durationSeconds: 0.9, majorMm: 9, minorMm: 8))
        return paths
    }

    /// The demo as evdev events (100 Hz).
    public static var events: [InputEvent] {
        SyntheticStream(device: device, frameRateHz: 100, start: Timestamp(seconds: 1)).events(fingers)
    }
}
