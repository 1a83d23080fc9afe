import CLinux
import Glibc
import PlannerCore
import PlannerSystem

/// The calendar folder, write side: after a committed write, outside the database's lock, the folder is
/// made what the plan wants. Each file is written whole beside its name (`.planner-….tmp`), made durable
/// (fsync, or one syncfs for a batch) and renamed in, so a reader (vdirsyncer, khal) or a kill never sees
/// half a file. Only files the planner wrote itself, or read and found to be its own, are replaced or
/// removed; a file changed since then is left for the next run to read first (a tick is never lost).
extension PlannerDatabase {
    struct CalendarRow {
        var day: String?
        var digest: String?
        var size: Int64
        var mtime: Int64
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

    private func reconcile(_ folder: String, now: Instant) throws -> (written: Int, removed: Int) {
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            throw PlannerError.io("cannot write the calendar folder \(folder) (\(DatabaseFile.describe(errno))): it is written again by the next planner command once it can")
        }
        defer { close(dir) }
        // Two planner processes take turns, and each reads the plan once it holds the folder: the later
        // commit is always the one written last.
        while flock(dir, LOCK_EX) != 0 && errno == EINTR {}
        let (items, rows) = try read { () throws -> ([CalendarFolderText.Item], [String: CalendarRow]) in
            let (settings, zone) = try readPlan()
            let today = settings.schedule.studyDay(at: now, in: zone)
            let state = try readPlanState(now: now, zone: zone)
            let days = planAhead(now: now, zone: zone, schedule: settings.schedule, exclusions: state.exclusions,
                                 days: settings.calendarDays)
            var opens: [LocalDate: Instant] = [:]
            let opened = try connection.prepare("SELECT local_date, min(opened_at_ms) FROM app_open WHERE local_date >= ? AND local_date <= ? GROUP BY local_date")
            try opened.bind([.text(today.description), .text(days.last?.date.description ?? today.description)])
            while try opened.step() {
                if let date = LocalDate(iso: opened.text(0)) { opens[date] = Instant(milliseconds: opened.int64(1)) }
            }
            var oneOffs: [CalendarFolderText.OneOff] = []
            let pending = try connection.prepare("""
                SELECT identifier, fire_at_ms, title, body FROM request WHERE kind = 'oneoff' AND state IN ('pending', 'displaced')
                ORDER BY fire_at_ms, identifier
                """)
            while try pending.step() {
                oneOffs.append(.init(identifier: pending.text(0), fireAt: Instant(milliseconds: pending.int64(1)),
                                     title: pending.text(2), body: pending.text(3)))
            }
            let items = CalendarFolderText.items(days: days, opens: opens, oneOffs: oneOffs, zone: zone, settings: settings)
            let stmt = try connection.prepare("SELECT name, day, digest, size, mtime_ns FROM calendar_file")
            var rows: [String: CalendarRow] = [:]
            while try stmt.step() {
                rows[stmt.text(0)] = CalendarRow(day: stmt.isNull(1) ? nil : stmt.text(1), digest: stmt.isNull(2) ? nil : stmt.text(2),
                                                 size: stmt.int64(3), mtime: stmt.int64(4))
            }
            return (items, rows)
        }
        let names = Self.folderNames(dir)
        // A temporary file left by a killed run (the lock says no run is writing now).
        for name in names where name.hasPrefix(CalendarFolderText.temporaryPrefix) && !name.hasSuffix(CalendarFolderText.fileExtension) {
            var info = stat()
            if fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() {
                unlinkat(dir, name, 0)
            }
        }
        let listed = Set(names)
        var batch: [(item: CalendarFolderText.Item, replacing: Bool)] = []
        var removed: [String] = []
        var forgotten: [String] = []
        var wantedNames: Set<String> = []
        for item in items {
            let name = item.fileName
            wantedNames.insert(name)
            if let row = rows[name] {
                guard let digest = row.digest, digest != item.digest else { continue }
                switch Self.unchanged(dir, name, row) {
                case .changed: continue
                case .gone: batch.append((item, false))
                // Read since the planner wrote it (digest ""): someone else's edit, put back as a new revision.
                case .same: batch.append((row.digest == "" ? item.revised(at: now) : item, true))
                }
            } else if !listed.contains(name) {
                // New: never over a file the planner has not read (it appeared since the read).
                batch.append((item, false))
            }
        }
        let written = try Self.writeItems(dir, batch, now: now, folder: folder)
        for (name, row) in rows.sorted(by: { $0.key < $1.key }) where row.digest != nil && !wantedNames.contains(name) {
            switch Self.unchanged(dir, name, row) {
            case .changed: continue
            case .gone: forgotten.append(name)
            case .same:
                if unlinkat(dir, name, 0) == 0 || errno == ENOENT { removed.append(name) }
            }
        }
        guard !written.isEmpty || !removed.isEmpty || !forgotten.isEmpty else { return (0, 0) }
        if !written.isEmpty || !removed.isEmpty { fsync(dir) }
        try write {
            let upsert = try connection.prepare("""
                INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem) VALUES (?, ?, ?, ?, ?, NULL)
                ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                    mtime_ns = excluded.mtime_ns, problem = NULL
                """)
            for file in written {
                try upsert.run(.text(file.item.fileName), file.item.day.map { .text($0.description) } ?? .null, .text(file.item.digest),
                               .integer(file.size), .integer(file.mtime))
            }
            let delete = try connection.prepare("DELETE FROM calendar_file WHERE name = ?")
            for name in removed + forgotten { try delete.run(.text(name)) }
        }
        return (written.count, removed.count)
    }

