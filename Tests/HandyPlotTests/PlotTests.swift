import Foundation
import HandyCore
import HandyPlot
import HandyProtocol
import HandyRecording
import HandySynthetic
import HandyTestSupport
import HandyWire
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The SVG elements of a document, by tag and class, read with Foundation's XML parser.
final class SVGElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
    }
    private(set) var elements: [Element] = []
    private(set) var rootName: String?

    /// Parses `svg`; nil when it is not well-formed XML.
    static func parse(_ svg: String) -> SVGElements? {
        let collector = SVGElements()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        if rootName == nil { rootName = elementName }
        elements.append(Element(name: elementName, attributes: attributeDict))
    }

    func all(_ name: String, class className: String) -> [Element] {
        elements.filter { $0.name == name && $0.classes.contains(className) }
    }
}

/// Counts straight from the tracker and the pipeline, independently of the plot code.
func plotTouchCount(_ recording: Recording) -> Int {
    var tracker = TouchTracker(description: recording.description)
    var began = 0
    for event in recording.events {
        guard let frame = tracker.handle(event) else { continue }
        began += frame.touches.filter { $0.phase == .began }.count
    }
    return began
}

func plotMarkedGestures(_ recording: Recording) -> [GestureEvent] {
    var pipeline = GesturePipeline(deviceID: recording.deviceID, description: recording.description)
    var gestures: [GestureEvent] = []
    for event in recording.events {
        var out = PipelineOutput()
        pipeline.handle(event, into: &out)
        gestures += out.gestures.wireEvents
    }
    if let last = recording.events.last {
        gestures += pipeline.advanceTime(to: last.time.advanced(byMicroseconds: 1_000_000)).wireEvents
    }
    return gestures.filter { $0.phase == .began || $0.phase == .recognized }
}

@Suite("SVG plot")
struct PlotTests {
    static let demoPath = FixturePaths.packageRoot.appendingPathComponent("examples/recordings/demo.evemu").path
    static let circlePath = FixturePaths.path(
        "whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-circle.events")
    static let twoFingerTapPath = FixturePaths.path("whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events")

