import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner sync`: what every command that writes does first, on demand, with what it did said.
struct Sync: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract:
            "Apply the other devices' changes from the sync folder, the calendar folder's ticks and Anki's reviews now, write both folders, and say what changed.",
        discussion: """
            With a sync folder set (planner config set sync-folder DIR, a folder Syncthing shares between your \
            devices), each device appends its opens, skips, pauses and settings to files of its own there and \
            applies the others'. Every command that writes does this first, and a running ticker as soon as a \
            file arrives; this command does it now. A day opened on any device is opened on all; for settings, \
            skips and pauses the latest change wins. Files in the folder that are not a planner's, or lines it \
            refuses, are listed and changed nothing. With a calendar folder set (planner config set calendar-folder DIR, \
            a vdir vdirsyncer pairs with a CalDAV calendar), a day's "Study today" task ticked off there opens that \
            day, and the folder is written again as the plan says. With Anki's collection set (planner config set \
            anki-collection FILE), each study day with a review there is opened at its first review (origin anki); \
            the rest of today is quiet once a card is answered.
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: ArgumentHelp("Print one JSON object: \(SourcesReport.fields.map(\.key).joined(separator: ", ")).")) var json = false

    func run(_ ctx: RunContext) throws {
        try SyncCommand.sync(ctx, db: common.db, now: common.now).print(json: json, to: ctx.output)
    }
}

extension SourcesReport: Report {
    /// Each list once, sorted: a day a source opened twice in one pass is one day.
    private var studied: [String] { Array(Set(anki?.opened ?? [])).sorted().map(\.description) }
    private var openedElsewhere: [String] { Array(Set(sync?.openedElsewhere ?? [])).sorted().map(\.description) }
    private var ticks: [String] { Array(Set(calendar?.ticks ?? [])).sorted().map(\.description) }

    /// The JSON object's fields, in order: `json` and `--json`'s help are both made from this list.
    static let fields: [(key: String, value: @Sendable (SourcesReport) -> JSON)] = [
        ("folder", { .text($0.sync?.folder) }),
        ("applied", { .int($0.sync?.applied ?? 0) }),
        ("superseded", { .int($0.sync?.superseded ?? 0) }),
        ("published", { .int($0.sync?.published ?? 0) }),
        ("opened_elsewhere", { list($0.openedElsewhere) }),
        ("problems", { list($0.sync?.problems ?? []) }),
        ("calendar_folder", { .text($0.calendar?.folder) }),
        ("calendar_ticks", { list($0.ticks) }),
        ("calendar_written", { .int($0.calendar?.written ?? 0) }),
        ("calendar_removed", { .int($0.calendar?.removed ?? 0) }),
        ("calendar_problems", { list($0.calendar?.problems ?? []) }),
        ("anki_collection", { .text($0.anki?.collection) }),
        ("anki_opened", { list($0.studied) }),
        ("anki_problem", { .text($0.anki?.problem) }),
    ]
    private static func list(_ items: [String]) -> JSON { .array(items.map(JSON.string)) }

    var json: JSON { .object(Self.fields.map { ($0.key, $0.value(self)) }) }

    var text: String {
        let (report, calendar, anki) = (sync, calendar, anki)
        let (studied, opened, ticks) = (studied, openedElsewhere, ticks)
        var lines: [String] = []
        if let report {
            lines.append(
                "sync: \(report.applied) change\(report.applied == 1 ? "" : "s") from other devices applied"
                    + (report.superseded > 0 ? " (\(report.superseded) older than one already in force, left out)" : "")
                    + ", \(report.published) of this device's written to \(report.folder)")
            if !opened.isEmpty { lines.append("opened on another device: \(opened.joined(separator: ", ")) (the rest of those days is quiet here)") }
            lines += report.problems.map { "problem: " + $0 }
        }
        if let calendar {
            lines.append(
                "calendar: \(ticks.count) day\(ticks.count == 1 ? "" : "s") ticked off applied, \(calendar.written) item\(calendar.written == 1 ? "" : "s") written and \(calendar.removed) removed in \(calendar.folder)"
            )
            if !ticks.isEmpty {
                lines.append("ticked off in the calendar: \(ticks.joined(separator: ", ")) (opened: the rest of those days is quiet)")
            }
            lines += calendar.problems.map { "calendar problem: " + $0 }
        }
        if let anki {
            lines.append(
                anki.read
                    ? "anki: \(studied.count) study day\(studied.count == 1 ? "" : "s") opened by reviews in \(anki.collection)"
                    : anki.retry && anki.problem == nil
                        ? "anki: \(anki.collection) is being copied by another planner process: read by the next change"
                        : "anki: \(anki.collection) unchanged since the last read")
            if !studied.isEmpty { lines.append("studied in Anki: \(studied.joined(separator: ", ")) (opened: the rest of those days is quiet)") }
            if let problem = anki.problem { lines.append("anki problem: " + problem) }
        }
        return lines.map(TerminalText.flattened).joined(separator: "\n")
    }
}
