import Foundation
import HandyClient
import HandyInput
import HandyProtocol
import Logging
import Synchronization

/// `handyctl actions`: subscribes to handyd (reconnecting when it restarts), and for every gesture
/// event runs the actions of the bindings that match it. ``reload()`` (SIGHUP) re-reads the
/// configuration; a bad new one is logged and the old one stays.
///
/// One bad thing fails alone: a command that cannot start or fails is logged and the next event is
/// handled as usual; a key chord that cannot be sent (no /dev/uinput access) is logged, and the
/// keyboard is tried again at the next chord.
public final class ActionsService: Sendable {
    public let configurationPath: String
    public let socketPath: String
    public let keyboardName: String
    /// The uinput node the virtual keyboard is made through.
    public let uinputPath: String
    private let logger: Logger
    public let launcher: CommandLauncher

    private struct State: ~Copyable {
        var configuration: ActionsConfiguration
        /// Name and kernel node of each device id, from hello and device messages (bindings may
        /// name either); a removed device's are forgotten.
        var deviceNames: [String: String] = [:]
        var deviceNodes: [String: String] = [:]
        var keyboard: VirtualKeyboard?
    }
    private let state: Mutex<State>

    /// Reads the configuration; throws when it is bad (nothing starts then).
    /// `uinputPath`: the node the virtual keyboard is made through (tests name one that cannot exist).
    public init(
        configurationPath: String, socketPath: String = HandyClient.defaultSocketPath,
        keyboardName: String = VirtualKeyboard.defaultName, uinputPath: String = UInputDevice.defaultControlPath,
        logger: Logger
    ) throws(ActionsConfigurationError) {
        let configuration = try ActionsConfiguration.load(path: configurationPath)
        self.configurationPath = configurationPath
        self.socketPath = socketPath
        self.keyboardName = keyboardName
        self.uinputPath = uinputPath
        self.logger = logger
        self.launcher = CommandLauncher(logger: logger)
        self.state = Mutex(State(configuration: configuration))
        logger.info("\(configurationPath): \(configuration.bindings.count) bindings")
    }

    /// The configuration in use.
    public var configuration: ActionsConfiguration { state.withLock { $0.configuration } }

    /// Re-reads the configuration file. A bad file is logged, and the configuration in use stays.
    /// - Returns: true when the new file is in use.
    @discardableResult
    public func reload() -> Bool {
        do {
            let configuration = try ActionsConfiguration.load(path: configurationPath)
            state.withLock { s in
                s.configuration = configuration
                // A keyboard without a newly bound key is made again at the next chord.
                if let keyboard = s.keyboard, !configuration.keyCodes.isSubset(of: keyboard.keys) {
                    keyboard.close()
                    s.keyboard = nil
                }
            }
            logger.info("\(configurationPath): reloaded, \(configuration.bindings.count) bindings")
            return true
        } catch {
            logger.error("\(error); keeping the previous configuration")
            return false
        }
    }

    /// Creates the virtual keyboard now when a binding presses keys (so the compositor has seen it
    /// before the first chord); a failure is logged and retried at the first chord.
    public func prepareKeyboard() {
        guard !state.withLock({ $0.configuration.keyCodes.isEmpty }) else { return }
        makeKeyboardIfNeeded()
    }

    /// Handles one message from the daemon.
    public func handle(_ message: ServerMessage) {
        switch message {
        case .hello(let hello):
            state.withLock { s in for d in hello.devices { s.deviceNames[d.id] = d.name; s.deviceNodes[d.id] = d.node }
            }
            logger.info("connected to \(socketPath): handyd \(hello.version), \(hello.devices.count) devices")
        case .device(let m) where m.health != nil:
            fire(for: m)
        case .device(let m) where m.event == .added:
            state.withLock {
                $0.deviceNames[m.device.id] = m.device.name; $0.deviceNodes[m.device.id] = m.device.node
            }
        case .device(let m) where m.event == .removed:
            state.withLock {
                $0.deviceNames[m.device.id] = nil; $0.deviceNodes[m.device.id] = nil
            }
        case .gesture(let event):
            fire(for: event)
        case .shutdown(let m):
            logger.info("handyd stopping (\(m.reason)); reconnecting when it is back")
        default:
            break
        }
    }

