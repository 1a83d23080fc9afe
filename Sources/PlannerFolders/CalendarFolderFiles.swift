import CLinux
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// The calendar folder's system calls, made by the folder child (`FolderChild`): no database, no output.
/// The child takes the folder's lock and lists it; the planner decides from that listing and its rows;
/// the child writes, replaces and removes, each replacement checked at the moment it happens.
enum CalendarFiles {
    /// A name in the folder as the child saw it (no link followed).
    struct Seen {
        var regular: Bool
        var size: Int64
        var mtime: Int64
    }

    /// A file to place: written aside, made durable, then put in. `expected`: replace only a file still as
    /// the planner wrote or read it (size, mtime); nil: link in only if the name is free.
    struct Placement {
        var name: String
        var bytes: [UInt8]
        var mtime: Int64?
        var expected: (size: Int64, mtime: Int64)?
    }

    /// A file to remove, only if still as the planner wrote it.
    struct Removal {
        var name: String
        var size: Int64
        var mtime: Int64
    }

    struct Done {
        var placed: [(name: String, size: Int64, mtime: Int64)] = []
        var removed: [String] = []
        /// Names changed since the planner looked (a tick renamed in at that moment): left as they are.
        var changed: [String] = []
        var failure: (name: String, code: Int32)?
        /// The folder as the child listed it once done (what a pass records).
        var after: CalendarListing?
    }

    // MARK: the first step: lock and look

