import ArgumentParser
import PlannerCommands

/// `planner pause`: no study reminder pending or delivered for a while (ill, on holiday); one-offs stay.
struct Pause: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause study reminders until a date or time, for a while, or until 'planner resume'.",
        discussion: """
            Pending study slots in the pause are retired as `paused` (one-off requests are kept). --until \
            2026-12-01 means until 00:00 that day in the plan's zone; after it the plan resumes by itself at \
            the next refill, open or ticker wake-up. A new pause replaces the one in force. See it in \
            `planner status` and the `pauses` view.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, help: ArgumentHelp("Until this date (YYYY-MM-DD, 00:00 that day) or time (as --now).", valueName: "date|time"))
    var until: String?
    @Option(name: .customLong("for"), help: ArgumentHelp("For this long (e.g. 3d, 12h, 90m).", valueName: "duration"))
    var duration: String?

    func validate() throws {
        if until != nil && duration != nil { throw ValidationError("give --until or --for, not both") }
    }

    func run(_ ctx: RunContext) throws {
        let paused = try PauseCommand.run(ctx, db: common.db, now: common.now, until: until, duration: duration)
        let zone = paused.context.zone
        ctx.output.line(
            "paused " + (paused.end.map { "until \(Formatting.wallTime($0, in: zone))" } ?? "until 'planner resume'")
                + "; \(paused.retired) pending study reminder\(paused.retired == 1 ? "" : "s") retired")
    }
}

/// `planner resume`: ends the pause; the slots still ahead come back at once.
struct Resume: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "End the pause in force: study reminders still ahead are planned again at once.")

    @OptionGroup var common: CommonOptions

    func run(_ ctx: RunContext) throws {
        let (ended, added) = try PauseCommand.resume(ctx, db: common.db, now: common.now)
        ctx.output.line(ended ? "resumed; \(added) study reminders planned" : "not paused; nothing to resume")
    }
}
