import Glibc
import PlannerCore
import PlannerFolders
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
        /// How long to wait before trying again after a race with another computer (HTTP 412): drawn anew
        /// each time, so that two computers that collided do not collide again.
        public var raceDelayMilliseconds: ClosedRange<Int64> = 2_000...8_000
        /// How long a whole round may take (its runs, its retries and the planner's own work): no run starts
        /// once it is spent, and each gets at most what is left, so a round ends before the live ticker that
        /// started it stops it (`CalendarCarry.runLimitMilliseconds`) and always records how it ended.
        public var roundLimitMilliseconds: Int64 = CalendarCarry.runLimitMilliseconds - 60_000

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
        /// vdirsyncer runs that lost a race with another computer writing the same items (HTTP 412), each
        /// tried again.
        public var raced = 0
        /// The server's calendar had been emptied (another computer's uninstall, or by hand) while this
        /// folder still held the planner's items: vdirsyncer's status for the pair (this file) was removed,
        /// as its own message advises, and the items went back up.
        public var putBack: String?
        /// Said by vdirsyncer when one side was emptied: the status name (`pair/collection`) and the storage.
        var emptied: [Emptied] = []

        public var changedAnything: Bool { copied + updated + deleted > 0 || !ticks.isEmpty || putBack != nil }
    }

    /// Said by vdirsyncer when one side was emptied: the status name (`pair/collection`) and the storage
    /// (`storage/collection`).
    struct Emptied: Equatable {
        var status: String
        var storage: String
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
        // From before the wait for another round's lock: the ticker's limit counts from when it started this.
        let deadline = RoundDeadline(limitMilliseconds: options.roundLimitMilliseconds)
        let lock = try lockJob(database: setting.path)
        defer { close(lock) }
        let context = try setting.open()
        // Every round, worked or failed, is left in the lock file for `planner status`.
        let previous = CalendarRoundFile.read(lock)
        do {
            let report = try round(ctx, options, vdirsyncer: vdirsyncer, context: context, deadline: deadline)
            CalendarRoundFile.write(lock, .after(previous, at: context.now, failure: report.failure))
            return report
        } catch {
            CalendarRoundFile.write(lock, .after(previous, at: context.now, failure: error.message))
            throw error
        }
    }

    static func round(
        _ ctx: RunContext, _ options: Options, vdirsyncer: String, context: CommandContext, deadline: RoundDeadline
    ) throws(PlannerError) -> Report {
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
        var first = syncRetryingRaces(vdirsyncer, options, deadline: deadline, into: &report)
        // A plain loop: forgetting removes a file, so it must run once per line (a lazy map runs it again).
        var forgotten: String?
        for emptied in first ? [] : report.emptied where forgotten == nil { forgotten = forgetEmptiedServer(ctx, emptied, folder: folder) }
        if let forgotten {
            report.failure = nil
            report.emptied = []
            report.putBack = forgotten
            first = syncRetryingRaces(vdirsyncer, options, deadline: deadline, into: &report)
        }
        // What the phone ticked is in the folder now (or was already): applied, and the folder written again.
        let found = try context.database.sync(now: context.now)
        guard let calendar = found.calendar else {
            throw .usage(
                "calendar-folder is not set: run planner config set calendar-folder FOLDER (the folder vdirsyncer syncs), then planner calendar-sync again"
            )
        }
        report.ticks = Array(Set(calendar.ticks)).sorted()
        if first, report.copied + report.updated + report.deleted > 0 || calendar.written + calendar.removed > 0 {
            _ = syncRetryingRaces(vdirsyncer, options, deadline: deadline, into: &report)
        }
        return report
    }

    /// One `vdirsyncer sync`, run again (up to twice, after a random pause) when it lost a race with another
    /// computer carrying the same calendar (`CalendarRound.lostRace`): both rewrote the same items after a
    /// shared change, and the server refused the second writer's stale copy (HTTP 412), or an item listed was
    /// gone, removed by the other, when vdirsyncer fetched it (HTTP 404). The next run sees the server's copy.
    static func syncRetryingRaces(_ vdirsyncer: String, _ options: Options, deadline: RoundDeadline, into report: inout Report) -> Bool {
        for attempt in 0..<3 {
            if sync(vdirsyncer, forceDelete: options.forceDelete, deadline: deadline, into: &report) { return true }
            guard attempt < 2, report.failure.map(CalendarRound.lostRace) == true else { return false }
            // A race lost with no time left for another run: the round says so (and is not counted as raced).
            guard deadline.left >= 1_000 else {
                report.failure =
                    "vdirsyncer sync not run again: the round took over \(deadline.limitMilliseconds / 1000) s (the last run: \(report.failure ?? ""))"
                return false
            }
            report.raced += 1
            usleep(UInt32(clamping: Int64.random(in: options.raceDelayMilliseconds) * 1000))
        }
        return false
    }

    /// vdirsyncer refused to sync because one side was emptied. When that side is the server (a storage
    /// whose type is not `filesystem` in vdirsyncer's config) and this folder still holds the planner's
    /// items, vdirsyncer's status for the pair is removed — its own advice besides --force-delete — so that
    /// the next run uploads them: another computer carries this calendar still. A folder emptied on this
    /// side (not mounted?) is never taken for the truth. Returns the status file removed, or nil.
    static func forgetEmptiedServer(_ ctx: RunContext, _ emptied: Emptied, folder: String) -> String? {
        guard let home = try? DatabaseLocation.home(environment: ctx.environment) else { return nil }
        let explicit = ctx.environment("VDIRSYNCER_CONFIG").flatMap { $0.isEmpty ? nil : $0 }
        let configHome = ctx.environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        guard let text = smallRegularFile(explicit ?? SetupCommand.vdirsyncerConfig(home: home, configHome: configHome)),
            let config = VdirsyncerConfig(text)
        else { return nil }
        func expanded(_ path: String) -> String { path.hasPrefix("~/") ? home + path.dropFirst(1) : path }
        let storage = String(emptied.storage.prefix { $0 != "/" })
        guard let type = config.storageTypes[storage], type != "filesystem", let statusPath = config.statusPath,
            holdsPlannerItems(folder)
        else { return nil }
        // `pair/collection`: two plain names, never a way out of the status folder.
        let parts = emptied.status.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        // Only the pair that carries this calendar folder: the emptied storage is one side of it, and the other
        // is a filesystem storage whose folder (with the collection, when there is one) is this folder. A pair
        // of the user's own (contacts emptied on purpose) is never touched.
        guard let pair = config.pairs[String(parts[0])], pair.a == storage || pair.b == storage,
            let local = config.storagePaths[pair.a == storage ? pair.b : pair.a],
            config.storageTypes[pair.a == storage ? pair.b : pair.a] == "filesystem"
        else { return nil }
        let localFolder = expanded(local) + (parts.count == 2 ? "/" + parts[1] : "")
        guard let mine = realpath(folder, nil), let theirs = realpath(localFolder, nil) else { return nil }
        defer {
            free(mine)
            free(theirs)
        }
        guard strcmp(mine, theirs) == 0 else { return nil }
        let base = expanded(statusPath)
        // Relative to vdirsyncer's config file, not to where this runs: not guessed.
        guard base.hasPrefix("/") else { return nil }
        let file = (base.hasSuffix("/") ? base : base + "/") + emptied.status + ".items"
        var info = stat()
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), unlink(file) == 0 else { return nil }
        return file
    }

    /// A configuration file's text: a regular file (a FIFO put there is never waited on) up to 1 MiB.
    static func smallRegularFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            done += n
        }
        return String(decoding: bytes[..<done], as: UTF8.self)
    }

    /// Whether `folder` holds at least one of the planner's items (`planner-….ics`).
    static func holdsPlannerItems(_ folder: String) -> Bool { plannerItemCount(folder, upTo: 1) > 0 }

    /// How many of the planner's items (`planner-….ics`) `folder` holds, counting up to `upTo`.
    static func plannerItemCount(_ folder: String, upTo: Int = .max) -> Int {
        guard let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while count < upTo, let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("planner-"), name.hasSuffix(".ics") { count += 1 }
        }
        return count
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
                defer { free(p) }
                return String(cString: p)
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

    /// When a round must be over (a monotonic clock): what is left of it bounds each run.
    struct RoundDeadline {
        let limitMilliseconds: Int64
        let at: Int64
        init(limitMilliseconds: Int64) {
            self.limitMilliseconds = limitMilliseconds
            at = SystemClock.monotonicMilliseconds() + limitMilliseconds
        }
        var left: Int64 { at - SystemClock.monotonicMilliseconds() }
    }

    /// One `vdirsyncer sync`, counted into `report`; false when it failed (`report.failure` says how). Within
    /// a round, none starts with less than a second of it left.
    static func sync(
        _ vdirsyncer: String, forceDelete: Bool, limitMilliseconds: Int64 = runLimitMilliseconds, deadline: RoundDeadline? = nil,
        into report: inout Report
    ) -> Bool {
        var limitMilliseconds = limitMilliseconds
        if let deadline {
            let left = deadline.left
            guard left >= 1_000 else {
                report.failure =
                    "vdirsyncer sync not run again: the round took over \(deadline.limitMilliseconds / 1000) s"
                    + (report.failure.map { " (the last run: \($0))" } ?? "")
                return false
            }
            limitMilliseconds = min(limitMilliseconds, left)
        }
        report.runs += 1
        let arguments = [vdirsyncer, "-v", "info", "sync"] + (forceDelete ? ["--force-delete"] : [])
        let (outcome, output) = Spawn.run(arguments, timeoutMilliseconds: limitMilliseconds)
        count(output, into: &report)
        // vdirsyncer 0.19 exits 0 when a pair failed: it logs "error:" and "critical:" lines.
        let failed = output.split(separator: "\n").filter { $0.hasPrefix("error:") || $0.hasPrefix("critical:") }
        guard outcome != .exited(0) || !failed.isEmpty else {
            report.failure = nil  // an earlier run's (a race, now won) is over
            return true
        }
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
        report.emptied = emptiedStorages(in: failed)
        return false
    }

    /// `error: planner/planner: Storage "planner_server/planner" was completely emptied. …` (vdirsyncer 0.19).
    static func emptiedStorages(in lines: [Substring]) -> [Emptied] {
        lines.compactMap { line in
            let parts = line.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].hasSuffix(": Storage "), parts[2].hasPrefix(" was completely emptied") else { return nil }
            let status = parts[0].dropLast(": Storage ".count).drop { $0 != " " }.dropFirst()
            guard !status.isEmpty, !parts[1].isEmpty, !status.contains(" ") else { return nil }
            return Emptied(status: String(status), storage: String(parts[1]))
        }
    }
}
