import ArgumentParser
import PlannerCore
import PlannerStore

/// `planner pause`: no study reminder pending or delivered for a while (ill, on holiday); one-offs stay.
struct Pause: ParsableCommand {
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

    func run() throws {
        let setting = try common.setting()
        // Checked before the database is opened; placed in the plan's zone after.
        if let until, let date = LocalDate(iso: until), !(1970...9990).contains(date.year) {
            throw PlannerError.usage("invalid --until \(TerminalText.quoted(until)): years 1970-9990 only")
        }
        if let until, LocalDate(iso: until) == nil {
            do { _ = try parseTime(until, in: setting.zone) } catch {
                throw PlannerError.usage("invalid --until \(TerminalText.quoted(until)): expected a date YYYY-MM-DD or a time such as 2026-12-01T08:00")
            }
        }
        var forMilliseconds: Int64?
        if let duration {
            guard let ms = parseDuration(duration), ms > 0, ms <= 3_660 * 86_400_000 else {
                throw PlannerError.usage("invalid --for \(TerminalText.quoted(duration)): expected a duration such as 90m, 12h or 3d (at most 3660d)")
            }
            forMilliseconds = ms
        }
        let ctx = try setting.open()
        var end: Instant?
        if let until {
            if let date = LocalDate(iso: until) {
                end = ctx.zone.instant(for: LocalDateTime(date: date, hour: 0, minute: 0))
                    ?? ctx.zone.instant(for: LocalDateTime(date: date, hour: 1, minute: 0))
            } else {
                end = try parseTime(until, in: ctx.zone)
            }
        } else if let forMilliseconds {
            end = ctx.now + forMilliseconds
        }
        if let end, end <= ctx.now {
            throw PlannerError.usage("--until \(until ?? "") is not in the future (now is \(ctx.zone.rfc3339(ctx.now)))")
        }
        let decision = try ctx.database.pause(now: ctx.now, until: end)
        let paused = decision.retired.filter { $0.state == .paused }.count
        print("paused " + (end.map { "until \(Formatting.wallTime($0, in: ctx.zone))" } ?? "until 'planner resume'")
              + "; \(paused) pending study reminder\(paused == 1 ? "" : "s") retired")
    }
}

/// `planner resume`: ends the pause; the slots still ahead come back at once.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "End the pause in force: study reminders still ahead are planned again at once.")

    @OptionGroup var common: CommonOptions

    func run() throws {
        let ctx = try common.context()
        let (ended, decision) = try ctx.database.resume(now: ctx.now)
        print(ended ? "resumed; \(decision.added.count) study reminders planned" : "not paused; nothing to resume")
    }
}
