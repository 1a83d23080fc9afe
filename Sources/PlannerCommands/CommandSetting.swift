import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

extension RunContext {
    /// Resolves zone, clock and path without touching the database. A command checks every value it was
    /// given against this and only then calls `open()`: a refused command creates no file and changes none.
    public func resolveSetting(db: String?, now: String?) throws(PlannerError) -> CommandSetting {
        let tz = environment("TZ")
        let zone = try SystemZone.current(environment: tz)
        let instant: Instant
        if let now {
            instant = try parseTime(now, in: zone, source: "--now")
        } else if let fromEnv = environment("PLANNER_NOW"), !fromEnv.isEmpty {
            instant = try parseTime(fromEnv, in: zone, source: "PLANNER_NOW")
        } else {
            instant = clock()
        }
        let path = try DatabaseLocation.resolve(option: db, environment: environment)
        return CommandSetting(now: instant, zone: zone, path: path, environmentTZ: tz, warnings: warnings, folderTiming: folderTiming)
    }

    /// Resolves zone, clock and path, then opens the database for writing: the context of a command.
    public func commandContext(db: String?, now: String?) throws(PlannerError) -> CommandContext {
        try resolveSetting(db: db, now: now).open()
    }

    /// For commands that only read: a database the user cannot write is still shown.
    public func readingContext(db: String?, now: String?) throws(PlannerError) -> CommandContext {
        try resolveSetting(db: db, now: now).open(forWriting: false)
    }
}

private func parseTime(_ text: String, in zone: Zone, source: String) throws(PlannerError) -> Instant {
    do {
        return try PlannerCore.parseTime(text, in: zone)
    } catch {
        throw .usage("\(source): \(error.message)")
    }
}

/// Where and when a command acts, before its database is opened.
public struct CommandSetting {
    public var now: Instant
    /// The environment's zone (TZ, else the system's): how --now and PLANNER_NOW are read.
    public var zone: Zone
    public var path: String
    /// TZ as the environment had it.
    var environmentTZ: String?
    /// Where the database's warnings go (`RunContext.warnings`).
    public var warnings: Warnings
    /// How long its folder children are waited for (`RunContext.folderTiming`).
    public var folderTiming: FolderTiming

    /// Opens (creating or migrating when needed) the database: the last step, after all validation.
    /// The context's zone is the plan's (the `zone` setting), not the environment's.
    public func open(forWriting: Bool = true) throws(PlannerError) -> CommandContext {
        let database = try PlannerDatabase(
            path: path, forWriting: forWriting, zoneForNewPlan: zoneForNewPlan, warnings: warnings, folderTiming: folderTiming)
        return try context(database)
    }

    /// The context of a database already open: its plan's zone.
    public func context(_ database: PlannerDatabase) throws(PlannerError) -> CommandContext {
        let (settings, zone) = try database.planSettings()
        return CommandContext(now: now, zone: zone, database: database, settings: settings)
    }

    /// `TZ` when it names a zone; else a new plan follows the system zone.
    public var zoneForNewPlan: String? {
        guard let tz = environmentTZ, !tz.isEmpty else { return nil }
        return zone.name
    }
}

/// What a command works with.
public struct CommandContext {
    public var now: Instant
    /// The plan's zone.
    public var zone: Zone
    public var database: PlannerDatabase
    /// The settings as the context was made (commands that change them read them again).
    public var settings: PlanSettings

    public init(now: Instant, zone: Zone, database: PlannerDatabase, settings: PlanSettings) {
        self.now = now
        self.zone = zone
        self.database = database
        self.settings = settings
    }
}