    enum FileState { case same, changed, gone }

    /// Whether the file is still as the planner wrote or read it (same size and mtime).
    static func unchanged(_ dir: Int32, _ name: String, _ row: CalendarRow) -> FileState {
        var info = stat()
        guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT ? .gone : .changed }
        guard info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == row.size, mtimeNanoseconds(info) == row.mtime else { return .changed }
        return .same
    }

    /// Writes each item beside its name, makes them durable (one fsync for one file, one syncfs for a batch:
    /// a refill writes hundreds), then renames each in (`replacing`), or links it in only if the name is
    /// free. What was placed, with its size and mtime as written.
    static func writeItems(_ dir: Int32, _ batch: [(item: CalendarFolderText.Item, replacing: Bool)], now: Instant,
                           folder: String) throws -> [(item: CalendarFolderText.Item, size: Int64, mtime: Int64)] {
        guard !batch.isEmpty else { return [] }
        var temps: [(temp: String, size: Int64, mtime: Int64)] = []
        var placed = 0
        // A failure leaves no temporary file behind (a kill does: the next full run removes it).
        defer { for t in temps[placed...] { unlinkat(dir, t.temp, 0) } }
        func failed(_ name: String, _ code: Int32) -> PlannerError {
            .io("cannot write \(folder)/\(name) (\(DatabaseFile.describe(code))): it is written again by the next planner command once it can")
        }
        for (item, _) in batch {
            let temp = CalendarFolderText.temporaryPrefix + newEventID() + ".tmp"
            let fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw failed(item.fileName, errno) }
            defer { close(fd) }
            temps.append((temp, 0, 0))
            var bytes = item.bytes(stamp: now)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw failed(item.fileName, n < 0 ? errno : EIO) }
                bytes = bytes.dropFirst(n)
            }
            var info = stat()
            guard batch.count > 1 || fsync(fd) == 0, fstat(fd, &info) == 0 else { throw failed(item.fileName, errno) }
            temps[temps.count - 1] = (temp, Int64(info.st_size), mtimeNanoseconds(info))
        }
        if batch.count > 1, clinux_syncfs(dir) != 0 { throw failed(batch[0].item.fileName, errno) }
        var written: [(item: CalendarFolderText.Item, size: Int64, mtime: Int64)] = []
        for ((item, replacing), file) in zip(batch, temps) {
            placed += 1
            if replacing {
                guard renameat(dir, file.temp, dir, item.fileName) == 0 else {
                    let code = errno
                    unlinkat(dir, file.temp, 0)
                    throw failed(item.fileName, code)
                }
            } else {
                var linked = linkat(dir, file.temp, dir, item.fileName, 0) == 0
                var code = errno
                // A file system without hard links (vfat, some FUSE): renamed in once the name is seen free.
                if !linked, code == EPERM || code == EOPNOTSUPP || code == ENOSYS {
                    var info = stat()
                    if fstatat(dir, item.fileName, &info, AT_SYMLINK_NOFOLLOW) == 0 { code = EEXIST } else {
                        linked = renameat(dir, file.temp, dir, item.fileName) == 0
                        code = errno
                    }
                }
                unlinkat(dir, file.temp, 0)
                if !linked && code == EEXIST { continue }
                guard linked else { throw failed(item.fileName, code) }
            }
            written.append((item, file.size, file.mtime))
        }
        return written
    }
}
