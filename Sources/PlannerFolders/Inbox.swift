import CSQLite
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// Events from outside this process, applied by the next write transaction of any planner process, each
/// at its own instant, once. Today: opens that `planner open`/`study` could not write because another
/// program held the database (a `sqlite3` shell in a transaction, a database browser, a stalled process).
///
/// The inbox is `<database, links resolved>.opens/`: a folder of ours (0700), one small file per event
/// (a `PlanEventText` line), written under a temporary name, fsynced and renamed into place, so concurrent
/// writers never clobber each other and a reader never sees half a file. It stays once made, so a ticker
/// can watch it. The folder sits beside the database, which may be shared: a symbolic link, something not
/// a folder, or a folder or file owned by someone else is never followed or read. Every line is untrusted
/// input: one that is not an event, or that `PlanEvent.problem` refuses, is set aside, never applied.
public enum Inbox {
    /// A file saved by a planner before events (`planner-open 1 <ms> <offset s> <grace ms> <zone>`): still
    /// applied, as the open it is.
    struct LegacyOpen: Equatable {
        var openedAt: Instant
        var zoneName: String
        var offsetSeconds: Int
        var graceMilliseconds: Int64

        init?(text: String) {
            guard text.hasSuffix("\n") else { return nil }
            let fields = text.dropLast().split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "planner-open", fields[1] == "1",
                let ms = Int64(fields[2]), let offset = Int(fields[3]), let grace = Int64(fields[4]), grace >= -1,
                !fields[5].isEmpty
            else { return nil }
            openedAt = Instant(milliseconds: ms)
            zoneName = String(fields[5])
            offsetSeconds = offset
            graceMilliseconds = grace
        }

        /// The open as an event; its id comes from its file's name, unique in the folder.
        func event(fileName: String) -> PlanEvent {
            PlanEvent(
                id: "spooled-" + fileName.dropLast(".open".count), at: openedAt, origin: "open",
                change: .open(
                    zoneName: zoneName, offsetSeconds: offsetSeconds,
                    graceMilliseconds: graceMilliseconds < 0 ? nil : graceMilliseconds))
        }
    }

    /// One event read from the inbox.
    struct Item {
        var name: String
        var event: PlanEvent
        /// Saved by a planner before events: also recorded already if an open at its instant is.
        var legacy: Bool
    }

    /// The inbox of the database at `resolvedPath` (symbolic links resolved).
    /// (Named `.opens` since opens were the first events saved there; the name stays for older planners.)
    public static func folder(of resolvedPath: String) -> String { resolvedPath + ".opens" }

