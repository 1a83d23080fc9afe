import CSQLite
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// Anki's collection, read side: before the write transaction, its files are looked at and, when they
/// changed, copied into a private folder (`prepareAnkiRead`, `AnkiFiles`); inside it, the copy is read and
/// each study day's first review becomes an open of that day, origin `anki` (`AnkiReviews`).
extension PlannerDatabase {
    /// Where the private copy of the collection is kept: a folder beside the database, only this user's.
    var ankiCopyFolder: String { resolvedPath + ".anki-copy" }

    /// Before the write transaction, outside the database's lock: looks at the collection (a child) and, when
    /// it changed since the last read, copies it into the private folder. nil when no collection is set.
    /// A collection of hundreds of MiB takes a second to copy: inside the transaction, a login's `open`
    /// would wait for it, and a due reminder too.
    func prepareAnkiRead() throws -> AnkiPrepared? {
        // What the last read left, in a read transaction of its own: none is held while the child copies.
        typealias Known = (db: String, wal: String, more: Bool, problem: String?)
        let found = try read { t throws -> (String, Known)? in
            guard let collection = try t.ankiCollectionSetting() else { return nil }
            let row = try t.connection.prepare("SELECT db_file, wal_file, more, problem FROM anki_read WHERE collection = ?")
            try row.bind([.text(collection)])
            guard try row.step() else { return (collection, ("", "", false, nil)) }
            return (collection, (row.text(0), row.text(1), row.int64(2) != 0, row.isNull(3) ? nil : row.text(3)))
        }
        guard let (collection, known) = found else { return nil }
        var prepared = AnkiPrepared(collection: collection)
        prepared.knownProblem = known.problem
        let folder = ankiCopyFolder
        let copy = folder + "/collection.anki2"
        var fds: [Int32] = []  // the child's
        let timing = folderTiming
        let lockWait = timing.lockWaitMilliseconds
        let outcome = try FolderChild.run(
            folder: collection, timing: timing,
            observe: { AnkiFiles.look(collection, fds: &fds) },
            decide: { observed throws -> [UInt8]? in
                var r = Wire.Reader(observed)
                guard let status = r.int() else { return nil }
                if status != 0 {
                    prepared.problem = r.text() ?? "cannot be read"
                    return nil
                }
                guard let db = r.text(), let wal = r.text() else { return nil }
                var info = stat()
                let haveCopy = stat(copy, &info) == 0
                if haveCopy, db == known.db, wal == known.wal, known.problem == nil {
                    // Unchanged: read again only when the last read left days for later (a slice).
                    if known.more { prepared.copied = (db, wal) }
                    return nil
                }
                // The database as the child first saw it: copied whole unless the copy is of that very file
                // (and the child finds it so when it copies: a checkpoint in between makes it whole).
                var job = Wire.Writer()
                job.text(haveCopy && db == known.db ? db : "")
                return job.bytes
            },
            act: { job in
                var r = Wire.Reader(job)
                return AnkiFiles.copy(collection, into: folder, base: r.text() ?? "", fds: fds, lockWait: lockWait)
            }, release: { for fd in fds { close(fd) } })
        switch outcome {
        case .timedOut(let waited):
            prepared.problem = "did not answer within \(waited) ms (a stalled mount?)"
            prepared.retry = true
        case .failed(let why):
            prepared.problem = "cannot be read (\(why))"
            prepared.retry = true
        case .done(_, let acted?):
            var r = Wire.Reader(acted)
            switch r.int() {
            case 0?:
                if let db = r.text(), let wal = r.text() { prepared.copied = (db, wal) }
            case 1?: prepared.problem = r.text() ?? "cannot be copied"
            case 3?:
                // Another planner process is copying it (and reads what it copies): read later.
                prepared.retry = true
            default:
                prepared.problem = "changed while it was copied, three times (Anki busy?)"
                prepared.retry = true
            }
        case .done(_, nil):
            break
        }
        return prepared
    }

    struct AnkiUnreadable: Error { var message: String }

