import HandyCore
import HandyProtocol
import HandyWire
import NIOCore

/// Which forms ``EncodedBatch`` makes: each only while some client receives it.
struct EncodedForms: Sendable, Equatable {
    var full = true
    var fullTouches = false
    var compact = false
    var compactTouches = false
    /// Touches lines (or pieces) with the hovering contacts, for subscribers with `hover`.
    var fullHover = false
    var compactHover = false
    /// Whether these are some client's forms (false: the full form, made for no one yet).
    var someClient = false

    /// Nothing yet: what ``include(_:)`` starts from.
    static let nothing = EncodedForms(full: false)

    /// Adds every form `other` makes for some client (a client's, or another broadcaster's). A
    /// broadcaster without clients adds nothing: its "full form" is made for no one.
    mutating func include(_ other: EncodedForms) {
        guard other.someClient else { return }
        full = full || other.full
        fullTouches = fullTouches || other.fullTouches
        compact = compact || other.compact
        compactTouches = compactTouches || other.compactTouches
        fullHover = fullHover || other.fullHover
        compactHover = compactHover || other.compactHover
        someClient = true
    }

    /// What to encode: these forms, or the full form when no client was included (as before forms
    /// existed).
    var toEncode: EncodedForms { someClient ? self : EncodedForms() }
}

extension EncodedForms {
    /// The forms one client receives.
    init(receivedBy subscription: Subscription) {
        self.init(
            full: subscription.form == .full, fullTouches: subscription.form == .full && subscription.touches,
            compact: subscription.form == .compact,
            compactTouches: subscription.form == .compact && subscription.touches,
            fullHover: subscription.form == .full && subscription.touches && subscription.hover,
            compactHover: subscription.form == .compact && subscription.touches && subscription.hover,
            someClient: true)
    }
}

/// A batch of ``InputNotice``s with every frame and gesture event already encoded, in each form
/// some client receives: the full form's lines back to back in one array, and for each what a
/// subscription filters on; the compact form's pieces (docs/PROTOCOL.md "frame (compact form)") in
/// another. Made on the input thread, so the event loop gets bytes: no gesture event crosses
/// threads, and the event loop, which also serves the clients, does no encoding.
public struct EncodedBatch: Sendable {
    enum Item: Sendable, Equatable {
        // Boxed, as in ``InputNotice``: an item of lines is read for every batch.
        indirect case added(DeviceInfo)
        indirect case removed(DeviceInfo)
        indirect case health(DeviceMessage)
        /// These full lines (indices into ``Storage/lineEnds``) and compact frames (indices into
        /// ``Storage/compactFrames``) are of this device (its id). `hover`: some of the full
        /// lines are touches lines for hover subscribers only, or for the others only
        /// (``Storage/hoverLines``).
        case lines(device: String, Range<Int>, frames: Range<Int>, hover: Bool)
    }

    /// One compact `frame` line, whole, in ``Storage/compactBytes``: a subscription that wants all
    /// of it copies it at once; one that wants part of it gets a line put together from its pieces.
    ///
    /// `{"type":"frame","device":…,"time":…` `,"gestures":[` objects `]` `,"touches":[…]` `}\n`
    struct CompactFrame: Sendable, Equatable {
        /// The whole line.
        var line: Range<Int>
        /// `{"type":"frame","device":…,"time":…`
        var header: Range<Int>
        /// Its gesture objects (indices into ``Storage/compactGestures``; each range is the object only).
        var gestures: Range<Int>
        /// Where the gestures part ends (the header's end when it has none): the line up to here
        /// and `}\n` is the line without touches.
        var gesturesEnd: Int
        /// `[…]`, the changed touches, when touches were made and the frame has some.
        var touches: Range<Int>?
        /// `,"hovers":[…]`, the hovering contacts (the last piece before `}\n`), when hover was
        /// made and the frame has some.
        var hovers: Range<Int>? = nil
    }

    struct CompactGesture: Sendable, Equatable {
        var bytes: Range<Int>
        var gesture: GestureKind
    }

    /// The batch's arrays, read by ``Broadcaster/publish(_:direct:)`` and handed back whole to encode the
    /// next batch in.
    let storage: Storage
    /// Whether each form was made.
    let hasFull: Bool
    let hasCompact: Bool
    /// Frames in which something changed, and gesture events: the status counters.
    let frames: UInt64
    let events: UInt64

