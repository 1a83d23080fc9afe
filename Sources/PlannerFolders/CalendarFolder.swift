import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// The calendar folder, read side: inside the write transaction (like the sync folder), the planner's
/// day tasks changed since it wrote them are read, and one ticked COMPLETED opens its day with the origin
/// `calendar`. Files that are not the planner's are never read past their UID, and never changed.
extension Transaction {
    /// A file ignored: remembered with why (as it is now, so it is read again only once it changes), and
    /// said once, when it first appears; `status` and `sync` show it every time.
    private func note(
        _ name: String, _ why: String, _ previous: String?, folder: String, _ remember: Statement, size: Int64 = -1, mtime: Int64 = -1
    ) throws {
        try remember.run(.text(name), .null, .null, .integer(size), .integer(mtime), .text(why))
        if why != previous { warnOnce("the calendar folder's file \(folder)/\(name): \(why)") }
    }
}

extension PlannerDatabase {
    enum Tick {
        case open(PlanEvent)
        /// nil: nothing to do and nothing wrong (a past day, a day already opened).
        case ignored(String?)
    }

}

extension Transaction {
    /// The folder set with `config set calendar-folder`, or nil.
    func calendarFolderSetting() throws -> String? {
        let folder = try connection.text("SELECT value FROM setting WHERE key = 'calendar-folder'") ?? ""
        return folder.isEmpty ? nil : folder
    }

