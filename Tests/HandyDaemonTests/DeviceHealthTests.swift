import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Device health through the real daemon and socket (docs/PROTOCOL.md "Device health").
@Suite struct DeviceHealthTests {
    /// The issue's recording replayed: the ghost (touch 0, still from 0 s) is reported stuck at
    /// 30 s, the right hand's pinch at 31 s arrives as a two-finger pinch, the lift of the ghost at
    /// 35 s as `unstuck`, and status carries the counts.
    @Test func aStuckContactIsReportedAndThePinchBesideItArrives() throws {
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture("health/stuck-contact-pinch.evemu"), "--speed", "8",
            "--wait-clients", "1",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello? = try client.readMessage() else {
            Issue.record("no hello: \(daemon.stateForFailure)"); return
        }
        try client.send(#"{"type":"subscribe","gestures":["pinch","long-press"]}"# + "\n")
        var health: [DeviceMessage] = []
        var gestures: [GestureEvent] = []
        while health.count < 2, let message = try client.readMessage(timeoutSeconds: 20) {
            switch message {
            case .device(let m) where m.health != nil: health.append(m)
            case .gesture(let g): gestures.append(g)
            default: break
            }
        }
        #expect(health.map(\.event) == [.stuck, .unstuck], "\(daemon.stateForFailure)")
        guard health.count == 2, let stuck = health[0].health, let unstuck = health[1].health else { return }
        #expect(stuck.touch == 0 && stuck.seconds == 30 && stuck.stuckNow == 1 && stuck.stuckContacts == 1)
        #expect(unstuck.touch == 0 && unstuck.seconds == 5 && unstuck.stuckNow == 0 && unstuck.stuckContacts == 1)
        // The ghost lies at (60, 1020) units of 10 per mm, with up to 3 units of jitter.
        #expect(abs((stuck.xMm ?? 0) - 6) <= 0.3 && abs((stuck.yMm ?? 0) - 102) <= 0.3)
        let longPress = gestures.filter { $0.gesture == .longPress }
        #expect(longPress.last?.phase == .cancelled && longPress.last?.time == 30)
        let pinch = gestures.first { $0.gesture == .pinch && $0.phase == .began }
        #expect(pinch?.fingers == 2 && pinch?.hand == .right)
        try client.send(#"{"type":"status"}"# + "\n")
        var status: StatusMessage?
        while status == nil, let message = try client.readMessage(timeoutSeconds: 10) {
            if case .status(let s) = message { status = s }
        }
        let counts = status?.health?["replay:stuck-contact-pinch"]
        #expect(counts?.stuckContacts == 1 && counts?.stuckNow == 0 && counts?.losses == 0)
        #expect(counts?.secondsSinceLastTouch != nil)
        #expect(
            daemon.log.contains("HANDYD_HEALTH=stuck") || daemon.log.contains("handyd.health=stuck"), "\(daemon.log)")
    }

    /// HANDYD_STUCK_TOUCH_S=0 turns it off: no health message, the long press lasts to the lift.
    @Test func zeroTurnsItOff() throws {
        let daemon = try DaemonProcess(arguments: [
            "--replay", fixture("health/stuck-contact-pinch.evemu"), "--speed", "8",
            "--wait-clients", "1", "--device-property", "HANDYD_STUCK_TOUCH_S=0",
        ])
        let client = try LineClient(socketPath: daemon.socketPath)
        guard case .hello? = try client.readMessage() else {
            Issue.record("no hello: \(daemon.stateForFailure)"); return
        }
        try client.send(#"{"type":"subscribe","gestures":["long-press"]}"# + "\n")
        var ended: GestureEvent?
        var health = 0
        while ended == nil, let message = try client.readMessage(timeoutSeconds: 20) {
            if case .device(let m) = message, m.health != nil { health += 1 }
            if case .gesture(let g) = message, g.phase == .ended || g.phase == .cancelled { ended = g }
        }
        #expect(health == 0)
        #expect(ended?.phase == .ended && ended?.time == 35)
    }
}
