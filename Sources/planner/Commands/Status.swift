import ArgumentParser
import PlannerCore

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the next reminder, how many are pending, whether the app was opened today, the last refill.")

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print a JSON object instead of text.") var json = false

    func run() throws {
        let ctx = try common.readingContext()
        let s = try ctx.database.status(now: ctx.now, zone: ctx.zone)
        if json {
            func time(_ i: Instant?) -> String { i.map { Formatting.json(ctx.zone.rfc3339($0)) } ?? "null" }
            print(Formatting.jsonObject([
                ("now", time(ctx.now)),
                ("zone", Formatting.json(ctx.zone.name)),
                ("database", Formatting.json(ctx.database.path)),
                ("next_id", s.next.map { Formatting.json($0.identifier) } ?? "null"),
                ("next_fire_at", time(s.next?.fireAt)),
                ("pending", String(s.pendingCount)),
                ("cap", String(PlanPolicy.cap)),
                ("opened_today", s.firstOpenToday == nil ? "false" : "true"),
                ("first_open_today", time(s.firstOpenToday)),
                ("last_refill", time(s.lastRefill)),
            ]))
            return
        }
        let next = s.next.map {
            "\($0.identifier) at \(Formatting.wallTime($0.fireAt, in: ctx.zone)) (\(describeRelative($0.fireAt, from: ctx.now)))"
        } ?? "nothing pending (run 'planner refill')"
        let opened = s.firstOpenToday.map {
            "yes, first at \(Formatting.wallTime($0, in: ctx.zone))" + (s.opensToday > 1 ? " (\(s.opensToday) times)" : "")
        } ?? "not today"
        let refilled = s.lastRefill.map {
            "\(Formatting.wallTime($0, in: ctx.zone)) (\(describeRelative($0, from: ctx.now)))"
        } ?? "never (run 'planner refill')"
        print(Formatting.table([
            ["next", next],
            ["pending", "\(s.pendingCount)/\(PlanPolicy.cap)"],
            ["opened", opened],
            ["refilled", refilled],
            ["zone", ctx.zone.name],
            ["database", ctx.database.path],
        ]))
    }
}