    /// Inside the caller's write transaction: the ticks found in files changed since they were written, as
    /// opens of their days (applied by the caller, `CalendarFolderSource`). nil when no calendar folder is set.
    /// Only the buckets whose files changed since the last pass recorded them (`calendar_pass`) are looked
    /// into; with no record, every one. `unchanged`: the folder's quick digest when the folder was found as the
    /// last pass recorded it (the write side then need not look at it again).
    func readCalendarFolder(
        now: Instant
    ) throws -> (
        report: CalendarReport, ticks: [(event: PlanEvent, date: LocalDate)], unchanged: String?
    )? {
        guard let folder = try calendarFolderSetting() else { return nil }
        var report = CalendarReport(folder: folder)
        var ticks: [(event: PlanEvent, date: LocalDate)] = []
        // What the last pass recorded for the whole folder: a folder whose quick digest is still the recorded
        // one is not even listed.
        let recorded = try calendarPassHead(folder)
        let known = recorded?.quick
        var unchanged: String?
        var dir: Int32 = -1  // the child's
        var listing: CalendarListing?
        var cannotOpen: Int32?
        var rows: [String: PlannerDatabase.CalendarRow] = [:]
        var files: [String: CalendarFiles.Seen] = [:]
        var looked: Set<String> = []
        // The folder's system calls are the folder child's: a stalled mount costs a warning and the phone's
        // ticks wait.
        let outcome = try FolderChild.run(
            folder: folder, timing: database.folderTiming,
            observe: { CalendarFiles.openAndList(folder, known: known, dir: &dir) },
            decide: { observed throws -> [UInt8]? in
                // The whole folder as the last pass left it: nothing to look into, and no bucket decoded.
                switch CalendarFiles.bucketed(observed, headOnly: true) {
                case .unchanged(let quick, let icsCount):
                    guard let recorded else { return nil }
                    listing = CalendarListing(unchanged: quick, icsCount: icsCount, total: recorded.total)
                    unchanged = quick
                    return nil
                case .listed(let head) where !head.total.isEmpty && recorded?.total == head.total:
                    listing = head
                    // Listed (a name that is not a planner file's changed, or a record from before quick
                    // digests): the same files, so the record holds for this quick digest too.
                    if !head.quick.isEmpty, var recorded {
                        if recorded.quick != head.quick {
                            recorded.quick = head.quick
                            try recordCalendarPassHead(folder, recorded)
                        }
                        unchanged = head.quick
                    }
                    return nil
                default: break
                }
                switch CalendarFiles.bucketed(observed) {
                case .listed(let seen): listing = seen
                case .cannotOpen(let code):
                    cannotOpen = code
                    return nil
                case .unchanged, .busy, .unreadable: return nil
                }
                guard let listing else { return nil }
                let records = try calendarPassRecords(folder)
                for bucket in Set(listing.buckets.keys).union(records.keys)
                where records.isEmpty || records[bucket]?.listing != listing.digest(bucket) {
                    looked.insert(bucket)
                }
                guard !looked.isEmpty else { return nil }
                rows = try calendarRows(in: records.isEmpty ? nil : looked)
                files = listing.files(in: looked)
                // As last written or read (most files): not read. A row's name was a planner UID's when it was made.
                let changed = files.filter { name, file in rows[name].map { $0.size != file.size || $0.mtime != file.mtime } ?? true }
                return changed.isEmpty ? nil : CalendarFiles.readJob(changed.keys.sorted())
            }, act: { job in CalendarFiles.readFiles(job, dir: dir) }, release: { if dir >= 0 { close(dir) } })
        let contents: [String: CalendarFiles.ReadFile]
        if let why = outcome.unfinished {
            report.problems.append("the calendar folder \(folder) cannot be read (\(why)): ticks made on a phone wait")
            return (report, [], nil)
        }
        if case .done(_, let acted) = outcome { contents = acted.map(CalendarFiles.readResults) ?? [:] } else { contents = [:] }
        guard let listing else {
            let why = cannotOpen.map { DatabaseFile.describe($0) } ?? "unreadable"
            report.problems.append("the calendar folder \(folder) cannot be read (\(why)): ticks made on a phone wait")
            return (report, [], nil)
        }
        // Gone from the folder (deleted on the phone, or by hand): written again if the plan still wants it —
        // unless every file is gone (not mounted?): then the rows stay, and the write leaves the folder alone.
        if listing.icsCount == 0, try connection.integer("SELECT EXISTS (SELECT 1 FROM calendar_file)") == 1 {
            report.problems.append(CalendarFolderText.vanishedWarning(folder))
            return (report, [], nil)
        }
        let remember = try connection.prepare(
            """
            INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                mtime_ns = excluded.mtime_ns, problem = excluded.problem, recipe = NULL
            """)
        var present: Set<String> = []
        var touched = false
        let zone = contents.isEmpty ? Zone.utc : try readPlan().1  // only a file read needs it
        for (name, file) in files.sorted(by: { $0.key < $1.key }) {
            let previous = rows[name]
            // As last written or read: nothing to parse.
            if let previous, previous.size == file.size, previous.mtime == file.mtime {
                present.insert(name)
                continue
            }
            guard let uid = CalendarFolderText.uid(fromFileName: name) else { continue }
            let bytes: [UInt8]
            let size: Int64
            let mtime: Int64
            switch contents[name] {
            case nil, .gone?: continue
            case .refused(let why, let size, let mtime)?:
                present.insert(name)
                touched = true
                try note(name, why, previous?.problem, folder: folder, remember, size: size, mtime: mtime)
                continue
            case .failed(let code)?:
                present.insert(name)
                touched = true
                try note(name, "cannot be read (\(DatabaseFile.describe(code)))", previous?.problem, folder: folder, remember)
                continue
            case .bytes(let b, let s, let m)?: (bytes, size, mtime) = (b, s, m)
            }
            present.insert(name)
            touched = true
            var why: String?
            var day: LocalDate?
            switch CalendarFolderText.read(bytes, zone: zone, resolve: { try? SystemZone.named($0) }) {
            case .unusable(let reason): why = reason
            case .foreign(let other): why = "its UID \(TerminalText.quoted(other)) is not the planner's (left alone)"
            case .plannerItem(let said) where said != uid: why = "it says the UID \(TerminalText.quoted(said)), not its name's (left alone)"
            case .task(let said, _, _, _) where said != uid: why = "it says the UID \(TerminalText.quoted(said)), not its name's (left alone)"
            case .plannerItem:
                break
            case .task(_, let date, let completed, let completedAt):
                day = date
                if completed {
                    switch try tick(date: date, uid: uid, completedAt: completedAt, now: now, zone: zone) {
                    case .open(let event): ticks.append((event, date))
                    case .ignored(let problem): why = problem
                    }
                }
            }
            if let why {
                try note(name, why, previous?.problem, folder: folder, remember, size: size, mtime: mtime)
            } else {
                // The planner's, changed since written: the write after the commit puts it back as the plan says,
                // unless it says what the plan says (another computer's copy: `semanticDigest`).
                let read = CalendarFolderText.readPrefix + CalendarFolderText.semanticDigest(String(decoding: bytes, as: UTF8.self))
                try remember.run(.text(name), day.map { .text($0.description) } ?? .null, .text(read), .integer(size), .integer(mtime), .null)
            }
        }
        let forget = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
        for name in rows.keys.sorted() where !present.contains(name) {
            try forget.run(.text(name))
            touched = true
        }
        // Rows changed here, not by a pass: the next pass looks into these buckets whatever they list.
        if touched { try lookAgain(folder, buckets: looked) }
        report.problems += try calendarFileProblems(folder)
        return (report, ticks, touched ? nil : unchanged)
    }

    /// Every file of the folder the planner ignores, with why (a row with a problem has no day, so the day
    /// index finds them without reading the horizon's rows).
    func calendarFileProblems(_ folder: String) throws -> [String] {
        var problems: [String] = []
        let stmt = try connection.prepare("SELECT name, problem FROM calendar_file WHERE day IS NULL AND problem IS NOT NULL ORDER BY name")
        while try stmt.step() { problems.append("\(folder)/\(stmt.text(0)): \(stmt.text(1))") }
        return problems
    }

