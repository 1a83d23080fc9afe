import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// The sources of every kind of change (`EventSources`), all of them folders: the inbox of saved opens, the
/// sync folder, the calendar folder, Anki's collection. What a database opened through PlannerFolders reads
/// and writes besides itself.
struct FolderSources: SourceMaker {
    /// The opener's: how long its folder children are waited for.
    let timing: FolderTiming

    func make(_ sources: EventSources) -> [EventSource] {
        switch sources {
        case .all: make(.limited(.whole))
        case .limited(let limits):
            [
                InboxSource(), SyncFolderSource(reading: true, budget: limits.syncReadBytes), CalendarFolderSource(whole: true),
                AnkiSource(reads: limits.readsAnki, opens: limits.ankiOpens),
            ]
        case .login: [InboxSource(), SyncFolderSource(reading: false), CalendarFolderSource(whole: false)]
        case .loginLeavingFolders: [InboxSource()]
        }
    }

    func afterChange(_ db: PlannerDatabase, now: Instant, active: [EventSource], report: inout SourcesReport) {
        if let anki = active.lazy.compactMap({ $0 as? AnkiSource }).first { db.readAnkiHistory(now: now, with: anki, into: &report) }
    }
}

extension PlannerDatabase {
    /// Opens (creating or migrating when needed) the database at `path`, its changes reading and writing
    /// the folders its settings name (`FolderSources`). A file that is not a planner database is refused
    /// before anything is written to it. `forWriting: false` (list, status, history) still reads a database
    /// the user cannot write. `zoneForNewPlan`: the `zone` setting a new plan starts with (the creating
    /// command's `TZ`). `warnings`: where what is wrong but not fatal is said, each once. `folderTiming`:
    /// how long its folder children are waited for (the run's: `RunContext.folderTiming`).
    public convenience init(
        path: String, busyTimeoutMilliseconds: Int32 = PlannerDatabase.busyTimeoutMilliseconds,
        forWriting: Bool = true, zoneForNewPlan: String? = nil, warnings: Warnings = Warnings(),
        folderTiming: FolderTiming = FolderTiming()
    ) throws(PlannerError) {
        try self.init(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, forWriting: forWriting, zoneForNewPlan: zoneForNewPlan,
            warnings: warnings, sources: FolderSources(timing: folderTiming))
    }

    /// How long this database's folder children are waited for: its opener's (a database opened without
    /// PlannerFolders' sources does no folder work; it gets the standard deadline).
    public var folderTiming: FolderTiming { (sourceMaker as? FolderSources)?.timing ?? FolderTiming() }

    /// A command's change left days of Anki's history unread (a first read of years): the rest is read
    /// now, a slice to a transaction, with a pause between in which another process waiting for the
    /// database (a login's `open`, the ticker's claim) gets it: SQLite's busy handler tries again at most
    /// every 100 ms. The ticker (`SourceLimits.ankiOpens` set) reads a slice a pass instead. `source` is the
    /// change's own: it keeps its walk of the review log while the copy, the clock and the day rules stay as
    /// they were (`AnkiWalk`), so that each slice only chooses its days. Each slice's opens are published to
    /// the sync folder after its commit, as the change's were. The command's own change is in: a slice that
    /// fails (the database busy past its timeout, a full disk) is a warning, and the next change goes on.
    func readAnkiHistory(now: Instant, with source: AnkiSource, into report: inout SourcesReport) {
        guard source.opens == nil, var anki = report.anki, anki.more else { return }
        while anki.more {
            usleep(Self.ankiSlicePauseMicroseconds)
            let slice: SourcesReport
            do {
                (_, slice) = try change(at: now, active: [source, SyncFolderSource(reading: false)]) { (_: Transaction, _: Bool) in }
            } catch {
                warnOnce("the rest of Anki's history in \(anki.collection) is read by the next change: \(error.message)")
                break
            }
            guard let next = slice.anki else { break }
            anki.more = next.more
            anki.problem = next.problem
            anki.retry = next.retry
            anki.opened += next.opened
            // A slice that recorded nothing (each refused by the schema, or the copy not readable now) is the
            // last: the rest is the next change's.
            if next.opened.isEmpty { break }
        }
        report.anki = anki
    }
    static let ankiSlicePauseMicroseconds: UInt32 = 100_000
}
