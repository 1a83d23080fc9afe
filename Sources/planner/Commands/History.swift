import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerStore

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show what happened: reminders delivered (with lateness), answered, missed, failed (with the error), and the opens.",
        discussion: """
            Most recent first. --all adds the plan's own bookkeeping: requests cancelled by an open, displaced \
            beyond the 64, replaced, skipped, paused or retired when the plan changed (one change of interval \
            can leave a hundred of these). --json prints the same rows as the text, each with "bookkeeping": true or false \
            and "device": the other device an answer or open came from (its name, else its id), or null for this one. \
            The same rows are in the request_history, delivered_notifications and notification_actions views, \
            and the opens in app_open.
            """)

    @OptionGroup var common: CommonOptions
    // `.unconditional`: "--limit -5" is refused by validate(), not as a "missing value".
    @Option(name: .long, parsing: .unconditional, help: "How many entries to show.") var limit: Int = 20
    @Flag(name: .long, help: "Show the plan's bookkeeping too (cancelled, displaced, replaced, skipped, paused, retired).") var all = false
    @Flag(name: .long, help: "Print a JSON array (the same rows: with --all, the bookkeeping too).") var json = false

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let (entries, bookkeeping, ctx) = try ReadingCommands.history(.process, db: common.db, now: common.now, limit: limit, all: all)
        func lateness(_ e: HistoryEntry) -> Int64? { e.deliveredAt.map { $0 - e.fireAt } }
        if json {
            let objects = entries.map { e in
                Formatting.jsonObject([
                    ("id", Formatting.json(e.identifier)),
                    ("fire_at", Formatting.json(ctx.zone.rfc3339(e.fireAt))),
                    ("state", Formatting.json(e.state)),
                    ("kind", Formatting.json(e.isOpen ? "open" : e.kind.rawValue)),
                    ("changed_at", Formatting.json(ctx.zone.rfc3339(e.changedAt))),
                    ("delivered_at", e.deliveredAt.map { Formatting.json(ctx.zone.rfc3339($0)) } ?? "null"),
                    ("lateness_ms", lateness(e).map(String.init) ?? "null"),
                    ("reason", e.reason.map(Formatting.json) ?? "null"),
                    ("error", e.error.map(Formatting.json) ?? "null"),
                    ("bookkeeping", e.happenedToTheUser ? "false" : "true"),
                    ("device", e.device.map(Formatting.json) ?? "null"),
                ])
            }
            print(objects.isEmpty ? "[]" : "[\n  " + objects.joined(separator: ",\n  ") + "\n]")
            return
        }
        let hidden =
            bookkeeping > 0
            ? "\(bookkeeping) bookkeeping row\(bookkeeping == 1 ? "" : "s") (cancelled, displaced, retired …) not shown: planner history --all"
            : nil
        guard !entries.isEmpty else {
            print(hidden.map { "nothing happened yet; \($0)" } ?? "no history yet")
            return
        }
        let rows =
            [["IDENTIFIER", "AT (\(ctx.zone.name))", "STATE", "DETAIL"]]
            + entries.map { e in
                var detail = e.reason ?? ""
                if let late = lateness(e) { detail = "\(late) ms late" }
                if let error = e.error { detail = error }
                // Made on another device: an open says who opened where, an answer how and where.
                let elsewhere = e.device.map { " on " + $0 } ?? ""
                return [
                    e.isOpen ? History.openedBy(e.identifier) + elsewhere : e.identifier, Formatting.wallTime(e.fireAt, in: ctx.zone),
                    e.state, e.isOpen ? detail : detail + elsewhere,
                ]
            }
        print(Formatting.table(rows))
        if let hidden { print(hidden) }
    }

    /// What an open's origin was, as the user knows it.
    static func openedBy(_ origin: String) -> String {
        switch origin {
        case "open", "study": "planner \(origin)"
        case "answer": "Start studying (answer)"
        default: origin
        }
    }
}
