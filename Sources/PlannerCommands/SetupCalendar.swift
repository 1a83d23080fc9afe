import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner setup --calendar`: the facts the calendar job needs, each missing one refused with the next step
/// to take, before anything is written.
extension SetupCommand {
    static func calendarFacts(_ ctx: RunContext, _ facts: SetupFacts) throws(PlannerError) -> CalendarSyncFacts {
        let folder = try calendarFolder(database: facts.database)
        guard let folder, !folder.isEmpty else {
            throw .usage(
                "--calendar: calendar-folder is not set: run planner config set calendar-folder FOLDER (the folder vdirsyncer syncs, see contrib/vdirsyncer.config), then planner setup --calendar again"
            )
        }
        if let problem = SetupPlan.calendarFolderProblem(folder) { throw .usage(problem) }
        guard let vdirsyncer = programOnPath("vdirsyncer", path: ctx.environment("PATH")) else {
            throw .usage(
                "--calendar: vdirsyncer is not installed (not on PATH): install it (Debian: sudo apt install vdirsyncer), copy contrib/vdirsyncer.config to ~/.config/vdirsyncer/config and run vdirsyncer discover"
            )
        }
        let explicit = ctx.environment("VDIRSYNCER_CONFIG").flatMap { $0.isEmpty ? nil : $0 }
        let config = explicit ?? vdirsyncerConfig(home: facts.home, configHome: facts.configHome)
        guard SetupFiles.read(config) != nil else {
            throw .usage(
                "--calendar: vdirsyncer is not configured (no \(config)): copy contrib/vdirsyncer.config there, set your server's url, username and password, run vdirsyncer discover, then planner setup --calendar again"
            )
        }
        if !facts.systemdUser,
            let problem = SetupPlan.pathProblem(vdirsyncer, cron: true) ?? explicit.flatMap({ SetupPlan.pathProblem($0, cron: true) })
        {
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
            ctx.output.line(
                "could not enable the calendar units (is a systemd user manager running?): run systemctl --user enable --now \(units.joined(separator: " ")) after logging in"
            )
        }
    }
}

extension SetupCommand {
    /// The calendar job run once by setup --calendar --install, its result said; a failure is a line with
    /// the next step, not a failed install (the job runs again by itself).
    static func firstCalendarSync(_ ctx: RunContext, facts: SetupFacts, calendar: CalendarSyncFacts, now: String?) {
        // The first upload sends every item one request at a time (~0.1 s each): said before, not after.
        if let folder = try? calendarFolder(database: facts.database), !folder.isEmpty {
            let items = CalendarSyncCommand.plannerItemCount(folder)
            ctx.output.line(
                "carrying the calendar folder to the server now (vdirsyncer sync\(items > 0 ? ": \(items) item\(items == 1 ? "" : "s")" : ""), one request each: up to a minute the first time)"
            )
        }
        do {
            let report = try CalendarSyncCommand.run(ctx, CalendarSyncCommand.Options(db: facts.database, now: now, vdirsyncer: calendar.vdirsyncer))
            if let failure = report.failure {
                ctx.output.line("the first calendar sync failed: \(failure); run planner calendar-sync to try again (vdirsyncer sync shows it whole)")
            } else {
                ctx.output.line(
                    "calendar synced with the server: vdirsyncer copied \(report.copied) item\(report.copied == 1 ? "" : "s") between the folder and the server, updated \(report.updated), deleted \(report.deleted)"
                )
            }
        } catch {
            ctx.output.line("the first calendar sync failed: \(error.message); run planner calendar-sync to try again")
        }
    }

    /// setup --uninstall with the calendar job installed: the planner's items leave the folder, and that
    /// goes to the server once, so the phone stops ringing. The user's own items are never touched.
    static func emptyCalendar(_ ctx: RunContext, facts: SetupFacts) {
        let output = ctx.output
        guard let folder = try? calendarFolder(database: facts.database), !folder.isEmpty else { return }
        do {
            let lock = try CalendarSyncCommand.lockJob(database: facts.database)
            defer { close(lock) }
            let db = try PlannerDatabase(path: facts.database, zoneForNewPlan: nil, warnings: ctx.warnings, folderTiming: ctx.folderTiming)
            // Another computer still carries this calendar (its sync file says so): the phone keeps hearing
            // from it, so the server's items stay, and so do this folder's (a vdirsyncer run here would
            // otherwise carry their removal out). This computer stops writing the folder, and its device line
            // says so: the last computer to uninstall takes them off.
            // What the other devices last said, read now (a device that uninstalled a moment ago said so).
            _ = try? db.sync(now: ctx.clock())
            let carriers = try db.otherCalendarCarriers(now: ctx.clock())
            if !carriers.isEmpty {
                try db.configure(set: [], reset: [.calendarFolder], now: ctx.clock())
                output.line(
                    "left the planner's items in \(folder) and on the server: \(carriers.joined(separator: ", ")) still carr\(carriers.count == 1 ? "ies" : "y") this calendar (its sync file says so), so the phone keeps its alarms; calendar-folder is reset here, and setup --uninstall on the last computer that carries it takes them off"
                )
                return
            }
            let (removed, others) = try db.emptyCalendarFolder(folder, now: ctx.clock())
            // Nothing of the planner's was there (a folder not mounted?): nothing to carry out, and never a
            // sync that would take an empty folder for the calendar.
            guard removed > 0 else {
                output.line("the calendar folder \(folder) held none of the planner's items: nothing to take off the server")
                return
            }
            let report = try CalendarSyncCommand.carryOut(ctx, vdirsyncer: nil, emptied: others == 0)
            if let failure = report.failure {
                output.line(
                    "removed \(removed) of the planner's items from \(folder), but carrying that to the server failed: \(failure); run vdirsyncer sync to finish"
                )
            } else {
                output.line(
                    "removed \(removed) of the planner's items from \(folder) and from the server (vdirsyncer deleted \(report.deleted)); the calendar-folder setting is kept: planner config reset calendar-folder stops the planner writing it"
                )
            }
        } catch {
            output.line(
                "could not take the planner's items out of the calendar folder \(folder): \(error); the phone keeps its alarms until they are deleted there"
            )
        }
    }
}
