import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem
import PlannerTicker

/// `planner calendar-sync`: the one job that carries the calendar folder to the CalDAV server and back —
/// `vdirsyncer sync`, then what the phone ticked applied (`planner sync`), then `vdirsyncer sync` again
/// when either changed something. Run by the systemd unit, the cron line, the live ticker and setup, one
/// at a time (a lock beside the database): two vdirsyncer runs on one status folder would race.
public enum CalendarSyncCommand {
    public struct Options {
        public var db: String?
        public var now: String?
        /// vdirsyncer's path; nil: found on PATH.
        public var vdirsyncer: String?
        /// `vdirsyncer sync --force-delete`: the planner emptied the folder itself (setup --uninstall).
        public var forceDelete = false

        public init(db: String? = nil, now: String? = nil, vdirsyncer: String? = nil) {
            (self.db, self.now, self.vdirsyncer) = (db, now, vdirsyncer)
        }
    }

    public struct Report: Equatable {
        /// Items vdirsyncer copied (new), updated and deleted, on either side, over its runs.
        public var copied = 0, updated = 0, deleted = 0
        public var runs = 0
        /// Days ticked on the phone, opened now.
        public var ticks: [LocalDate] = []
        /// What vdirsyncer said when it failed (its last lines), nil when it did not.
        public var failure: String?

        public var changedAnything: Bool { copied + updated + deleted > 0 || !ticks.isEmpty }
    }

    /// How long one vdirsyncer run may take before it is killed, and how long a run waits for another's lock.
    public static let runLimitMilliseconds: Int64 = 300_000
    static let lockWaitMilliseconds: Int64 = 120_000

    /// Lines from vdirsyncer's `-v info` log, counted (vdirsyncer 0.19's wording).
    static func count(_ output: String, into report: inout Report) {
        for line in output.split(separator: "\n") {
            if line.contains("Copying (uploading) item") {
                report.copied += 1
            } else if line.contains("Copying (updating) item") {
                report.updated += 1
            } else if line.contains("Deleting item") {
                report.deleted += 1
            }
        }
    }