    /// Whether a device is added or removed in it: the event loop publishes it (it changes the
    /// devices hello and status read there).
    var changesDevices: Bool {
        storage.items.withUnsafeBufferPointer { items in
            items.contains {
                switch $0 {
                case .added, .removed: true
                case .health, .lines: false
                }
            }
        }
    }

    /// A batch's arrays: those of a published batch are emptied and filled again by the next.
    struct Storage: Sendable {
        var items: [Item] = []
        var bytes: [UInt8] = []
        /// Where each full line ends in `bytes` (it starts where the one before it ends): the
        /// encoder appends an output's gesture lines' ends here directly.
        var lineEnds: [Int] = []
        /// Each full line's gesture; nil for a touches line.
        var lineGestures: [GestureKind?] = []
        /// The touches lines of frames with hovering contacts, by line index: true for the line with
        /// `hovers` (to hover subscribers only), false for its twin without (to the others only).
        /// A touches line not here goes to every subscriber with touches. Empty without hover.
        var hoverLines: [Int: Bool] = [:]
        var compactBytes: [UInt8] = []
        var compactFrames: [CompactFrame] = []
        var compactGestures: [CompactGesture] = []
        /// Each frame's touches on their way to the encoder.
        var wireTouches: [WireTouch] = []
        /// The last device id written, quoted once for all its lines (kept from batch to batch).
        var quotedDevice: JSONQuotedString?
        /// The numbers written lately (kept from batch to batch): a frame's time on each of its
        /// lines, a centroid on three gestures, a confidence through a gesture are copied, not printed.
        let memo = JSONNumberMemo()

        init() {}

        /// Empties every array and keeps its room. Each only when not empty already: each call is
        /// ~150 instructions (the generic replaceSubrange), and a form nobody receives leaves its
        /// arrays empty. The touches are replaced where they are made
        /// (`TouchFrame.wireMessage(device:reusing:)`).
        mutating func empty() {
            if !items.isEmpty { items.removeAll(keepingCapacity: true) }
            if !bytes.isEmpty { bytes.removeAll(keepingCapacity: true) }
            if !lineEnds.isEmpty { lineEnds.removeAll(keepingCapacity: true) }
            if !lineGestures.isEmpty { lineGestures.removeAll(keepingCapacity: true) }
            if !compactBytes.isEmpty { compactBytes.removeAll(keepingCapacity: true) }
            if !compactFrames.isEmpty { compactFrames.removeAll(keepingCapacity: true) }
            if !compactGestures.isEmpty { compactGestures.removeAll(keepingCapacity: true) }
            if !hoverLines.isEmpty { hoverLines.removeAll(keepingCapacity: true) }
        }

        /// A replay catching up makes batches of 16 outputs (~80 KB); a live device's are ~9 KB.
        /// Larger ones are not kept, so a burst does not stay in memory.
        static let largestKeptBytes = 128 * 1024
    }

    init(_ notices: [InputNotice], forms: EncodedForms) {
        self.init(notices, forms: forms, reusing: Storage())
    }

    /// Encodes into the arrays of `spare` when there is one (those of a batch published before),
    /// into new ones otherwise. The one place an optional spare is opened: by `switch consume` the
    /// arrays move into the batch; bound by `if let` or `??`, they were retained once more and the
    /// optional's reference released at the end of the caller's scope.
    init(_ notices: [InputNotice], forms: EncodedForms, reusingSpare spare: consuming Storage?) {
        switch consume spare {
        case .some(let storage): self.init(notices, forms: forms, reusing: storage)
        case .none: self.init(notices, forms: forms, reusing: Storage())
        }
    }

