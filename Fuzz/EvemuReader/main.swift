import HandyCore
import HandyRecording

// libFuzzer harness: the fuzz bytes are an evemu file. Reading must either succeed or throw a
// RecordingError (never trap); what it reads then goes through the gesture pipeline as a replay
// would, with the invariants of PipelineCheck.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let recording = try? Recording.parse(bytes, path: "fuzz.evemu") else { return 0 }
    guard recording.format == .evemu else { fatalError("fuzz invariant: .evemu read as \(recording.format)") }
    runRecording(recording.description, recording.events)
    return 0
}
