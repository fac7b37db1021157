// FoundationEssentials, not Foundation: handyd links this module, and Foundation proper brings
// ICU and ~12 MB of mapped code into the daemon (docs/PERFORMANCE.md, memory).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors in a client's or server's line; the connection stays usable unless said otherwise.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable machine-readable codes, sent as `error.code`.
    public enum Code: String, Sendable, Hashable {
        case invalidJSON = "invalid-json"
        case invalidMessage = "invalid-message"
        case unknownType = "unknown-type"
        case lineTooLong = "line-too-long"
        case invalidUTF8 = "invalid-utf8"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }
    public var description: String { "\(code.rawValue): \(message)" }
}

/// JSON-lines framing: one JSON object per line, `\n`-terminated, UTF-8.
public enum JSONLines {
    /// Longest line either side accepts, newline excluded (64 KiB).
    public static let maximumLineLength = 64 * 1024

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }()

    /// Encodes a message as one line, `"type"` first, ending in `\n`.
    public static func encode(_ message: consuming ServerMessage) -> [UInt8] {
        var out: [UInt8] = []
        encode(consume message, into: &out)
        return out
    }

    /// The line of one gesture event, the same bytes as `encode(.gesture(event))`, without
    /// copying the event (~450 bytes, three reference-counted fields) into a message first.
    public static func encode(_ event: GestureEvent) -> [UInt8] {
        var out: [UInt8] = []
        encode(event, into: &out)
        return out
    }

    /// Appends the line of one gesture event to `buffer`: the bytes of
    /// `encode(.gesture(event), into:)`, without first wrapping the event in a message (the daemon
    /// encodes every event of every frame).
    @inline(__always) public static func encode(_ event: GestureEvent, into buffer: inout [UInt8]) {
        event.writeLine(into: &buffer)
    }

    /// Appends the line of the event at `event`, read where it lies: for the events of an array
    /// (`withUnsafeBufferPointer`), which its subscript would copy whole first. `package`: a
    /// pointer in, for the daemon and the tests. The one-event form
    /// of ``encode(eventsIn:quotedDevice:memo:into:ends:)``, which the daemon uses for a frame's
    /// events; the same bytes line by line (tested).
    /// `quotedDevice`: the device id made once for many lines (used when it is the event's).
    /// `memo`: the numbers written lately, kept from line to line (``JSONNumberMemo``).
    @inlinable @inline(__always) package static func encode<Event: GestureEventFields>(
        eventAt event: UnsafePointer<Event>, quotedDevice: JSONQuotedString? = nil,
        memo: JSONNumberMemo? = nil, into buffer: inout [UInt8]
    ) {
        Event.writeLine(at: event, quotedDevice: quotedDevice, memo: memo, into: &buffer)
    }

    /// Appends the lines of all `events` (read where they lie), and where each ends in `buffer`
    /// to `ends`: the bytes of encoding them one by one, written in one pass (the daemon encodes
    /// each frame's events so). `package`, as the other forms that take a pointer: nothing unsafe
    /// is public (docs/ARCHITECTURE.md).
    @inlinable package static func encode<Event: GestureEventFields>(
        eventsIn events: UnsafeBufferPointer<Event>, quotedDevice: JSONQuotedString? = nil,
        memo: JSONNumberMemo? = nil, into buffer: inout [UInt8], ends: inout [Int]
    ) {
        Event.writeLines(events, quotedDevice: quotedDevice, memo: memo, into: &buffer, ends: &ends)
    }

    /// ``encode(eventsIn:quotedDevice:memo:into:ends:)`` for an array's events.
    public static func encode(
        _ events: [GestureEvent], quotedDevice: JSONQuotedString? = nil,
        memo: JSONNumberMemo? = nil, into buffer: inout [UInt8], ends: inout [Int]
    ) {
        events.withUnsafeBufferPointer {
            encode(eventsIn: $0, quotedDevice: quotedDevice, memo: memo, into: &buffer, ends: &ends)
        }
    }

    /// Appends a `touches` line, the bytes of `encode(.touches(message), into:)`, with the device
    /// id made once (used when it is the message's), and the numbers written lately (`memo`).
    public static func encode(
        _ message: TouchesMessage, quotedDevice: JSONQuotedString?, memo: JSONNumberMemo? = nil,
        into buffer: inout [UInt8]
    ) {
        message.writeLine(into: &buffer, quotedDevice: quotedDevice, memo: memo)
    }

    /// Appends a message's line (as ``encode(_:)-swift.type.method`` returns it) to `buffer`, so a
    /// caller can reuse one buffer. `gesture` and `touches`, sent per frame, use a hand-written
    /// writer with the same output as the Foundation encoder the others use.
    ///
    /// `consuming`, and the switch consumes it: a gesture event (~500 bytes with three reference
    /// counted fields) is moved out of the message, not copied (docs/PERFORMANCE.md).
    public static func encode(_ message: consuming ServerMessage, into buffer: inout [UInt8]) {
        let typeName: String
        let body: Data
        do {
            switch consume message {
            case .gesture(let m): m.writeLine(into: &buffer); return
            case .touches(let m): m.writeLine(into: &buffer); return
            case .hello(let m): typeName = "hello"; body = try encoder.encode(m)
            case .device(let m): typeName = "device"; body = try encoder.encode(m)
            case .status(let m): typeName = "status"; body = try encoder.encode(m)
            case .error(let m): typeName = "error"; body = try encoder.encode(m)
            case .shutdown(let m): typeName = "shutdown"; body = try encoder.encode(m)
            }
        } catch {
            // Our own value types always encode; this keeps the signature non-throwing.
            preconditionFailure("handyd bug: cannot encode \(typeName): \(error)")
        }
        buffer.append(contentsOf: splice(type: typeName, into: body))
    }

    /// The Foundation-encoder form of a message, which the hand-written writer must match byte for
    /// byte (kept for the tests that check it).
    static func encodeWithFoundation(_ message: ServerMessage) -> [UInt8] {
        let body: Data
        do {
            switch message {
            case .gesture(let m): body = try encoder.encode(m)
            case .touches(let m): body = try encoder.encode(m)
            default: return encode(message)
            }
        } catch {
            preconditionFailure("handyd bug: cannot encode \(message.typeName): \(error)")
        }
        return splice(type: message.typeName, into: body)
    }

    /// Encodes a client request as one line.
    public static func encode(_ message: ClientMessage) -> [UInt8] {
        switch message {
        case .status:
            return Array("{\"type\":\"status\"}\n".utf8)
        case .subscribe(let s):
            let body = (try? encoder.encode(s)) ?? Data("{}".utf8)
            return splice(type: "subscribe", into: body)
        }
    }

    private static func splice(type: String, into body: Data) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + type.utf8.count + 12)
        out.append(contentsOf: "{\"type\":\"".utf8)
        out.append(contentsOf: type.utf8)
        out.append(UInt8(ascii: "\""))
        // body is "{...}"; drop its opening brace, add a comma unless it is empty.
        if body.count > 2 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: body.dropFirst())
        out.append(UInt8(ascii: "\n"))
        return out
    }

    private struct TypeProbe: Decodable { var type: String? }

    private static func object(_ line: some Collection<UInt8>) throws(ProtocolError) -> (String, Data) {
        let data = Data(line)
        guard String(validating: data, as: UTF8.self) != nil else {
            throw ProtocolError(.invalidUTF8, "line is not valid UTF-8")
        }
        let probe: TypeProbe
        do {
            probe = try JSONDecoder().decode(TypeProbe.self, from: data)
        } catch DecodingError.typeMismatch, DecodingError.valueNotFound {
            // valueNotFound: `null`, valid JSON but no object.
            throw ProtocolError(.invalidMessage, "expected a JSON object with a string \"type\"")
        } catch {
            throw ProtocolError(.invalidJSON, "not a JSON object: \(shortDescription(error))")
        }
        guard let type = probe.type else { throw ProtocolError(.invalidMessage, "missing \"type\"") }
        return (type, data)
    }

    private static func decode<T: Decodable>(_: T.Type, _ data: Data, _ type: String) throws(ProtocolError) -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw ProtocolError(.invalidMessage, "\"\(type)\" message: \(shortDescription(error))")
        }
    }

    /// Parses a line a client sent (without its `\n`). Unknown fields are ignored.
    /// Most names a subscribe's `gestures` or `devices` may list (there are 12 gesture kinds;
    /// a kiosk has a few devices).
    public static let maximumSubscribeNames = 256

    public static func decodeClientMessage(_ line: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage {
        guard line.count <= maximumLineLength else {
            throw ProtocolError(.lineTooLong, "line longer than \(maximumLineLength) bytes")
        }
        let (type, data) = try object(line)
        switch type {
        case "subscribe":
            let request = try decode(SubscribeRequest.self, data, type)
            // A name list longer than any real one costs the event loop every other client shares
            // (8,000 names: 68 ms a line in a debug build) and memory per client.
            for (field, names) in [("gestures", request.gestures), ("devices", request.devices)]
            where (names?.count ?? 0) > maximumSubscribeNames {
                throw ProtocolError(.invalidMessage, "\(field): at most \(maximumSubscribeNames) names")
            }
            return .subscribe(request)
        case "status": return .status
        default: throw ProtocolError(.unknownType, "unknown message type \"\(type)\"")
        }
    }

    /// Parses a line the daemon sent (without its `\n`).
    public static func decodeServerMessage(_ line: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        let (type, data) = try object(line)
        switch type {
        case "hello": return .hello(try decode(HelloMessage.self, data, type))
        case "gesture": return .gesture(try decode(GestureEvent.self, data, type))
        case "touches": return .touches(try decode(TouchesMessage.self, data, type))
        case "device": return .device(try decode(DeviceMessage.self, data, type))
        case "status": return .status(try decode(StatusMessage.self, data, type))
        case "error": return .error(try decode(ErrorMessage.self, data, type))
        case "shutdown": return .shutdown(try decode(ShutdownMessage.self, data, type))
        default: throw ProtocolError(.unknownType, "unknown message type \"\(type)\"")
        }
    }

    static func shortDescription(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx),
            DecodingError.dataCorrupted(let ctx):
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? ctx.debugDescription : "field \"\(path)\": \(ctx.debugDescription)"
        default: return "\(error)"
        }
    }
}
