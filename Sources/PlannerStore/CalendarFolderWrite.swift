import CLinux
import Glibc
import PlannerCore
import PlannerSystem

/// The calendar folder, write side: after a committed write, outside the database's lock, the folder is
/// made what the plan wants, its system calls made by the folder child (CalendarFolderFiles.swift: a
/// frozen folder costs a warning, never a wait). Each file is written whole beside its name
/// (`.planner-….tmp`), made durable (fsync, or one syncfs for a batch) and swapped in, so a reader
/// (vdirsyncer, khal) or a kill never sees half a file. Only files the planner wrote itself, or read and
/// found to be its own, are replaced or removed, and only if still so at the moment of the swap; a file
/// changed since is left for the next run to read first (a tick is never lost).
extension PlannerDatabase {
    struct CalendarRow {
        var day: String?
        var digest: String?
        var size: Int64
        var mtime: Int64
        /// The recipe of the item its digest is known to hold, bound to that digest (`calendar_file.recipe`,
        /// `CalendarFolderText.boundRecipe`), or nil.
        var recipe: String?
    }

    /// Never throws: a folder that cannot be written is a warning, and the next command tries again.
    /// (`open` does today's files alone: CalendarFolderToday.swift.)
    @discardableResult
    func reconcileCalendarFolder(_ folder: String, now: Instant) -> (written: Int, removed: Int) {
        do {
            return try reconcile(folder, now: now)
        } catch let error as PlannerError {
            PlannerDatabase.warnOnce(error.message)
        } catch {
            PlannerDatabase.warnOnce("could not write the calendar folder \(folder): \(error)")
        }
        return (0, 0)
    }

    /// Takes the planner's items out of `folder` (setup --uninstall, another calendar-folder): every file
    /// it wrote or read and that is still as it left it; the user's files, and the planner's changed since
    /// (a phone's edit), stay. Returns how many were removed; throws when the folder could not be done.
    /// Also how many `.ics` files are left in it (the user's, and the planner's that changed since).
    public func emptyCalendarFolder(_ folder: String, now: Instant) throws -> (removed: Int, left: Int) {
        var names: Set<String> = []
        let done = try reconcile(folder, now: now, wantNothing: true, listed: { names = $0 })
        return (done.removed, names.count - done.removed)
    }

