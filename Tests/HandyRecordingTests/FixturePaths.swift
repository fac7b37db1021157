import Foundation

/// Locates the package's `Tests/Fixtures` from this source file (no resource bundles).
enum FixturePaths {
    /// The package root: the folder holding `Package.swift`, walking up from this file.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// Absolute path of a fixture given relative to `Tests/Fixtures`.
    static func path(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }

    /// A fresh empty folder for files a test writes.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("handyd-recording-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
