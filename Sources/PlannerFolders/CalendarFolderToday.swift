import CLinux
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// `open`'s way with the calendar folder: today's files only, decided inside the open's own transaction
/// from the rows (the folder is neither listed nor read), done after the commit with no second
/// transaction. The rows are updated first: a file written is given the mtime its row says; a kill
/// before the files change leaves rows that no longer match the folder, and the next full run reads
/// those files again (a file without a row, or not as its row says, is read before it is touched).
/// Rows changed here are not a pass's: their buckets are marked for the next pass to look into
/// (`lookAgain`), so that its read side reads files that did not become what the rows say (the folder was
/// busy, or the command was killed before the write) and its write side forgets rows of files that never
/// came (else a day's slots are left ringing, or a stale row later makes the whole folder look unmounted).
extension PlannerDatabase {
    struct TodaysCalendar {
        var folder: String
        var writes: [CalendarFiles.Placement] = []
        var removals: [CalendarFiles.Removal] = []
        /// The folder child that looked at today's files, kept to do the writing after the commit (one fork,
        /// not two: a login's `open` with a calendar folder and no live ticker). Whoever holds the plan lets
        /// it go: `applyTodaysCalendar`, or `hangUp` when the change failed.
        var child: FolderChild.Held?
    }

    /// After the commit: the files as the rows now say, by the folder child (a frozen folder costs the
    /// login at most the child's deadline). Never throws (a warning; the next run repairs).
    func applyTodaysCalendar(_ plan: TodaysCalendar) {
        guard let child = plan.child else { return }
        defer { child.end() }
        // What is removed or replaced is left aside for the next full run to unlink (`CalendarFiles.act`,
        // `leaveAside`): the login does not wait on the file system freeing blocks.
        // The lock's wait as this process sees it now: the child was made before the sync folder's step,
        // which may have stalled since (its copy of that memory would wait 290 ms against this one's 100).
        var job = Wire.Writer()
        job.int(folderTiming.lockWaitMilliseconds)
        job.data(CalendarFiles.job(plan.writes, removals: plan.removals, cleanTemporaries: false, leaveAside: true))
        let outcome = child.finish(job.bytes)
        switch outcome {
        case .done(_, let acted?):
            guard let done = CalendarFiles.lockedAndDone(acted) else {
                warnOnce(
                    "the calendar folder \(plan.folder) cannot be written now (busy or missing): \(CalendarFolderText.writtenAgain)")
                return
            }
            if let failure = done.failure {
                warnOnce(
                    "cannot write \(plan.folder)/\(failure.name) (\(DatabaseFile.describe(failure.code))): \(CalendarFolderText.writtenAgain)"
                )
            }
        case .timedOut, .failed, .done(_, nil):
            warnOnce(CalendarFolderText.cannotWrite(plan.folder, outcome.unfinished ?? "unreadable"))
        }
    }
}

