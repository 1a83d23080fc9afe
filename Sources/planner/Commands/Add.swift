import ArgumentParser
import PlannerCommands
import PlannerCore

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a one-off request at a time or after a delay (a reminder, a snooze).",
        discussion: """
            A request with the same --id replaces the pending one. One-offs count toward the 64 and the \
            soonest 64 win: a one-off sooner than the last pending study slot pushes that slot out (a later \
            refill brings it back); one later than 64 sooner requests waits until a refill lets it in. \
            `planner open` never cancels one-offs.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, help: ArgumentHelp("When, as for --now: 2026-11-23T18:00, 2026-11-23T09:00:00.5Z …", valueName: "time"))
    var at: String?
    // `.unconditional`: a value may start with '-' ("-5 push-ups", or "-5m", refused below with a reason
    // instead of ArgumentParser's "missing value").
    @Option(name: .customLong("in"), parsing: .unconditional, help: ArgumentHelp("After this long from now: 90s, 15m, 2h, 1d.", valueName: "duration"))
    var delay: String?
    @Option(name: .long, parsing: .unconditional, help: "The notification's title.") var title: String
    @Option(name: .long, parsing: .unconditional, help: "The notification's body.") var body: String = ""
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
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

    func run() throws { try Self.execute(options) }

    /// Runs a validated add (ArgumentParser's `validate()`, or `QuickPath`, which accepts only what passes it).
    static func execute(_ options: QuickPath.AddOptions) throws {
        let (at, delay, title, body, id) = (options.at, options.delay, options.title, options.body, options.id)
        // Every value is checked before the database is opened: a refused add creates no file.
        let setting = try RunContext.process.resolveSetting(db: options.db, now: options.now)
        let fireAt = try Self.fireAt(at: at, delay: delay, now: setting.now, zone: setting.zone)
        let ctx = try setting.open()
        let local = ctx.zone.local(fireAt)
        let defaultID = "Noti_Reminder_\(local.date.year)_\(pad(local.date.month, 2))_\(pad(local.date.day, 2))_"
            + "\(pad(local.hour, 2))_\(pad(local.minute, 2))_\(pad(local.second, 2))"
        let (identifier, decision) = try ctx.database.add(
            NewRequest(identifier: id ?? defaultID, fireAt: fireAt, title: title, body: body),
            makeUnique: id == nil, now: ctx.now, zone: ctx.zone)
        var line = "\(decision.replaced == nil ? "added" : "replaced") \(identifier) for \(Formatting.wallTime(fireAt, in: ctx.zone)) (\(describeRelative(fireAt, from: ctx.now)))"
        if !decision.pending { line += "; waiting: 64 sooner requests are pending" }
        if !decision.displaced.isEmpty { line += "; pushed out \(decision.displaced.map(\.identifier).joined(separator: ", "))" }
        print(TerminalText.flattened(line))
    }

    /// The instant `--at TIME` or `--in DURATION` names: in the future and within the supported years.
    static func fireAt(at: String?, delay: String?, now: Instant, zone: Zone) throws(PlannerError) -> Instant {
        let fireAt: Instant
        if let delay {
            guard let ms = parseDuration(delay), ms > 0 else {
                if delay.hasPrefix("-") {
                    throw .usage("invalid --in \(TerminalText.quoted(delay)): a delay cannot be negative; give a positive duration such as 90s, 15m or 2h, or a time with --at")
                }
                throw .usage("invalid --in \(TerminalText.quoted(delay)): expected a positive duration such as 90s, 15m or 2h")
            }
            fireAt = now + ms
        } else {
            let at = at!
            do { fireAt = try parseTime(at, in: zone) } catch { throw .usage("--at: \(error.message)") }
            guard fireAt > now else {
                throw .usage("--at \(at) is not in the future (now is \(zone.rfc3339(now)))")
            }
        }
        // Stored as a 4-digit local date, with room for the plan's two years ahead: the same limit as
        // --now, applied in the planner's zone (an --at with an offset can cross into the next year).
        guard zone.local(fireAt).date.year <= supportedYears.upperBound else {
            let given = delay.map { "--in \(TerminalText.quoted($0))" } ?? "--at \(TerminalText.quoted(at ?? ""))"
            throw .usage("invalid \(given): that is after the year \(supportedYears.upperBound) in \(zone.name); give an earlier time")
        }
        return fireAt
    }
}
