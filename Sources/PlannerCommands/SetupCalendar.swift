import Glibc
import PlannerCore
import PlannerStore

/// `planner setup --calendar`: the facts the calendar job needs, each missing one refused with the next step
/// to take, before anything is written.
extension SetupCommand {
    static func calendarFacts(_ ctx: RunContext, _ facts: SetupFacts) throws(PlannerError) -> CalendarSyncFacts {
        let folder = try calendarFolder(database: facts.database)
        guard let folder, !folder.isEmpty else {
            throw .usage("--calendar: calendar-folder is not set: run planner config set calendar-folder FOLDER (the folder vdirsyncer syncs, see contrib/vdirsyncer.config), then planner setup --calendar again")
        }
        if let problem = SetupPlan.calendarFolderProblem(folder) { throw .usage(problem) }
        guard let vdirsyncer = programOnPath("vdirsyncer", path: ctx.environment("PATH")) else {
            throw .usage("--calendar: vdirsyncer is not installed (not on PATH): install it (Debian: sudo apt install vdirsyncer), copy contrib/vdirsyncer.config to ~/.config/vdirsyncer/config and run vdirsyncer discover")
        }
        let explicit = ctx.environment("VDIRSYNCER_CONFIG").flatMap { $0.isEmpty ? nil : $0 }
        let config = explicit ?? vdirsyncerConfig(home: facts.home, configHome: facts.configHome)
        guard SetupFiles.read(config) != nil else {
            throw .usage("--calendar: vdirsyncer is not configured (no \(config)): copy contrib/vdirsyncer.config there, set your server's url, username and password, run vdirsyncer discover, then planner setup --calendar again")
        }
        if !facts.systemdUser, let problem = SetupPlan.pathProblem(vdirsyncer, cron: true) ?? explicit.flatMap({ SetupPlan.pathProblem($0, cron: true) }) {
            throw .usage(problem)
        }
        return CalendarSyncFacts(folder: folder, vdirsyncer: vdirsyncer, vdirsyncerConfig: explicit)
    }

    /// The database's `calendar-folder`, nil when there is no database yet or the setting is unknown to it.
    static func calendarFolder(database: String) throws(PlannerError) -> String? {
        guard access(database, F_OK) == 0 else { return nil }
        let db = try PlannerDatabase(path: database, forWriting: false, zoneForNewPlan: nil)
        return try db.settingRows().first { $0.key.rawValue == "calendar-folder" }?.value
    }

    /// Where vdirsyncer looks without $VDIRSYNCER_CONFIG: ~/.vdirsyncer/config if it exists, else under the
    /// XDG config folder.
    static func vdirsyncerConfig(home: String, configHome: String) -> String {
        let legacy = home + "/.vdirsyncer/config"
        return SetupFiles.exists(legacy) ? legacy : configHome + "/vdirsyncer/config"
    }

    /// `name`'s absolute path in one of PATH's folders, or nil.
    static func programOnPath(_ name: String, path: String?) -> String? {
        for dir in (path ?? "/usr/bin:/bin").split(separator: ":") where dir.hasPrefix("/") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

extension SetupCommand {
    /// The timer and the path unit, started now; the service runs when they fire.
    static func enableCalendarUnits(_ ctx: RunContext) {
        let units = [SetupPlan.calendarTimer, SetupPlan.calendarPath]
        if ctx.runProgram(["systemctl", "--user", "enable", "--now"] + units)?.status == 0 {
            ctx.output.line("enabled \(units.joined(separator: " and ")) (systemctl --user)")
        } else {
            ctx.output.line("could not enable the calendar units (is a systemd user manager running?): run systemctl --user enable --now \(units.joined(separator: " ")) after logging in")
        }
    }
}
