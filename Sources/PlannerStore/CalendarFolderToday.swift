import CLinux
import Glibc
import PlannerCore
import PlannerSystem

/// `open`'s way with the calendar folder: today's files only, decided inside the open's own transaction
/// from the rows (the folder is neither listed nor read), done after the commit with no second
/// transaction. The rows are updated first: a file written is given the mtime its row says; a kill
/// before the files change leaves rows that no longer match the folder, and the next full run reads
/// those files again (a file without a row, or not as its row says, is read before it is touched).
extension PlannerDatabase {
    struct TodaysCalendar {
        var folder: String
        var writes: [(item: CalendarFolderText.Item, bytes: [UInt8], mtime: Int64, replacing: Bool)] = []
        var removals: [String] = []
    }

    /// Inside the write transaction: what today's files must become, with the rows already saying so.
    func planTodaysCalendar(_ folder: String, now: Instant) throws -> TodaysCalendar? {
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            PlannerDatabase.warnOnce("cannot write the calendar folder \(folder) (\(DatabaseFile.describe(errno))): it is written again by the next planner command once it can")
            return nil
        }
        defer { close(dir) }
        let (settings, zone) = try readPlan()
        let today = settings.schedule.studyDay(at: now, in: zone)
        var exclusions = Exclusions()
        let opened = try connection.prepare("SELECT min(opened_at_ms) FROM app_open WHERE local_date = ?")
        try opened.bind([.text(today.description)])
        let firstOpen = try opened.step() && !opened.isNull(0) ? Instant(milliseconds: opened.int64(0)) : nil
        if firstOpen != nil { exclusions.openedDates.insert(today) }
        if try connection.integer("SELECT count(*) FROM skipped_date WHERE local_date = ? AND removed_at_ms IS NULL", .text(today.description)) ?? 0 > 0 {
            exclusions.skippedDates.insert(today)
        }
        let pause = try connection.prepare(HotQueries.pause)
        try pause.bind([.integer(now.milliseconds)])
        if try pause.step() {
            exclusions.pause = Pause(since: Instant(milliseconds: pause.int64(0)), until: pause.isNull(1) ? nil : Instant(milliseconds: pause.int64(1)))
        }
        let days = planAhead(now: now, zone: zone, schedule: settings.schedule, exclusions: exclusions, days: 1)
        let items = CalendarFolderText.items(days: days, opens: firstOpen.map { [today: $0] } ?? [:], oneOffs: [], zone: zone, settings: settings)

        var rows: [String: CalendarRow] = [:]
        let stmt = try connection.prepare("SELECT name, day, digest, size, mtime_ns FROM calendar_file WHERE day = ?")
        try stmt.bind([.text(today.description)])
        while try stmt.step() {
            rows[stmt.text(0)] = CalendarRow(day: stmt.text(1), digest: stmt.isNull(2) ? nil : stmt.text(2), size: stmt.int64(3), mtime: stmt.int64(4))
        }
        var plan = TodaysCalendar(folder: folder)
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        let mtime = Int64(clock.tv_sec) * 1_000_000_000 + Int64(clock.tv_nsec)
        let upsert = try connection.prepare("""
            INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem) VALUES (?, ?, ?, ?, ?, NULL)
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                mtime_ns = excluded.mtime_ns, problem = NULL
            """)
        var wanted: Set<String> = []
        for item in items {
            wanted.insert(item.fileName)
            let state: FileState
            if let row = rows[item.fileName] {
                guard row.digest != nil, row.digest != item.digest else { continue }
                state = Self.unchanged(dir, item.fileName, row)
            } else {
                var info = stat()
                state = fstatat(dir, item.fileName, &info, AT_SYMLINK_NOFOLLOW) == 0 ? .changed : .gone
            }
            // A file changed since the planner wrote it is the next full run's to read first.
            guard state != .changed else { continue }
            let bytes = item.bytes(stamp: now)
            plan.writes.append((item, bytes, mtime, state == .same))
            try upsert.run(.text(item.fileName), .text(today.description), .text(item.digest), .integer(Int64(bytes.count)), .integer(mtime))
        }
        let forget = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
        for (name, row) in rows.sorted(by: { $0.key < $1.key }) where row.digest != nil && !wanted.contains(name) {
            switch Self.unchanged(dir, name, row) {
            case .changed: continue
            case .gone: try forget.run(.text(name))
            case .same:
                plan.removals.append(name)
                try forget.run(.text(name))
            }
        }
        return plan
    }

    /// After the commit: the files as the rows now say. Never throws (a warning; the next run repairs).
    func applyTodaysCalendar(_ plan: TodaysCalendar) {
        guard !plan.writes.isEmpty || !plan.removals.isEmpty else { return }
        let dir = open(plan.folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return }
        defer { close(dir) }
        while flock(dir, LOCK_EX) != 0 && errno == EINTR {}
        for write in plan.writes {
            if let problem = Self.place(dir, write.bytes, as: write.item.fileName, mtime: write.mtime, replacing: write.replacing) {
                PlannerDatabase.warnOnce("cannot write \(plan.folder)/\(write.item.fileName) (\(problem)): it is written again by the next planner command once it can")
            }
        }
        // No fsync of the folder: a rename or removal a power cut undoes leaves files that do not match
        // their rows, and the next full run reads and repairs them; the login's open does not wait for it.
        for name in plan.removals { unlinkat(dir, name, 0) }
    }

    /// One file written aside with the given mtime, fsynced, renamed (or linked, if the name is free) in.
    static func place(_ dir: Int32, _ bytes: [UInt8], as name: String, mtime: Int64, replacing: Bool) -> String? {
        let temp = CalendarFolderText.temporaryPrefix + newEventID() + ".tmp"
        let fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return DatabaseFile.describe(errno) }
        var failure: String?
        var rest = bytes[...]
        while !rest.isEmpty && failure == nil {
            let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = DatabaseFile.describe(n < 0 ? errno : EIO) } else { rest = rest.dropFirst(n) }
        }
        // The access time left as it is (UTIME_OMIT), the modification time the row says.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: Int(mtime / 1_000_000_000), tv_nsec: Int(mtime % 1_000_000_000))]
        if failure == nil, futimens(fd, &times) != 0 || fsync(fd) != 0 { failure = DatabaseFile.describe(errno) }
        close(fd)
        if failure == nil {
            if replacing {
                if renameat(dir, temp, dir, name) != 0 { failure = DatabaseFile.describe(errno) }
            } else if linkat(dir, temp, dir, name, 0) != 0, errno != EEXIST {
                failure = DatabaseFile.describe(errno)
            }
        }
        if failure != nil || !replacing { unlinkat(dir, temp, 0) }
        return failure
    }
}