    /// Runs the actions of every binding that matches `event`, in file order.
    public func fire(for event: GestureEvent) {
        let bindings = state.withLock { s in
            s.configuration.bindings(
                matching: event, deviceName: s.deviceNames[event.device], deviceNode: s.deviceNodes[event.device])
        }
        for binding in bindings {
            switch binding.action {
            case .run(let templates):
                launcher.launch(
                    templates.map { $0.expand(for: event) }, environment: EventField.environment(for: event),
                    label: binding.label)
            case .shell(let script):
                launcher.launch(
                    ["/bin/sh", "-c", script], environment: EventField.environment(for: event), label: binding.label)
            case .keys(let chord):
                press(chord, label: binding.label)
            }
        }
    }

    /// Runs the actions of every health binding that matches `message`, in file order.
    public func fire(for message: DeviceMessage) {
        let bindings = state.withLock { $0.configuration.bindings(matching: message) }
        for binding in bindings {
            let environment = EventField.environment(for: message)
            switch binding.action {
            case .run(let templates):
                launcher.launch(
                    templates.map { $0.expand(for: message) }, environment: environment, label: binding.label)
            case .shell(let script):
                launcher.launch(["/bin/sh", "-c", script], environment: environment, label: binding.label)
            case .keys(let chord):
                press(chord, label: binding.label)
            }
        }
    }

    private func press(_ chord: KeyChord, label: String) {
        makeKeyboardIfNeeded()
        // The write under the lock: reload() may close the keyboard meanwhile.
        state.withLock { s in
            guard let keyboard = s.keyboard else {
                logger.error("\(label): cannot press \(chord.source): no virtual keyboard")
                return
            }
            do {
                try keyboard.press(chord.codes)
                logger.info("\(label): pressed \(chord.kernelNames)")
            } catch {
                logger.error("\(label): cannot press \(chord.source): \(error)")
                // A keyboard that failed a write is made again next time (the node may be gone).
                keyboard.close()
                s.keyboard = nil
            }
        }
    }

    /// Creates the virtual keyboard when there is none. Its node is waited for outside the lock:
    /// that takes up to 2 s, which a reload (SIGHUP) or a device message would wait behind.
    private func makeKeyboardIfNeeded() {
        let made: String?? = state.withLock { s in
            guard s.keyboard == nil else { return nil }
            do {
                let keyboard = try VirtualKeyboard(
                    name: keyboardName, extraKeys: s.configuration.keyCodes, controlPath: uinputPath)
                s.keyboard = keyboard
                return .some(keyboard.devnode)
            } catch {
                logger.error("cannot create the virtual keyboard: \(error) (needs write access to \(uinputPath))")
                return nil
            }
        }
        guard case .some(let devnode) = made else { return }
        let node = devnode.flatMap { UInputDevice.waitUntilExists($0, timeoutSeconds: 2) ? $0 : nil } ?? "(no node yet)"
        logger.info("virtual keyboard \"\(keyboardName)\" at \(node)")
    }

    /// Subscribes and handles messages until the task is cancelled, reconnecting with backoff
    /// whenever handyd goes away; reaps finished commands meanwhile.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.launcher.reapPeriodically() }
            group.addTask {
                // Every gesture, no touches (hello and device messages always come). Sent explicitly
                // rather than relying on the default, which also tells a `--wait-clients` replay to start.
                let client = HandyClient(
                    socketPath: self.socketPath, subscription: SubscribeRequest(touches: false),
                    reconnect: .init(initialDelaySeconds: 0.1, maximumDelaySeconds: 2))
                // The stream ends with an error only for what reconnecting cannot mend (a line over
                // the protocol's limit): said, then a new stream after a pause, until cancelled.
                while !Task.isCancelled {
                    do {
                        for try await message in client.messages() { self.handle(message) }
                    } catch {
                        self.logger.error("handyd connection: \(error); connecting again in 2 s")
                    }
                    try? await Task.sleep(nanoseconds: 2_000_000_000)
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Closes the virtual keyboard.
    public func close() {
        state.withLock { s in
            s.keyboard?.close()
            s.keyboard = nil
        }
    }
}