    @Test("demo: valid SVG, one path per touch, one mark per began/recognized gesture event")
    func demo() throws {
        let recording = try Recording.load(path: Self.demoPath)
        let svg = SVGPlot().render(PlotData(recording: recording))
        let doc = try #require(SVGElements.parse(svg), "the plot is not well-formed XML")
        #expect(doc.rootName == "svg")

        let touches = plotTouchCount(recording)
        // The demo is made of 13 finger paths (DemoScenario.fingers); the tracker sees each as one touch.
        #expect(touches == DemoScenario.fingers.count)
        #expect(doc.all("path", class: "touch").count == touches)
        #expect(doc.all("circle", class: "touch-start").count == touches)
        #expect(doc.all("rect", class: "touch-end").count == touches)

        let marked = plotMarkedGestures(recording)
        #expect(!marked.isEmpty)
        let marks = doc.all("g", class: "gesture-mark")
        #expect(marks.count == marked.count)
        // Each mark names its gesture event.
        #expect(
            Set(marks.compactMap { $0.attributes["id"] }) == Set(marked.map { "gesture-\($0.id)-\($0.phase.rawValue)" })
        )
        // The demo has a right- and a left-hand pinch: both scale curves are drawn.
        let pinchIDs = Set(marked.filter { $0.gesture == .pinch }.map(\.id))
        #expect(pinchIDs.count == 2)
        #expect(doc.all("polyline", class: "scale-curve").count == pinchIDs.count)
        // The covered region of each pinch, in its hand's side: one polygon per pinch, right and left.
        let occlusions = doc.all("polygon", class: "occlusion")
        #expect(occlusions.allSatisfy { $0.attributes["data-gesture"] == "pinch" })
        #expect(Set(occlusions.compactMap { $0.attributes["data-hand"] }) == ["left", "right"])
        #expect(occlusions.count == pinchIDs.count)
    }

    @Test("Wacom double-center-circle: two touches, every tracker sample on the path")
    func circle() throws {
        let recording = try Recording.load(path: Self.circlePath)
        let data = PlotData(recording: recording)
        let doc = try #require(SVGElements.parse(SVGPlot().render(data)))
        let touches = plotTouchCount(recording)
        #expect(touches == 2)
        let paths = doc.all("path", class: "touch")
        #expect(paths.count == touches)
        // Path commands (M + L...) match the frames each touch appeared in.
        for (path, trace) in zip(paths, data.traces) {
            let d = path.attributes["d"] ?? ""
            let commands = d.filter { $0 == "M" || $0 == "L" }.count
            #expect(commands == trace.samples.count)
        }
        #expect(doc.all("g", class: "gesture-mark").count == plotMarkedGestures(recording).count)
        // Time dots: one every 100 ms after the start of each trace.
        let expectedDots = data.traces.map { Int($0.lastTime.milliseconds(since: $0.beganAt) / 100) }.reduce(0, +)
        #expect(doc.all("circle", class: "time-dot").count == expectedDots)
    }

    @Test("2-finger tap: two paths and one tap mark")
    func twoFingerTap() throws {
        let recording = try Recording.load(path: Self.twoFingerTapPath)
        let doc = try #require(SVGElements.parse(SVGPlot().render(PlotData(recording: recording))))
        #expect(doc.all("path", class: "touch").count == plotTouchCount(recording))
        let taps = doc.all("g", class: "gesture-mark").filter { $0.attributes["data-gesture"] == "tap" }
        #expect(taps.count == plotMarkedGestures(recording).filter { $0.gesture == .tap }.count)
    }

    /// Hovering fingers (issue 55, item 6): drawn in their own style, apart from the touches, one
    /// path per life above the glass, a ring where one landed.
    @Test func hoveringFingersAreDrawnApartFromTheTouches() throws {
        let path = try writeHoverRecording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let data = PlotData(recording: try Recording.load(path: path))
        // The recording: slot 0 hovers, lands, rises, leaves (two lives above the glass); slot 1
        // hovers and leaves; then a tap without hover.
        #expect(data.hoverTraces.map(\.end) == [.landed, .ended, .ended])
        let doc = try #require(SVGElements.parse(SVGPlot().render(data)))
        let hovers = doc.all("path", class: "hover")
        #expect(hovers.count == 3)
        #expect(hovers.allSatisfy { $0.attributes["stroke-dasharray"] != nil && $0.attributes["stroke"] == "#5fafaf" })
        #expect(doc.all("circle", class: "hover-landed").count == 1)
        // The touches are the touches: the landed finger's and the tap's, none for a hover.
        #expect(doc.all("path", class: "touch").count == 2)
        #expect(doc.all("path", class: "touch").allSatisfy { $0.attributes["stroke"] != "#5fafaf" })
    }

    @Test("names with XML specials and an empty recording still make valid SVG")
    func escapingAndEmpty() throws {
        var recording = try Recording.load(path: Self.twoFingerTapPath)
        recording.description.name = "Evil <&> \"screen\"\u{1}"
        recording.events = []
        let svg = SVGPlot(subtitle: "a < b & c").render(PlotData(recording: recording))
        let doc = try #require(SVGElements.parse(svg))
        #expect(doc.all("path", class: "touch").isEmpty)
        #expect(doc.all("g", class: "gesture-mark").isEmpty)
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }
}

/// Regressions found probing `handyctl plot` (2026-11-27): a recording spanning 9e12 s drew a tick
/// every 600 s (hours, then memory); a dot step of 1e19 ms trapped converting to an integer.
@Suite struct PlotExtremeTests {
    @Test func aHugeSpanHasADozenTicksAndAHugeDotStepDoesNotTrap() throws {
        var recording = try Recording.load(path: PlotTests.twoFingerTapPath)
        let first = try #require(recording.events.first)
        // The last frame (the lift) 9e12 s after the first event.
        let liftTime = try #require(recording.events.last { $0.isSynReport }).time
        let shift = Int64(9e18) - (liftTime.microseconds - first.time.microseconds)
        for i in recording.events.indices where recording.events[i].time == liftTime {
            recording.events[i].time = liftTime.advanced(byMicroseconds: shift)
        }
        var plot = SVGPlot(subtitle: nil)
        plot.timeDotMilliseconds = 1e19
        let svg = plot.render(PlotData(recording: recording))
        let doc = try #require(SVGElements.parse(svg))
        let ticks = try #require(doc.all("path", class: "ticks").first?.attributes["d"])
        #expect(ticks.split(separator: "M").count <= 13, "\(ticks.split(separator: "M").count) ticks")
        #expect(svg.utf8.count < 2_000_000)
    }
}