    /// One walk of the copy's review log (`readReviews`), kept by a command across the slices of a long
    /// history: while the copy, the clock and the day rules are what they were, the next slice chooses
    /// its days from it again instead of walking twenty years of days again.
    struct AnkiWalk {
        struct Key: Equatable {
            var copied: String
            var now: Instant
            var periods: [(after: Int64, through: Int64, schedule: Schedule, zone: Zone)]

            static func == (a: Key, b: Key) -> Bool {
                a.copied == b.copied && a.now == b.now && a.periods.count == b.periods.count
                    && zip(a.periods, b.periods).allSatisfy {
                        $0.after == $1.after && $0.through == $1.through && $0.schedule == $1.schedule && $0.zone.name == $1.zone.name
                    }
            }
        }
        var key: Key
        var found: (firsts: [(day: LocalDate, review: Int64, at: Instant)], reviews: Int64, last: Int64, synced: Int64)
    }

    /// What `prepareAnkiRead` found before the transaction.
    struct AnkiPrepared {
        var collection: String
        /// Anki's files as copied (or as found copied with days left unread): the copy is to be read.
        var copied: (db: String, wal: String)?
        /// Why it could not be read (a stall, a FIFO, Anki busy through every try).
        var problem: String?
        /// The problem may pass by itself: tried again soon.
        var retry = false
        /// The problem the last read recorded (a new one is warned of once).
        var knownProblem: String?
    }

    /// Reads the copy: every study day's first review among the reviews that can be real (after Anki
    /// existed, not ahead of the clock: `AnkiReviews.plausible`), and the log's size and last id.
    static func readReviews(
        _ copy: String, now: Instant, periods: [(after: Int64, through: Int64, schedule: Schedule, zone: Zone)]
    )
        throws -> (firsts: [(day: LocalDate, review: Int64, at: Instant)], reviews: Int64, last: Int64, synced: Int64)
    {
        enum Found {
            case reviews([(day: LocalDate, review: Int64, at: Instant)], Int64, Int64, Int64)
            case refused(String)
        }
        func read() throws(SQLiteError) -> Found {
            // Read-write so SQLite replays the copied WAL (it is the planner's own copy; closing folds the
            // WAL in). Nothing in it is trusted: no schema code runs, and nothing is written.
            let anki = try Connection(path: copy, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW)
            defer { anki.close() }
            try anki.execute("PRAGMA trusted_schema = OFF")
            guard try anki.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('col', 'revlog')") == 2,
                let version = try anki.integer("SELECT ver FROM col"),
                try anki.integer("SELECT count(*) FROM pragma_table_info('revlog') WHERE name IN ('id', 'type', 'ease')") == 3
            else {
                return .refused("is not an Anki collection (no col version or revlog)")
            }
            guard AnkiReviews.knownSchemaVersions.contains(version) else {
                return .refused(
                    "has schema version \(version), which this planner does not know (it reads \(AnkiReviews.knownSchemaVersions.lowerBound)–\(AnkiReviews.knownSchemaVersions.upperBound)): update the planner"
                )
            }
            try anki.execute("PRAGMA query_only = ON")
            let total = try anki.integer("SELECT count(*) FROM revlog") ?? 0
            let last = try anki.integer("SELECT coalesce(max(id), 0) FROM revlog") ?? 0
            // When Anki last synced this collection (0: never): a phone's review is here only since then.
            let synced = try anki.integer("SELECT coalesce(max(ls), 0) FROM col") ?? 0
            let range = AnkiReviews.plausible(now: now)
            // Answers only (`AnkiReviews.answerKinds`): a "Set due date" or a reset is not studying. The rows
            // that are not answers are walked past on the id index, each at most once a read.
            let next = try anki.prepare(
                "SELECT id FROM revlog WHERE id >= ? AND id <= ? AND type BETWEEN ? AND ? AND ease BETWEEN ? AND ? ORDER BY id LIMIT 1")
            let kinds = AnkiReviews.answerKinds
            let buttons = AnkiReviews.answerButtons
            var firsts: [(day: LocalDate, review: Int64, at: Instant)] = []
            var seen: Set<LocalDate> = []
            for period in periods where period.through >= range.lowerBound && period.after < range.upperBound {
                let walked = try AnkiReviews.firstReviews(
                    from: max(range.lowerBound, period.after + 1), through: min(range.upperBound, period.through),
                    schedule: period.schedule, zone: period.zone
                ) { (at: Int64) throws(SQLiteError) -> Int64? in
                    try next.bind([
                        .integer(at), .integer(range.upperBound), .integer(kinds.lowerBound), .integer(kinds.upperBound),
                        .integer(buttons.lowerBound), .integer(buttons.upperBound),
                    ])
                    return try next.step() ? next.int64(0) : nil
                }
                // A day two rules share (the window changed during it): its first review is the earlier one.
                for first in walked where seen.insert(first.day).inserted { firsts.append(first) }
            }
            return .reviews(firsts, total, last, synced)
        }
        let found: Found
        do { found = try read() } catch {
            switch error.primaryCode {
            case SQLITE_NOTADB: throw AnkiUnreadable(message: "is not an SQLite database")
            case SQLITE_CORRUPT: throw AnkiUnreadable(message: "is damaged (\(error.message))")
            default: throw AnkiUnreadable(message: "cannot be read (\(error.message))")
            }
        }
        switch found {
        case .refused(let why): throw AnkiUnreadable(message: why)
        case .reviews(let firsts, let total, let last, let synced): return (firsts, total, last, synced)
        }
    }

