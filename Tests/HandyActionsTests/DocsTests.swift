import Foundation
import HandyActions
import HandyTestSupport
import Testing

/// docs/ACTIONS.md and examples/actions.toml say what the parser does: their TOML parses, and the
/// tables list exactly the binding keys and the placeholders there are.
@Suite struct DocsTests {

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The bodies of the ```toml blocks.
    static func tomlBlocks(_ markdown: String) -> [String] {
        markdown.components(separatedBy: "```toml\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
    }

    /// First cells (backticked names) of the table whose header starts with `header`.
    static func firstColumn(_ markdown: String, header: String) -> [String] {
        guard let start = markdown.range(of: "\n" + header) else { return [] }
        var names: [String] = []
        for line in markdown[start.upperBound...].split(separator: "\n").dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|").first ?? ""
            names += cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) }
        }
        return names
    }

    @Test func theExamplesParse() throws {
        let docs = try Self.text("docs/ACTIONS.md")
        let blocks = Self.tomlBlocks(docs)
        #expect(blocks.count == 2)
        // The three gesture bindings, then the device-health ones.
        if let block = blocks.first {
            let c = try ActionsConfiguration.parse(block, path: "docs/ACTIONS.md")
            #expect(c.bindings.count == 3)
            #expect(c.bindings.contains { $0.match?.hand == .right })
            #expect(c.bindings.contains { $0.match?.edge == .left })
        }
        if blocks.count == 2 {
            let c = try ActionsConfiguration.parse(blocks[1], path: "docs/ACTIONS.md")
            #expect(c.bindings.map { $0.health?.event } == [.lost, .stuck])
        }
        let example = try ActionsConfiguration.parse(
            try Self.text("examples/actions.toml"), path: "examples/actions.toml")
        #expect(example.bindings.count >= 3)
    }

    @Test func theTablesListEveryKeyAndPlaceholder() throws {
        let docs = try Self.text("docs/ACTIONS.md")
        #expect(Self.firstColumn(docs, header: "| key |") == ActionsConfiguration.bindingKeys)
        let placeholders = Self.firstColumn(docs, header: "| placeholder |")
        #expect(placeholders == EventField.allCases.map { "{\($0.rawValue)}" })
        let variables =
            docs.components(separatedBy: "\n| placeholder |").last?.split(separator: "\n").dropFirst(2)
            .prefix { $0.hasPrefix("|") }.flatMap { line in
                (line.split(separator: "|").dropFirst().first ?? "").split(
                    separator: "`", omittingEmptySubsequences: false
                )
                .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            } ?? []
        #expect(variables == EventField.allCases.map(\.environmentName))
    }
}
