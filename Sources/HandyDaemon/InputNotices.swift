import HandyCore

/// A turn's notices for the ``Broadcaster``, and the outputs of notices delivered before: emptied,
/// their room kept, so a source makes each frame's output in one of those instead of new arrays.
///
/// Why: a frame's output carried its gesture events and frames to the encoder in arrays made for
/// it and freed after delivery (two allocations a frame, three when a fifth event grew the array,
/// and their frees: docs/PERFORMANCE.md section 5). Confined to the input thread.
public struct InputNotices {
    /// What the sources said this turn, in order.
    public private(set) var list: [InputNotice] = []
    /// Empty outputs with room, from notices delivered before.
    private var spares: [PipelineOutput] = []

    /// At most this many outputs are kept (a replay catching up makes 16 a turn, a live device one),
    /// and none whose arrays a burst made large.
    static let maximumSpares = 16
    static let largestKeptCapacity = 64

    public init() {}

    public var count: Int { list.count }
    public var isEmpty: Bool { list.isEmpty }

    public mutating func append(_ notice: InputNotice) { list.append(notice) }

    /// An empty output to fill, with the room of one delivered before when there is one.
    public mutating func takeOutput() -> PipelineOutput { spares.popLast() ?? PipelineOutput() }

    /// Gives back an output taken and not used (still empty).
    public mutating func returnOutput(_ output: PipelineOutput) {
        guard output.isEmpty, spares.count < Self.maximumSpares else { return }
        spares.append(output)
    }

    /// After delivery: empties the list and keeps its outputs' arrays, emptied, for ``takeOutput()``.
    /// The encoder reads the delivered list and lets it go, so the arrays are the spares' alone and
    /// are emptied in place (were a copy still held, emptying would copy on write: the holder's
    /// values stay, only the saving is lost).
    public mutating func recycle() {
        let firstNew = spares.count
        list.withUnsafeBufferPointer { delivered in
            for i in delivered.indices where spares.count < Self.maximumSpares {
                guard case .output(_, let output) = delivered[i],
                    output.frames.capacity <= Self.largestKeptCapacity,
                    output.gestures.capacity <= Self.largestKeptCapacity
                else { continue }
                spares.append(output)
            }
        }
        list.removeAll(keepingCapacity: true)
        for i in firstNew..<spares.count { spares[i].empty() }
    }
}
