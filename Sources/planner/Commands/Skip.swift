import ArgumentParser
import PlannerCommands

/// `planner skip`: days off (holidays, a trip). No study slot on a skipped date; removing the skip brings
/// back the ones still ahead.
struct Skip: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip",
        abstract: "Skip dates (no study reminders that day), remove skips, or list them.",
        discussion: """
            DATE is YYYY-MM-DD in the plan's zone; DATE..DATE is an inclusive range. Pending study slots on \
            skipped dates are retired as `skipped`; one-off requests are kept. A date is a study day: with a \
            window crossing midnight (20:00-01:30), skipping Friday skips its slots after midnight too.
              planner skip 2026-12-24..2026-12-26 --reason holidays
              planner skip --remove 2026-12-26
              planner skip --list
            """)

    @OptionGroup var common: CommonOptions
    @Argument(help: ArgumentHelp("A date or an inclusive range of dates.", valueName: "date[..date]")) var dates: String?
    @Option(name: .long, help: "Why (shown by --list and the skipped_dates view).") var reason: String?
    @Flag(name: .long, help: "Remove the skips of these dates instead.") var remove = false
    @Flag(name: .long, help: "List the skipped dates.") var list = false
    @Flag(name: .long, help: "With --list: print a JSON array of {\"local_date\", \"reason\"} (the skipped_dates view's names).") var json = false

    func run(_ ctx: RunContext) throws {
        let options = SkipCommand.Options(
            db: common.db, now: common.now, dates: dates, reason: reason, remove: remove,
            list: list, json: json)
        switch try SkipCommand.run(ctx, options) {
        case .listed(let rows):
            SkipListReport(rows: rows).print(json: json, to: ctx.output)
        case .removed(let removed, let added):
            ctx.output.line("removed \(removed) skip\(removed == 1 ? "" : "s"); \(added) study reminders planned")
        case .skipped(let dates, let retired):
            ctx.output.line("skipped \(dates) date\(dates == 1 ? "" : "s"); \(retired) pending study reminder\(retired == 1 ? "" : "s") retired")
        }
    }
}

/// The dates skipped now.
struct SkipListReport: Report {
    let rows: [(date: String, reason: String?)]

    /// The skipped_dates view's names; `date` is the name this printed before (deprecated: docs/guide.md).
    var json: JSON { .array(rows.map { .object([("local_date", .string($0.date)), ("reason", .text($0.reason)), ("date", .string($0.date))]) }) }

    var text: String {
        rows.isEmpty ? "no skipped dates" : Formatting.table([["DATE", "REASON"]] + rows.map { [$0.date, $0.reason ?? ""] })
    }
}
