import Foundation
import HandyProtocol
import Logging
import Testing

@testable import HandyDaemon

/// The input thread's health judgement alone, on a clock the test drives.
@Suite struct DeviceHealthMonitorTests {
    static let info = DeviceInfo(id: "panel@usb", name: "Panel", node: "event5")
    static let journal = HealthJournal(logger: Logger(label: "test"), toJournal: false)

    static func healthEvents(_ notices: InputNotices) -> [DeviceMessage] {
        notices.list.compactMap { if case .health(let m) = $0 { return m } else { return nil } }
    }

    /// A device sending 100,000 events a second for 10 s (turns of 4,096 events, as LiveSource
    /// reads them): one flood reported, once, with its rate; then quiet: the episode ends, and a
    /// second flood is a second episode. Nothing else grows: the monitor keeps a window, not a log.
    @Test func aFloodAt100kHzIsOneEpisode() {
        var monitor = DeviceHealthMonitor()
        let board = DeviceHealthBoard()
        var notices = InputNotices()
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        let turn = 4096
        let turnNanoseconds = Int64(Double(turn) / 100_000 * 1e9)
        func run(seconds: Double, events: Int) {
            let end = now.nanoseconds + Int64(seconds * 1e9)
            while now.nanoseconds < end {
                now = now.adding(nanoseconds: events > 0 ? turnNanoseconds : 100_000_000)
                monitor.afterTurn(
                    now: now, events: events, touched: events > 0, kernelDrops: 0, faults: 0, stuck: [],
                    info: Self.info, board: board, journal: Self.journal, into: &notices)
            }
        }
        run(seconds: 10, events: turn)
        var floods = Self.healthEvents(notices).filter { $0.event == .flood }
        #expect(floods.count == 1)
        #expect(floods.first?.health?.floods == 1)
        #expect((floods.first?.health?.eventsPerSecond ?? 0) > 90_000)
        #expect(monitor.flooding)
        run(seconds: 3, events: 0)
        #expect(!monitor.flooding)
        run(seconds: 3, events: turn)
        floods = Self.healthEvents(notices).filter { $0.event == .flood }
        #expect(floods.count == 2 && board.health(of: Self.info.id).floods == 2)
        // A touchscreen's own rate (240 frames of 10 fingers, ~15,000 events a second) is no flood.
        var calm = DeviceHealthMonitor()
        var calmNotices = InputNotices()
        for _ in 0..<2400 {
            now = now.adding(nanoseconds: 4_166_667)
            calm.afterTurn(
                now: now, events: 62, touched: true, kernelDrops: 0, faults: 0, stuck: [], info: Self.info,
                board: board, journal: Self.journal, into: &calmNotices)
        }
        #expect(Self.healthEvents(calmNotices).isEmpty && !calm.flooding)
    }

    /// Kernel drops: at most one message a second, each with the total.
    @Test func kernelDropsAreReportedAtMostOnceASecond() {
        var monitor = DeviceHealthMonitor()
        let board = DeviceHealthBoard()
        var notices = InputNotices()
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        for drops in 1...100 {
            now = now.adding(nanoseconds: 50_000_000)  // 100 drops over 5 s
            monitor.afterTurn(
                now: now, events: 10, touched: true, kernelDrops: UInt64(drops), faults: 0, stuck: [], info: Self.info,
                board: board, journal: Self.journal, into: &notices)
        }
        let dropped = Self.healthEvents(notices).filter { $0.event == .dropped }
        #expect((5...6).contains(dropped.count), "\(dropped.count) messages for 5 s of drops")
        #expect(dropped.map { $0.health?.kernelDrops ?? 0 } == dropped.map { $0.health?.kernelDrops ?? 0 }.sorted())
        #expect(board.health(of: Self.info.id).kernelDrops == dropped.last?.health?.kernelDrops)
    }
}