    /// Encodes into the arrays of `storage`: those of a batch published before.
    init(_ notices: [InputNotice], forms: EncodedForms, reusing storage: consuming Storage) {
        // Moved into a local, built there, stored at the end: copied, each array would be retained
        // and released; built in place, the struct was copied once.
        var s = consume storage
        s.empty()
        var frames: UInt64 = 0
        var events: UInt64 = 0
        // Sized once: grown line by line, the copies and reallocations cost a tenth of the encoding.
        var gestureCount = 0
        var frameCount = 0
        // Read where they are (a buffer's elements are borrowed): iterated, each notice was copied
        // whole, its arrays and string retained and released (both loops: 100–160 instructions a
        // frame in the guest, docs/PERFORMANCE.md section 5).
        notices.withUnsafeBufferPointer { notices in
            for i in notices.indices {
                guard case .output(_, let output) = notices[i] else { continue }
                gestureCount += output.gestures.count
                frameCount += output.frames.count
            }
        }
        s.items.reserveCapacity(notices.count)
        if forms.full {
            let lineCount = gestureCount + (forms.fullTouches ? frameCount : 0)
            s.lineEnds.reserveCapacity(lineCount)
            s.lineGestures.reserveCapacity(lineCount)
            s.bytes.reserveCapacity(lineCount * Self.typicalLineBytes + Self.lineBoundSlack)
        }
        if forms.compact {
            s.compactFrames.reserveCapacity(gestureCount + frameCount)
            s.compactGestures.reserveCapacity(gestureCount)
            s.compactBytes.reserveCapacity(gestureCount * Self.typicalLineBytes + Self.lineBoundSlack)
        }
        notices.withUnsafeBufferPointer { notices in
            for i in notices.indices {
                switch notices[i] {
                case .added(let info): s.items.append(.added(info))
                case .removed(let info): s.items.append(.removed(info))
                case .health(let message): s.items.append(.health(message))
                case .output(let device, let output):
                    if s.quotedDevice?.string != device { s.quotedDevice = JSONQuotedString(device) }
                    let quotedDevice = s.quotedDevice
                    let memo = s.memo
                    let first = s.lineEnds.count
                    let firstFrame = s.compactFrames.count
                    if forms.fullHover && !output.hovering.isEmpty {
                        // A device with hover, and a subscriber that wants it: lines of their own.
                        frames += Self.appendFullTouchesWithHover(
                            output, device: device, quotedDevice: quotedDevice, memo: memo, storage: &s)
                    } else {
                        // By index: iterated, each frame was copied (its touches retained and released).
                        for f in output.frames.indices where output.frames[f].hasChanges {
                            frames += 1
                            guard forms.full && forms.fullTouches else { continue }
                            JSONLines.encode(
                                output.frames[f].wireMessage(device: device, reusing: &s.wireTouches),
                                quotedDevice: quotedDevice,
                                memo: memo, into: &s.bytes)
                            s.lineEnds.append(s.bytes.count)
                            s.lineGestures.append(nil)
                        }
                    }
                    if forms.full {
                        // Each event read where it lies: by the array's subscript each was copied
                        // whole first (docs/PERFORMANCE.md section 5).
                        // All of the output's events in one pass (one bound, one append).
                        output.gestures.withUnsafeBufferPointer { events in
                            JSONLines.encode(
                                eventsIn: events, quotedDevice: quotedDevice, memo: memo, into: &s.bytes,
                                ends: &s.lineEnds)
                            for k in events.indices { s.lineGestures.append(events[k].gesture) }
                        }
                    }
                    if forms.compact {
                        Self.appendCompact(
                            output, device: device, quotedDevice: quotedDevice, memo: memo,
                            touches: forms.compactTouches, hover: forms.compactHover, bytes: &s.compactBytes,
                            frames: &s.compactFrames, gestures: &s.compactGestures, wireTouches: &s.wireTouches)
                    }
                    events += UInt64(output.gestures.count)
                    if s.lineEnds.count > first || s.compactFrames.count > firstFrame {
                        s.items.append(
                            .lines(
                                device: device, first..<s.lineEnds.count, frames: firstFrame..<s.compactFrames.count,
                                hover: !s.hoverLines.isEmpty && s.hoverLines.keys.contains { $0 >= first })
                        )
                    }
                }
            }
        }
        self.storage = s
        self.frames = frames
        self.events = events
        hasFull = forms.full
        hasCompact = forms.compact
    }

    /// The full form's touches lines of an output with hovering contacts: per frame that changed,
    /// the line as without hover; per frame with hovering contacts, a line with them, which a
    /// hover subscriber receives instead (``Storage/hoverLines``). Returns the frames that changed.
    private static func appendFullTouchesWithHover(
        _ output: PipelineOutput, device: String, quotedDevice: JSONQuotedString?, memo: JSONNumberMemo,
        storage s: inout Storage
    ) -> UInt64 {
        var changed: UInt64 = 0
        var h = 0
        for f in output.frames.indices {
            let hasChanges = output.frames[f].hasChanges
            if hasChanges { changed += 1 }
            while h < output.hovering.count && output.hovering[h].frame < f { h += 1 }
            let hovering = h < output.hovering.count && output.hovering[h].frame == f ? output.hovering[h] : nil
            guard hasChanges || hovering != nil else { continue }
            var message = output.frames[f].wireMessage(device: device, reusing: &s.wireTouches)
            if hasChanges {
                JSONLines.encode(message, quotedDevice: quotedDevice, memo: memo, into: &s.bytes)
                s.lineEnds.append(s.bytes.count)
                s.lineGestures.append(nil)
                if hovering != nil { s.hoverLines[s.lineEnds.count - 1] = false }
            }
            if let hovering {
                message.hovers = hovering.wireHovers
                JSONLines.encode(message, quotedDevice: quotedDevice, memo: memo, into: &s.bytes)
                s.lineEnds.append(s.bytes.count)
                s.lineGestures.append(nil)
                s.hoverLines[s.lineEnds.count - 1] = true
            }
        }
        return changed
    }

