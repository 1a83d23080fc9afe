import Foundation
import PlannerHarness
import Testing

/// The guide's command table (docs/guide.md, "Commands") names every subcommand `planner --help` lists and
/// every option each one's `--help` lists (`--db`, `--now`, `--help` and `--version` are said once above the
/// table). The man page is made from the same declarations (scripts/manual; ManualTests); the guide is written
/// by hand, so a new option fails here until its row says it.
@Suite struct GuideCommandTableTests {
    /// The long options a help text lists under OPTIONS, in order.
    static func options(_ help: String) -> [String] {
        guard let section = help.components(separatedBy: "OPTIONS:").last else { return [] }
        var seen: [String] = []
        for line in section.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first, first.hasPrefix("--") || first.hasPrefix("-h,") else { continue }
            let option = String(first.hasPrefix("-h,") ? words[1] : first).split(separator: "=").first.map(String.init) ?? ""
            if !["--db", "--now", "--help", "--version"].contains(option), !seen.contains(option) { seen.append(option) }
        }
        return seen
    }

    @Test func namesEveryCommandAndOption() throws {
        let h = try Harness()
        let top = try h.planner(["--help"]).out
        let listing = try #require(top.components(separatedBy: "SUBCOMMANDS:").last)
        let commands = listing.split(separator: "\n").compactMap { line -> String? in
            // A command's line is indented by two; its description's next lines by more.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                word.allSatisfy({ $0.isLowercase || $0 == "-" })
            else {
                return nil
            }
            return String(word)
        }
        try #require(commands.count > 15, "\(top)")
        let guide = try Harness.repositoryText("docs/guide.md")
        let table = guide.split(separator: "\n").filter { $0.hasPrefix("| `planner ") }.map(String.init)
        for command in commands {
            // A command's rows: those whose first cell names it (`planner pause …` / `planner resume`).
            let rows = table.filter { row in
                // `\|` is a bar inside a cell (`notify\|stdout`), not a cell's end.
                let cells = row.replacingOccurrences(of: "\\|", with: "¦").split(separator: "|", omittingEmptySubsequences: true)
                let first = cells.first.map(String.init) ?? ""
                return first.contains("`planner \(command) ") || first.contains("`planner \(command)`")
            }
            #expect(!rows.isEmpty, "docs/guide.md's command table has no row for planner \(command)")
            let text = rows.joined(separator: " ")
            let help = try h.planner([command, "--help"]).out
            for option in Self.options(help) where !text.contains(option) {
                Issue.record("docs/guide.md's row for planner \(command) does not name \(option)")
            }
        }
    }
}
