import Foundation
import HandyCore

/// A recorded device and its events, read from an evemu or `libinput record` file.
///
/// The same model the input layer produces from a live device, so a replay runs exactly the code
/// the daemon runs.
public struct Recording: Sendable, Equatable {
    /// The file format the events were read from.
    public enum Format: String, Sendable, Hashable {
        /// evemu-record / evemu-describe text (one file, or a `.desc` + `.events` pair).
        case evemu
        /// `libinput record` YAML, version 1.
        case libinputRecord = "libinput-record"
    }

    /// The device as described by the recording (or its `.desc` file).
    public var description: DeviceDescription
    /// Every event in file order, with the recording's kernel timestamps.
    public var events: [InputEvent]
    public var format: Format
    /// The file the events came from, as given.
    public var path: String
    /// Where the description came from when it was another file (`--desc`, or the `.desc` found beside).
    public var descriptionPath: String?

    public init(description: DeviceDescription, events: [InputEvent], format: Format, path: String, descriptionPath: String? = nil) {
        self.description = description
        self.events = events
        self.format = format
        self.path = path
        self.descriptionPath = descriptionPath
    }

    /// Every file this recording was read from.
    public var sourcePaths: [String] { [path] + (descriptionPath.map { [$0] } ?? []) }

    /// The events file's name without its extension (`Wacom ISDv4 E6 Finger.2fg-tap`).
    public var name: String { Self.baseName(of: path) }

    /// The device id a replay of this recording uses: `replay:<file name without extension>`.
    public var deviceID: String { "replay:\(name)" }

    /// Reads a recording.
    ///
    /// - `path`: an evemu file (with its own N:/I:/A: header, or an `.events` file of the split form),
    ///   or a `libinput record` YAML file (`.yml`/`.yaml`, or starting with `# libinput record`).
    /// - `descriptionPath`: a `.desc` (or any evemu file with a header) describing the device; it
    ///   overrides the file's own description. Without it, an `.events` file with no header takes the
    ///   `.desc` beside it whose name is the longest prefix of its own
    ///   (`Wacom ISDv4 E6 Finger.2fg-tap.events` → `Wacom ISDv4 E6 Finger.desc`).
    public static func load(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        let bytes = try readFile(path)
        var given: DeviceDescription?
        if let descriptionPath { given = try loadDescription(path: descriptionPath) }

        if isLibinputRecord(path: path, bytes: bytes) {
            let (description, events) = try LibinputRecordReader.parse(try textLines(bytes, file: path), file: path)
            return Recording(description: given ?? description, events: events, format: .libinputRecord,
                             path: path, descriptionPath: descriptionPath)
        }

        let parsed = try EvemuReader.parse(bytes, file: path)
        if let given {
            return Recording(description: given, events: parsed.events, format: .evemu, path: path, descriptionPath: descriptionPath)
        }
        if let own = parsed.description {
            return Recording(description: own, events: parsed.events, format: .evemu, path: path)
        }
        guard let found = findDescription(forEventsAt: path) else {
            throw RecordingError(.missingDescription, file: path,
                                 "no device description: the file has no N:/I:/A: header and no .desc file beside it "
                                 + "has a name this file's name begins with (name one, e.g. handyctl replay --desc FILE)")
        }
        return Recording(description: try loadDescription(path: found), events: parsed.events, format: .evemu,
                         path: path, descriptionPath: found)
    }

    /// Reads a recording from memory; `path` only names it in errors and the device id.
    /// There is no `.desc` lookup: evemu events without a header need `description`.
    public static func parse(_ bytes: [UInt8], path: String, description: DeviceDescription? = nil) throws(RecordingError) -> Recording {
        if isLibinputRecord(path: path, bytes: bytes) {
            let (own, events) = try LibinputRecordReader.parse(try textLines(bytes, file: path), file: path)
            return Recording(description: description ?? own, events: events, format: .libinputRecord, path: path)
        }
        let parsed = try EvemuReader.parse(bytes, file: path)
        guard let d = description ?? parsed.description else {
            throw RecordingError(.missingDescription, file: path, "no device description: the file has no N:/I:/A: header")
        }
        return Recording(description: d, events: parsed.events, format: .evemu, path: path)
    }

    /// Reads just the device description of an evemu (`.desc`, or a full recording) or libinput record file.
    public static func loadDescription(path: String) throws(RecordingError) -> DeviceDescription {
        let bytes = try readFile(path)
        if isLibinputRecord(path: path, bytes: bytes) {
            return try LibinputRecordReader.parse(try textLines(bytes, file: path), file: path).0
        }
        guard let description = try EvemuReader.parse(bytes, file: path).description else {
            throw RecordingError(.missingDescription, file: path, "no device description (N:/I:/A: lines) in this file")
        }
        return description
    }

    /// The `.desc` file in the same folder whose name (without `.desc`) is the longest prefix of the
    /// events file's name, or nil.
    public static func findDescription(forEventsAt path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        let fileName = url.lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        let best = names
            .filter { $0.hasSuffix(".desc") && $0 != fileName }
            .filter { fileName.hasPrefix(String($0.dropLast(".desc".count))) }
            .max { $0.count < $1.count }
        guard let best else { return nil }
        // Keep the caller's spelling of the folder ("./x.events" → "./x.desc").
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? best : (folder as NSString).appendingPathComponent(best)
    }

    static func baseName(of path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    static func isLibinputRecord(path: String, bytes: [UInt8]) -> Bool {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if ext == "yml" || ext == "yaml" { return true }
        if ext == "events" || ext == "desc" || ext == "evemu" { return false }
        // Unknown extension: libinput record starts with its banner comment or "version:".
        let head = String(decoding: bytes.prefix(64), as: UTF8.self)
        return head.hasPrefix("# libinput record") || head.hasPrefix("version:")
    }

    /// Largest file read: far above any real recording, low enough that a wrong path cannot eat memory.
    static let maximumFileBytes = 256 * 1024 * 1024

    static func readFile(_ path: String) throws(RecordingError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordingError(.unreadable, file: path, "no such file")
        }
        guard !isDirectory.boolValue else { throw RecordingError(.unreadable, file: path, "is a directory, not a recording") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            throw RecordingError(.unreadable, file: path, "not a regular file")
        }
        if let size = attributes?[.size] as? NSNumber, size.int64Value > Int64(maximumFileBytes) {
            throw RecordingError(.unreadable, file: path, "file is \(size.int64Value) bytes, larger than any recording (limit \(maximumFileBytes))")
        }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw RecordingError(.unreadable, file: path, "cannot read: \(error.localizedDescription)")
        }
    }
}