    /// The compact frames of one output: the gesture events and changed frames merged by time,
    /// one frame line per time (a frame's events share its time; a timer's event has its own).
    private static func appendCompact(
        _ output: PipelineOutput, device: String, quotedDevice: JSONQuotedString?, memo: JSONNumberMemo, touches: Bool,
        hover: Bool, bytes compactBytes: inout [UInt8],
        frames compactFrames: inout [CompactFrame], gestures compactGestures: inout [CompactGesture],
        wireTouches: inout [WireTouch]
    ) {
        // The events read where they lie: the array's subscript would copy each (~450 bytes, three
        // reference-counted fields) before its compact object is written.
        output.gestures.withUnsafeBufferPointer { gestures in
            appendCompact(
                gestures, output.frames, hovering: hover ? output.hovering : [], device: device,
                quotedDevice: quotedDevice, memo: memo, touches: touches, bytes: &compactBytes,
                frames: &compactFrames, gestures: &compactGestures, wireTouches: &wireTouches)
        }
    }

    private static func appendCompact(
        _ gestures: UnsafeBufferPointer<CoreGestureEvent>, _ frames: [TouchFrame], hovering: [FrameHovering],
        device: String,
        quotedDevice: JSONQuotedString?, memo: JSONNumberMemo, touches: Bool,
        bytes compactBytes: inout [UInt8], frames compactFrames: inout [CompactFrame],
        gestures compactGestures: inout [CompactGesture], wireTouches: inout [WireTouch]
    ) {
        var g = 0
        var f = 0
        var h = 0
        while true {
            while f < frames.count && !(touches && frames[f].hasChanges) {
                // Empty without a hover subscriber: then the test before is the only one.
                if !hovering.isEmpty {
                    while h < hovering.count && hovering[h].frame < f { h += 1 }
                    if h < hovering.count && hovering[h].frame == f { break }
                }
                f += 1
            }
            let gestureTime = g < gestures.count ? gestures[g].time.seconds : Double.infinity
            let frameTime = f < frames.count ? frames[f].time.seconds : Double.infinity
            let time = min(gestureTime, frameTime)
            guard time.isFinite else { return }
            let lineStart = compactBytes.count
            CompactFrameHeader.write(
                device: device, quotedDevice: quotedDevice, time: time, memo: memo, into: &compactBytes)
            let header = lineStart..<compactBytes.count
            let firstGesture = compactGestures.count
            while g < gestures.count && gestures[g].time.seconds == time {
                // The key or the comma written with the object (one append, not two).
                let prefix: StaticString = compactGestures.count == firstGesture ? ",\"gestures\":[" : ","
                let start = compactBytes.count + prefix.utf8CodeUnitCount
                CoreGestureEvent.writeCompactObject(
                    at: gestures.baseAddress! + g, after: prefix, memo: memo, into: &compactBytes)
                compactGestures.append(CompactGesture(bytes: start..<compactBytes.count, gesture: gestures[g].gesture))
                g += 1
            }
            if compactGestures.count > firstGesture { compactBytes.append(UInt8(ascii: "]")) }
            let gesturesEnd = compactBytes.count
            var touchBytes: Range<Int>?
            var hoverBytes: Range<Int>?
            if f < frames.count && frameTime == time {
                var message = frames[f].wireMessage(device: device, reusing: &wireTouches)
                let prefix: StaticString = ",\"touches\":"
                let start = compactBytes.count + prefix.utf8CodeUnitCount
                if touches && message.writeCompactTouches(after: prefix, memo: memo, into: &compactBytes) {
                    touchBytes = start..<compactBytes.count
                }
                if !hovering.isEmpty {
                    while h < hovering.count && hovering[h].frame < f { h += 1 }
                    if h < hovering.count && hovering[h].frame == f {
                        message.hovers = hovering[h].wireHovers
                        let start = compactBytes.count
                        if message.writeCompactHovers(memo: memo, into: &compactBytes) {
                            hoverBytes = start..<compactBytes.count
                        }
                    }
                }
                f += 1
            }
            if touchBytes == nil && hoverBytes == nil && compactGestures.count == firstGesture {
                compactBytes.removeSubrange(lineStart...)  // only stationary touches: no line
                continue
            }
            compactBytes.append(UInt8(ascii: "}"))
            compactBytes.append(UInt8(ascii: "\n"))
            compactFrames.append(
                CompactFrame(
                    line: lineStart..<compactBytes.count, header: header,
                    gestures: firstGesture..<compactGestures.count,
                    gesturesEnd: gesturesEnd, touches: touchBytes, hovers: hoverBytes))
        }
    }

