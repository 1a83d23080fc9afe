import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// Publishing: this device's new events appended to its own file in the sync folder, after the commit,
/// outside the database's lock. The file's system calls are made by a child (`FolderChild`): a FIFO, a
/// lock held by another process or a frozen file system costs a warning, never a wait longer than the
/// deadline; the events stay unpublished and the next command that writes tries again.
extension PlannerDatabase {
    /// Never throws: a folder that cannot be written leaves the events waiting. How many events were written,
    /// and whether another process held the file's lock past the child's wait (`SyncReport.lockBusy`).
    @discardableResult
    func publishToSyncFolder(now: Instant) -> (published: Int, lockBusy: Bool) {
        var lockBusy = false
        do {
            return (try publish(now: now, lockBusy: &lockBusy), lockBusy)
        } catch let error as PlannerError {
            warnOnce(error.message)
        } catch {
            warnOnce("could not write to the sync folder: \(error)")
        }
        return (0, lockBusy)
    }

    private func publish(now: Instant, lockBusy: inout Bool) throws -> Int {
        // One read for what `open` needs on its fast path: the folder, the name, this device's id and file.
        struct Start {
            var folder: String?
            var wanted = ""
            var selfID: String?
            var sequence: Int64 = 0
            var relays = false
            var calendar = false
        }
        let start = try read { t throws -> Start in
            let stmt = try t.connection.prepare(
                """
                SELECT (SELECT value FROM setting WHERE key = 'sync-folder'), (SELECT value FROM setting WHERE key = 'device-name'),
                       d.id, d.out_seq, EXISTS (SELECT 1 FROM relay WHERE published_ms IS NULL),
                       (SELECT value FROM setting WHERE key = 'calendar-folder') <> ''
                FROM (SELECT 1) LEFT JOIN device d ON d.is_self = 1
                """)
            _ = try stmt.step()
            return Start(
                folder: stmt.isNull(0) || stmt.text(0).isEmpty ? nil : stmt.text(0), wanted: stmt.text(1),
                selfID: stmt.isNull(2) ? nil : stmt.text(2), sequence: stmt.int64(3), relays: stmt.int64(4) != 0,
                calendar: stmt.int64(5) == 1)
        }
        // Whether this device writes a calendar folder, said in its device line: `setup --uninstall` on
        // another device leaves the server's items alone while one does.
        let calendar = start.calendar
        guard let folder = start.folder else { return 0 }
        let name = start.wanted.isEmpty ? Self.hostName() : start.wanted
        let selfID =
            try start.selfID
            ?? write { t throws -> String in
                if let id = try t.selfDeviceID() { return id }
                let id = Self.newEventID()
                try t.connection.prepare("INSERT INTO device (id, name, is_self, first_seen_ms) VALUES (?, ?, 1, ?)")
                    .run(.text(id), .text(name), .integer(now.milliseconds))
                // Changes made before this device had an id are its own. Its claim of the plan's zone waits for
                // the first change that reads the folder (`SyncFolderSource.seal`): another device's may be there.
                try t.connection.prepare("UPDATE event SET device = ? WHERE device = '' AND received_ms IS NULL").run(.text(id))
                return id
            }
        var sequence = start.sequence
        var refusals: [String] = []
        // Each turn: the child opens this device's file and takes its lock; this process reads, under that
        // lock, what to append (another process may have appended meanwhile); the child appends.
        for _ in 0..<8 {
            let fileName = SyncFileText.fileName(device: selfID, sequence: sequence)
            var events: [PlanEvent] = []
            var relays: [PlanEvent] = []
            var next: Int64?
            var failure: PlannerError?
            var dir: Int32 = -1
            var fd: Int32 = -1  // the child's
            let timing = folderTiming
            let lockWait = timing.lockWaitMilliseconds
            let outcome = try FolderChild.run(
                folder: folder, timing: timing,
                observe: { OwnFile.open(folder: folder, name: fileName, lockWait: lockWait, dir: &dir, fd: &fd).bytes },
                decide: { observed throws -> [UInt8]? in
                    switch OwnFile.Opened(observed) {
                    case .folderMissing(let code):
                        failure = .io(
                            "cannot write to the sync folder \(folder) (\(DatabaseFile.describe(code))): this device's changes wait in the database and are written by the next planner command once it can"
                        )
                    case .failed(let code):
                        failure = .io(
                            "cannot write \(folder)/\(fileName) (\(DatabaseFile.describe(code))): this device's changes wait in the database")
                    case .busy:
                        timing.stalled()
                        lockBusy = true
                        failure = .io(
                            "\(folder)/\(fileName) is locked by another process: this device's changes wait in the database and are written by the next planner command"
                        )
                    case .refused(let reason, let number):
                        // Not this device's own file (a FIFO, a link, another user's, other hard links): never
                        // written; this device moves on to a new file and writes everything there.
                        let why = reason.words(number)
                        refusals.append(fileName)
                        next = try write { t throws -> Int64 in
                            try t.forgetPublished()
                            try t.connection.execute("UPDATE device SET out_seq = out_seq + 1, out_size = 0 WHERE is_self = 1")
                            let moved = try t.connection.integer("SELECT out_seq FROM device WHERE is_self = 1") ?? sequence + 1
                            try t.connection.prepare(
                                """
                                INSERT INTO sync_file (name, size, mtime_ns, consumed, problem) VALUES (?1, -1, -1, 0, ?2)
                                ON CONFLICT (name) DO UPDATE SET size = -1, mtime_ns = -1, problem = ?2
                                """
                            ).run(
                                .text(fileName),
                                .text(
                                    "\(why): not this device's own file, never written; this device writes to \(SyncFileText.fileName(device: selfID, sequence: moved)) instead"
                                ))
                            return moved
                        }
                        warnOnce(
                            "the sync folder's file \(folder)/\(fileName) \(why): it is never written; this device writes to a new file (is the folder writable by others?)"
                        )
                    case .opened(let size):
                        // Re-read under the lock: another process may have appended meanwhile.
                        let (seq, expected, publishedName, publishedCalendar) = try read { t throws -> (Int64, Int64, String, Bool?) in
                            let stmt = try t.connection.prepare("SELECT out_seq, out_size, name, calendar FROM device WHERE is_self = 1")
                            _ = try stmt.step()
                            (events, relays) = try t.unpublishedEvents(relays: start.relays)
                            return (stmt.int64(0), stmt.int64(1), stmt.text(2), stmt.isNull(3) ? nil : stmt.int64(3) == 1)
                        }
                        if SyncFileText.fileName(device: selfID, sequence: seq) != fileName {
                            next = seq
                            return nil
                        }
                        if size != expected || size >= SyncFileText.rotateBytes {
                            // Not as this device left it (deleted, cut, replaced, written by another): a new file, and
                            // everything again (readers skip what they have). Or simply full: a new file.
                            next = try write { t throws -> Int64 in
                                if size != expected { try t.forgetPublished() }
                                try t.connection.execute("UPDATE device SET out_seq = out_seq + 1, out_size = 0 WHERE is_self = 1")
                                return seq + 1
                            }
                            return nil
                        }
                        var text = ""
                        if size == 0 || publishedName != name || publishedCalendar != calendar {
                            text += SyncFileText.deviceLine(id: selfID, name: name, at: now, calendar: calendar)
                        }
                        for event in events {
                            var event = event
                            event.stamp?.device = selfID
                            if let line = SyncFileText.publishedLine(event) { text += line }
                        }
                        for var event in relays {
                            // An open read from a record (Anki, the phone's tick) is every reader's line alike: this
                            // device writes it as its own.
                            if RecordOpens.isRecordDevice(event.stamp?.device) { event.stamp?.device = selfID }
                            if let line = SyncFileText.relayedLine(event, via: selfID) { text += line }
                        }
                        return Array(text.utf8)
                    case .unreadable:
                        failure = .io("the sync folder's child said nothing usable: this device's changes wait in the database")
                    }
                    return nil
                }, act: { text in OwnFile.append(text, fd: fd, dir: dir).bytes },
                settle: { acted in
                    // Recorded while the child still holds the file's lock: the next process finds it as recorded.
                    guard case .appended(let size, let mtime) = OwnFile.Appended(acted) else { return }
                    try write { t in
                        let mark = try t.connection.prepare("UPDATE event SET published_ms = ? WHERE id = ?")
                        for event in events { try mark.run(.integer(now.milliseconds), .text(event.id)) }
                        if !relays.isEmpty {
                            let relayed = try t.connection.prepare("UPDATE relay SET published_ms = ? WHERE event_id = ?")
                            for event in relays { try relayed.run(.integer(now.milliseconds), .text(event.id)) }
                        }
                        // Only for the file written: a rotation since (another process) keeps its own size.
                        try t.connection.prepare("UPDATE device SET out_size = ?, name = ?, calendar = ? WHERE is_self = 1 AND out_seq = ?")
                            .run(.integer(size), .text(name), .integer(calendar ? 1 : 0), .integer(sequence))
                        // Our own file as we left it: the next read of the folder need not read it.
                        try t.connection.prepare(
                            """
                            INSERT INTO sync_file (name, size, mtime_ns, consumed) VALUES (?1, ?2, ?3, ?2)
                            ON CONFLICT (name) DO UPDATE SET size = ?2, mtime_ns = ?3, consumed = ?2, problem = NULL, tail = NULL
                            """
                        ).run(.text(fileName), .integer(size), .integer(mtime))
                    }
                },
                release: {
                    if fd >= 0 { close(fd) }
                    if dir >= 0 { close(dir) }
                })
            if let failure { throw failure }
            if let why = outcome.unfinished {
                throw PlannerError.io(
                    "cannot write to the sync folder \(folder) (\(why)): this device's changes wait in the database and are written by the next planner command once it can"
                )
            }
            switch outcome {
            case .timedOut, .failed: continue  // thrown above
            case .done(_, nil):
                guard let next else { throw PlannerError.io("cannot write to the sync folder \(folder): this device's changes wait in the database") }
                sequence = next
                continue
            case .done(_, let acted?):
                if case .failed(let code) = OwnFile.Appended(acted) {
                    throw PlannerError.io(
                        "cannot write \(folder)/\(fileName) (\(DatabaseFile.describe(code))): this device's changes wait in the database")
                }
                return events.count + relays.count
            }
        }
        throw PlannerError.io(
            refusals.count > 1
                ? "the sync folder \(folder) holds files under this device's names that are not its own (\(refusals.prefix(3).joined(separator: ", "))…): remove them, and make the folder writable by you alone; this device's changes wait in the database"
                : "the sync folder \(folder) kept changing under this device's file: try planner sync again")
    }
}

