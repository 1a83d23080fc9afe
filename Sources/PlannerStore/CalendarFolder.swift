import Glibc
import PlannerCore
import PlannerSystem

/// What one pass over the calendar folder did, for `planner sync`, `status` and the ticker's log.
public struct CalendarReport: Sendable {
    public var folder: String
    /// Days ticked off in the folder (a phone's task app), opened now.
    public var ticks: [LocalDate] = []
    /// Planner items written and removed after the commit.
    public var written = 0
    public var removed = 0
    /// One line per file or folder the planner could not use.
    public var problems: [String] = []
}

/// The calendar folder, read side: inside the write transaction (like the sync folder), the planner's
/// day tasks changed since it wrote them are read, and one ticked COMPLETED opens its day with the origin
/// `calendar`. Files that are not the planner's are never read past their UID, and never changed.
extension PlannerDatabase {
    /// The folder set with `config set calendar-folder`, or nil.
    func calendarFolderSetting() throws -> String? {
        let folder = try connection.text("SELECT value FROM setting WHERE key = 'calendar-folder'") ?? ""
        return folder.isEmpty ? nil : folder
    }

    /// Inside the caller's write transaction: the ticks found in files changed since they were written, as
    /// opens of their days (applied by the caller, `CalendarFolderSource`). nil when no calendar folder is set.
    func readCalendarFolder(now: Instant) throws -> (report: CalendarReport, ticks: [(event: PlanEvent, date: LocalDate)])? {
        guard let folder = try calendarFolderSetting() else { return nil }
        var report = CalendarReport(folder: folder)
        var ticks: [(event: PlanEvent, date: LocalDate)] = []
        let (_, zone) = try readPlan()
        // Each row's place in `names`, where `present` marks the rows whose files are still there.
        var rows: [String: (digest: String?, size: Int64, mtime: Int64, problem: String?, index: Int)] = [:]
        var names: [String] = []
        let all = try connection.prepare("SELECT name, digest, size, mtime_ns, problem FROM calendar_file ORDER BY name")
        while try all.step() {
            let name = all.text(0)
            rows[name] = (all.isNull(1) ? nil : all.text(1), all.int64(2), all.int64(3), all.isNull(4) ? nil : all.text(4), names.count)
            names.append(name)
        }
        // The folder's system calls are the folder child's (PeerFiles): a stalled mount costs a warning and
        // the phone's ticks wait.
        var fds: [String: Int32] = [:]  // the child's
        var listing: PeerFiles.Listing?
        let outcome = try FolderChild.run(
            observe: {
                PeerFiles.list(
                    folder, own: nil, wanted: { CalendarFolderText.uid(fromFileName: $0) != nil },
                    maximumBytes: CalendarFolderText.maximumFileBytes, fds: &fds)
            },
            decide: { observed throws -> [UInt8]? in
                guard let seen = PeerFiles.Listing(observed) else { return nil }
                listing = seen
                var job: [(name: String, from: Int64, to: Int64)] = []
                for file in seen.files {
                    guard case .opened(let size, let mtime, _) = file.state else { continue }
                    if let previous = rows[file.name], previous.size == size, previous.mtime == mtime { continue }
                    job.append((file.name, 0, size))
                }
                return job.isEmpty ? nil : PeerFiles.job(job)
            }, act: { job in PeerFiles.read(job, fds: fds) }, release: { for fd in fds.values { close(fd) } })
        let contents: [String: PeerFiles.Read]
        switch outcome {
        case .timedOut:
            report.problems.append(
                "the calendar folder \(folder) did not answer within \(FolderChild.deadlineMilliseconds) ms (a stalled or frozen mount?): ticks made on a phone wait"
            )
            return (report, [])
        case .failed(let why):
            report.problems.append("the calendar folder \(folder) cannot be read (\(why)): ticks made on a phone wait")
            return (report, [])
        case .done(_, let acted):
            contents = acted.flatMap(PeerFiles.results) ?? [:]
        }
        guard let listing, listing.folderError == nil else {
            let why = listing?.folderError.map { DatabaseFile.describe($0) } ?? "unreadable"
            report.problems.append("the calendar folder \(folder) cannot be read (\(why)): ticks made on a phone wait")
            return (report, [])
        }
        let remember = try connection.prepare(
            """
            INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                mtime_ns = excluded.mtime_ns, problem = excluded.problem, recipe = NULL
            """)
        var present = [Bool](repeating: false, count: names.count)
        for file in listing.files {
            let name = file.name
            let previous = rows[name]
            // As last written or read (most of a long horizon): nothing to parse. A row's name was a
            // planner UID's when it was made.
            if let previous, case .opened(let size, let mtime, _) = file.state, previous.size == size, previous.mtime == mtime {
                present[previous.index] = true
                if let problem = previous.problem { report.problems.append("\(folder)/\(name): \(problem)") }
                continue
            }
            guard let uid = CalendarFolderText.uid(fromFileName: name) else { continue }
            if case .gone = file.state { continue }
            if let previous { present[previous.index] = true }
            guard case .opened(let size, let mtime, _) = file.state else {
                if case .refused(let why) = file.state { try note(name, why, previous?.problem, folder: folder, into: &report, remember) }
                continue
            }
            let bytes: [UInt8]
            switch contents[name] {
            case .bytes(let b)?: bytes = b
            case .failed(let code)?:
                try note(name, "cannot be read (\(DatabaseFile.describe(code)))", previous?.problem, folder: folder, into: &report, remember)
                continue
            case nil: continue
            }
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
                try note(name, why, previous?.problem, folder: folder, into: &report, remember, size: size, mtime: mtime)
            } else {
                // The planner's, changed since written: the write after the commit puts it back as the plan says,
                // unless it says what the plan says (another computer's copy: `semanticDigest`).
                let read = CalendarFolderText.readPrefix + CalendarFolderText.semanticDigest(String(decoding: bytes, as: UTF8.self))
                try remember.run(.text(name), day.map { .text($0.description) } ?? .null, .text(read), .integer(size), .integer(mtime), .null)
            }
        }
        // Gone from the folder (deleted on the phone, or by hand): written again if the plan still wants it —
        // unless every file is gone (not mounted?): then the rows stay, and the write leaves the folder alone.
        if !rows.isEmpty,
            !listing.files.contains(where: {
                $0.name.hasSuffix(CalendarFolderText.fileExtension)
                    && {
                        if case .gone = $0.state { return false }; return true
                    }($0)
            })
        {
            report.problems.append(CalendarFolderText.vanishedWarning(folder))
            return (report, ticks)
        }
        let forget = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
        for (index, name) in names.enumerated() where !present[index] { try forget.run(.text(name)) }
        return (report, ticks)
    }

    /// A file ignored: remembered with why (as it is now, so it is read again only once it changes), and
    /// said once, when it first appears; `status` and `sync` show it every time.
    private func note(
        _ name: String, _ why: String, _ previous: String?, folder: String, into report: inout CalendarReport,
        _ remember: Statement, size: Int64 = -1, mtime: Int64 = -1
    ) throws {
        report.problems.append("\(folder)/\(name): \(why)")
        try remember.run(.text(name), .null, .null, .integer(size), .integer(mtime), .text(why))
        if why != previous { PlannerDatabase.warnOnce("the calendar folder's file \(folder)/\(name): \(why)") }
    }

    enum Tick {
        case open(PlanEvent)
        /// nil: nothing to do and nothing wrong (a past day, a day already opened).
        case ignored(String?)
    }

    /// A day's task ticked off: an open of that day at its COMPLETED time (never later than now), applied
    /// through the same event path as any open; or why it is not one, when that is a problem.
    private func tick(date: LocalDate, uid: String, completedAt: Instant?, now: Instant, zone: Zone) throws -> Tick {
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
        let event = PlanEvent(
            id: id, at: at, origin: "calendar",
            change: .open(zoneName: zone.name, offsetSeconds: zone.offset(at: at), graceMilliseconds: nil))
        return .open(event)
    }
}