    private func reconcile(
        _ folder: String, now: Instant, wantNothing: Bool = false,
        listed: (Set<String>) -> Void = { _ in }
    ) throws -> (written: Int, removed: Int) {
        var dir: Int32 = -1  // the child's
        var failure: PlannerError?
        var placedItems: [String: (item: CalendarFolderText.Item, digest: String)] = [:]  // SEQUENCE aside, as written
        var forgotten: [String] = []
        // Rows found by their digest to hold an item of another recipe: remembered, so the next run knows
        // them without making their text.
        var learned: [(name: String, digest: String, recipe: String)] = []
        // The child holds the folder's lock and lists it; the plan is read once it holds the folder, so of
        // two planner processes the later commit is always the one written last.
        let outcome = try FolderChild.run(
            observe: {
                CalendarFiles.lockAndList(folder, dir: &dir, listing: true)
            },
            decide: { observed throws -> [UInt8]? in
                let seen: [String: CalendarFiles.Seen]
                switch CalendarFiles.listed(observed) {
                case .listed(let listing): seen = listing
                case .cannotOpen(let code):
                    failure = .io(
                        "cannot write the calendar folder \(folder) (\(DatabaseFile.describe(code))): it is written again by the next planner command once it can"
                    )
                    return nil
                case .busy:
                    FolderChild.stalled()
                    failure = .io("the calendar folder \(folder) is locked by another process: it is written again by the next planner command")
                    return nil
                case .unreadable:
                    failure = .io("the calendar folder's child said nothing usable: it is written again by the next planner command")
                    return nil
                }
                var (items, rows) = try calendarWanted(now: now)
                if wantNothing { items = [] }
                // No .ics left at all where the planner wrote some: not mounted (an empty mount point)? Filled
                // again, it would make vdirsyncer delete the user's items from the server (it refuses to sync a
                // folder found empty). Left alone until the setting is set again.
                if !wantNothing, rows.values.contains(where: { $0.digest != nil }),
                    !seen.keys.contains(where: { $0.hasSuffix(CalendarFolderText.fileExtension) })
                {
                    failure = .io(CalendarFolderText.vanishedWarning(folder))
                    return nil
                }
                listed(Set(seen.keys.filter { $0.hasSuffix(CalendarFolderText.fileExtension) }))
                // As the planner wrote or read it (same size and mtime), changed since, or gone.
                func state(_ name: String, _ row: CalendarRow) -> FileState {
                    guard let file = seen[name] else { return .gone }
                    return file.regular && file.size == row.size && file.mtime == row.mtime ? .same : .changed
                }
                var placements: [CalendarFiles.Placement] = []
                var removals: [CalendarFiles.Removal] = []
                var wantedNames: Set<String> = []
                for item in items {
                    let name = item.fileName
                    wantedNames.insert(name)
                    if let row = rows[name] {
                        guard let digest = row.digest else { continue }
                        if CalendarFolderText.recipeHolds(row.recipe, recipe: item.recipe, digest: digest) { continue }
                        let made = item.made()
                        if CalendarFolderText.holds(digest, made: made.digest) { learned.append((name, digest, item.recipe)); continue }
                        switch state(name, row) {
                        case .changed: continue
                        case .gone:
                            placedItems[name] = (item, made.digest)
                            placements.append(.init(name: name, bytes: made.bytes, mtime: nil, expected: nil))
                        case .same:
                            // Read since the planner wrote it (`read:`, or "" before): someone else's edit, put back as a new revision.
                            let read = digest == "" || digest.hasPrefix(CalendarFolderText.readPrefix)
                            placedItems[name] = (item, made.digest)
                            placements.append(
                                .init(
                                    name: name, bytes: read ? item.revised(at: now).bytes() : made.bytes, mtime: nil,
                                    expected: (row.size, row.mtime)))
                        }
                    } else if seen[name] == nil {
                        // New: never over a file the planner has not read (it appeared since the read).
                        let made = item.made()
                        placedItems[name] = (item, made.digest)
                        placements.append(.init(name: name, bytes: made.bytes, mtime: nil, expected: nil))
                    }
                }
                // Sorted after the filter: sorting every row's name cost more than the rest of the pass.
                let unwanted = rows.filter { $0.value.digest != nil && !wantedNames.contains($0.key) }.sorted { $0.key < $1.key }
                for (name, row) in unwanted {
                    switch state(name, row) {
                    case .changed: continue
                    case .gone: forgotten.append(name)
                    case .same: removals.append(.init(name: name, size: row.size, mtime: row.mtime))
                    }
                }
                return CalendarFiles.job(placements, removals: removals, cleanTemporaries: true)
            }, act: { job in CalendarFiles.act(job, dir: dir) },
            settle: { acted in
                // Recorded while the child still holds the folder's lock: the next process finds it as recorded.
                guard let done = CalendarFiles.done(acted) else { return }
                guard !done.placed.isEmpty || !done.removed.isEmpty || !forgotten.isEmpty || !learned.isEmpty else { return }
                try write {
                    let upsert = try connection.prepare(
                        """
                        INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem, recipe) VALUES (?, ?, ?, ?, ?, NULL, ?)
                        ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                            mtime_ns = excluded.mtime_ns, problem = NULL, recipe = excluded.recipe
                        """)
                    for file in done.placed {
                        guard let (item, digest) = placedItems[file.name] else { continue }
                        try upsert.run(
                            .text(file.name), item.day.map { .text($0.description) } ?? .null, .text(digest),
                            .integer(file.size), .integer(file.mtime), .text(CalendarFolderText.boundRecipe(item.recipe, digest: digest)))
                    }
                    // Only while the row still says what was compared (another process may have read the file since).
                    let learn = try connection.prepare("UPDATE calendar_file SET recipe = ? WHERE name = ? AND digest = ?")
                    for row in learned {
                        try learn.run(.text(CalendarFolderText.boundRecipe(row.recipe, digest: row.digest)), .text(row.name), .text(row.digest))
                    }
                    let delete = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
                    for name in done.removed + forgotten { try delete.run(.text(name)) }
                }
            }, release: { if dir >= 0 { close(dir) } })
        if let failure { throw failure }
        let done: CalendarFiles.Done
        switch outcome {
        case .timedOut:
            throw PlannerError.io(
                "the calendar folder \(folder) did not answer within \(FolderChild.deadlineMilliseconds) ms (a stalled or frozen file system?): it is written again by the next planner command once it can"
            )
        case .failed(let why):
            throw PlannerError.io("cannot write the calendar folder \(folder) (\(why)): it is written again by the next planner command once it can")
        case .done(_, nil):
            return (0, 0)
        case .done(_, let acted?):
            guard let decoded = CalendarFiles.done(acted) else { throw PlannerError.io("the calendar folder's child said nothing usable") }
            done = decoded
        }
        if let failure = done.failure {
            throw PlannerError.io(
                "cannot write \(folder)/\(failure.name) (\(DatabaseFile.describe(failure.code))): it is written again by the next planner command once it can"
            )
        }
        return (done.placed.count, done.removed.count)
    }

