import Foundation
import HandyProtocol
import HandyTestSupport
import Testing

/// The version comes from one place, the file VERSION: `make version` writes
/// Sources/HandyProtocol/Version.swift from it, and debian/changelog's top entry must carry it.
@Suite struct VersionTests {

    static func read(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func versionFileIsAVersion() throws {
        let version = try Self.read("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(
            parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) },
            "VERSION must be MAJOR.MINOR.PATCH, is '\(version)'")
    }

    @Test func generatedSwiftMatchesVersionFile() throws {
        let version = try Self.read("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            handydVersion == version,
            "Sources/HandyProtocol/Version.swift says \(handydVersion), VERSION says \(version): run `make version`")
    }

    @Test func debianChangelogTopEntryMatchesVersionFile() throws {
        let version = try Self.read("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        // First line: `handyd (0.2.0) unstable; urgency=medium` (a native package: no Debian revision).
        let first = try Self.read("debian/changelog").split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            first.hasPrefix("handyd (\(version)) "),
            "debian/changelog's top entry is '\(first)', VERSION is \(version): add an entry (dch -v \(version))")
    }

    @Test func changelogMentionsVersion() throws {
        let version = try Self.read("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            try Self.read("CHANGELOG.md").contains("## \(version)"),
            "CHANGELOG.md has no '## \(version)' section")
    }
}
