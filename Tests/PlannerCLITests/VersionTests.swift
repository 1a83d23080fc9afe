import Foundation
import PlannerHarness
import Testing

/// `planner --version` prints the version the source declares (`static let version` in
/// Sources/planner/PlannerCommand.swift, which scripts/deb makes the package's version), through the quick
/// path (`--version` alone) and through ArgumentParser (`refill --version`, `--version --version`).
@Suite struct VersionTests {
    static func declared() throws -> String {
        let source = try Harness.repositoryText("Sources/planner/PlannerCommand.swift")
        let after = try #require(source.components(separatedBy: "static let version = \"").dropFirst().first)
        return String(after.prefix { $0 != "\"" })
    }

    @Test func printsTheVersionItsSourceDeclares() throws {
        let version = try Self.declared()
        // A semantic version (MAJOR.MINOR.PATCH, and `-dev` between releases) that is a Debian one too.
        #expect(Self.isSemantic(version), "\(version)")
        let h = try Harness()
        for args in [["--version"], ["refill", "--version"], ["--version", "--version"]] {
            let r = try h.planner(args)
            #expect(r.status == 0 && r.out == version + "\n" && r.err.isEmpty, "\(args): \(r.status) \(r.out) \(r.err)")
        }
        // Nothing was created: --version touches no database.
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/.local"))
    }

    static func isSemantic(_ version: String) -> Bool {
        let parts = version.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let core = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        return core.count == 3 && core.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) && ($0 == "0" || $0.first != "0") }
            && (parts.count == 1 || parts[1] == "dev")
    }

    /// One place: the manual's footer and the changelog's newest version say the version the source declares
    /// (scripts/manual writes the footer; a release moves the changelog's Unreleased entries under it).
    @Test func theManualAndTheChangelogSayTheSameVersion() throws {
        let version = try Self.declared()
        let manual = try Harness.repositoryText("man/planner.1")
        #expect(manual.contains("\n.Os planner \(version)\n"), "man/planner.1's footer: run scripts/manual")
        let changelog = try Harness.repositoryText("CHANGELOG.md")
        let newest = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## [") })
        let core = version.split(separator: "-")[0]
        if version.hasSuffix("-dev") {
            #expect(newest == "## [Unreleased] (\(core))", "CHANGELOG.md's newest section: \(newest)")
        } else {
            #expect(newest.hasPrefix("## [\(version)] - "), "CHANGELOG.md's newest section: \(newest)")
        }
    }
}
