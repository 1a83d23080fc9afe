import CSQLite
import Glibc
import PlannerCore
import PlannerSystem

/// Opens that `planner open` could not write because another program held the database (a `sqlite3`
/// shell in a transaction, a database browser, a stalled process): saved durably beside the database and
/// applied, at their own instants, by the next write transaction of any planner process.
///
/// The spool is `<database, links resolved>.opens/`: a folder of ours (0700), one small file per open,
/// written under a temporary name, fsynced and renamed into place, so concurrent opens never clobber
/// each other and a reader never sees half a file. The folder sits beside the database, which may be
/// shared: a symbolic link, something not a folder, or a folder or file owned by someone else is
/// never followed or read.
public enum OpenSpool {
    /// One saved open: everything `recordAppOpen` needs, so it is applied as it would have been.
    public struct Entry: Equatable, Sendable {
        public var openedAt: Instant
        /// The zone it was taken in, by name; the offset then, in case the name cannot be found later.
        public var zoneName: String
        public var offsetSeconds: Int
        /// -1: the plan's `grace` setting when applied.
        public var graceMilliseconds: Int64

        public init(openedAt: Instant, zoneName: String, offsetSeconds: Int, graceMilliseconds: Int64) {
            self.openedAt = openedAt
            self.zoneName = zoneName
            self.offsetSeconds = offsetSeconds
            self.graceMilliseconds = graceMilliseconds
        }

        /// `planner-open 1 <ms> <offset s> <grace ms> <zone>`: one line of text, readable with `cat`.
        var text: String { "planner-open 1 \(openedAt.milliseconds) \(offsetSeconds) \(graceMilliseconds) \(zoneName)\n" }

        init?(text: String) {
            guard text.hasSuffix("\n") else { return nil }
            let fields = text.dropLast().split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "planner-open", fields[1] == "1",
                  let ms = Int64(fields[2]), let offset = Int(fields[3]), let grace = Int64(fields[4]), grace >= -1,
                  !fields[5].isEmpty else { return nil }
            self.init(openedAt: Instant(milliseconds: ms), zoneName: String(fields[5]), offsetSeconds: offset,
                      graceMilliseconds: grace)
        }
    }

    /// Why a parsed entry cannot be applied, or nil. The spool is untrusted input like `--now`: a time
    /// outside the years the planner supports (or a grace or offset no zone has) is set aside, never
    /// applied, so one bad file cannot make every writer fail.
    static func problem(_ entry: Entry) -> String? {
        let utc = LocalDateTime(epochMillisecondsAsIfUTC: entry.openedAt.milliseconds)
        guard entry.openedAt.milliseconds >= 0, supportedYears.contains(utc.date.year) else {
            return "its time is outside the years \(supportedYears.lowerBound)-\(supportedYears.upperBound)"
        }
        guard abs(entry.offsetSeconds) <= 26 * 3600 else { return "its UTC offset is not one any zone has" }
        guard entry.graceMilliseconds == -1 || (0...366 * 86_400_000).contains(entry.graceMilliseconds) else {
            return "its grace period is out of range"
        }
        guard entry.zoneName.utf8.count <= 255, !TerminalText.containsControl(entry.zoneName) else {
            return "its zone name is not one"
        }
        return nil
    }

    /// The spool folder of the database at `resolvedPath` (symbolic links resolved).
    public static func folder(of resolvedPath: String) -> String { resolvedPath + ".opens" }

