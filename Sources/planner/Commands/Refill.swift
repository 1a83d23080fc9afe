import ArgumentParser
import PlannerCore

struct Refill: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Top the plan up to 64 pending requests (for cron; idempotent, silent on success).",
        discussion: """
            Marks requests whose time passed more than the grace period ago as missed, then adds the soonest \
            study slots strictly after now, skipping every date on which the app was opened, until 64 are \
            pending.

            In a crontab:  */15 * * * * $HOME/.local/bin/planner refill
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var grace: GraceOption
    @Flag(name: .long, help: "Say what changed.") var verbose = false

    func run() throws {
        let policy = try grace.policy()
        let ctx = try common.context()
        let decision = try ctx.database.refill(now: ctx.now, zone: ctx.zone, policy: policy)
        if verbose { print(Summary.refill(decision, ctx: ctx)) }
    }
}

enum Summary {
    static func refill(_ d: RefillDecision, ctx: CommandContext) -> String {
        var parts = ["added \(d.added.count)"]
        if !d.missed.isEmpty { parts.append("\(d.missed.count) missed") }
        if !d.displaced.isEmpty { parts.append("\(d.displaced.count) displaced") }
        if let first = d.added.first, let last = d.added.last {
            parts.append("new slots from \(Formatting.wallTime(first.fireAt, in: ctx.zone)) to \(Formatting.wallTime(last.fireAt, in: ctx.zone))")
        }
        return "refill: " + parts.joined(separator: ", ")
    }
}
