import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

/// `planner status`: the plan at a glance, as a value the binary prints as a table or JSON.
public struct StatusReport {
    public var now: Instant
    /// The plan's zone.
    public var zone: Zone
    public var databasePath: String
    public var status: PlanStatus
    /// The inbox beside the database, when there is one.
    public var inbox: InboxSummary?
    /// TZ as this command found it (nil: unset, or empty), and the zone it stands for (TZ's, else the
    /// system's): status tells an unset TZ from one set to the same zone.
    public var environmentTZ: String?
    public var environmentZone: String
    /// Whether the system zone comes from /etc/localtime (else it is UTC: there is no such file).
    public var hasLocaltimeFile: Bool
    /// TZ when it names another zone than the plan's (the plan keeps its own: a note says how to move it).
    public var otherEnvironmentZone: String?
    /// The sync folder (nil: this device does not sync) and what keeps other devices' changes from arriving.
    public var syncFolder: String?
    public var syncProblems: [String] = []
    /// The calendar folder (nil: none) and the files in it the planner ignores.
    public var calendarFolder: String?
    public var calendarProblems: [String] = []
    /// The calendar job's last round (nil: none recorded, or no calendar folder).
    public var calendarRound: CalendarRound?
    /// Anki's collection (nil: none set) and why its last read failed (nil: it worked, or not read yet).
    public var ankiCollection: String?
    public var ankiProblem: String?
    /// When Anki last synced the collection (nil: never, or not read yet) and its latest review: a review
    /// made on the phone is here only once Anki on this computer synced.
    public var ankiSynced: Instant?
    public var ankiLastReview: Instant?
    /// The `usual-time` schedule's decision for today, in words (nil: the grid schedule).
    public var usualTime: String?
    /// Whether the collection has been read (its freshness is known).
    public var ankiRead = false
}

/// What waits in the inbox: opens saved while the database was held are recorded by the next write, and
/// files the inbox will not apply stay there until someone removes them.
public struct InboxSummary: Equatable {
    public var folder: String
    public var opensWaiting: Int
    /// Changes other than opens (a skip, a pause, a setting) waiting to be applied.
    public var othersWaiting: Int
    /// The earliest waiting open taken today in the plan's zone.
    public var firstOpenTodayWaiting: Instant?
    public var setAside: Int
    public var ignored: Int

    public init(_ report: Inbox.Report, today: LocalDate, schedule: Schedule, zone: Zone) {
        let opens = report.waiting.filter { if case .open = $0.change { true } else { false } }
        folder = report.folder
        opensWaiting = opens.count
        othersWaiting = report.waiting.count - opens.count
        firstOpenTodayWaiting = opens.filter { schedule.studyDay(at: $0.at, in: zone) == today }.map(\.at).min()
        setAside = report.setAside
        ignored = report.ignored
    }
}

public enum StatusCommand {
    public static func run(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> StatusReport {
        let setting = try ctx.resolveSetting(db: db, now: now)
        let database = try PlannerDatabase(
            path: setting.path, forWriting: false, zoneForNewPlan: setting.zoneForNewPlan, warnings: setting.warnings,
            folderTiming: setting.folderTiming)
        // One read transaction: the settings, the plan, the folders' problems and Anki's from one moment.
        return try database.snapshot { () throws(PlannerError) -> StatusReport in try report(setting, setting.context(database)) }
    }

    private static func report(_ setting: CommandSetting, _ context: CommandContext) throws(PlannerError) -> StatusReport {
        // The usual-time schedule's decision too: which slot is the day's first (measurement mode) depends on it.
        let settings = context.settings.usualTime ? try context.database.planSettings(at: context.now).settings : context.settings
        let status = try context.database.status(now: context.now, zone: context.zone, plan: settings)
        let schedule = context.settings.schedule
        let inbox = Inbox.report(resolvedPath: context.database.resolvedPath)
            .map { InboxSummary($0, today: status.today, schedule: schedule, zone: context.zone) }
        let tz = setting.zoneForNewPlan.flatMap { $0 == context.zone.name ? nil : $0 }
        let sync = try context.database.syncProblems()
        let environmentTZ = setting.environmentTZ.flatMap { $0.isEmpty ? nil : $0 }
        let calendar = try context.database.calendarProblems()
        let round = calendar.folder == nil ? nil : CalendarRoundFile.read(database: context.database.resolvedPath)
        // A failing job is a calendar problem like any other, with what to do.
        let roundProblem = round.flatMap { r in
            r.failure.map { failure in
                "the calendar job's last round, at \(minuteText(r.at, context.zone)), failed\(r.failingSince.map { $0 < r.at ? " (failing since \(minuteText($0, context.zone)))" : "" } ?? ""): \(failure); \(CalendarRound.advice(failure))"
            }
        }
        let anki = context.settings.ankiCollection
        let fresh = try context.database.ankiFreshness(collection: anki)
        return StatusReport(
            now: context.now, zone: context.zone, databasePath: context.database.path, status: status,
            inbox: inbox, environmentTZ: environmentTZ, environmentZone: setting.zone.name,
            hasLocaltimeFile: SystemZone.hasLocaltimeFile, otherEnvironmentZone: tz,
            syncFolder: sync.folder, syncProblems: sync.problems,
            calendarFolder: calendar.folder, calendarProblems: calendar.problems + (roundProblem.map { [$0] } ?? []), calendarRound: round,
            ankiCollection: anki.isEmpty ? nil : anki, ankiProblem: try context.database.ankiProblem(collection: anki),
            ankiSynced: fresh.synced, ankiLastReview: fresh.lastReview,
            usualTime: settings.usualTime ? settings.schedule.usual?.decision.why : nil,
            ankiRead: try context.database.ankiWasRead(collection: anki))
    }

    /// `2026-12-07 09:31`, in the plan's zone.
    static func minuteText(_ instant: Instant, _ zone: Zone) -> String {
        let l = zone.local(instant)
        return "\(l.date) \(l.hour < 10 ? "0" : "")\(l.hour):\(l.minute < 10 ? "0" : "")\(l.minute)"
    }
}