/// This device's own file, as the folder child touches it: the system calls only (no database, no output),
/// and what its answers say on the wire (`Opened`, `Appended`: written in the child, read in the parent).
enum OwnFile {
    /// Why the file is not this device's own (`Opened.refused`).
    enum Refusal: Int64 {
        case fifo = 1
        case link = 2
        case unopenable = 3
        case folder = 4
        case notRegular = 5
        case otherUser = 6
        case hardLinks = 7

        func words(_ number: Int64) -> String {
            switch self {
            case .fifo: "is a FIFO"
            case .link: "is a symbolic link"
            case .unopenable: "cannot be opened (\(DatabaseFile.describe(Int32(truncatingIfNeeded: number))); another user's?)"
            case .folder: "is a folder"
            case .notRegular: "is not a regular file"
            case .otherUser: "belongs to another user (uid \(number))"
            case .hardLinks: "has other hard links (\(number) names)"
            }
        }
    }

    enum Opened {
        case opened(size: Int64)
        case folderMissing(Int32)
        case failed(Int32)
        case refused(Refusal, number: Int64)
        case busy
        case unreadable

        var bytes: [UInt8] {
            let numbers: [Int64] =
                switch self {
                case .opened(let size): [0, size]
                case .folderMissing(let code): [1, Int64(code)]
                case .failed(let code): [2, Int64(code)]
                case .refused(let why, let number): [3, why.rawValue, number]
                case .busy: [4]
                case .unreadable: [5]
                }
            return Wire.Writer.ints(numbers)
        }

