import ArgumentParser

/// `--db` and `--now`, accepted by every subcommand.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The database file (default: $PLANNER_DB, else $XDG_DATA_HOME/planner/planner.db, else ~/.local/share/planner/planner.db).",
            valueName: "path"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Act as if it were TIME (default: $PLANNER_NOW, else the clock). ISO 8601 YYYY-MM-DDTHH:MM[:SS[.fff]] (a fraction of 1 to 9 digits, cut to the millisecond), local wall time in TZ (else the system zone) or with Z, +HH:MM or -HH:MM[:SS]. For tests: a change made with a TIME more than 12 hours ahead of the real clock is ordered among other devices' changes as if made 12 hours ahead, and later changes never inherit that lead.",
            valueName: "time"))
    var now: String?
}

/// `--grace` and `--verbose`, for the commands that change the plan.
struct PlanChangeOptions: ParsableArguments {
    // `.unconditional`: "--grace -5m" is refused as a negative duration, not as a "missing value".
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "A request whose time passed more than this long ago is marked missed (e.g. 90s, 15m, 2h; default: the grace setting).",
            valueName: "duration"))
    var grace: String?

    @Flag(name: .long, help: "Say what changed.") var verbose = false
}
