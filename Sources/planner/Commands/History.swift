import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerStore

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show what happened to requests: delivered (with lateness), missed, failed (with the error), cancelled, answered …",
        discussion: "Most recent first. The same rows are in the request_history, delivered_notifications and notification_actions views.")

    @OptionGroup var common: CommonOptions
    // `.unconditional`: "--limit -5" is refused by validate(), not as a "missing value".
    @Option(name: .long, parsing: .unconditional, help: "How many entries to show.") var limit: Int = 20
    @Flag(name: .long, help: "Print a JSON array.") var json = false

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let (entries, ctx) = try ReadingCommands.history(.process, db: common.db, now: common.now, limit: limit)
        func lateness(_ e: HistoryEntry) -> Int64? { e.deliveredAt.map { $0 - e.fireAt } }
        if json {
            let objects = entries.map { e in
                Formatting.jsonObject([
                    ("id", Formatting.json(e.identifier)),
                    ("fire_at", Formatting.json(ctx.zone.rfc3339(e.fireAt))),
                    ("state", Formatting.json(e.state)),
                    ("kind", Formatting.json(e.kind.rawValue)),
                    ("changed_at", Formatting.json(ctx.zone.rfc3339(e.changedAt))),
                    ("delivered_at", e.deliveredAt.map { Formatting.json(ctx.zone.rfc3339($0)) } ?? "null"),
                    ("lateness_ms", lateness(e).map(String.init) ?? "null"),
                    ("reason", e.reason.map(Formatting.json) ?? "null"),
                    ("error", e.error.map(Formatting.json) ?? "null"),
                ])
            }
            print(objects.isEmpty ? "[]" : "[\n  " + objects.joined(separator: ",\n  ") + "\n]")
            return
        }
        guard !entries.isEmpty else {
            print("no history yet")
            return
        }
        let rows = [["IDENTIFIER", "FIRE AT (\(ctx.zone.name))", "STATE", "DETAIL"]] + entries.map { e in
            var detail = e.reason ?? ""
            if let late = lateness(e) { detail = "\(late) ms late" }
            if let error = e.error { detail = error }
            return [e.identifier, Formatting.wallTime(e.fireAt, in: ctx.zone), e.state, detail]
        }
        print(Formatting.table(rows))
    }
}