    /// Saves `event` for the database at `databasePath` durably; returns the folder it went to.
    /// Throws when it could not be saved (read-only folder, full disk, a folder that is not ours).
    @discardableResult
    public static func save(_ event: PlanEvent, databasePath: String) throws(PlannerError) -> String {
        let folder = folder(of: DatabaseFile.resolve(databasePath))
        // Someone may remove the folder meanwhile: a file cannot then be created in it, so try again.
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
            var bytes = Array(PlanEventText.line(event).utf8)
            var written = 0
            var failure: Int32 = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = n < 0 ? errno : EIO
                    break
                }
                written += n
            }
            if failure == 0 && fsync(fd) != 0 { failure = errno }
            if close(fd) != 0 && failure == 0 { failure = errno }
            bytes.removeAll()
            // Sorts by the event's instant; the pid and random part keep concurrent writers apart.
            let name = "\(paddedMilliseconds(event.at))-\(unique)\(fileSuffix)"
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
        throw .io("\(folder) kept disappearing while the event was being saved")
    }

    /// An event's file; `.open` also names the files of planners before events.
    static let fileSuffix = ".open"

    /// Makes the inbox of the database at `resolvedPath` if it is not there (a ticker watches it); returns
    /// its path. Throws when it cannot be made or is not a folder of ours.
    public static func prepare(resolvedPath: String) throws(PlannerError) -> String {
        let folder = folder(of: resolvedPath)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .io("cannot create \(folder): \(DatabaseFile.describe(errno))")
        }
        switch openFolder(folder) {
        case .missing: throw .io("\(folder) disappeared while it was being made")
        case .refused(let why): throw .io("\(folder) \(why)")
        case .opened(let fd): close(fd)
        }
        return folder
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

    /// The events waiting in the inbox of `resolvedPath`, oldest first; nil (one failed `open(2)`) when
    /// there is no inbox. Files that are not ours, not regular, or not an event are left alone.
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
                // Left by a writer killed while saving (it exited non-zero; its file was never renamed).
                var info = stat()
                if fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_uid == getuid(),
                    Int64(info.st_mtim.tv_sec) < SystemClock.now().milliseconds / 1000 - 3600
                {
                    batch.staleTemporaries.append(name)
                }
                continue
            }
            if name.hasPrefix(".") { continue }
            if name.hasSuffix(Self.setAsideSuffix) {
                batch.setAside += 1
                continue
            }
            guard name.hasSuffix(fileSuffix) else {
                batch.ignored += 1
                continue
            }
            switch read(name, in: dir) {
            case .text(let text):
                let legacy = LegacyOpen(text: text)
                guard let event = PlanEvent(line: text) ?? legacy?.event(fileName: name) else {
                    batch.rejected.append((name, "it is not an open or change a planner saved", "open"))
                    continue
                }
                if let why = event.problem {
                    batch.rejected.append((name, why, event.noun))
                } else {
                    batch.items.append(Item(name: name, event: event, legacy: legacy != nil))
                }
            case .notOurs:
                batch.ignored += 1
            }
        }
        batch.items.sort { ($0.event.at, $0.name) < ($1.event.at, $1.name) }
        return batch
    }

    enum Read {
        /// A small regular file of ours.
        case text(String)
        /// A link, FIFO, folder, another user's or a huge file: never opened for reading or moved.
        case notOurs
    }

    private static func read(_ name: String, in dir: Int32) -> Read {
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .notOurs }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
            info.st_size <= PlanEventText.maximumLineBytes
        else { return .notOurs }
        var buffer = [UInt8](repeating: 0, count: Int(info.st_size))
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n == buffer.count else { return .text("") }
        return .text(String(decoding: buffer, as: UTF8.self))
    }

    /// A file the planner refused is renamed to `<name>.rejected`: kept for the user to read, never read again.
    static let setAsideSuffix = ".rejected"

    /// What the inbox holds, for `status`: events waiting to be applied and files it will not apply.
    public struct Report: Sendable {
        public var folder: String
        public var waiting: [PlanEvent] = []
        /// Refused files renamed `*.rejected`, plus those about to be.
        public var setAside = 0
        /// Files it does not touch (links, FIFOs, another user's, other names).
        public var ignored = 0
    }

    /// Reads the inbox without changing it; nil when there is none.
    public static func report(resolvedPath: String) -> Report? {
        guard let batch = pending(resolvedPath: resolvedPath) else { return nil }
        return Report(
            folder: batch.folder, waiting: batch.items.map(\.event),
            setAside: batch.setAside + batch.rejected.count, ignored: batch.ignored)
    }

    /// The events read from the inbox in one transaction: removed, exactly those, once it committed.
    final class Batch {
        let folder: String
        let fd: Int32
        var items: [Item] = []
        var staleTemporaries: [String] = []
        /// Files refused (not an event, out of range, or failing to apply), with why: set aside.
        var rejected: [(name: String, why: String, noun: String)] = []
        var setAside = 0
        var ignored = 0

        init(folder: String, fd: Int32) {
            self.folder = folder
            self.fd = fd
        }

        deinit { close(fd) }

        /// After COMMIT. A crash before this leaves files already applied: applying one again is a no-op.
        func removeApplied(warnings: Warnings) {
            for item in items { unlinkat(fd, item.name, 0) }
            for name in staleTemporaries { unlinkat(fd, name, 0) }
            for (name, why, noun) in rejected {
                let kept = renameat(fd, name, fd, name + Inbox.setAsideSuffix) == 0
                // Gone: another process set it aside (and said so) first.
                if !kept && errno == ENOENT { continue }
                warnings.once(
                    "a saved \(noun) \(folder)/\(name) was not applied: \(why); "
                        + (kept ? "set aside as \(name)\(Inbox.setAsideSuffix) (delete it once read)" : "delete it"))
            }
        }
    }
}

/// The inbox as an event source: events saved by other processes of this device, applied at their own
/// instants; their files removed once the change committed, those the schema refused set aside.
final class InboxSource: EventSource {
    private var batch: Inbox.Batch?

    package func collect(_ t: Transaction, now: Instant) throws -> [SourcedEvent] {
        guard let batch = Inbox.pending(resolvedPath: t.database.resolvedPath) else { return [] }
        self.batch = batch
        var events: [SourcedEvent] = []
        for item in batch.items {
            // Saved by a planner before events: recorded already if an open at its instant is (its file
            // is removed with the others).
            if item.legacy,
                try t.connection.integer(
                    "SELECT count(*) FROM app_open WHERE opened_at_ms = ?", .integer(item.event.at.milliseconds)) ?? 0 > 0
            {
                continue
            }
            events.append(SourcedEvent(event: item.event, fromAnotherDevice: false))
        }
        return events
    }

    package func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws {
        guard let batch else { return }
        for (event, why) in outcome.refused {
            guard let item = batch.items.first(where: { $0.event.id == event.id }) else { continue }
            batch.rejected.append((item.name, "the database refused it (\(why))", event.noun))
            batch.items.removeAll { $0.event.id == event.id }
        }
    }

    /// A crash before this leaves files already applied: applying one again is a no-op.
    package func finish(_ db: PlannerDatabase, now: Instant) {
        batch?.removeApplied(warnings: db.warnings)
    }
}

extension PlannerDatabase {
    /// This database's inbox, made if missing: a ticker watches it for events saved by other processes.
    public func inboxFolder() throws(PlannerError) -> String {
        try Inbox.prepare(resolvedPath: resolvedPath)
    }
}

extension PlanEvent {
    /// What a message calls it: the user made an open, or a change.
    var noun: String {
        if case .open = change { return "open" }
        return "change"
    }
}
