import HandyCore
import HandyFiles

// No Foundation: handyd links this module (replays), and the daemon keeps Foundation's mapped code
// and ICU out of its memory (docs/PERFORMANCE.md, memory). Files and folders through POSIX.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    public init(
        description: DeviceDescription, events: [InputEvent], format: Format, path: String,
        descriptionPath: String? = nil
    ) {
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
            if given == nil { try checkPositions(description, file: path) }  // a given one was checked as loaded
            return Recording(
                description: given ?? description, events: events, format: .libinputRecord,
                path: path, descriptionPath: descriptionPath)
        }

        let parsed = try EvemuReader.parse(bytes, file: path)
        if let given {
            return Recording(
                description: given, events: parsed.events, format: .evemu, path: path, descriptionPath: descriptionPath)
        }
        if let own = parsed.description {
            try checkPositions(own, file: path)
            return Recording(description: own, events: parsed.events, format: .evemu, path: path)
        }
        guard let found = findDescription(forEventsAt: path) else {
            throw RecordingError(
                .missingDescription, file: path,
                "no device description: the file has no N:/I:/A: header and no .desc file beside it "
                    + "has a name this file's name begins with (name one, e.g. handyctl replay --desc FILE)")
        }
        return Recording(
            description: try loadDescription(path: found), events: parsed.events, format: .evemu,
            path: path, descriptionPath: found)
    }

    /// Reads a recording from memory; `path` only names it in errors and the device id.
    /// There is no `.desc` lookup: evemu events without a header need `description`.
    public static func parse(_ bytes: [UInt8], path: String, description: DeviceDescription? = nil)
        throws(RecordingError) -> Recording
    {
        if isLibinputRecord(path: path, bytes: bytes) {
            let (own, events) = try LibinputRecordReader.parse(try textLines(bytes, file: path), file: path)
            try checkPositions(description ?? own, file: path)
            return Recording(description: description ?? own, events: events, format: .libinputRecord, path: path)
        }
        let parsed = try EvemuReader.parse(bytes, file: path)
        guard let d = description ?? parsed.description else {
            throw RecordingError(
                .missingDescription, file: path, "no device description: the file has no N:/I:/A: header")
        }
        try checkPositions(d, file: path)
        return Recording(description: d, events: parsed.events, format: .evemu, path: path)
    }

    /// Reads just the device description of an evemu (`.desc`, or a full recording) or libinput record file.
    public static func loadDescription(path: String) throws(RecordingError) -> DeviceDescription {
        let bytes = try readFile(path)
        if isLibinputRecord(path: path, bytes: bytes) {
            let description = try LibinputRecordReader.parse(try textLines(bytes, file: path), file: path).0
            try checkPositions(description, file: path)
            return description
        }
        guard let description = try EvemuReader.parse(bytes, file: path).description else {
            throw RecordingError(.missingDescription, file: path, "no device description (N:/I:/A: lines) in this file")
        }
        try checkPositions(description, file: path)
        return description
    }

    /// A description whose position axes cannot place a touch is refused here, with the axis
    /// named, as the daemon refuses such a live device (``DeviceDescription/positionRangeProblem``).
    static func checkPositions(_ description: DeviceDescription, file: String) throws(RecordingError) {
        if let problem = description.positionRangeProblem { throw RecordingError(.outOfRange, file: file, problem) }
    }

    /// The `.desc` file in the same folder whose name (without `.desc`) is the longest prefix of the
    /// events file's name, or nil.
    public static func findDescription(forEventsAt path: String) -> String? {
        let (folder, fileName) = splitPath(path)
        guard let names = directoryEntries(folder.isEmpty ? "." : folder) else { return nil }
        let best =
            names
            .filter { $0.hasSuffix(".desc") && $0 != fileName }
            .filter { fileName.hasPrefix(String($0.dropLast(".desc".count))) }
            .max { $0.count < $1.count }
        guard let best else { return nil }
        // Keep the caller's spelling of the folder ("./x.events" → "./x.desc").
        if folder.isEmpty { return best }
        return folder.hasSuffix("/") ? folder + best : folder + "/" + best
    }

    /// The folder (without its last slash; "/" for the root, "" for none) and the file name.
    static func splitPath(_ path: String) -> (folder: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return ("", String(trimmed)) }
        let folder = trimmed[..<slash]
        return (folder.isEmpty ? "/" : String(folder), String(trimmed[trimmed.index(after: slash)...]))
    }

    /// The name without its extension ("a.b.events" → "a.b"; ".hidden" stays).
    static func baseName(of path: String) -> String {
        let name = splitPath(path).name
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The extension without its dot, "" when there is none.
    static func pathExtension(of path: String) -> String {
        let name = splitPath(path).name
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The names in a folder (no "." and ".."), or nil when it cannot be read.
    static func directoryEntries(_ folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func isLibinputRecord(path: String, bytes: [UInt8]) -> Bool {
        let ext = pathExtension(of: path).lowercased()
        if ext == "yml" || ext == "yaml" { return true }
        if ext == "events" || ext == "desc" || ext == "evemu" { return false }
        // Unknown extension: libinput record starts with its banner comment or "version:".
        let head = String(decoding: bytes.prefix(64), as: UTF8.self)
        return head.hasPrefix("# libinput record") || head.hasPrefix("version:")
    }

    /// Largest file read: far above any real recording, low enough that a wrong path cannot eat memory.
    static let maximumFileBytes = 256 * 1024 * 1024

    static func readFile(_ path: String) throws(RecordingError) -> [UInt8] {
        func failure(_ what: String, _ code: Int32) -> RecordingError {
            RecordingError(
                .unreadable, file: path, code == ENOENT ? "no such file" : "\(what): \(String(cString: strerror(code)))"
            )
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("cannot read", errno) }
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else { throw RecordingError(.unreadable, file: path, "is a directory, not a recording") }
        guard type == S_IFREG else { throw RecordingError(.unreadable, file: path, "not a regular file") }
        guard info.st_size <= maximumFileBytes else {
            throw RecordingError(
                .unreadable, file: path,
                "file is \(info.st_size) bytes, larger than any recording (limit \(maximumFileBytes))")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot read", errno) }
        defer { close(fd) }
        // The size from stat is a hint (the file may change): read until end of file, within the limit.
        switch POSIXFile.readAll(fd, maximumBytes: maximumFileBytes, sizeHint: Int(info.st_size)) {
        case .success(let bytes): return bytes
        case .failure(.system(let code)): throw failure("cannot read", code)
        case .failure(.tooLarge):
            throw RecordingError(
                .unreadable, file: path, "file grew larger than any recording (limit \(maximumFileBytes))")
        }
    }
}