    public static func run(_ ctx: RunContext, _ options: Options) throws(PlannerError) -> Report {
        let setting = try ctx.resolveSetting(db: options.db, now: options.now)
        let vdirsyncer = try program(options.vdirsyncer, ctx)
        let lock = try lockJob(database: setting.path)
        defer { close(lock) }
        let context = try setting.open()
        guard let folder = try context.database.settingRows().first(where: { $0.key == .calendarFolder })?.value, !folder.isEmpty else {
            throw .usage(
                "calendar-folder is not set: run planner config set calendar-folder FOLDER (the folder vdirsyncer syncs), then planner calendar-sync again"
            )
        }
        // One line and a failure, not a warning at every run (cron mails each): vdirsyncer would sync nothing.
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .io(
                "the calendar folder \(folder) is not there (not mounted? removed?): planner config set calendar-folder \(folder) makes it again")
        }
        var report = Report()
        let first = sync(vdirsyncer, forceDelete: options.forceDelete, into: &report)
        // What the phone ticked is in the folder now (or was already): applied, and the folder written again.
        let found = try context.database.sync(now: context.now)
        guard let calendar = found.calendar else {
            throw .usage(
                "calendar-folder is not set: run planner config set calendar-folder FOLDER (the folder vdirsyncer syncs), then planner calendar-sync again"
            )
        }
        report.ticks = Array(Set(calendar.ticks)).sorted()
        if first, report.copied + report.updated + report.deleted > 0 || calendar.written + calendar.removed > 0 {
            _ = sync(vdirsyncer, forceDelete: options.forceDelete, into: &report)
        }
        return report
    }

    /// One `vdirsyncer sync` and nothing of the planner's (setup --uninstall carries out the folder it has
    /// just emptied: a `planner sync` would write it again). The caller holds the job's lock (`lockJob`)
    /// from before it emptied the folder: a job under way would otherwise write the folder again in between.
    /// `emptied`: the planner took out everything the folder held. vdirsyncer refuses to empty a whole
    /// calendar on the other side ("was completely emptied"); only then, and only after that refusal, is it
    /// run again with `--force-delete`. A folder found empty (an unmounted mount point) is never forced.
    public static func carryOut(
        _ ctx: RunContext, vdirsyncer: String?, emptied: Bool,
        limitMilliseconds: Int64 = runLimitMilliseconds
    ) throws(PlannerError) -> Report {
        let vdirsyncer = try program(vdirsyncer, ctx)
        var report = Report()
        if !sync(vdirsyncer, forceDelete: false, limitMilliseconds: limitMilliseconds, into: &report), emptied,
            report.failure?.contains("was completely emptied") == true
        {
            report.failure = nil
            _ = sync(vdirsyncer, forceDelete: true, limitMilliseconds: limitMilliseconds, into: &report)
        }
        return report
    }

    /// Whether vdirsyncer is installed and configured for this user (its configuration file exists).
    public static func vdirsyncerReady(_ ctx: RunContext) -> Bool {
        guard SetupCommand.programOnPath("vdirsyncer", path: ctx.environment("PATH")) != nil,
            let home = try? DatabaseLocation.home(environment: ctx.environment)
        else { return false }
        let explicit = ctx.environment("VDIRSYNCER_CONFIG").flatMap { $0.isEmpty ? nil : $0 }
        let configHome = ctx.environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return SetupFiles.exists(explicit ?? SetupCommand.vdirsyncerConfig(home: home, configHome: configHome))
    }

    static func program(_ given: String?, _ ctx: RunContext) throws(PlannerError) -> String {
        guard let found = given ?? SetupCommand.programOnPath("vdirsyncer", path: ctx.environment("PATH")) else {
            throw .usage(
                "vdirsyncer is not installed (not on PATH): install it (Debian: sudo apt install vdirsyncer), or name it with --vdirsyncer PATH")
        }
        return found
    }

    /// One job at a time per database: the lock beside it, waited for (a run takes seconds).
    public static func lockJob(database given: String) throws(PlannerError) -> Int32 {
        // One lock whatever path named the database (the ticker passes it resolved, cron as setup wrote it).
        let database =
            realpath(given, nil).map { p in
                defer { free(p) }; return String(cString: p)
            } ?? given
        let lock = try TickerLock.openOwn(database + ".calendar.lock", what: "the calendar sync lock")
        // Inherited by vdirsyncer: a run whose planner was killed still holds the lock until its vdirsyncer
        // ends, so a second vdirsyncer never runs on the same status folder beside it.
        _ = fcntl(lock, F_SETFD, 0)
        var waited: Int64 = 0
        while flock(lock, LOCK_EX | LOCK_NB) != 0 {
            guard waited < lockWaitMilliseconds else {
                close(lock)
                throw .busy(
                    "another calendar sync has held \(database).calendar.lock for \(lockWaitMilliseconds / 1000) s: it carries the folder; try again later"
                )
            }
            usleep(100_000)
            waited += 100
        }
        return lock
    }

    /// One `vdirsyncer sync`, counted into `report`; false when it failed (`report.failure` says how).
    static func sync(
        _ vdirsyncer: String, forceDelete: Bool, limitMilliseconds: Int64 = runLimitMilliseconds,
        into report: inout Report
    ) -> Bool {
        report.runs += 1
        let arguments = [vdirsyncer, "-v", "info", "sync"] + (forceDelete ? ["--force-delete"] : [])
        let (outcome, output) = Spawn.run(arguments, timeoutMilliseconds: limitMilliseconds)
        count(output, into: &report)
        // vdirsyncer 0.19 exits 0 when a pair failed: it logs "error:" and "critical:" lines.
        let failed = output.split(separator: "\n").filter { $0.hasPrefix("error:") || $0.hasPrefix("critical:") }
        guard outcome != .exited(0) || !failed.isEmpty else { return true }
        let said = (failed.isEmpty ? output.split(separator: "\n").suffix(3) : failed.suffix(3)).joined(separator: " / ")
        let how: String
        switch outcome {
        case .exited(let code): how = "exited \(code)"
        case .signalled(let signal): how = "was killed by signal \(signal)"
        case .timedOut: how = "took over \(limitMilliseconds / 1000) s and was stopped"
        case .couldNotStart(let why): how = "could not start (\(why))"
        case .interrupted: how = "was interrupted"
        }
        report.failure = "vdirsyncer sync \(how)" + (said.isEmpty ? "" : ": " + TerminalText.flattened(String(said.prefix(600))))
        return false
    }
}