    func start(ofLine index: Int) -> Int { index == 0 ? 0 : storage.lineEnds[index - 1] }

    /// Appends the compact `frame` lines of `range` that `subscription` wants something of: each
    /// with the gesture objects it wants, and the touches if it wants touches.
    func writeCompact(
        _ range: Range<Int>, device: String, node: String?, for subscription: Subscription,
        into buffer: inout ByteBuffer
    ) {
        let touchesWanted = subscription.wantsTouches(device: device, node: node)
        let hoverWanted = subscription.wantsHover(device: device, node: node)
        guard touchesWanted || subscription.wants(device: device, node: node) else { return }
        let allGestures = subscription.gestures == nil
        for frame in storage.compactFrames[range] {
            let all =
                allGestures
                || frame.gestures.allSatisfy {
                    subscription.wants(gesture: storage.compactGestures[$0].gesture, device: device, node: node)
                }
            if all {
                // The line as made, or without its hovering contacts, or without its touches.
                if let hovers = frame.hovers, !hoverWanted {
                    if touchesWanted && (frame.touches != nil || !frame.gestures.isEmpty) {
                        buffer.writeBytes(storage.compactBytes, in: frame.line.lowerBound..<hovers.lowerBound)
                        buffer.writeStaticString("}\n")
                    } else if !touchesWanted && !frame.gestures.isEmpty {
                        buffer.writeBytes(storage.compactBytes, in: frame.line.lowerBound..<frame.gesturesEnd)
                        buffer.writeStaticString("}\n")
                    }
                } else if frame.touches == nil || touchesWanted {
                    buffer.writeBytes(storage.compactBytes, in: frame.line)
                } else if !frame.gestures.isEmpty {
                    buffer.writeBytes(storage.compactBytes, in: frame.line.lowerBound..<frame.gesturesEnd)
                    buffer.writeStaticString("}\n")
                }
                continue
            }
            var opened = false
            for k in frame.gestures
            where subscription.wants(gesture: storage.compactGestures[k].gesture, device: device, node: node) {
                if opened {
                    buffer.writeInteger(UInt8(ascii: ","))
                } else {
                    buffer.writeBytes(storage.compactBytes, in: frame.header)
                    buffer.writeStaticString(",\"gestures\":[")
                    opened = true
                }
                buffer.writeBytes(storage.compactBytes, in: storage.compactGestures[k].bytes)
            }
            if opened { buffer.writeInteger(UInt8(ascii: "]")) }
            if touchesWanted, let touches = frame.touches {
                if !opened { buffer.writeBytes(storage.compactBytes, in: frame.header) }
                opened = true
                buffer.writeStaticString(",\"touches\":")
                buffer.writeBytes(storage.compactBytes, in: touches)
            }
            if hoverWanted, let hovers = frame.hovers {
                if !opened { buffer.writeBytes(storage.compactBytes, in: frame.header) }
                opened = true
                buffer.writeBytes(storage.compactBytes, in: hovers)
            }
            if opened { buffer.writeStaticString("}\n") }
        }
    }

    /// Room reserved per line: most gesture lines, with a covered region, and touches lines of
    /// two or three touches fit (a longer one grows the array once).
    static let typicalLineBytes = 1024
    /// And once for the batch: the writer asks for room for its bound on a line (~2.5 KB for an
    /// event with every field and a region), not for what it writes.
    static let lineBoundSlack = 4096
}

extension ByteBuffer {
    /// Appends `bytes[range]` through a raw buffer, which NIO copies at once: an `ArraySlice`
    /// goes through its generic `Sequence` path (docs/PERFORMANCE.md section 5).
    @inline(__always)
    mutating func writeBytes(_ bytes: [UInt8], in range: Range<Int>) {
        bytes.withUnsafeBytes { _ = writeBytes(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