    /// How fresh the collection is, for `status`: when Anki last synced it (nil: never, or not read yet) and
    /// its latest review, as the last read found them.
    public func ankiFreshness(collection: String) throws(PlannerError) -> (synced: Instant?, lastReview: Instant?) {
        guard !collection.isEmpty else { return (nil, nil) }
        return try read { t in
            let stmt = try t.connection.prepare("SELECT synced_ms, last_review FROM anki_read WHERE collection = ?")
            try stmt.bind([.text(collection)])
            guard try stmt.step() else { return (nil, nil) }
            func instant(_ column: Int32) -> Instant? {
                stmt.isNull(column) || stmt.int64(column) <= 0 ? nil : Instant(milliseconds: stmt.int64(column))
            }
            return (instant(0), instant(1))
        }
    }

    /// Whether the collection was read whole by a planner that keeps Anki's last sync (a row without a
    /// problem, `synced_ms` known: one read before migration 0017 knows nothing of it until Anki writes).
    public func ankiWasRead(collection: String) throws(PlannerError) -> Bool {
        guard !collection.isEmpty else { return false }
        return try read { t in
            let stmt = try t.connection.prepare(
                "SELECT count(*) FROM anki_read WHERE collection = ? AND db_file <> '' AND problem IS NULL AND synced_ms IS NOT NULL")
            try stmt.bind([.text(collection)])
            return try stmt.step() && stmt.int64(0) > 0
        }
    }

    /// The collection's state without changing anything: its problem, for `status` (`collection`: the
    /// setting as the command read it; nothing is read when it is empty).
    public func ankiProblem(collection: String) throws(PlannerError) -> String? {
        guard !collection.isEmpty else { return nil }
        return try read { t in
            let stmt = try t.connection.prepare("SELECT problem FROM anki_read WHERE collection = ?")
            try stmt.bind([.text(collection)])
            guard try stmt.step(), !stmt.isNull(0) else { return nil }
            return "the Anki collection \(collection) \(stmt.text(0))"
        }
    }
}

extension Transaction {
    /// The collection set with `config set anki-collection` (when it is a valid value), or nil.
    func ankiCollectionSetting() throws -> String? {
        let path = try connection.text("SELECT value FROM setting WHERE key = 'anki-collection'") ?? ""
        // A value put there by hand past `config set` is the default (none), as every other command reads it.
        return path.isEmpty || SettingKey.ankiCollection.problem(path) != nil ? nil : path
    }

