import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

struct List: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the pending requests, soonest first.",
        discussion: "Times are shown in the plan's zone (the zone setting, see planner config). --json prints an array of objects.")

    @OptionGroup var common: CommonOptions
    @Flag(
        name: .long,
        help:
            "Print a JSON array with the pending_requests view's names: identifier, fire_at (UTC), fire_at_local (the zone's offset), kind, state, title, body."
    )
    var json = false

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, QuickPath.Reading(db: common.db, now: common.now, json: json)) }

    static func execute(_ ctx: RunContext, _ options: QuickPath.Reading) throws {
        let (requests, plan) = try ReadingCommands.list(ctx, db: options.db, now: options.now)
        // Measurement mode: the slots it will hold back are pending like the others, and said so.
        var withheld: Set<String> = []
        if plan.settings.experiment {
            let settings = plan.settings.usualTime ? try plan.database.planSettings(at: plan.now).settings : plan.settings
            withheld = Set(requests.filter { MeasurementMode.withholds(identifier: $0.identifier, kind: $0.kind, plan: settings) }.map(\.identifier))
        }
        ListReport(requests: requests, zone: plan.zone, now: plan.now, withheld: withheld).print(json: options.json, to: ctx.output)
    }
}

/// The pending requests, soonest first.
struct ListReport: Report {
    let requests: [StoredRequest]
    let zone: Zone
    let now: Instant
    /// Those measurement mode will hold back at their time (`MeasurementMode`).
    var withheld: Set<String> = []

    var json: JSON {
        .array(
            requests.map { r in
                // The names and values of the pending_requests view; `id` and `fire_at_utc` are the names
                // this printed before (deprecated: docs/guide.md).
                .object([
                    ("identifier", .string(r.identifier)),
                    ("fire_at", .utc(r.fireAt)),
                    ("fire_at_local", .time(r.fireAt, in: zone)),
                    ("kind", .string(r.kind.rawValue)),
                    ("state", .string(r.state)),
                    ("title", .string(r.title)),
                    ("body", .string(r.body)),
                    ("id", .string(r.identifier)),
                    ("fire_at_utc", .utc(r.fireAt)),
                ])
            })
    }

    var text: String {
        guard !requests.isEmpty else { return "nothing pending: run 'planner refill' to plan the next study slots" }
        let rows =
            [["IDENTIFIER", "FIRE AT (\(zone.name))", "WHEN", "KIND"]]
            + requests.map {
                [
                    $0.identifier, Formatting.wallTime($0.fireAt, in: zone), describeRelative($0.fireAt, from: now),
                    $0.kind.rawValue + (withheld.contains($0.identifier) ? " (withheld: measurement mode)" : ""),
                ]
            }
        return Formatting.table(rows) + "\n\(requests.count)/\(PlanPolicy.cap) pending"
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
