import ArgumentParser
import PlannerCommands
import PlannerCore

struct Add: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a one-off request at a time or after a delay (a reminder, a snooze).",
        discussion: """
            A request with the same --id replaces the pending one. One-offs count toward the 64 and the \
            soonest 64 win: a one-off sooner than the last pending study slot pushes that slot out (a later \
            refill brings it back); one later than 64 sooner requests waits until a refill lets it in. \
            `planner open` never cancels one-offs. With a sync folder, the one-off is added on your other \
            devices too (the latest add of an --id wins everywhere); without --id, the identifier is made \
            unique here (a suffix such as _2) and kept as it is there.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, help: ArgumentHelp("When, as for --now: 2026-11-23T18:00, 2026-11-23T09:00:00.5Z …", valueName: "time"))
    var at: String?
    // `.unconditional`: a value may start with '-' ("-5 push-ups", or "-5m", refused below with a reason
    // instead of ArgumentParser's "missing value").
    @Option(
        name: .customLong("in"), parsing: .unconditional, help: ArgumentHelp("After this long from now: 90s, 15m, 2h, 1d.", valueName: "duration"))
    var delay: String?
    @Option(name: .long, parsing: .unconditional, help: "The notification's title.") var title: String
    @Option(name: .long, parsing: .unconditional, help: "The notification's body.") var body: String = ""
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "The identifier, 1 to 200 characters, no control characters; the same one replaces (default: Noti_Reminder_<local time>).",
            valueName: "id"))
    var id: String?

    func validate() throws {
        if (at == nil) == (delay == nil) { throw ValidationError("give exactly one of --at TIME or --in DURATION") }
        if let id, let problem = RequestText.identifierProblem(id) { throw ValidationError(problem) }
        if let problem = RequestText.titleProblem(title) { throw ValidationError(problem) }
        if let problem = RequestText.bodyProblem(body) { throw ValidationError(problem) }
    }

    var options: QuickPath.AddOptions {
        QuickPath.AddOptions(db: common.db, now: common.now, at: at, delay: delay, title: title, body: body, id: id)
    }

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, options) }

    /// Runs a validated add (ArgumentParser's `validate()`, or `QuickPath`, which accepts only what passes it).
    static func execute(_ ctx: RunContext, _ options: QuickPath.AddOptions) throws {
        let added = try AddCommand.run(ctx, options)
        let (decision, plan) = (added.decision, added.context)
        var line =
            "\(decision.replaced == nil ? "added" : "replaced") \(added.identifier) for \(Formatting.wallTime(added.fireAt, in: plan.zone)) (\(describeRelative(added.fireAt, from: plan.now)))"
        if !decision.pending { line += "; waiting: 64 sooner requests are pending" }
        if !decision.displaced.isEmpty { line += "; pushed out \(decision.displaced.map(\.identifier).joined(separator: ", "))" }
        ctx.output.line(TerminalText.flattened(line))
    }
}