extension PlannerDatabase {
    /// The calendar folder's state without changing anything: its problems, for `status`.
    public func calendarProblems() throws(PlannerError) -> (folder: String?, problems: [String]) {
        try read {
            guard let folder = try calendarFolderSetting() else { return (nil, []) }
            var problems: [String] = []
            var info = stat()
            if stat(folder, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
                problems.append("the calendar folder \(folder) is missing or not a folder: the plan is written there once it exists")
            }
            // A row with a problem has no day (`note` writes none): `day IS NULL` lets the day index skip the
            // horizon's rows, so status does not grow with calendar-days.
            let stmt = try connection.prepare("SELECT name, problem FROM calendar_file WHERE day IS NULL AND problem IS NOT NULL ORDER BY name")
            while try stmt.step() { problems.append("\(folder)/\(stmt.text(0)): \(stmt.text(1))") }
            return (folder, problems)
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

    init(whole: Bool) { self.whole = whole }

    func collect(_ db: PlannerDatabase, now: Instant) throws -> [SourcedEvent] {
        guard whole, let (report, found) = try db.readCalendarFolder(now: now) else { return [] }
        self.found = report
        for tick in found { ticks[tick.event.id] = tick.date }
        return found.map { SourcedEvent(event: $0.event, fromAnotherDevice: false) }
    }

    func applied(_ outcome: SourcedOutcome, _ db: PlannerDatabase, now: Instant) throws {
        for applied in outcome.outcomes {
            for event in applied.fresh { if let date = ticks[event.id] { found?.ticks.append(date) } }
        }
    }

    func seal(_ db: PlannerDatabase, now: Instant) throws {
        folder = try db.calendarFolderSetting()
        if !whole, let folder { today = try db.planTodaysCalendar(folder, now: now) }
    }

    func finish(_ db: PlannerDatabase, now: Instant) {
        if let today {
            db.applyTodaysCalendar(today)
        } else if whole, let folder {
            let done = db.reconcileCalendarFolder(folder, now: now)
            found?.written += done.written
            found?.removed += done.removed
        }
    }

    func report(into report: inout SourcesReport) {
        report.calendar = found
    }
}
