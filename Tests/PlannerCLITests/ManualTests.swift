import Foundation
import PlannerHarness
import Testing

/// The manual (man/planner.1, made by scripts/manual from the command declarations) names every subcommand
/// `planner --help` lists, and under each every option its `--help` lists: a command or option added since the
/// page was last made fails here until scripts/manual is run again.
@Suite struct ManualTests {
    @Test func namesEveryCommandAndOption() throws {
        let h = try Harness()
        let top = try h.planner(["--help"]).out
        let listing = try #require(top.components(separatedBy: "SUBCOMMANDS:").last)
        let commands = listing.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                word.allSatisfy({ $0.isLowercase || $0 == "-" })
            else { return nil }
            return String(word)
        }
        try #require(commands.count > 15, "\(top)")
        let manual = try Harness.repositoryText("man/planner.1").split(separator: "\n").map(String.init)
        for command in commands {
            // The command's part of the page: from its `.It Em` to the next command's.
            guard let start = manual.firstIndex(of: ".It Em \(command)") else {
                Issue.record("man/planner.1 has no entry for planner \(command): run scripts/manual")
                continue
            }
            let end = manual[(start + 1)...].firstIndex { line in commands.contains { line == ".It Em \($0)" } } ?? manual.endIndex
            let part = manual[start..<end].joined(separator: "\n")
            for option in GuideCommandTableTests.options(try h.planner([command, "--help"]).out)
            where !part.contains(".It Fl -\(option.dropFirst(2))") {
                Issue.record("man/planner.1's entry for planner \(command) does not name \(option): run scripts/manual")
            }
        }
    }
}
