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
        // A Debian version and a semantic one: digits and dots.
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "\(version)")
        let h = try Harness()
        for args in [["--version"], ["refill", "--version"], ["--version", "--version"]] {
            let r = try h.planner(args)
            #expect(r.status == 0 && r.out == version + "\n" && r.err.isEmpty, "\(args): \(r.status) \(r.out) \(r.err)")
        }
        // Nothing was created: --version touches no database.
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/.local"))
    }
}
