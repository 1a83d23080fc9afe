import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem
import PlannerTicker

/// `planner open` runs in the login script: it must not hold up the login when another program holds
/// the database (a `sqlite3` shell in a transaction, a database browser, a stalled process), and the open
/// must not be lost. It waits about a second; then it saves the open in the spool beside the database
/// (`Inbox`), and the next write of any planner process applies it at its own instant.
enum LoginOpen {
    /// How long the login may wait for the database, in all.
    static let waitMilliseconds: Int64 = 1_000

    enum Outcome {
        /// Recorded: what it decided, and the plan it was decided in when `reporting` asked for it.
        case applied(PlannerDatabase.RecordedOpen, PlannerDatabase)
        /// Saved for later: the folder it is in, and why (`.busy`, or `.ownTrigger`: a trigger of the
        /// user's own failed; the next write that works applies it).
        case saved(String, because: PlannerError)
    }

    /// `setting.zone` is the environment's, only for the event's record: the open's day is the plan's.
    /// `origin`: the command (`open`, `study`).
    /// `id`: the login session's event (`LoginSession`), recorded once; `unlessRecorded`: the logins this one
    /// runs inside.
    static func run(
        _ setting: CommandSetting, policy: PlanPolicy?, origin: String, id: String? = nil,
        unlessRecorded: [String] = [], reporting: Bool = false
    ) throws(PlannerError) -> Outcome {
        let start = SystemClock.monotonicMilliseconds()
        let (now, zone, path) = (setting.now, setting.zone, setting.path)
        // One event whichever way it goes: applied now, or saved and applied once by a later write.
        let event = PlannerDatabase.openEvent(now: now, takenIn: zone, policy: policy, origin: origin, id: id)
        do {
            let database = try PlannerDatabase(
                path: path, busyTimeoutMilliseconds: Int32(waitMilliseconds),
                zoneForNewPlan: setting.zoneForNewPlan, warnings: setting.warnings, folderTiming: setting.folderTiming)
            // Opening may have waited already (a pending migration, an exclusive lock): one budget in all.
            let left = max(50, waitMilliseconds - (SystemClock.monotonicMilliseconds() - start))
            database.setBusyTimeout(milliseconds: Int32(left))
            // A live ticker wakes on this commit and brings the folders in line itself: a login never waits
            // on a folder nor pays for the child process that would (docs/benchmarks.md). Its lock
            // is beside the database's resolved path (a link to the database is followed).
            let leaving = TickerLock.liveTickerWatches(databasePath: database.resolvedPath)
            let decision = try database.recordAppOpen(event, unlessRecorded: unlessRecorded, leavingFolders: leaving, reporting: reporting)
            // The ticker began to stop while this open waited for the database: it runs no pass for this
            // commit, so the open does its folders itself (a failure waits in the database for the next
            // command that writes, as any folder failure does).
            if leaving, !TickerLock.liveTickerWatches(databasePath: database.resolvedPath) {
                do { try database.bringFoldersInLine(now: now) } catch { database.warnings.once(error.message) }
            }
            return .applied(decision, database)
        } catch  where error.kind == .busy || error.kind == .ownTrigger {
            // A trigger of the user's own that fails would lose the open as surely as a held lock.
            let why = error
            do {
                return .saved(try Inbox.save(event, databasePath: path), because: why)
            } catch {
                if why.kind == .ownTrigger {
                    throw PlannerError(
                        .ownTrigger, why.message + "; this open could not be saved for later either (\(error.message)): it was NOT recorded")
                }
                throw .busy(
                    "the database \(path) is locked by another program, and this open could not be saved for later (\(error.message)): it was NOT recorded; close the other program and run planner open again"
                )
            }
        }
    }

}

extension CommandOutput {
    /// One line on stderr naming the subcommand the user ran (`open`, `study`): the login goes on, and
    /// the user knows why today's reminders still show.
    func notice(_ message: String, from command: String) {
        notice("planner \(command): \(message)")
    }
}
