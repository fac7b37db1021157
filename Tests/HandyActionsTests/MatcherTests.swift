import HandyActions
import HandyInput
import HandyProtocol
import Testing

/// Which bindings fire for which events; the fields and placeholders a command gets; key chords.
@Suite struct MatcherTests {
    static func swipe(_ direction: SwipeDirection, fingers: Int, edge: DisplayEdge? = nil, device: String = "event5")
        -> GestureEvent
    {
        var e = GestureEvent(gesture: .swipe, phase: .recognized, id: 7, time: 1, device: device)
        e.direction = direction; e.fingers = fingers; e.edge = edge
        e.centroid = WirePoint(x: 0.25, y: 0.5); e.centroidMm = WirePoint(x: 50, y: 60)
        return e
    }

    static func pinch(_ phase: GesturePhase, hand: Hand) -> GestureEvent {
        var e = GestureEvent(gesture: .pinch, phase: phase, id: 3, time: 1, device: "event5")
        e.fingers = 2; e.hand = hand; e.clearSide = hand.clearSide
        e.centroid = WirePoint(x: 0.5, y: 0.5)
        return e
    }

    static let config = try! ActionsConfiguration.parse(
        """
        [[binding]]
        gesture = "swipe"
        fingers = 3
        direction = "down"
        run = ["menu"]

        [[binding]]
        gesture = "swipe"
        edge = "left"
        keys = "alt+left"

        [[binding]]
        gesture = "pinch"
        hand = "right"
        run = ["popover", "{clearSide}"]

        [[binding]]
        gesture = "swipe"
        device = "EP0430M09"
        run = ["any-swipe-on-the-ep"]

        [[binding]]
        gesture = "pinch"
        phase = "ended"
        run = ["pinch-done"]
        """, path: "test.toml")

    static func fired(_ e: GestureEvent, deviceName: String? = nil) -> [Int] {
        config.bindings(matching: e, deviceName: deviceName).map(\.index)
    }

    @Test func gestureFingersAndDirectionMustAllMatch() {
        #expect(Self.fired(Self.swipe(.down, fingers: 3)) == [1])
        #expect(Self.fired(Self.swipe(.down, fingers: 2)) == [])
        #expect(Self.fired(Self.swipe(.up, fingers: 3)) == [])
        var tap = Self.swipe(.down, fingers: 3)
        tap.gesture = .touchSwipe
        #expect(Self.fired(tap) == [])
    }

    @Test func edgeMatchesOnlyEdgeSwipesOfThatEdge() {
        #expect(Self.fired(Self.swipe(.right, fingers: 1, edge: .left)) == [2])
        #expect(Self.fired(Self.swipe(.right, fingers: 1)) == [])
        #expect(Self.fired(Self.swipe(.down, fingers: 1, edge: .top)) == [])
        // A three-finger swipe down from the top edge: the three-finger binding, not the left-edge one.
        #expect(Self.fired(Self.swipe(.down, fingers: 3, edge: .top)) == [1])
    }

    @Test func handMatchesThePinchHandAndPhasesDefaultToBegan() {
        #expect(Self.fired(Self.pinch(.began, hand: .right)) == [3])
        #expect(Self.fired(Self.pinch(.began, hand: .left)) == [])
        #expect(Self.fired(Self.pinch(.began, hand: .unknown)) == [])
        #expect(Self.fired(Self.pinch(.changed, hand: .right)) == [])
        #expect(Self.fired(Self.pinch(.ended, hand: .right)) == [5])
        #expect(Self.fired(Self.pinch(.cancelled, hand: .right)) == [])
    }

    /// Every gesture carries a hand (docs/GESTURES.md), so `hand` narrows any of them: a two-finger
    /// tap and a one-touch swipe as much as a pinch.
    @Test func handNarrowsEveryGesture() throws {
        let config = try ActionsConfiguration.parse(
            """
            [[binding]]
            gesture = "tap"
            hand = "left"
            run = ["left-tap"]

            [[binding]]
            gesture = "touch-swipe"
            hand = "right"
            run = ["right-touch-swipe"]
            """, path: "hands.toml")
        var tap = GestureEvent(gesture: .tap, phase: .recognized, id: 1, time: 1, device: "event5")
        tap.fingers = 2; tap.taps = 1; tap.hand = .left
        #expect(config.bindings(matching: tap, deviceName: nil).map(\.index) == [1])
        tap.hand = .right
        #expect(config.bindings(matching: tap, deviceName: nil).isEmpty)
        var swipe = GestureEvent(gesture: .touchSwipe, phase: .recognized, id: 2, time: 1, device: "event5")
        swipe.direction = .up; swipe.hand = .right
        #expect(config.bindings(matching: swipe, deviceName: nil).map(\.index) == [2])
        swipe.hand = .unknown
        #expect(config.bindings(matching: swipe, deviceName: nil).isEmpty)
    }