    /// Inside the caller's write transaction: the opens the collection's reviews make (applied by the
    /// caller, `AnkiSource`), and what was found, from what `prepareAnkiRead` copied. nil when no
    /// collection is set.
    ///
    /// Whenever the collection changed, every study day's first review is found again (one indexed lookup
    /// per day: ~1,800 for five years of daily study), so no review is missed whatever Anki did meanwhile: a
    /// review synced from the phone with an earlier time, an undo, a collection replaced by a full sync.
    /// At most `limit` opens are taken (nil: `ankiOpensPerSlice`) (`AnkiReport.more`: the rest is a later slice's).
    func readAnkiCollection(
        now: Instant, prepared: PlannerDatabase.AnkiPrepared?, walk: inout PlannerDatabase.AnkiWalk?, limit: Int? = nil
    ) throws -> (report: AnkiReport, opens: [(day: LocalDate, event: PlanEvent)])? {
        guard let collection = try ankiCollectionSetting() else { return nil }
        var report = AnkiReport(collection: collection)
        // The setting changed since the look (a `config set` in between): the next change reads the new one.
        guard let prepared, prepared.collection == collection else {
            report.retry = true
            return (report, [])
        }
        let folder = database.ankiCopyFolder
        let copy = folder + "/collection.anki2"
        let copied = prepared.copied
        var problem = prepared.problem
        report.retry = prepared.retry
        // Read under the copy folder's shared lock: another process's child may be copying a newer state into
        // it (under the exclusive one) and would otherwise swap the files mid-read. A copy being made is not
        // waited for beyond a child's end (100 ms); nor is a copy read that is not of the files this process
        // looked at (`copied-from`: one cut short, another collection's, or a newer one another process
        // copied and reads).
        var lock: Int32 = -1
        defer { if lock >= 0 { close(lock) } }
        if problem == nil, let copied {
            lock = Glibc.open(folder + "/lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            var failure: Int32 = lock >= 0 ? EWOULDBLOCK : errno
            for _ in 0..<100 where failure == EWOULDBLOCK || failure == EINTR {
                if flock(lock, LOCK_SH | LOCK_NB) == 0 {
                    failure = 0
                } else {
                    failure = errno
                    usleep(1_000)
                }
            }
            if failure != 0, failure != EWOULDBLOCK, failure != EINTR {
                problem = "cannot be read: its private copy's folder \(folder) cannot be locked (\(DatabaseFile.describe(failure)))"
            } else if failure != 0
                || AnkiFiles.readMarker(folder + "/" + AnkiFiles.markerName) != AnkiFiles.copiedFrom(db: copied.db, wal: copied.wal)
            {
                // The next change looks again, and copies whole what no read describes.
                try connection.prepare("UPDATE anki_read SET db_file = '' WHERE collection = ?").run(.text(collection))
                report.retry = true
                return (report, [])
            }
        }
        var opens: [(day: LocalDate, event: PlanEvent)] = []
        var more = false
        var counts = (reviews: Int64(0), last: Int64(0), synced: Int64(0))
        if problem == nil, let copied {
            report.read = true
            // The copy folder holds this collection now: another's row must copy whole next time.
            try connection.prepare("UPDATE anki_read SET db_file = '' WHERE collection <> ?").run(.text(collection))
            do {
                // Each review by the day rule in force when it was made (a review synced late from the phone, made
                // before the zone or the window changed, belongs to the day those settings gave it).
                let rows = try readSettingRows()
                var rules = DayRuleHistory.StudyDays(
                    try dayRuleHistory(values: rows.values, defaults: rows.defaults), resolve: PlannerDatabase.usableZone(named:))
                let periods = rules.periods()
                let key = PlannerDatabase.AnkiWalk.Key(copied: copied.db + " " + copied.wal, now: now, periods: periods)
                let found = try walk.flatMap { $0.key == key ? $0.found : nil } ?? PlannerDatabase.readReviews(copy, now: now, periods: periods)
                walk = PlannerDatabase.AnkiWalk(key: key, found: found)
                counts = (found.reviews, found.last, found.synced)
                var recorded: [LocalDate: Instant] = [:]
                if !found.firsts.isEmpty {
                    let stmt = try connection.prepare("SELECT local_date, min(opened_at_ms) FROM app_open WHERE origin = ? GROUP BY local_date")
                    try stmt.bind([.text(AnkiReviews.origin)])
                    while try stmt.step() {
                        if let day = LocalDate(iso: stmt.text(0)) { recorded[day] = Instant(milliseconds: stmt.int64(1)) }
                    }
                }
                let current = periods[periods.count - 1]
                let today = current.schedule.studyDay(at: now, in: current.zone)
                let known = try connection.prepare("SELECT 1 FROM event WHERE id = ?")
                (opens, more) = try AnkiReviews.slice(
                    found.firsts, recorded: recorded, today: today, limit: limit ?? PlannerDatabase.ankiOpensPerSlice
                ) { (id: String) throws(SQLiteError) -> Bool in
                    try known.bind([.text(id)])
                    defer { sqlite3_reset(known.handle) }
                    return try known.step()
                }
                report.more = more
            } catch let why as PlannerDatabase.AnkiUnreadable {
                problem = why.message
            }
            // What was copied is what was read; a copy that could not be used is taken whole next time.
            try connection.prepare(
                """
                INSERT INTO anki_read (collection, db_file, wal_file, reviews, last_review, more, problem, read_at_ms, synced_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (collection) DO UPDATE SET db_file = excluded.db_file, wal_file = excluded.wal_file,
                    reviews = excluded.reviews, last_review = excluded.last_review, more = excluded.more,
                    problem = excluded.problem, read_at_ms = excluded.read_at_ms, synced_ms = excluded.synced_ms
                """
            ).run(
                .text(collection), .text(problem == nil ? copied.db : ""), .text(problem == nil ? copied.wal : ""),
                .integer(counts.reviews), .integer(counts.last), .integer(more ? 1 : 0), problem.map { .text($0) } ?? .null,
                .integer(now.milliseconds), problem == nil ? .integer(counts.synced) : .null)
        } else if let problem {
            try connection.prepare(
                """
                INSERT INTO anki_read (collection, problem, read_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (collection) DO UPDATE SET problem = excluded.problem, read_at_ms = excluded.read_at_ms
                """
            ).run(.text(collection), .text(problem), .integer(now.milliseconds))
        }
        if let problem {
            report.problem = "the Anki collection \(collection) \(problem): reviews are read once it can be"
            if problem != prepared.knownProblem { warnOnce(report.problem!) }
        }
        return (report, opens)
    }
}

/// Anki's collection as an event source: its files copied before the change's transaction (`prepare`),
/// its new reviews read inside it as opens of their days (a login's `open` never reads it:
/// `EventSources.login` has no such source). The ticker reads it only when the collection's files changed
/// (`SourceLimits.readsAnki`).
final class AnkiSource: EventSource {
    /// Whether the collection is read at all; at most how many opens a change applies (nil: a command's slices).
    let reads: Bool
    let opens: Int?
    private var found: AnkiReport?
    private var prepared: PlannerDatabase.AnkiPrepared?
    private var days: [String: LocalDate] = [:]
    /// Kept from one change to the next when the source reads a long history in slices.
    private var walk: PlannerDatabase.AnkiWalk?

    init(reads: Bool = true, opens: Int? = nil) {
        self.reads = reads
        self.opens = opens
    }

    package var leftUnread: Bool { found?.more == true }

    package func prepare(_ db: PlannerDatabase, now: Instant) throws {
        (found, prepared, days) = (nil, nil, [:])
        guard reads else { return }
        prepared = try db.prepareAnkiRead()
    }

    package func collect(_ t: Transaction, now: Instant) throws -> [SourcedEvent] {
        guard reads else {
            found = try t.ankiCollectionSetting().map { AnkiReport(collection: $0) }
            return []
        }
        guard let (report, opens) = try t.readAnkiCollection(now: now, prepared: prepared, walk: &walk, limit: opens) else { return [] }
        found = report
        for open in opens { days[open.event.id] = open.day }
        return opens.map { SourcedEvent(event: $0.event, fromAnotherDevice: false, together: true) }
    }

    package func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws {
        for applied in outcome.outcomes {
            for event in applied.fresh { if let day = days[event.id] { found?.opened.append(day) } }
        }
    }

    package func report(into report: inout SourcesReport) {
        report.anki = found
    }
}
