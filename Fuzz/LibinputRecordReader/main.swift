import HandyCore
import HandyRecording

// libFuzzer harness: the fuzz bytes are a `libinput record` YAML file (MiniYAML + the reader).
// Reading must either succeed or throw a RecordingError (never trap); what it reads then goes
// through the gesture pipeline as a replay would, with the invariants of PipelineCheck.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let recording = try? Recording.parse(bytes, path: "fuzz.yml") else { return 0 }
    guard recording.format == .libinputRecord else { fatalError("fuzz invariant: .yml read as \(recording.format)") }
    runRecording(recording.description, recording.events)
    return 0
}