extension Transaction {
    /// Inside the write transaction: what today's files must become, with the rows already saying so.
    func planTodaysCalendar(_ folder: String, now: Instant) throws -> PlannerDatabase.TodaysCalendar? {
        let (settings, zone) = try readPlan(at: now)
        let today = settings.schedule.studyDay(at: now, in: zone)
        var exclusions = Exclusions()
        let opened = try connection.prepare("SELECT min(opened_at_ms) FROM app_open WHERE local_date = ?")
        try opened.bind([.text(today.description)])
        let firstOpen = try opened.step() && !opened.isNull(0) ? Instant(milliseconds: opened.int64(0)) : nil
        if firstOpen != nil { exclusions.openedDates.insert(today) }
        if try connection.integer("SELECT count(*) FROM skipped_date WHERE local_date = ? AND removed_at_ms IS NULL", .text(today.description)) ?? 0
            > 0
        {
            exclusions.skippedDates.insert(today)
        }
        let pause = try connection.prepare(HotQueries.pause)
        try pause.bind([.integer(now.milliseconds)])
        if try pause.step() {
            exclusions.pause = Pause(
                since: Instant(milliseconds: pause.int64(0)), until: pause.isNull(1) ? nil : Instant(milliseconds: pause.int64(1)))
        }
        let days = planAhead(now: now, zone: zone, schedule: settings.schedule, exclusions: exclusions, days: 1, withholding: settings)
        var items = CalendarFolderText.items(days: days, opens: firstOpen.map { [today: $0] } ?? [:], oneOffs: [], zone: zone, settings: settings)

        var rows: [String: PlannerDatabase.CalendarRow] = [:]
        let stmt = try connection.prepare("SELECT name, day, digest, size, mtime_ns, recipe FROM calendar_file WHERE day = ?")
        try stmt.bind([.text(today.description)])
        while try stmt.step() {
            rows[stmt.text(0)] = PlannerDatabase.CalendarRow(
                day: stmt.text(1), digest: stmt.isNull(2) ? nil : stmt.text(2), size: stmt.int64(3), mtime: stmt.int64(4),
                recipe: stmt.isNull(5) ? nil : stmt.text(5))
        }
        // The series written before today's study day began still hold today's slots (the first command of the
        // day is this open): made again here, from the whole plan, or the rest of the day would ring from
        // them, and twice with today's own files.
        let stale = try connection.prepare(HotQueries.staleSeries)
        let range = CalendarBucket.nameRanges(CalendarBucket.series)[0]
        try stale.bind([.text(range.from), .text(range.to), .text(today.description), .text(CalendarFolderText.seriesRecipePrefix)])
        let staleSeries = try stale.step() && stale.int64(0) == 1
        if staleSeries {
            items += try calendarPlanFacts(now: now).items(of: [CalendarBucket.series])
            for (name, row) in try calendarRows(in: [CalendarBucket.series]) { rows[name] = row }
        }
        var plan = PlannerDatabase.TodaysCalendar(folder: folder)
        let mtime = SystemClock.nowNanoseconds()
        let upsert = try connection.prepare(
            """
            INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem, recipe) VALUES (?, ?, ?, ?, ?, NULL, ?)
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                mtime_ns = excluded.mtime_ns, problem = NULL, recipe = excluded.recipe
            """)
        var learn: Statement?  // prepared when first needed: a login's open rarely learns
        var touched = false  // whether a row changes here
        // Today's files as they are, looked at by the folder child (a login never waits on a stalled mount).
        let names = items.map(\.fileName) + rows.keys.sorted()
        // It then waits for its job: after the commit, it takes the folder's lock and writes.
        var dir: Int32 = -1  // the child's
        let child = FolderChild.hold(
            folder: folder, timing: database.folderTiming,
            observe: { CalendarFiles.look(folder, names) }, act: { job in CalendarFiles.lockAndAct(folder, job, dir: &dir) },
            release: { if dir >= 0 { close(dir) } })
        // Let go of here unless handed to the writing after the commit: on every other way out, a throw too.
        var kept = false
        defer { if !kept { child.hangUp() } }
        let outcome = child.looked
        guard case .done(let observed, _) = outcome, case .listed(let seen) = CalendarFiles.listed(observed) else {
            var why = outcome.unfinished ?? "unreadable"
            if case .done(let observed, _) = outcome, case .cannotOpen(let code) = CalendarFiles.listed(observed) {
                why = DatabaseFile.describe(code)
            }
            warnOnce(CalendarFolderText.cannotWrite(folder, why))
            return nil
        }
        // Every one of today's files the planner wrote is gone: the folder is most likely not mounted (an
        // empty mount point). Filled again, it would make vdirsyncer take the user's missing items for
        // deleted ones (an empty folder it refuses to sync): left alone, said once.
        if rows.values.contains(where: { $0.digest != nil }), rows.keys.allSatisfy({ seen[$0] == nil }) {
            warnOnce(CalendarFolderText.vanishedWarning(folder))
            return nil
        }
        func look(_ name: String, _ row: PlannerDatabase.CalendarRow) -> PlannerDatabase.FileState {
            guard let file = seen[name] else { return .gone }
            return file.regular && file.size == row.size && file.mtime == row.mtime ? .same : .changed
        }
        var wanted: Set<String> = []
        for item in items {
            wanted.insert(item.fileName)
            let state: PlannerDatabase.FileState
            var made: (bytes: [UInt8], digest: String)?
            if let row = rows[item.fileName] {
                guard let digest = row.digest, !CalendarFolderText.recipeHolds(row.recipe, recipe: item.recipe, digest: digest) else { continue }
                made = item.made()
                if CalendarFolderText.holds(digest, made: made!.digest) {
                    // Known by its recipe from now on (`calendar_file.recipe`).
                    if learn == nil { learn = try connection.prepare("UPDATE calendar_file SET recipe = ? WHERE name = ? AND digest = ?") }
                    try learn?.run(.text(CalendarFolderText.boundRecipe(item.recipe, digest: digest)), .text(item.fileName), .text(digest))
                    continue
                }
                state = look(item.fileName, row)
            } else {
                state = seen[item.fileName] == nil ? .gone : .changed
            }
            // A file changed since the planner wrote it is the next full run's to read first.
            guard state != .changed else { continue }
            let (bytes, digest) = made ?? item.made()
            let expected = state == .same ? rows[item.fileName].map { (size: $0.size, mtime: $0.mtime) } : nil
            plan.writes.append(.init(name: item.fileName, bytes: bytes, mtime: mtime, expected: expected))
            touched = true
            try upsert.run(
                .text(item.fileName), item.isSeries ? .null : .text(today.description), .text(digest), .integer(Int64(bytes.count)),
                .integer(mtime), .text(CalendarFolderText.boundRecipe(item.recipe, digest: digest)))
        }
        let forget = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
        for (name, row) in rows.sorted(by: { $0.key < $1.key }) where row.digest != nil && !wanted.contains(name) {
            switch look(name, row) {
            case .changed: continue
            case .gone:
                try forget.run(.text(name))
                touched = true
            case .same:
                plan.removals.append(.init(name: name, size: row.size, mtime: row.mtime))
                try forget.run(.text(name))
                touched = true
            }
        }
        // Today's rows are those of today's buckets: its date, and the next one's after midnight.
        if touched {
            try lookAgain(folder, buckets: Set([today, today.adding(days: 1)].map(\.description) + (staleSeries ? [CalendarBucket.series] : [])))
        }
        if !plan.writes.isEmpty || !plan.removals.isEmpty {
            plan.child = child
            kept = true
        }
        return plan
    }
}