    /// Saves `entry` for the database at `databasePath` durably; returns the folder it went to.
    /// Throws when it could not be saved (read-only folder, full disk, a folder that is not ours).
    @discardableResult
    public static func save(_ entry: Entry, databasePath: String) throws(PlannerError) -> String {
        let folder = folder(of: DatabaseFile.resolve(databasePath))
        // An applier removes the folder once it is empty: a file cannot then be created in it, so try again.
        for _ in 0..<5 {
            if mkdir(folder, 0o700) == 0 {
                // The new folder's own entry must survive a power cut too.
                try syncParent(of: folder)
            } else if errno != EEXIST {
                throw .io("cannot create \(folder): \(DatabaseFile.describe(errno))")
            }
            let dir: Int32
            switch openFolder(folder) {
            case .missing: continue
            case .refused(let why): throw .io("\(folder) \(why)")
            case .opened(let fd): dir = fd
            }
            defer { close(dir) }
            var random = SystemRandomNumberGenerator()
            let unique = "\(getpid())-\(String(random.next() as UInt64, radix: 16))"
            let temporary = ".tmp-\(unique)"
            let fd = openat(dir, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0 && errno == ENOENT { continue }
            guard fd >= 0 else { throw .io("cannot create a file in \(folder): \(DatabaseFile.describe(errno))") }
            var bytes = Array(entry.text.utf8)
            var written = 0
            var failure: Int32 = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failure = n < 0 ? errno : EIO; break }
                written += n
            }
            if failure == 0 && fsync(fd) != 0 { failure = errno }
            if close(fd) != 0 && failure == 0 { failure = errno }
            bytes.removeAll()
            // Sorts by the open's instant; the pid and random part keep concurrent opens apart.
            let name = "\(paddedMilliseconds(entry.openedAt))-\(unique).open"
            if failure == 0 && renameat(dir, temporary, dir, name) != 0 { failure = errno }
            if failure != 0 {
                unlinkat(dir, temporary, 0)
                throw .io("cannot write a file in \(folder): \(DatabaseFile.describe(failure))")
            }
            // The rename itself must survive a power cut.
            if fsync(dir) != 0 {
                throw .io("cannot write \(folder): \(DatabaseFile.describe(errno))")
            }
            return folder
        }
        throw .io("\(folder) kept disappearing while the open was being saved")
    }

    private static func syncParent(of folder: String) throws(PlannerError) {
        let parent = folder.lastIndex(of: "/").map { folder[..<$0].isEmpty ? "/" : String(folder[..<$0]) } ?? "."
        let fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(parent): \(DatabaseFile.describe(errno))") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw .io("cannot write \(parent): \(DatabaseFile.describe(errno))") }
    }

    enum Folder {
        case missing
        case refused(String)
        case opened(Int32)
    }

    /// Opens the folder without following a link; refuses what is not a folder of ours.
    static func openFolder(_ folder: String) -> Folder {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ENOENT: return .missing
            case ELOOP, ENOTDIR: return .refused("is a symbolic link or not a folder: move it away")
            default: return .refused("cannot be opened: \(DatabaseFile.describe(errno))")
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == getuid() else {
            close(fd)
            return .refused("belongs to another user: move it away")
        }
        // Ours but loosened (by hand): others must not plant or remove opens in it.
        if info.st_mode & 0o077 != 0 { fchmod(fd, 0o700) }
        return .opened(fd)
    }

    static func paddedMilliseconds(_ instant: Instant) -> String {
        let digits = String(instant.milliseconds)
        return instant.milliseconds < 0 ? digits : String(repeating: "0", count: max(0, 15 - digits.count)) + digits
    }

    /// The opens waiting in the spool of `resolvedPath`, oldest first; nil (one failed `open(2)`) when
    /// there is no spool. Files that are not ours, not regular, or not a saved open are left alone.
    static func pending(resolvedPath: String) -> Batch? {
        let folder = folder(of: resolvedPath)
        guard case .opened(let dir) = openFolder(folder) else { return nil }
        let batch = Batch(folder: folder, fd: dir)
        let dupFD = dup(dir)
        guard dupFD >= 0, let stream = fdopendir(dupFD) else {
            if dupFD >= 0 { close(dupFD) }
            return batch
        }
        defer { closedir(stream) }
        while let item = readdir(stream) {
            let name = withUnsafePointer(to: &item.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".tmp-") {
                // Left by an open killed while saving (it exited non-zero; its file was never renamed).
                var info = stat()
                if fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_uid == getuid(),
                   Int64(info.st_mtim.tv_sec) < Int64(time(nil)) - 3600 {
                    batch.staleTemporaries.append(name)
                }
                continue
            }
            if name.hasPrefix(".") { continue }
            if name.hasSuffix(Self.setAsideSuffix) {
                batch.setAside += 1
                continue
            }
            guard name.hasSuffix(".open") else {
                batch.ignored += 1
                continue
            }
            switch read(name, in: dir) {
            case .entry(let entry):
                if let why = problem(entry) { batch.rejected.append((name, why)) } else { batch.entries.append((name, entry)) }
            case .unparsable:
                batch.rejected.append((name, "it is not a saved open"))
            case .notOurs:
                batch.ignored += 1
            }
        }
        batch.entries.sort { ($0.entry.openedAt, $0.name) < ($1.entry.openedAt, $1.name) }
        return batch
    }

    enum Read {
        case entry(Entry)
        /// A small regular file of ours that is not a saved open: set aside.
        case unparsable
        /// A link, FIFO, folder, another user's or a huge file: never opened for reading or moved.
        case notOurs
    }

    private static func read(_ name: String, in dir: Int32) -> Read {
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .notOurs }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
              info.st_size <= 4096 else { return .notOurs }
        var buffer = [UInt8](repeating: 0, count: Int(info.st_size))
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n == buffer.count, let entry = Entry(text: String(decoding: buffer, as: UTF8.self)) else { return .unparsable }
        return .entry(entry)
    }

    /// A saved open the planner refused is renamed to `<name>.rejected`: kept for the user to read,
    /// never read again.
    static let setAsideSuffix = ".rejected"

    /// What the spool holds, for `status`: opens waiting to be recorded and files it will not apply.
    public struct Report: Sendable {
        public var folder: String
        public var waiting: [Entry] = []
        /// Refused opens renamed `*.rejected`, plus those about to be.
        public var setAside = 0
        /// Files it does not touch (links, FIFOs, another user's, other names).
        public var ignored = 0
    }

    /// Reads the spool without changing it; nil when there is none.
    public static func report(resolvedPath: String) -> Report? {
        guard let batch = pending(resolvedPath: resolvedPath) else { return nil }
        return Report(folder: batch.folder, waiting: batch.entries.map(\.entry),
                      setAside: batch.setAside + batch.rejected.count, ignored: batch.ignored)
    }

    /// The opens read from the spool in one transaction: removed, exactly those, once it committed.
    final class Batch {
        let folder: String
        let fd: Int32
        var entries: [(name: String, entry: Entry)] = []
        var staleTemporaries: [String] = []
        /// Saved opens refused (unparsable, out of range, or failing to apply), with why: set aside.
        var rejected: [(name: String, why: String)] = []
        var setAside = 0
        var ignored = 0

        init(folder: String, fd: Int32) {
            self.folder = folder
            self.fd = fd
        }

        deinit { close(fd) }

        /// After COMMIT. A crash before this leaves files already applied: applying one again is a no-op.
        func removeApplied() {
            for (name, _) in entries { unlinkat(fd, name, 0) }
            for name in staleTemporaries { unlinkat(fd, name, 0) }
            for (name, why) in rejected {
                let kept = renameat(fd, name, fd, name + OpenSpool.setAsideSuffix) == 0
                // Gone: another process set it aside (and said so) first.
                if !kept && errno == ENOENT { continue }
                PlannerDatabase.warnOnce("a saved open \(folder)/\(name) was not applied: \(why); "
                    + (kept ? "set aside as \(name)\(OpenSpool.setAsideSuffix) (delete it once read)" : "delete it"))
            }
            // Empty: remove it, so a write without spooled opens costs one failed open(2). Fails harmlessly
            // when another open was saved meanwhile.
            rmdir(folder)
        }
    }

}

