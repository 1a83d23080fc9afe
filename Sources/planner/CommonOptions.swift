import ArgumentParser
import PlannerCore
import PlannerStore
import PlannerSystem

/// `--db` and `--now`, accepted by every subcommand.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The database file (default: $PLANNER_DB, else $XDG_DATA_HOME/planner/planner.db, else ~/.local/share/planner/planner.db).",
        valueName: "path"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp(
        "Act as if it were TIME (default: $PLANNER_NOW, else the clock). ISO 8601 YYYY-MM-DDTHH:MM[:SS[.fff]], local wall time in TZ or with Z / ±HH:MM.",
        valueName: "time"))
    var now: String?

    /// Resolves zone, clock and path, then opens the database: the real context of a command.
    func context() throws(PlannerError) -> CommandContext {
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
        return CommandContext(now: instant, zone: zone, database: try PlannerDatabase(path: path))
    }

    private func parseTime(_ text: String, in zone: Zone, source: String) throws(PlannerError) -> Instant {
        do {
            return try PlannerCore.parseTime(text, in: zone)
        } catch {
            throw .usage("\(source): \(error.message)")
        }
    }
}

/// What a command works with; tests build one by hand with a fixed clock, zone and temporary database.
struct CommandContext {
    var now: Instant
    var zone: Zone
    var database: PlannerDatabase
}

/// `--grace`, for the commands that retire stale requests.
struct GraceOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A request whose time passed more than this long ago is marked missed (e.g. 90s, 15m, 2h).", valueName: "duration"))
    var grace: String = "15m"

    func policy() throws(PlannerError) -> PlanPolicy {
        guard let ms = parseDuration(grace) else {
            throw .usage("invalid --grace '\(grace)': expected a duration such as 90s, 15m or 2h")
        }
        return PlanPolicy(graceMilliseconds: ms)
    }
}
