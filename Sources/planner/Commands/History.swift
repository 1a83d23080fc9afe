import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

struct History: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show what happened: reminders delivered (with lateness), answered, missed, failed (with the error), and the opens.",
        discussion: """
            Most recent first. --all adds the plan's own bookkeeping: requests cancelled by an open, displaced \
            beyond the 64, replaced, skipped, paused or retired when the plan changed (one change of interval \
            can leave a hundred of these). --json prints the same rows as the text with the views' names (identifier, fire_at and changed_at and \
            delivered_at in UTC, fire_at_local, kind, state, reason, error, lateness_ms), each with "bookkeeping": true or false \
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

    func run(_ ctx: RunContext) throws {
        // The text groups reminders missed together (one line), so it reads more rows for its `limit` lines:
        // again, with more, until it has them or there are no more rows (each group holds at most a day's 64).
        var rows = json ? limit : min(limit, Int.max / 2) + Self.groupedRowsAhead
        var (entries, bookkeeping, plan) = try ReadingCommands.history(ctx, db: common.db, now: common.now, limit: rows, all: all)
        while !json, entries.count == rows, HistoryReport.grouped(entries).count <= limit, rows < Int.max / 4 {
            rows *= 4
            (entries, bookkeeping, plan) = try ReadingCommands.history(ctx, db: common.db, now: common.now, limit: rows, all: all)
        }
        HistoryReport(entries: entries, bookkeeping: bookkeeping, zone: plan.zone, lines: json ? nil : limit).print(json: json, to: ctx.output)
    }

    /// Rows read beyond `--limit` for the text's groups (a day's reminders missed together: up to 64).
    static let groupedRowsAhead = 256

    /// What an open's origin was, as the user knows it.
    static func openedBy(_ origin: String) -> String {
        switch origin {
        case "open", "study": "planner \(origin)"
        case "answer": "Start studying (answer)"
        default: origin
        }
    }
}

/// What happened, newest first, and how many bookkeeping rows were left out.
struct HistoryReport: Report {
    let entries: [HistoryEntry]
    let bookkeeping: Int
    let zone: Zone
    /// The text's lines at most (entries grouped first); nil: every entry.
    var lines: Int? = nil

    static func lateness(_ e: HistoryEntry) -> Int64? { e.deliveredAt.map { $0 - e.fireAt } }

    var json: JSON {
        .array(
            entries.map { e in
                // The names and values of the request_history and delivered_notifications views, then what
                // only this says; `id` is the name this printed before (deprecated: docs/guide.md).
                .object([
                    ("identifier", .string(e.identifier)),
                    ("fire_at", .utc(e.fireAt)),
                    ("fire_at_local", .time(e.fireAt, in: zone)),
                    ("kind", .string(e.change ?? (e.isOpen ? "open" : e.kind.rawValue))),
                    ("state", .string(e.state)),
                    ("reason", .text(e.reason)),
                    ("changed_at", .utc(e.changedAt)),
                    ("error", .text(e.error)),
                    ("delivered_at", .utcMilliseconds(e.deliveredAt)),
                    ("lateness_ms", Self.lateness(e).map(JSON.int) ?? .null),
                    ("bookkeeping", .bool(!e.happenedToTheUser)),
                    ("device", .text(e.device)),
                    ("id", .string(e.identifier)),
                ])
            })
    }

    var text: String {
        let hidden =
            bookkeeping > 0
            ? "\(bookkeeping) bookkeeping row\(bookkeeping == 1 ? "" : "s") (cancelled, displaced, retired …) not shown: planner history --all"
            : nil
        guard !entries.isEmpty else { return hidden.map { "nothing happened yet; \($0)" } ?? "no history yet" }
        let rows =
            [["IDENTIFIER", "AT (\(zone.name))", "STATE", "DETAIL"]]
            + Self.grouped(entries).prefix(lines ?? .max).map { group in
                let e = group[0]
                if group.count > 1 {
                    // Reminders missed at once for one reason (a change of zone, window or interval retires a
                    // day's worth): one line, with the times they were due.
                    let times = group.map(\.fireAt)
                    return [
                        "\(group.count) reminders",
                        Formatting.wallTime(times.min()!, in: zone) + " … " + Formatting.wallTime(times.max()!, in: zone),
                        e.state, e.reason ?? "",
                    ]
                }
                var detail = e.reason ?? ""
                if let late = Self.lateness(e) { detail = "\(late) ms late" }
                if let error = e.error { detail = error }
                if e.change == "pause" { detail = e.until.map { "until " + Formatting.wallTime($0, in: zone) } ?? "until planner resume" }
                // Made on another device: an open says who opened where, an answer how and where.
                let elsewhere = e.device.map { " on " + $0 } ?? ""
                let what = e.isOpen ? History.openedBy(e.identifier) + elsewhere : e.change.map { "planner " + $0 + elsewhere } ?? e.identifier
                return [what, Formatting.wallTime(e.fireAt, in: zone), e.state, e.isOpen || e.change != nil ? detail : detail + elsewhere]
            }
        return Formatting.table(rows) + (hidden.map { "\n" + $0 } ?? "")
    }

    /// Consecutive missed reminders with one reason and one instant are one group; every other entry is alone.
    static func grouped(_ entries: [HistoryEntry]) -> [[HistoryEntry]] {
        var groups: [[HistoryEntry]] = []
        for e in entries {
            if let last = groups.last?.last, e.state == "missed", last.state == "missed", !e.isOpen, !last.isOpen,
                e.reason == last.reason, e.changedAt == last.changedAt, e.device == last.device
            {
                groups[groups.count - 1].append(e)
            } else {
                groups.append([e])
            }
        }
        return groups
    }
}
