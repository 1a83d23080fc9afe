import PlannerCore
import PlannerFolders
import PlannerStore

/// The commands that only read the plan: what each shows, as values the binary prints (a table, JSON,
/// iCalendar). A database the user cannot write is still shown.
public enum ReadingCommands {
    /// `planner list`: the pending requests, soonest first.
    public static func list(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (requests: [StoredRequest], context: CommandContext)
    {
        let context = try ctx.readingContext(db: db, now: now)
        return (try context.database.pendingRequests(), context)
    }

    /// `planner history`: the last `limit` entries, most recent first: what happened to the user, or with
    /// `all` the bookkeeping too; and how many bookkeeping rows were left out.
    public static func history(
        _ ctx: RunContext, db: String?, now: String?, limit: Int, all: Bool = false
    ) throws(PlannerError)
        -> (entries: [HistoryEntry], bookkeeping: Int, context: CommandContext)
    {
        let context = try ctx.readingContext(db: db, now: now)
        let (entries, bookkeeping) = try context.database.history(limit: limit, all: all)
        return (entries, bookkeeping, context)
    }

    /// `planner plan`: the days ahead, each with its slots or why it has none.
    public static func planAhead(_ ctx: RunContext, db: String?, now: String?, days: Int) throws(PlannerError) -> PlanAheadReport {
        let context = try ctx.readingContext(db: db, now: now)
        let (settings, zone, exclusions) = try context.database.planAheadInput(now: context.now)
        let plan = PlannerCore.planAhead(
            now: context.now, zone: zone, schedule: settings.schedule, exclusions: exclusions, days: days,
            withholding: settings.experiment ? settings : nil)
        return PlanAheadReport(days: plan, settings: settings, zone: zone, now: context.now)
    }

    /// `planner export --ics`: the plan ahead as iCalendar text (CRLF line ends).
    public static func calendar(_ ctx: RunContext, db: String?, now: String?, days: Int, version: String) throws(PlannerError) -> String {
        let report = try planAhead(ctx, db: db, now: now, days: days)
        return ICalendar.render(
            report.days, zone: report.zone, now: report.now,
            content: ICalendar.Content(
                calendarName: "Study reminders (planner)", title: report.settings.title, body: report.settings.body,
                productVersion: version))
    }

    /// `planner stats`: the study record of the last `weeks` whole weeks, Monday first, the last one holding today.
    public static func stats(_ ctx: RunContext, db: String?, now: String?, weeks: Int) throws(PlannerError) -> StatsReport {
        let context = try ctx.readingContext(db: db, now: now)
        let today = context.settings.schedule.studyDay(at: context.now, in: context.zone)
        let firstMonday = today.adding(days: -(today.isoWeekday - 1) - 7 * (weeks - 1))
        let lastSunday = today.adding(days: 7 - today.isoWeekday)
        let (input, _) = try context.database.studyRecordInput(from: firstMonday, through: today)
        let record = studyRecord(from: firstMonday, through: lastSunday, today: today, input: input)
        return StatsReport(record: record, today: today, zone: input.zone)
    }
}

extension ReadingCommands {
    /// `planner stats --nudges`: measurement mode's estimates from this device's record.
    public static func nudges(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> NudgesReport {
        let context = try ctx.readingContext(db: db, now: now)
        let (points, settings) = try context.database.nudgeDecisions()
        return NudgesReport(experiment: settings.experiment, seeded: settings.experimentSeed != nil, estimates: NudgeEffects.estimate(points))
    }
}

public struct NudgesReport {
    /// Measurement mode is on now.
    public var experiment: Bool
    /// It has its seed (the id of the change that turned it on): without, nothing is withheld.
    public var seeded: Bool
    public var estimates: NudgeEffects.Estimates
}

public struct PlanAheadReport {
    public var days: [PlannedDay]
    public var settings: PlanSettings
    /// The plan's zone.
    public var zone: Zone
    public var now: Instant
}

public struct StatsReport {
    public var record: StudyRecord
    public var today: LocalDate
    /// The plan's zone, as the record was read in.
    public var zone: Zone

    /// The days up to today (the record runs to the end of this week).
    public var shown: [StudyDay] { record.days.filter { $0.date <= today } }
}