    /// A day's task ticked off: an open of that day at its COMPLETED time (never later than now), applied
    /// through the same event path as any open; or why it is not one, when that is a problem.
    private func tick(date: LocalDate, uid: String, completedAt: Instant?, now: Instant, zone: Zone) throws -> PlannerDatabase.Tick {
        // The study day, not the local date: with a window across midnight a tick at 00:45 is yesterday's.
        let schedule = try readPlan().0.schedule
        let today = schedule.studyDay(at: now, in: zone)
        if date > today { return .ignored("ticked off before its day (ignored: planner skip \(date) skips a day)") }
        // A past day has no reminders left; a day opened already stays opened.
        if date < today { return .ignored(nil) }
        if try connection.integer("SELECT EXISTS (SELECT 1 FROM app_open WHERE local_date = ?)", .text(date.description)) == 1 {
            return .ignored(nil)
        }
        var at = min(completedAt ?? now, now)
        if schedule.studyDay(at: at, in: zone) != date { at = now }
        let id = String(SHA256.hex("calendar \(uid) \(at.milliseconds)".utf8).prefix(32))
        // Stamped at its own instant, so that every computer that reads it makes the same event — unless the
        // day rule changed since (a zone, window or interval set after the tick): the day was accepted by the
        // rule in force now, and a stamp before the change would put the open on the old rule's day.
        let ruleChangedSince =
            try connection.integer(
                """
                SELECT EXISTS (SELECT 1 FROM event WHERE kind = 'settings' AND stamp_ms >= ?
                  AND (instr(payload, 'set.zone=') OR instr(payload, 'set.window=') OR instr(payload, 'set.interval=')
                       OR instr(payload, 'reset=')))
                """, .integer(at.milliseconds)) == 1
        let event = PlanEvent(
            id: id, at: at, origin: RecordOpens.calendarOrigin,
            change: .open(zoneName: zone.name, offsetSeconds: zone.offset(at: at), graceMilliseconds: nil),
            stamp: ruleChangedSince ? nil : RecordOpens.calendarStamp(at: at))
        return .open(event)
    }
}

extension PlannerDatabase {
    /// The calendar folder's state without changing anything: its problems, for `status`.
    public func calendarProblems() throws(PlannerError) -> (folder: String?, problems: [String]) {
        try read { t in
            guard let folder = try t.calendarFolderSetting() else { return (nil, []) }
            var problems: [String] = []
            switch FolderLook.look(folder, timing: folderTiming) {
            case .folder: break
            case .missing: problems.append("the calendar folder \(folder) is missing or not a folder: the plan is written there once it exists")
            case .notAnswering(let why):
                problems.append("the calendar folder \(folder) is not answering (\(why)): shown as the database last knew it")
            }
            return (folder, problems + (try t.calendarFileProblems(folder)))
        }
    }
}

/// The calendar folder as an event source: a day ticked on the phone read inside the change's transaction
/// as an open of that day (unless `whole` is false: a login's `open` reads no folder), and the folder made
/// what the plan says after the commit (`open`: today's files alone, decided from the rows).
final class CalendarFolderSource: EventSource {
    let whole: Bool
    private var found: CalendarReport?
    private var ticks: [String: LocalDate] = [:]
    private var folder: String?
    private var today: PlannerDatabase.TodaysCalendar?
    /// The folder's quick digest when the read side found it as the last pass recorded it.
    private var unchanged: String?

    init(whole: Bool) { self.whole = whole }

    package func collect(_ t: Transaction, now: Instant) throws -> [SourcedEvent] {
        guard whole, let (report, found, unchanged) = try t.readCalendarFolder(now: now) else { return [] }
        self.found = report
        self.unchanged = unchanged
        for tick in found { ticks[tick.event.id] = tick.date }
        return found.map { SourcedEvent(event: $0.event, fromAnotherDevice: false) }
    }

    package func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws {
        for applied in outcome.outcomes {
            for event in applied.fresh { if let date = ticks[event.id] { found?.ticks.append(date) } }
        }
    }

    package func seal(_ t: Transaction, now: Instant) throws {
        folder = try t.calendarFolderSetting()
        if !whole, let folder { today = try t.planTodaysCalendar(folder, now: now) }
    }

    package func finish(_ db: PlannerDatabase, now: Instant) {
        if let today {
            db.applyTodaysCalendar(today)
        } else if whole, let folder {
            let done = db.reconcileCalendarFolder(folder, now: now, unchanged: unchanged)
            found?.written += done.written
            found?.removed += done.removed
        }
    }

    package func abandon() {
        today?.child?.hangUp()
        today = nil
    }

    package func report(into report: inout SourcesReport) {
        report.calendar = found
    }
}
