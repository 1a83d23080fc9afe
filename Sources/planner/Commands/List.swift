import ArgumentParser
import PlannerCommands
import PlannerCore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the pending requests, soonest first.",
        discussion: "Times are shown in the plan's zone (the zone setting, see planner config). --json prints an array of objects.")

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print a JSON array: id, fire_at (RFC 3339 with the zone's offset), fire_at_utc, state, kind, title, body.")
    var json = false

    func run() throws { try Self.execute(QuickPath.Reading(db: common.db, now: common.now, json: json)) }

    static func execute(_ options: QuickPath.Reading) throws {
        let json = options.json
        let (requests, ctx) = try ReadingCommands.list(.process, db: options.db, now: options.now)
        if json {
            let objects = requests.map { r in
                Formatting.jsonObject([
                    ("id", Formatting.json(r.identifier)),
                    ("fire_at", Formatting.json(ctx.zone.rfc3339(r.fireAt))),
                    ("fire_at_utc", Formatting.json(Zone.utc.rfc3339(r.fireAt).replacingSuffix("+00:00", with: "Z"))),
                    ("state", Formatting.json(r.state)),
                    ("kind", Formatting.json(r.kind.rawValue)),
                    ("title", Formatting.json(r.title)),
                    ("body", Formatting.json(r.body)),
                ])
            }
            print(objects.isEmpty ? "[]" : "[\n  " + objects.joined(separator: ",\n  ") + "\n]")
            return
        }
        guard !requests.isEmpty else {
            print("nothing pending: run 'planner refill' to plan the next study slots")
            return
        }
        let rows =
            [["IDENTIFIER", "FIRE AT (\(ctx.zone.name))", "WHEN", "KIND"]]
            + requests.map {
                [$0.identifier, Formatting.wallTime($0.fireAt, in: ctx.zone), describeRelative($0.fireAt, from: ctx.now), $0.kind.rawValue]
            }
        print(Formatting.table(rows))
        print("\(requests.count)/\(PlanPolicy.cap) pending")
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