        init(_ bytes: [UInt8]) {
            var r = Wire.Reader(bytes)
            switch r.int() {
            case 0: self = r.int().map { .opened(size: $0) } ?? .unreadable
            case 1: self = r.int().map { .folderMissing(Int32(truncatingIfNeeded: $0)) } ?? .unreadable
            case 2: self = r.int().map { .failed(Int32(truncatingIfNeeded: $0)) } ?? .unreadable
            case 3:
                guard let reason = r.int().flatMap(Refusal.init(rawValue:)), let number = r.int() else {
                    self = .unreadable
                    return
                }
                self = .refused(reason, number: number)
            case 4: self = .busy
            default: self = .unreadable
            }
        }
    }

    /// Opens (never blocking on a FIFO, never following a link) and locks the file; refuses what is not a
    /// regular file of this user with no other name. `dir` and `fd` are what it opened (-1: nothing), for
    /// `append` and the release.
    static func open(folder: String, name: String, lockWait: Int64, dir: inout Int32, fd: inout Int32) -> Opened {
        dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return .folderMissing(errno) }
        fd = openat(dir, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let why = errno
            switch why {
            case ENXIO: return .refused(.fifo, number: 0)
            case ELOOP: return .refused(.link, number: 0)
            case EACCES, EPERM: return .refused(.unopenable, number: Int64(why))
            case EISDIR: return .refused(.folder, number: 0)
            default: return .failed(why)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .refused(.notRegular, number: 0) }
        guard info.st_uid == geteuid() else { return .refused(.otherUser, number: Int64(info.st_uid)) }
        guard info.st_nlink == 1 else { return .refused(.hardLinks, number: Int64(info.st_nlink)) }
        guard FileLock.take(fd, within: lockWait) == .locked else { return .busy }
        // The lock may have been waited for: the size as it is now.
        guard fstat(fd, &info) == 0 else { return .failed(errno) }
        return .opened(size: Int64(info.st_size))
    }

