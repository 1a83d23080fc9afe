import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner pause` and `planner resume`.
public enum PauseCommand {
    public struct Outcome {
        /// When the pause ends; nil: until `planner resume`.
        public var end: Instant?
        /// Pending study reminders retired as paused.
        public var retired: Int
        public var context: CommandContext
    }

    /// `until`: a date (00:00 that day in the plan's zone) or a time; `duration`: --for.
    public static func run(_ ctx: RunContext, db: String?, now: String?, until: String?, duration: String?) throws(PlannerError) -> Outcome {
        let setting = try ctx.resolveSetting(db: db, now: now)
        // Checked before the database is opened; placed in the plan's zone after.
        if let until, let date = LocalDate(iso: until), !(1970...9990).contains(date.year) {
            throw PlannerError.usage("invalid --until \(TerminalText.quoted(until)): years 1970-9990 only")
        }
        if let until, LocalDate(iso: until) == nil {
            do { _ = try parseTime(until, in: setting.zone) } catch {
                throw PlannerError.usage(
                    "invalid --until \(TerminalText.quoted(until)): expected a date YYYY-MM-DD or a time such as 2026-12-01T08:00")
            }
        }
        var forMilliseconds: Int64?
        if let duration {
            guard let ms = parseDuration(duration), ms > 0, ms <= 3_660 * 86_400_000 else {
                throw PlannerError.usage("invalid --for \(TerminalText.quoted(duration)): expected a duration such as 90m, 12h or 3d (at most 3660d)")
            }
            forMilliseconds = ms
        }
        let context = try setting.open()
        var end: Instant?
        if let until {
            if let date = LocalDate(iso: until) {
                end =
                    context.zone.instant(for: LocalDateTime(date: date, hour: 0, minute: 0))
                    ?? context.zone.instant(for: LocalDateTime(date: date, hour: 1, minute: 0))
            } else {
                end = try parseTime(until, in: context.zone)
            }
        } else if let forMilliseconds {
            end = context.now + forMilliseconds
        }
        if let end, end <= context.now {
            throw PlannerError.usage("--until \(until ?? "") is not in the future (now is \(context.zone.rfc3339(context.now)))")
        }
        let decision = try context.database.pause(now: context.now, until: end)
        return Outcome(end: end, retired: decision.retired.filter { $0.state == .paused }.count, context: context)
    }

    /// Ends the pause in force: whether there was one, and how many study reminders were planned again.
    public static func resume(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (ended: Bool, added: Int) {
        let context = try ctx.commandContext(db: db, now: now)
        let (ended, decision) = try context.database.resume(now: context.now)
        return (ended, decision.added.count)
    }
}