    /// In the child: the folder opened and locked (two planner processes take turns; a lock held longer
    /// is a busy folder); with `listing`, its planner files by bucket (`CalendarListing`). [status: 0
    /// listed, 1 cannot open (errno), 2 busy].
    static func lockAndList(_ folder: String, dir: inout Int32, listing: Bool, wait: Int64) -> [UInt8] {
        var out = Wire.Writer()
        dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            out.int(1)
            out.int(Int64(errno))
            return out.bytes
        }
        guard FileLock.take(dir, within: wait) == .locked else {
            out.int(2)
            return out.bytes
        }
        out.int(0)
        // The planner's files by bucket (`CalendarListing`, read with `bucketed`).
        if listing { CalendarListing.write(dir, into: &out) }
        return out.bytes
    }

    /// One file of the folder as the parent reads it: its name, whether it is a plain file of this user's,
    /// its size and its mtime. Nothing when it is gone.
    private static func entry(_ dir: Int32, _ name: String, into out: inout Wire.Writer) {
        var info = stat()
        guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        out.text(name)
        out.int(info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid() ? 1 : 0)
        out.int(Int64(info.st_size))
        out.int(PlannerDatabase.mtimeNanoseconds(info))
    }

    /// In the child: the named files only, as `lockAndList` says them (no lock: `open` only looks).
    static func look(_ folder: String, _ names: [String]) -> [UInt8] {
        var out = Wire.Writer()
        let dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            out.int(1)
            out.int(Int64(errno))
            return out.bytes
        }
        defer { close(dir) }
        out.int(0)
        for name in names {
            entry(dir, name, into: &out)
        }
        return out.bytes
    }

    enum Listed {
        case listed([String: Seen])
        case cannotOpen(Int32)
        case busy
        case unreadable
    }

    static func listed(_ bytes: [UInt8]) -> Listed {
        var r = Wire.Reader(bytes)
        switch r.int() {
        case 0:
            var seen: [String: Seen] = [:]
            while !r.atEnd {
                guard let name = r.text(), let regular = r.int(), let size = r.int(), let mtime = r.int() else { return .unreadable }
                seen[name] = Seen(regular: regular == 1, size: size, mtime: mtime)
            }
            return .listed(seen)
        case 1: return r.int().map { .cannotOpen(Int32($0)) } ?? .unreadable
        case 2: return .busy
        default: return .unreadable
        }
    }

    // MARK: the second step: the job

    /// `listAfter`: the child lists the folder once done (`Done.after`; a whole pass records it, `open`'s
    /// look at today's files needs none). `leaveAside`: `open`'s way, see `act`.
    static func job(
        _ placements: [Placement], removals: [Removal], cleanTemporaries: Bool, listAfter: Bool = false, leaveAside: Bool = false
    ) -> [UInt8] {
        var w = Wire.Writer()
        w.int((cleanTemporaries ? 1 : 0) | (listAfter ? 2 : 0) | (leaveAside ? 4 : 0))
        w.int(Int64(placements.count))
        for p in placements {
            w.text(p.name)
            w.data(p.bytes)
            w.int(p.mtime ?? -1)
            w.int(p.expected?.size ?? -1)
            w.int(p.expected?.mtime ?? -1)
        }
        w.int(Int64(removals.count))
        for r in removals {
            w.text(r.name)
            w.int(r.size)
            w.int(r.mtime)
        }
        return w.bytes
    }

    /// In the child: does the job; what was done, as bytes.
    ///
    /// With `leaveAside` (a login's `open`), a file removed or replaced stays under its aside name
    /// (`.planner-….tmp`, which vdirsyncer and khal do not list) for the next pass's `cleanTemporaries` to
    /// unlink. Unlinking a file whose blocks are on disk is the costly step
    /// (the file system frees its blocks, and on a `discard` mount trims them): 24 of a day's files took
    /// 1.0–1.6 ms of CPU (and 6 ms of wall time on a `discard` mount), against 0.5 ms to rename them aside
    /// (bench/CALENDAR_OPEN.md). `open` marks the day's buckets to be looked into (`lookAgain`), so the next
    /// pass that writes the folder (cron's `tick --once`, the refill timer, `calendar-sync`, a ticker that
    /// starts) takes its job, cleaning included.
    static func act(_ job: [UInt8], dir: Int32) -> [UInt8] {
        var r = Wire.Reader(job)
        var placements: [Placement] = []
        var removals: [Removal] = []
        let flags = r.int() ?? 0
        let clean = flags & 1 != 0
        let listAfter = flags & 2 != 0
        let leaveAside = flags & 4 != 0
        for _ in 0..<(r.int() ?? 0) {
            guard let name = r.text(), let bytes = r.data(), let mtime = r.int(), let size = r.int(), let expectedMtime = r.int() else { break }
            placements.append(
                Placement(
                    name: name, bytes: bytes, mtime: mtime < 0 ? nil : mtime,
                    expected: size < 0 ? nil : (size, expectedMtime)))
        }
        for _ in 0..<(r.int() ?? 0) {
            guard let name = r.text(), let size = r.int(), let mtime = r.int() else { break }
            removals.append(Removal(name: name, size: size, mtime: mtime))
        }
        if clean { removeTemporaries(dir) }
        var done = place(placements, dir: dir, leaveAside: leaveAside)
        if done.failure == nil { remove(removals, dir: dir, leaveAside: leaveAside, into: &done) }
        // Durable before the answer, also for `open`: a power cut that brought a removed event back could let
        // vdirsyncer carry it to the phone again before the planner's next run removes it.
        if !done.placed.isEmpty || !done.removed.isEmpty { fsync(dir) }
        var w = Wire.Writer()
        w.int(Int64(done.placed.count))
        for p in done.placed {
            w.text(p.name)
            w.int(p.size)
            w.int(p.mtime)
        }
        w.int(Int64(done.removed.count))
        for name in done.removed { w.text(name) }
        w.int(Int64(done.changed.count))
        for name in done.changed { w.text(name) }
        w.text(done.failure?.name ?? "")
        w.int(Int64(done.failure?.code ?? 0))
        // The folder as it now is, still under the lock: the pass records it for the buckets it accounted for.
        if listAfter { CalendarListing.write(dir, into: &w) }
        return w.bytes
    }

    static func done(_ bytes: [UInt8]) -> Done? {
        var r = Wire.Reader(bytes)
        var done = Done()
        for _ in 0..<(r.int() ?? -1) {
            guard let name = r.text(), let size = r.int(), let mtime = r.int() else { return nil }
            done.placed.append((name, size, mtime))
        }
        for _ in 0..<(r.int() ?? -1) {
            guard let name = r.text() else { return nil }
            done.removed.append(name)
        }
        for _ in 0..<(r.int() ?? -1) {
            guard let name = r.text() else { return nil }
            done.changed.append(name)
        }
        guard let failed = r.text(), let code = r.int() else { return nil }
        if !failed.isEmpty { done.failure = (failed, Int32(code)) }
        if !r.atEnd { done.after = CalendarListing(&r) }
        return done
    }

    /// In the child, `open`'s second step (after its commit): the folder locked as `lockAndList` locks it,
    /// for as long as the parent said, then the job done. [job: the lock's wait in ms, then `act`'s job]
    /// [the lock's status as `lockAndList` says it; when it was taken, `act`'s answer]
    static func lockAndAct(_ folder: String, _ job: [UInt8], dir: inout Int32) -> [UInt8] {
        var out = Wire.Writer()
        var r = Wire.Reader(job)
        guard let wait = r.int(), let work = r.data() else {
            var busy = Wire.Writer()  // a job it cannot read: as a busy folder, left to the next run
            busy.int(2)
            out.data(busy.bytes)
            return out.bytes
        }
        let locked = lockAndList(folder, dir: &dir, listing: false, wait: wait)
        out.data(locked)
        if case .listed = listed(locked) { out.data(act(work, dir: dir)) }
        return out.bytes
    }

    /// What `lockAndAct` said: nil when the folder could not be locked (busy or missing).
    static func lockedAndDone(_ bytes: [UInt8]) -> Done? {
        var r = Wire.Reader(bytes)
        guard let locked = r.data(), case .listed = listed(locked), let acted = r.data() else { return nil }
        // An answer that cannot be read says no failure (as before: the next full run reads the files).
        return done(acted) ?? Done()
    }

    /// A temporary file left by a killed run (the lock says no run is writing now).
    private static func removeTemporaries(_ dir: Int32) {
        for name in PlannerDatabase.folderNames(dir)
        where name.hasPrefix(CalendarFolderText.temporaryPrefix) && !name.hasSuffix(CalendarFolderText.fileExtension) {
            var info = stat()
            if fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() {
                unlinkat(dir, name, 0)
            }
        }
    }

    /// Writes each file beside its name, makes them durable (one fsync for one file, one syncfs for a
    /// batch: a refill writes hundreds), then puts each in.
    private static func place(_ placements: [Placement], dir: Int32, leaveAside: Bool) -> Done {
        var done = Done()
        guard !placements.isEmpty else { return done }
        var temps: [(temp: String, ino: UInt, size: Int64, mtime: Int64)] = []
        var next = 0
        // A failure leaves no temporary file behind (a kill does: the next full run removes it).
        defer { for t in temps[next...] { unlinkat(dir, t.temp, 0) } }
        for p in placements {
            let temp = CalendarFolderText.temporaryPrefix + PlannerDatabase.newEventID() + ".tmp"
            let fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                done.failure = (p.name, errno)
                return done
            }
            defer { close(fd) }
            temps.append((temp, 0, 0, 0))
            var rest = p.bytes[...]
            while !rest.isEmpty {
                let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    done.failure = (p.name, n < 0 ? errno : EIO)
                    return done
                }
                rest = rest.dropFirst(n)
            }
            if let mtime = p.mtime {
                // The access time left as it is (UTIME_OMIT), the modification time the row says.
                var times = [
                    timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: Int(mtime / 1_000_000_000), tv_nsec: Int(mtime % 1_000_000_000)),
                ]
                guard futimens(fd, &times) == 0 else {
                    done.failure = (p.name, errno)
                    return done
                }
            }
            var info = stat()
            guard placements.count > 1 || fsync(fd) == 0, fstat(fd, &info) == 0 else {
                done.failure = (p.name, errno)
                return done
            }
            temps[temps.count - 1] = (temp, UInt(info.st_ino), Int64(info.st_size), PlannerDatabase.mtimeNanoseconds(info))
            FolderChild.progress()
        }
        if placements.count > 1, clinux_syncfs(dir) != 0 {
            done.failure = (placements[0].name, errno)
            return done
        }
        for (p, t) in zip(placements, temps) {
            next += 1
            FolderChild.progress()
            let result =
                p.expected.map { replace(dir, t.temp, ours: t.ino, over: p.name, expected: $0, leaveAside: leaveAside) }
                ?? link(dir, t.temp, as: p.name)
            switch result {
            case .placed: done.placed.append((p.name, t.size, t.mtime))
            case .changed: done.changed.append(p.name)
            case .failed(let code):
                done.failure = (p.name, code)
                return done
            }
        }
        return done
    }

    enum Placed {
        case placed
        case changed
        case failed(Int32)
    }

    /// Puts the new file in only if the name is free (a new item; or one gone since the planner looked).
    private static func link(_ dir: Int32, _ temp: String, as name: String) -> Placed {
        var linked = linkat(dir, temp, dir, name, 0) == 0
        var code = errno
        // A file system without hard links (vfat, some FUSE): renamed in once the name is seen free.
        if !linked, code == EPERM || code == EOPNOTSUPP || code == ENOSYS {
            var info = stat()
            if fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                code = EEXIST
            } else {
                linked = renameat(dir, temp, dir, name) == 0
                code = errno
            }
        }
        unlinkat(dir, temp, 0)
        if linked { return .placed }
        return code == EEXIST ? .changed : .failed(code)
    }

    /// Replaces a file still as expected. The new file is swapped in (RENAME_EXCHANGE) and what came out is
    /// looked at: if it is not the file the planner read (vdirsyncer renamed a tick in since), it is swapped
    /// back, so the tick stays at its name for the next read to apply. Never a moment where a file renamed
    /// in by another program is overwritten unseen.
    private static func replace(
        _ dir: Int32, _ temp: String, ours: UInt, over name: String, expected: (size: Int64, mtime: Int64), leaveAside: Bool
    ) -> Placed {
        func isExpected() -> Bool {
            var info = stat()
            return fstatat(dir, temp, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFREG
                && Int64(info.st_size) == expected.size && PlannerDatabase.mtimeNanoseconds(info) == expected.mtime
        }
        func isOurs() -> Bool {
            var info = stat()
            return fstatat(dir, temp, &info, AT_SYMLINK_NOFOLLOW) == 0 && UInt(info.st_ino) == ours
        }
        guard clinux_rename_exchange(dir, temp, dir, name) == 0 else {
            let code = errno
            if code == ENOENT { return link(dir, temp, as: name) }
            guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else {
                unlinkat(dir, temp, 0)
                return .failed(code)
            }
            // No exchange on this file system: look, then rename over (the moment between is not covered).
            var info = stat()
            guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
                Int64(info.st_size) == expected.size, PlannerDatabase.mtimeNanoseconds(info) == expected.mtime
            else {
                unlinkat(dir, temp, 0)
                return .changed
            }
            if renameat(dir, temp, dir, name) == 0 { return .placed }
            let failed = errno
            unlinkat(dir, temp, 0)
            return .failed(failed)
        }
        if isExpected() {
            if !leaveAside { unlinkat(dir, temp, 0) }
            return .placed
        }
        // Changed since the planner looked: theirs back at the name, ours out.
        _ = clinux_rename_exchange(dir, temp, dir, name)
        if !isOurs() {
            // Yet another file was renamed over ours in between: the name now holds the earlier of theirs,
            // the aside name the later one. The later one goes to the name; the earlier, superseded, goes.
            _ = clinux_rename_exchange(dir, temp, dir, name)
        }
        unlinkat(dir, temp, 0)
        return .changed
    }

    /// Removes files still as the planner wrote them: moved aside first and looked at, put back if changed.
    private static func remove(_ removals: [Removal], dir: Int32, leaveAside: Bool, into done: inout Done) {
        for r in removals {
            FolderChild.progress()
            let aside = CalendarFolderText.temporaryPrefix + PlannerDatabase.newEventID() + ".tmp"
            guard renameat(dir, r.name, dir, aside) == 0 else {
                if errno == ENOENT { done.removed.append(r.name) } else { done.changed.append(r.name) }
                continue
            }
            var info = stat()
            if fstatat(dir, aside, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
                Int64(info.st_size) == r.size, PlannerDatabase.mtimeNanoseconds(info) == r.mtime
            {
                if !leaveAside { unlinkat(dir, aside, 0) }
                done.removed.append(r.name)
            } else {
                // Not as written: back under its name, unless a newer one took the name meanwhile (then this
                // one is superseded). Without hard links (vfat, some FUSE): renamed back once the name is free.
                if linkat(dir, aside, dir, r.name, 0) == 0 {
                    unlinkat(dir, aside, 0)
                } else if errno == EEXIST {
                    unlinkat(dir, aside, 0)
                } else if fstatat(dir, r.name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
                    renameat(dir, aside, dir, r.name)
                } else {
                    unlinkat(dir, aside, 0)
                }
                done.changed.append(r.name)
            }
        }
    }
}
