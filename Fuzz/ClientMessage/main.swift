import Foundation
import HandyProtocol

// libFuzzer harness: the fuzz bytes are what a client writes to the socket. They go through the
// same steps as HandyDaemon's ClientConnection: LineSplitter (fed in chunks whose sizes come from
// the first byte), JSONLines.decodeClientMessage per line, Subscription.apply (HandyProtocol's, as
// the daemon links it), and the error reply. Invariants: no trap; a decoded subscribe request encodes and
// decodes back to itself; every error reply is one line that decodes as an error message.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let chunkBytes = Int(first % 64) + 1
    // A small limit as well as the real one, so the too-long path is reached with short inputs.
    var splitter = LineSplitter(maximumLineLength: first & 0x80 != 0 ? JSONLines.maximumLineLength : 200)
    var subscription = Subscription()
    var start = 1
    while start < bytes.count {
        let end = Swift.min(bytes.count, start + chunkBytes)
        let lines: [[UInt8]]
        do {
            lines = try splitter.append(bytes[start..<end])
        } catch {
            checkErrorReply(error)
            return 0  // the daemon closes the connection here
        }
        for line in lines { handle(line, &subscription) }
        start = end
    }
    return 0
}

private func handle(_ line: [UInt8], _ subscription: inout Subscription) {
    if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
    do {
        switch try JSONLines.decodeClientMessage(line) {
        case .subscribe(let request):
            subscription.apply(request)
            let again = try JSONLines.decodeClientMessage(JSONLines.encode(.subscribe(request)).dropLast())
            guard again == .subscribe(request) else {
                fatalError("fuzz invariant: subscribe request does not round-trip: \(request)")
            }
        case .status:
            break
        }
    } catch {
        checkErrorReply(error)
    }
}

private func checkErrorReply(_ error: ProtocolError) {
    let line = JSONLines.encode(.error(ErrorMessage(code: error.code.rawValue, message: error.message)))
    guard line.last == UInt8(ascii: "\n"), line.firstIndex(of: UInt8(ascii: "\n")) == line.count - 1 else {
        fatalError("fuzz invariant: error reply is not one line")
    }
    guard case .error(let decoded)? = try? JSONLines.decodeServerMessage(line.dropLast()),
        decoded.code == error.code.rawValue, decoded.message == error.message
    else {
        fatalError("fuzz invariant: error reply does not decode back: \(error)")
    }
}
