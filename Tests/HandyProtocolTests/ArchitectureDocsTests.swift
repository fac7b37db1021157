import Foundation
import HandyTestSupport
import Testing

/// docs/ARCHITECTURE.md's module table says what each module may use; Package.swift says what
/// it does use. The two must agree: every package module a target depends on is named in its
/// row's "may use" column (or reached through one named there), and every package module named
/// there is one it depends on (directly or through another).
@Suite struct ArchitectureDocsTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// Package.swift's targets and the package targets each depends on (products of other packages left out).
    static func packageGraph() throws -> [String: Set<String>] {
        let text = try read("Package.swift")
        var graph: [String: Set<String>] = [:]
        let target = try Regex(
            #"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*(?:\([^)]*\)[^\]]*)*)\])?"#
        )
        for match in text.matches(of: target) {
            let name = String(match.output[1].substring ?? "")
            let list = match.output.count > 2 ? String(match.output[2].substring ?? "") : ""
            // Plain strings are package targets; `.product(name: "X", package: "y")` are not.
            let withoutProducts = list.replacing(try Regex(#"\.product\([^)]*\)"#), with: "")
            let deps = withoutProducts.matches(of: try Regex(#""([^"]+)""#)).map {
                String($0.output[1].substring ?? "")
            }
            graph[name] = Set(deps)
        }
        return graph
    }

    /// The table's rows: module names (a row may name several) and the text of "may use".
    static func table() throws -> [(modules: [String], mayUse: String)] {
        let text = try read("docs/ARCHITECTURE.md")
        var rows: [(modules: [String], mayUse: String)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            let modules = cells[1].matches(of: try Regex("`([^`]+)`")).map { String($0.output[1].substring ?? "") }
            rows.append((modules, cells[3]))
        }
        return rows
    }

    static func closure(_ start: Set<String>, _ graph: [String: Set<String>]) -> Set<String> {
        var seen = start
        var queue = Array(start)
        while let next = queue.popLast() {
            for d in graph[next] ?? [] where !seen.contains(d) {
                seen.insert(d)
                queue.append(d)
            }
        }
        return seen
    }

    @Test func theModuleTableSaysWhatPackageSwiftDoes() throws {
        let graph = try Self.packageGraph()
        let rows = try Self.table()
        #expect(graph.count > 15, "Package.swift's targets: \(graph.keys.sorted())")
        let documented = Set(rows.flatMap(\.modules))
        let sources = graph.keys.filter { !$0.hasSuffix("Tests") && $0 != "HandyTestSupport" }
        for module in sources {
            #expect(documented.contains(module), "\(module) is a target but has no row in docs/ARCHITECTURE.md")
        }
        for row in rows {
            // Package modules named in "may use" (whole words: HandyCore is not in HandyCoreTests).
            let words = Set(
                row.mayUse.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
            let named = Set(graph.keys.filter { words.contains($0) })
            let reachable = Self.closure(named, graph)
            for module in row.modules {
                guard let deps = graph[module] else { continue }
                for d in deps.sorted() where !reachable.contains(d) {
                    Issue.record(
                        "\(module) depends on \(d) (Package.swift), which its row in docs/ARCHITECTURE.md does not name"
                    )
                }
                let used = Self.closure(deps, graph)
                for n in named.sorted() where !used.contains(n) {
                    Issue.record("\(module)'s row names \(n), which \(module) does not depend on (Package.swift)")
                }
            }
        }
    }
}

extension ArchitectureDocsTests {
    /// "Only HandyInput touches C pointers; nothing unsafe is public": no public declaration
    /// outside HandyInput names an unsafe pointer or buffer type.
    @Test func nothingUnsafeIsPublicOutsideHandyInput() throws {
        let sources = packageRoot.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter {
            $0 != "HandyInput" && !$0.hasPrefix("C")
        }
        var checked = 0
        for module in modules {
            guard let files = FileManager.default.enumerator(atPath: sources.appendingPathComponent(module).path) else {
                continue
            }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(
                    contentsOf: sources.appendingPathComponent(module).appendingPathComponent(file), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), code.contains("public ") || code.hasPrefix("public") else { continue }
                    checked += 1
                    #expect(!code.contains("Unsafe"), "\(module)/\(file):\(n + 1): \(code)")
                }
            }
        }
        #expect(checked > 500, "public declarations looked at: \(checked)")
    }
}

extension ArchitectureDocsTests {
    /// The Swift files of `module`, with their text.
    static func sources(of module: String) throws -> [(file: String, text: String)] {
        let folder = packageRoot.appendingPathComponent("Sources").appendingPathComponent(module)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return try files.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// "HandyCore imports HandyProtocol for the shared enums only": no HandyCore source names a type
    /// or function HandyProtocol declares, other than the six enums (a wire type made in the core,
    /// a writer or a message called from it, fails here).
    @Test func theCoreTakesOnlyTheSharedEnumsFromTheWireModule() throws {
        let shared: Set<String> = ["GestureKind", "GesturePhase", "Hand", "Side", "SwipeDirection", "DisplayEdge"]
        // Its types (nested ones too) and its free functions (at the start of a line).
        let type = try Regex(
            #"(?m)^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|package)\s+(?:final\s+)?(?:struct|enum|class|protocol|typealias)\s+(\w+)"#
        )
        let function = try Regex(#"(?m)^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|package)\s+func\s+(\w+)"#)
        var wireNames: Set<String> = []
        for (_, text) in try Self.sources(of: "HandyProtocol") {
            for match in text.matches(of: type) { wireNames.insert(String(match.output[1].substring ?? "")) }
            for match in text.matches(of: function) { wireNames.insert(String(match.output[1].substring ?? "")) }
        }
        wireNames.subtract(shared)
        #expect(wireNames.isSuperset(of: ["GestureEvent", "WirePoint", "Occlusion", "JSONLines", "TouchesMessage"]))
        let core = try Self.sources(of: "HandyCore")
        #expect(core.count > 20)
        for (file, text) in core {
            let code = text.split(separator: "\n").filter {
                !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            }.joined(separator: "\n")
            let words = Set(code.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
            let named = words.intersection(wireNames)
            #expect(named.isEmpty, "HandyCore/\(file) names \(named.sorted()) from HandyProtocol")
        }
    }
}

extension ArchitectureDocsTests {
    /// "What stays `public` is what an app that links HandyCore needs, and each is documented"
    /// (docs/ARCHITECTURE.md, HandyCore's public API): every public declaration of HandyCore has a
    /// doc comment, and every public type is named in that section. The Handedness folder is not
    /// sorted yet and is left out.
    @Test func everyPublicDeclarationOfTheCoreIsDocumentedAndListed() throws {
        let architecture = try Self.read("docs/ARCHITECTURE.md")
        let start = try #require(architecture.range(of: "## HandyCore's public API\n"))
        let rest = architecture[start.upperBound...]
        let listed = String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
        let declaration = try Regex(#"^\s*(?:@\w+(?:\([^)]*\))?\s+)*public\s"#)
        let attribute = try Regex(#"^\s*@\w+(?:\(.*\))?\s*$"#)
        let type = try Regex(
            #"^(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+)?(?:struct|enum|class|protocol|typealias)\s+(\w+)"#)
        var checked = 0
        for (file, text) in try Self.sources(of: "HandyCore") where !file.hasPrefix("Handedness/") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (n, line) in lines.enumerated() where line.prefixMatch(of: declaration) != nil {
                checked += 1
                var above = n - 1
                while above >= 0, lines[above].wholeMatch(of: attribute) != nil { above -= 1 }
                let comment = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                #expect(comment.hasPrefix("///"), "HandyCore/\(file):\(n + 1) is public without a doc comment: \(line)")
                if let match = line.prefixMatch(of: type), let name = match.output[1].substring {
                    #expect(
                        listed.contains("`\(name)`"),
                        "HandyCore/\(file): public \(name) is not in docs/ARCHITECTURE.md's list")
                }
            }
        }
        #expect(checked > 100, "public declarations looked at: \(checked)")
    }
}
