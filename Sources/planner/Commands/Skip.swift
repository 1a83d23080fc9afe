import ArgumentParser
import PlannerCore
import PlannerStore

/// `planner skip`: days off (holidays, a trip). No study slot on a skipped date; removing the skip brings
/// back the ones still ahead.
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip",
        abstract: "Skip dates (no study reminders that day), remove skips, or list them.",
        discussion: """
            DATE is YYYY-MM-DD in the plan's zone; DATE..DATE is an inclusive range. Pending study slots on \
            skipped dates are retired as `skipped`; one-off requests are kept.
              planner skip 2026-12-24..2026-12-26 --reason holidays
              planner skip --remove 2026-12-26
              planner skip --list
            """)

    @OptionGroup var common: CommonOptions
    @Argument(help: ArgumentHelp("A date or an inclusive range of dates.", valueName: "date[..date]")) var dates: String?
    @Option(name: .long, help: "Why (shown by --list and the skipped_dates view).") var reason: String?
    @Flag(name: .long, help: "Remove the skips of these dates instead.") var remove = false
    @Flag(name: .long, help: "List the skipped dates.") var list = false
    @Flag(name: .long, help: "With --list: print a JSON array of {\"date\", \"reason\"}.") var json = false

    static let maxDays = 3_660

    func run() throws {
        if list {
            guard dates == nil, !remove, reason == nil else { throw PlannerError.usage("--list takes no dates, --remove or --reason") }
            let rows = try common.readingContext().database.skippedDates()
            if json {
                print("[" + rows.map { Formatting.jsonObject([("date", Formatting.json($0.date)), ("reason", $0.reason.map(Formatting.json) ?? "null")]) }
                    .joined(separator: ", ") + "]")
            } else if rows.isEmpty {
                print("no skipped dates")
            } else {
                print(Formatting.table([["DATE", "REASON"]] + rows.map { [$0.date, $0.reason ?? ""] }))
            }
            return
        }
        guard let dates else { throw PlannerError.usage("give a date (YYYY-MM-DD) or a range (DATE..DATE), or --list") }
        if json { throw PlannerError.usage("--json goes with --list") }
        if remove, reason != nil { throw PlannerError.usage("--reason goes with a new skip, not --remove") }
        if let reason, let problem = SettingKey.body.problem(reason) { throw PlannerError.usage("invalid --reason: \(problem)") }
        let range = try Self.parse(dates)
        let ctx = try common.context()
        if remove {
            let (removed, decision) = try ctx.database.unskip(range, now: ctx.now)
            print("removed \(removed) skip\(removed == 1 ? "" : "s"); \(decision.added.count) study reminders planned")
        } else {
            let decision = try ctx.database.skip(range, reason: reason, now: ctx.now)
            let retired = decision.retired.filter { $0.state == .skipped }.count
            print("skipped \(range.count) date\(range.count == 1 ? "" : "s"); \(retired) pending study reminder\(retired == 1 ? "" : "s") retired")
        }
    }

    /// `DATE` or `DATE..DATE` (inclusive, not backwards, at most `maxDays` days).
    static func parse(_ text: String) throws(PlannerError) -> [LocalDate] {
        let ends = text.components(separatedBy: "..")
        let dates = ends.compactMap { LocalDate(iso: $0) }
        guard (1...2).contains(ends.count), dates.count == ends.count, dates.allSatisfy({ (1970...9990).contains($0.year) }) else {
            throw .usage("invalid date \(TerminalText.quoted(text)): expected YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD")
        }
        let first = dates[0], last = dates[dates.count - 1]
        guard first <= last else { throw .usage("the range \(text) runs backwards: give the earlier date first") }
        let count = Int(last.dayNumber - first.dayNumber) + 1
        guard count <= maxDays else { throw .usage("the range \(text) has \(count) days: at most \(maxDays) at once") }
        return (0..<count).map { first.adding(days: $0) }
    }
}
