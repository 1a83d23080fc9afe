import CLinux
import Glibc
import PlannerCore
import PlannerStore
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
        /// Why the file is ignored (a file the planner read and will not touch), nil when it is not.
        var problem: String? = nil
        /// Its `CalendarBucket`, when read by bucket (`Transaction.calendarRows(in:)`).
        var bucket: String? = nil
    }

    /// Never throws: a folder that cannot be written is a warning, and the next command tries again.
    /// (`open` does today's files alone: CalendarFolderToday.swift.)
    /// `unchanged`: the folder's quick digest, when this command's read side found the folder as the last pass
    /// recorded it.
    @discardableResult
    func reconcileCalendarFolder(_ folder: String, now: Instant, unchanged: String? = nil) -> (written: Int, removed: Int) {
        do {
            let done = try reconcile(folder, now: now, unchanged: unchanged)
            return (done.written, done.removed)
        } catch let error as PlannerError {
            warnOnce(error.message)
        } catch {
            warnOnce("could not write the calendar folder \(folder): \(error)")
        }
        return (0, 0)
    }

    /// Takes the planner's items out of `folder` (setup --uninstall, another calendar-folder): every file
    /// it wrote or read and that is still as it left it; the user's files, and the planner's changed since
    /// (a phone's edit), stay. Returns how many were removed; throws when the folder could not be done.
    /// Also how many `.ics` files are left in it (the user's, and the planner's that changed since).
    public func emptyCalendarFolder(_ folder: String, now: Instant) throws -> (removed: Int, left: Int) {
        let done = try reconcile(folder, now: now, wantNothing: true)
        return (done.removed, done.icsFiles - done.removed)
    }

    /// One pass: the buckets (`CalendarBucket`) whose listing or plan differs from what the last pass
    /// recorded (`calendar_pass`) are made what the plan wants; the others are not looked into. With no
    /// record for the folder (the first pass, or another folder), or emptying it, every bucket is.
    /// A folder the read side found unchanged (`unchanged`), whose plan's fingerprint is the one the last pass
    /// recorded before the instant it holds until, is what the plan wants: nothing is looked at, no child made.
    private func reconcile(
        _ folder: String, now: Instant, wantNothing: Bool = false, unchanged: String? = nil
    ) throws -> (written: Int, removed: Int, icsFiles: Int) {
        if !wantNothing, let unchanged {
            let holds: Bool = try read { t in
                let (head, fingerprint) = try t.calendarPlanFingerprint(folder: folder, now: now)
                return head?.holds(quick: unchanged, plan: fingerprint, now: now) ?? false
            }
            if holds { return (0, 0, 0) }
        }
        var dir: Int32 = -1  // the child's
        var failure: PlannerError?
        // What a message about an unfinished pass ends with: emptying a folder the planner leaves is not tried again.
        let again = wantNothing ? "" : ": it is written again by the next planner command"
        var placedItems: [String: (item: CalendarFolderText.Item, digest: String)] = [:]  // SEQUENCE aside, as written
        var forgotten: [String] = []
        // Rows found by their digest to hold an item of another recipe: remembered, so the next run knows
        // them without making their text.
        var learned: [(name: String, digest: String, recipe: String)] = []
        // The buckets looked into, with the key of the plan they were made from; their rows as decided from;
        // what the last pass recorded.
        var looked: [String: String] = [:]
        var rows: [String: CalendarRow] = [:]
        var records: PassRecords = [:]
        var wanted: Set<String> = []
        var recordedHead: CalendarPassHead?
        // The plan's fingerprint and until when its facts hold, as read with the facts.
        var fingerprint: String?
        var until: Int64?
        var icsFiles = 0
        // Every bucket recorded as listed (`records`, as this pass leaves them; those not looked into were, and
        // are still): the read side may then compare the folder's total alone — or its quick digest, and the
        // write side the plan's fingerprint, every bucket's record being of the plan read now.
        func recordable(_ listing: CalendarListing) -> CalendarPassHead? {
            guard Set(records.keys).union(listing.buckets.keys).allSatisfy({ records[$0]?.listing == listing.digest($0) }) else { return nil }
            return CalendarPassHead(
                total: listing.total, quick: listing.quick.isEmpty ? nil : listing.quick, plan: fingerprint, from: now.milliseconds, until: until)
        }
        // The child holds the folder's lock and lists it; the plan is read once it holds the folder, so of
        // two planner processes the later commit is always the one written last.
        let timing = folderTiming
        let lockWait = timing.lockWaitMilliseconds
        let outcome = try FolderChild.run(
            folder: folder, timing: timing,
            observe: {
                CalendarFiles.lockAndList(folder, dir: &dir, listing: true, wait: lockWait)
            },
            decide: { observed throws -> [UInt8]? in
                let listing: CalendarListing
                switch CalendarFiles.bucketed(observed) {
                case .listed(let listed): listing = listed
                case .cannotOpen(let code):
                    failure = .io(
                        CalendarFolderText.cannotWrite(folder, DatabaseFile.describe(code), again: !wantNothing)
                    )
                    return nil
                case .busy:
                    timing.stalled()
                    failure = .io("the calendar folder \(folder) is locked by another process" + again)
                    return nil
                case .unchanged, .unreadable:
                    failure = .io("the calendar folder's child said nothing usable" + again)
                    return nil
                }
                icsFiles = listing.icsCount
                // One read: the plan, what the last pass recorded and the rows of what to look into, as of one commit.
                let (facts, vanished): (CalendarPlanFacts, Bool) = try read { t in
                    let facts = try t.calendarPlanFacts(now: now)
                    records = try t.calendarPassRecords(folder)
                    (recordedHead, fingerprint) = try t.calendarPlanFingerprint(folder: folder, now: now)
                    until = facts.unchangedUntil
                    // No .ics left at all where the planner wrote some: not mounted (an empty mount point)?
                    // Filled again, it would make vdirsyncer delete the user's items from the server (it refuses
                    // to sync a folder found empty). Left alone until the setting is set again.
                    if !wantNothing, listing.icsCount == 0,
                        try t.connection.integer("SELECT EXISTS (SELECT 1 FROM calendar_file WHERE digest IS NOT NULL)") == 1
                    {
                        return (facts, true)
                    }
                    // Which buckets to look into: every one when nothing is recorded (or all must go), else those
                    // whose files or plan changed since the last pass.
                    let everything = wantNothing || records.isEmpty
                    var buckets = Set(listing.buckets.keys).union(records.keys)
                    if !wantNothing { wanted = Set(facts.wantedBuckets) }
                    buckets.formUnion(wanted)
                    for bucket in buckets {
                        let plan = wantNothing ? "" : facts.key(bucket: bucket)
                        if everything || records[bucket]?.listing != listing.digest(bucket) || records[bucket]?.plan != plan { looked[bucket] = plan }
                    }
                    rows = try t.calendarRows(in: everything ? nil : Set(looked.keys))
                    if everything {
                        for row in rows.values {
                            if let bucket = row.bucket, looked[bucket] == nil { looked[bucket] = wantNothing ? "" : facts.key(bucket: bucket) }
                        }
                    }
                    return (facts, false)
                }
                if vanished {
                    failure = .io(CalendarFolderText.vanishedWarning(folder))
                    return nil
                }
                guard !looked.isEmpty else {
                    // Nothing to do, yet the record may be behind (what changed moved no bucket's key: a new UTC
                    // date, a pause's start, the first pass after an upgrade): recorded, under the folder's lock,
                    // so that the next pass ends at its first look.
                    if !wantNothing, let head = recordable(listing), head != recordedHead {
                        try write { t in try t.recordCalendarPassHead(folder, head) }
                    }
                    return nil
                }
                let items = wantNothing ? [] : facts.items(of: Set(looked.keys))
                let seen = listing.files(in: Set(looked.keys))
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
                        if CalendarFolderText.holds(digest, made: made.digest) {
                            learned.append((name, digest, item.recipe))
                            continue
                        }
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
                return CalendarFiles.job(placements, removals: removals, cleanTemporaries: true, listAfter: true)
            }, act: { job in CalendarFiles.act(job, dir: dir) },
            settle: { acted in
                // Recorded while the child still holds the folder's lock: the next process finds it as recorded.
                guard let done = CalendarFiles.done(acted) else { return }
                // The rows of the buckets looked into, as this pass leaves them.
                var after = rows
                for file in done.placed {
                    guard let (item, digest) = placedItems[file.name] else { continue }
                    after[file.name] = CalendarRow(
                        day: item.day?.description, digest: digest, size: file.size, mtime: file.mtime, recipe: item.recipe, bucket: item.bucket)
                }
                for name in done.removed + forgotten { after[name] = nil }
                // A bucket is recorded only when its files are exactly its rows now; any other is looked into again.
                // An empty bucket the plan no longer wants is dropped (past days do not pile up here).
                var record: [(bucket: String, listing: String, plan: String)] = []
                var again: Set<String> = []
                var drop: [String] = []
                if !wantNothing, let listing = done.after {
                    var rowsByBucket: [String: [String: CalendarRow]] = [:]
                    for (name, row) in after { if let bucket = row.bucket { rowsByBucket[bucket, default: [:]][name] = row } }
                    for (bucket, plan) in looked.sorted(by: { $0.key < $1.key }) {
                        let files = listing.files(in: [bucket])
                        let bucketRows = rowsByBucket[bucket] ?? [:]
                        if done.failure == nil, PlannerDatabase.bucketMatches(files, rows: bucketRows) {
                            if files.isEmpty, bucketRows.isEmpty, !wanted.contains(bucket) {
                                if records[bucket] != nil { drop.append(bucket) }
                            } else if records[bucket]?.listing != listing.digest(bucket) || records[bucket]?.plan != plan {
                                record.append((bucket, listing.digest(bucket), plan))
                            }
                        } else if records[bucket]?.listing != PlannerDatabase.lookAgain {
                            again.insert(bucket)
                        }
                    }
                }
                var head: CalendarPassHead?
                if !wantNothing, done.failure == nil, again.isEmpty, let listing = done.after {
                    for r in record { records[r.bucket] = (r.listing, r.plan) }
                    for bucket in drop { records[bucket] = nil }
                    head = recordable(listing)
                }
                let forgetAll = wantNothing && !records.isEmpty
                guard
                    !done.placed.isEmpty || !done.removed.isEmpty || !forgotten.isEmpty || !learned.isEmpty || !record.isEmpty || !again.isEmpty
                        || !drop.isEmpty || forgetAll || head != recordedHead
                else { return }
                try write { t in
                    let upsert = try t.connection.prepare(
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
                    let learn = try t.connection.prepare("UPDATE calendar_file SET recipe = ? WHERE name = ? AND digest = ?")
                    for row in learned {
                        try learn.run(.text(CalendarFolderText.boundRecipe(row.recipe, digest: row.digest)), .text(row.name), .text(row.digest))
                    }
                    let delete = try t.connection.prepare("DELETE FROM calendar_file WHERE name = ?")
                    for name in done.removed + forgotten { try delete.run(.text(name)) }
                    if forgetAll { try t.forgetCalendarPass(folder) }
                    if !again.isEmpty { try t.lookAgain(folder, buckets: again) }
                    let dropping = try t.connection.prepare("DELETE FROM calendar_pass WHERE folder = ? AND bucket = ?")
                    for bucket in drop { try dropping.run(.text(folder), .text(bucket)) }
                    if head != recordedHead { try t.recordCalendarPassHead(folder, head) }
                    if !record.isEmpty {
                        let remember = try t.connection.prepare(
                            """
                            INSERT INTO calendar_pass (folder, bucket, listing, plan) VALUES (?, ?, ?, ?)
                            ON CONFLICT (folder, bucket) DO UPDATE SET listing = excluded.listing, plan = excluded.plan
                            """)
                        for r in record { try remember.run(.text(folder), .text(r.bucket), .text(r.listing), .text(r.plan)) }
                    }
                }
            }, release: { if dir >= 0 { close(dir) } })
        if let failure { throw failure }
        let done: CalendarFiles.Done
        if let why = outcome.unfinished { throw PlannerError.io(CalendarFolderText.cannotWrite(folder, why, again: !wantNothing)) }
        switch outcome {
        case .timedOut, .failed: return (0, 0, icsFiles)  // said above
        case .done(_, nil):
            return (0, 0, icsFiles)
        case .done(_, let acted?):
            guard let decoded = CalendarFiles.done(acted) else { throw PlannerError.io("the calendar folder's child said nothing usable") }
            done = decoded
        }
        if let failure = done.failure {
            throw PlannerError.io(
                "cannot write \(folder)/\(failure.name) (\(DatabaseFile.describe(failure.code)))"
                    + (wantNothing ? "" : ": \(CalendarFolderText.writtenAgain)")
            )
        }
        return (done.placed.count, done.removed.count, icsFiles)
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
