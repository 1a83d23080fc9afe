import PlannerCore
import PlannerStore
import PlannerSystem

/// The options of `refill` and `open`, however they were parsed (ArgumentParser or `FastPath`).
struct PlanCommandOptions: Equatable {
    var db: String?
    var now: String?
    var grace: String?
    var verbose = false

    init(db: String? = nil, now: String? = nil, grace: String? = nil, verbose: Bool = false) {
        self.db = db
        self.now = now
        self.grace = grace
        self.verbose = verbose
    }

    /// What ArgumentParser read for `open` or `refill`.
    init(_ common: CommonOptions, _ change: PlanChangeOptions) {
        self.init(db: common.db, now: common.now, grace: change.grace, verbose: change.verbose)
    }

    /// `--grace` as a policy; nil when not given (the grace setting applies).
    func policy() throws(PlannerError) -> PlanPolicy? {
        guard let grace else { return nil }
        guard let ms = parseDuration(grace) else {
            throw .usage("invalid --grace \(TerminalText.quoted(grace)): expected a duration such as 90s, 15m or 2h")
        }
        return PlanPolicy(graceMilliseconds: ms)
    }
}

/// `planner open` runs at every login and `planner refill` every few minutes from cron. ArgumentParser's
/// start-up (reflection over every command and option) costs as much CPU as their whole database work
/// (bench/RESULTS.md), so their plain forms are parsed here. Anything else (help, a typo, a repeated
/// option, another command) goes through ArgumentParser; FastPathTests checks that both agree.
enum FastPath {
    static func parse(_ args: [String]) -> (command: String, options: PlanCommandOptions)? {
        guard let command = args.first, command == "open" || command == "refill" else { return nil }
        var options = PlanCommandOptions()
        var seen: Set<String> = []
        var i = 1
        while i < args.count {
            let name = args[i]
            guard seen.insert(name).inserted else { return nil }
            if name == "--verbose" {
                options.verbose = true
                i += 1
                continue
            }
            guard i + 1 < args.count, !args[i + 1].hasPrefix("-") else { return nil }
            switch name {
            case "--db": options.db = args[i + 1]
            case "--now": options.now = args[i + 1]
            case "--grace": options.grace = args[i + 1]
            default: return nil
            }
            i += 2
        }
        return (command, options)
    }

    static func run(_ command: String, _ options: PlanCommandOptions) throws {
        if command == "open" { try Open.execute(options) } else { try Refill.execute(options) }
    }
}

/// Resolves zone, clock and path, then opens the database: the real context of a command.
func makeContext(db: String?, now: String?) throws(PlannerError) -> CommandContext {
    try resolveSetting(db: db, now: now).open()
}

/// Resolves zone, clock and path without touching the database. A command checks every value it was
/// given against this and only then calls `open()`: a refused command creates no file and changes none.
func resolveSetting(db: String?, now: String?) throws(PlannerError) -> CommandSetting {
    let zone = try SystemZone.current(environment: Environment.get("TZ"))
    let instant: Instant
    if let now {
        instant = try parseTime(now, in: zone, source: "--now")
    } else if let fromEnv = Environment.get("PLANNER_NOW"), !fromEnv.isEmpty {
        instant = try parseTime(fromEnv, in: zone, source: "PLANNER_NOW")
    } else {
        instant = SystemClock.now()
    }
    let path = try DatabaseLocation.resolve(option: db, environment: Environment.get)
    return CommandSetting(now: instant, zone: zone, path: path)
}

/// Where and when a command acts, before its database is opened.
struct CommandSetting {
    var now: Instant
    var zone: Zone
    var path: String

    /// Opens (creating or migrating when needed) the database: the last step, after all validation.
    /// The context's zone is the plan's (the `zone` setting), not the environment's.
    func open(forWriting: Bool = true) throws(PlannerError) -> CommandContext {
        let database = try PlannerDatabase(path: path, forWriting: forWriting, zoneForNewPlan: zoneForNewPlan)
        return CommandContext(now: now, zone: try database.planSettings().zone, database: database)
    }

    /// `TZ` when it names a zone; else a new plan follows the system zone.
    var zoneForNewPlan: String? {
        guard let tz = Environment.get("TZ"), !tz.isEmpty else { return nil }
        return zone.name
    }
}

private func parseTime(_ text: String, in zone: Zone, source: String) throws(PlannerError) -> Instant {
    do {
        return try PlannerCore.parseTime(text, in: zone)
    } catch {
        throw .usage("\(source): \(error.message)")
    }
}

/// What a command works with.
struct CommandContext {
    var now: Instant
    var zone: Zone
    var database: PlannerDatabase
}

/// Zone, clock and database path, before the database is opened (`open` needs them when it cannot be).
func resolveInputs(db: String?, now: String?) throws(PlannerError) -> (now: Instant, zone: Zone, path: String) {
    let setting = try resolveSetting(db: db, now: now)
    return (setting.now, setting.zone, setting.path)
}