    enum Appended {
        case appended(size: Int64, mtime: Int64)
        case failed(Int32)

        var bytes: [UInt8] {
            switch self {
            case .appended(let size, let mtime): Wire.Writer.ints([0, size, mtime])
            case .failed(let code): Wire.Writer.ints([1, Int64(code)])
            }
        }

        init(_ bytes: [UInt8]) {
            var r = Wire.Reader(bytes)
            switch r.int() {
            case 0:
                if let size = r.int(), let mtime = r.int() { self = .appended(size: size, mtime: mtime) } else { self = .failed(EIO) }
            default: self = .failed(r.int().map { Int32(truncatingIfNeeded: $0) } ?? EIO)
            }
        }
    }

    /// Appends, makes it durable (the file, then the folder), says the file's size and mtime after.
    static func append(_ text: [UInt8], fd: Int32, dir: Int32) -> Appended {
        var done = 0
        while done < text.count {
            let n = text.withUnsafeBytes { write(fd, $0.baseAddress! + done, text.count - done) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            guard n > 0 else { return .failed(n < 0 ? errno : EIO) }
            done += n
        }
        if !text.isEmpty {
            guard fsync(fd) == 0, fsync(dir) == 0 else { return .failed(errno) }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno) }
        return .appended(size: Int64(info.st_size), mtime: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
