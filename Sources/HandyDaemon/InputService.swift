#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import ServiceLifecycle

/// Runs the ``InputLoop`` on its own thread while the service group runs; SIGHUP reloads it.
///
/// Its part of readiness ("input") is marked by whoever the loop tells it started (the initial
/// device scan is published), not here: see ``runDaemon(options:logger:)``.
public final class InputService: Service, Sendable {
    let loop: InputLoop
    let readiness: Readiness
    let logger: Logger

    public init(loop: InputLoop, readiness: Readiness, logger: Logger) {
        self.loop = loop
        self.readiness = readiness
        self.logger = logger
    }

    public func run() async throws {
        let loop = self.loop
        // SIGHUP's default action ends the process; take it over for reload.
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { loop.send(.reload) }
        hangup.resume()
        defer { hangup.cancel() }

        // Graceful shutdown (SIGTERM) or cancellation (another service failed) stops the loop.
        await withTaskCancellationOrGracefulShutdownHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    loop.run()
                    done.resume()
                }
                thread.name = "handyd-input"
                // The recognizers keep sizeable state on the stack in debug builds; do not depend
                // on the platform's default thread stack.
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancelOrGracefulShutdown: { [readiness] in
            readiness.markStopping()
            loop.send(.stop)
        }
    }
}
