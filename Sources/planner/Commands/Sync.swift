import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerStore

/// `planner sync`: what every command that writes does first, on demand, with what it did said.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply the other devices' changes from the sync folder now, write this device's, and say what changed.",
        discussion: """
            With a sync folder set (planner config set sync-folder DIR, a folder Syncthing shares between your \
            devices), each device appends its opens, skips, pauses and settings to files of its own there and \
            applies the others'. Every command that writes does this first, and a running ticker as soon as a \
            file arrives; this command does it now. A day opened on any device is opened on all; for settings, \
            skips and pauses the latest change wins. Files in the folder that are not a planner's, or lines it \
            refuses, are listed and changed nothing.
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print one JSON object: applied, superseded, published, opened_elsewhere, problems.") var json = false

    func run() throws {
        let report = try SyncCommand.sync(.process, db: common.db, now: common.now)
        let opened = Array(Set(report.openedElsewhere)).sorted().map(\.description)
        if json {
            print(Formatting.jsonObject([
                ("folder", Formatting.json(report.folder)),
                ("applied", String(report.applied)),
                ("superseded", String(report.superseded)),
                ("published", String(report.published)),
                ("opened_elsewhere", "[" + opened.map(Formatting.json).joined(separator: ", ") + "]"),
                ("problems", "[" + report.problems.map(Formatting.json).joined(separator: ", ") + "]"),
            ]))
            return
        }
        var lines = ["sync: \(report.applied) change\(report.applied == 1 ? "" : "s") from other devices applied"
            + (report.superseded > 0 ? " (\(report.superseded) older than one already in force, left out)" : "")
            + ", \(report.published) of this device's written to \(report.folder)"]
        if !opened.isEmpty { lines.append("opened on another device: \(opened.joined(separator: ", ")) (the rest of those days is quiet here)") }
        lines += report.problems.map { "problem: " + $0 }
        print(lines.map(TerminalText.flattened).joined(separator: "\n"))
    }
}