    /// What the folder should hold (every item of the days ahead) and the rows of what it held.
    private func calendarWanted(now: Instant) throws -> ([CalendarFolderText.Item], [String: CalendarRow]) {
        try read { () throws -> ([CalendarFolderText.Item], [String: CalendarRow]) in
            let (settings, zone) = try readPlan()
            let today = settings.schedule.studyDay(at: now, in: zone)
            let state = try readPlanState(now: now, zone: zone)
            let days = planAhead(
                now: now, zone: zone, schedule: settings.schedule, exclusions: state.exclusions,
                days: settings.calendarDays)
            var opens: [LocalDate: Instant] = [:]
            let opened = try connection.prepare(
                "SELECT local_date, min(opened_at_ms) FROM app_open WHERE local_date >= ? AND local_date <= ? GROUP BY local_date")
            try opened.bind([.text(today.description), .text(days.last?.date.description ?? today.description)])
            while try opened.step() {
                if let date = LocalDate(iso: opened.text(0)) { opens[date] = Instant(milliseconds: opened.int64(1)) }
            }
            var oneOffs: [CalendarFolderText.OneOff] = []
            let pending = try connection.prepare(
                """
                SELECT identifier, fire_at_ms, title, body FROM request WHERE kind = 'oneoff' AND state IN \(RequestState.waitingSQL)
                ORDER BY fire_at_ms, identifier
                """)
            while try pending.step() {
                oneOffs.append(
                    .init(
                        identifier: pending.text(0), fireAt: Instant(milliseconds: pending.int64(1)),
                        title: pending.text(2), body: pending.text(3)))
            }
            let items = CalendarFolderText.items(days: days, opens: opens, oneOffs: oneOffs, zone: zone, settings: settings)
            let stmt = try connection.prepare("SELECT name, day, digest, size, mtime_ns, recipe FROM calendar_file")
            var rows: [String: CalendarRow] = [:]
            while try stmt.step() {
                rows[stmt.text(0)] = CalendarRow(
                    day: stmt.isNull(1) ? nil : stmt.text(1), digest: stmt.isNull(2) ? nil : stmt.text(2),
                    size: stmt.int64(3), mtime: stmt.int64(4), recipe: stmt.isNull(5) ? nil : stmt.text(5))
            }
            return (items, rows)
        }
    }

    enum FileState { case same, changed, gone }

    /// Whether the file is still as the planner wrote or read it (same size and mtime).
    static func unchanged(_ dir: Int32, _ name: String, _ row: CalendarRow) -> FileState {
        var info = stat()
        guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT ? .gone : .changed }
        guard info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == row.size, mtimeNanoseconds(info) == row.mtime else { return .changed }
        return .same
    }
}