    /// A binding's `device` may be the stable id, the name, or the kernel node (`event7`), as a
    /// subscribe filter may; the node is matched through the device list, since events carry the id.
    @Test func deviceMatchesItsKernelNode() {
        let e = Self.swipe(.left, fingers: 1, device: "EP0430M09@pci-0000:00:14.0-usb-0:2:1.0")
        let ep = Self.config.bindings(matching: e, deviceName: "EP0430M09", deviceNode: "event7").map(\.index)
        #expect(ep == [4])
        let node = try! ActionsConfiguration.parse(
            "[[binding]]\ngesture = \"swipe\"\ndevice = \"event7\"\nrun = [\"x\"]\n", path: "n.toml")
        #expect(node.bindings(matching: e, deviceName: "EP0430M09", deviceNode: "event7").count == 1)
        #expect(node.bindings(matching: e, deviceName: "EP0430M09", deviceNode: "event8").isEmpty)
        #expect(node.bindings(matching: e, deviceName: "EP0430M09").isEmpty)
    }

    @Test func deviceMatchesItsIdOrItsName() {
        let onEP = Self.swipe(.left, fingers: 1, device: "event7")
        #expect(Self.fired(onEP, deviceName: "EP0430M09") == [4])
        #expect(Self.fired(onEP, deviceName: "Atmel maXTouch") == [])
        #expect(Self.fired(Self.swipe(.left, fingers: 1, device: "EP0430M09"), deviceName: nil) == [4])
        // Every binding that matches fires, in file order.
        #expect(Self.fired(Self.swipe(.down, fingers: 3, device: "event7"), deviceName: "EP0430M09") == [1, 4])
    }

    @Test func placeholdersAndEnvironmentCarryTheEventsFields() throws {
        let e = Self.pinch(.began, hand: .right)
        let t = try ArgumentTemplate(parsing: "--side={clearSide} at {x},{y} by {hand} {{literal}} {edge}")
        #expect(t.expand(for: e) == "--side=left at 0.5,0.5 by right {literal} ")
        let env = EventField.environment(for: e)
        #expect(env["HANDYD_GESTURE"] == "pinch" && env["HANDYD_PHASE"] == "began")
        #expect(env["HANDYD_HAND"] == "right" && env["HANDYD_CLEAR_SIDE"] == "left")
        #expect(env["HANDYD_X"] == "0.5" && env["HANDYD_FINGERS"] == "2" && env["HANDYD_DEVICE"] == "event5")
        #expect(env["HANDYD_EDGE"] == nil && env["HANDYD_X_MM"] == nil)
        let s = EventField.environment(for: Self.swipe(.right, fingers: 1, edge: .left))
        #expect(s["HANDYD_EDGE"] == "left" && s["HANDYD_DIRECTION"] == "right" && s["HANDYD_X_MM"] == "50")
        #expect(EventField.allCases.map(\.environmentName).contains("HANDYD_Y_MM"))
    }

    @Test func templateProblemsNameThePlaceholder() throws {
        #expect(throws: ArgumentTemplate.Problem.self) { try ArgumentTemplate(parsing: "{x") }
        #expect(throws: ArgumentTemplate.Problem.self) { try ArgumentTemplate(parsing: "a}b") }
        #expect(throws: ArgumentTemplate.Problem.self) { try ArgumentTemplate(parsing: "{X}") }
        #expect(try ArgumentTemplate(parsing: "").expand(for: Self.pinch(.began, hand: .left)) == "")
    }

    @Test func chordsTakeKernelNamesAndShortNames() throws {
        // Codes from linux/input-event-codes.h, looked up through libevdev.
        #expect(try KeyChord(parsing: "ctrl+alt+f1").codes == [29, 56, 59])
        #expect(try KeyChord(parsing: "KEY_LEFTCTRL+KEY_F1").codes == [29, 59])
        #expect(try KeyChord(parsing: "key_leftctrl + f1").codes == [29, 59])
        #expect(try KeyChord(parsing: "super+l").codes == [125, 38])
        #expect(try KeyChord(parsing: "back").codes == [158])
        #expect(try KeyChord(parsing: "esc").kernelNames == "KEY_ESC")
        for bad in ["", "ctrl+", "+a", "ctrl+nosuchkey", "BTN_LEFT", "reserved", "a+a"] {
            #expect(throws: KeyChord.Problem.self, "\(bad)") { try KeyChord(parsing: bad) }
        }
        #expect(KeyCodes.code(named: "KEY_F1") == 59)
        #expect(KeyCodes.name(of: 59) == "KEY_F1")
        #expect(KeyCodes.code(named: "KEY_NOPE") == nil)
    }
}
