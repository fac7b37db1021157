import Foundation

/// Locates the package's `Tests/Fixtures` from this source file (no resource bundles).
package enum FixturePaths {
    /// The package root: the folder holding `Package.swift`, walking up from this file.
    package static var packageRoot: URL { HandyTestSupport.packageRoot }

    package static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// Absolute path of a fixture given relative to `Tests/Fixtures`.
    package static func path(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }

    /// A fresh empty folder for files a test writes.
    package static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handyd-recording-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
