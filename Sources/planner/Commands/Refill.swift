import ArgumentParser
import PlannerCommands
import PlannerCore

struct Refill: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "refill",
        abstract: "Top the plan up to 64 pending requests (for cron; idempotent, silent on success).",
        discussion: """
            Marks requests whose time passed more than the grace period ago as missed, then adds the soonest \
            study slots strictly after now, skipping every date on which the app was opened, until 64 are \
            pending.

            In a crontab:  */15 * * * * $HOME/.local/bin/planner refill
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var change: PlanChangeOptions

    var options: PlanCommandOptions { PlanCommandOptions(common, change) }

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, options) }

    static func execute(_ ctx: RunContext, _ options: PlanCommandOptions) throws {
        let (decision, plan) = try RefillCommand.run(ctx, options)
        if options.verbose { ctx.output.line(Summary.refill(decision, ctx: plan)) }
    }
}

enum Summary {
    static func refill(_ d: RefillDecision, ctx: CommandContext) -> String {
        var parts = ["added \(d.added.count)"]
        if !d.missed.isEmpty { parts.append("\(d.missed.count) missed") }
        if !d.displaced.isEmpty { parts.append("\(d.displaced.count) displaced") }
        for (state, count) in Dictionary(grouping: d.retired, by: \.state).map({ ($0.key, $0.value.count) }).sorted(by: {
            $0.0.rawValue < $1.0.rawValue
        }) {
            parts.append("\(count) \(state.rawValue)")
        }
        if let first = d.added.first, let last = d.added.last {
            parts.append("new slots from \(Formatting.wallTime(first.fireAt, in: ctx.zone)) to \(Formatting.wallTime(last.fireAt, in: ctx.zone))")
        }
        return "refill: " + parts.joined(separator: ", ")
    }
}