extension PlannerDatabase {
    /// Applies, inside the caller's write transaction, the opens saved while the database was held, each
    /// at its own instant and in order. One already recorded (applied before a crash kept its file) is skipped.
    func applySpooledOpens() throws -> OpenSpool.Batch? {
        guard let batch = OpenSpool.pending(resolvedPath: resolvedPath) else { return nil }
        // The day an open closes is the plan's day, in the plan's zone, as for an open applied at once.
        let (_, zone) = try readPlan()
        var applied: [(name: String, entry: OpenSpool.Entry)] = []
        for (name, entry) in batch.entries {
            let seen = try connection.integer(
                "SELECT count(*) FROM app_open WHERE opened_at_ms = ? AND zone = ?",
                .integer(entry.openedAt.milliseconds), .text(zone.name)) ?? 0
            if seen > 0 {
                applied.append((name, entry))
                continue
            }
            // Each open in a savepoint: one the schema refuses is undone whole and set aside; the
            // command and the other opens go on. Busy, full or I/O errors still end the transaction.
            try connection.execute("SAVEPOINT spooled_open")
            do {
                _ = try insertAppOpen(now: entry.openedAt, zone: zone,
                                      policy: entry.graceMilliseconds < 0 ? nil : PlanPolicy(graceMilliseconds: entry.graceMilliseconds))
                try connection.execute("RELEASE spooled_open")
                applied.append((name, entry))
            } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                try connection.execute("ROLLBACK TO spooled_open")
                try connection.execute("RELEASE spooled_open")
                batch.rejected.append((name, "the database refused it (\(error.message))"))
            }
        }
        batch.entries = applied
        return batch
    }
}
