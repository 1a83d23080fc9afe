import CSQLite
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// One row of `planner devices`.
public struct DeviceRow: Sendable, Equatable {
    public var id: String
    public var name: String
    public var isSelf: Bool
    public var lastEvent: Instant?
    public var offsetMilliseconds: Int64?
    public var events: Int64
}

/// The sync folder: other devices' files read and applied inside a write transaction (never failing the
/// command: a folder that is gone, a file that is junk is a warning), this device's events appended to its
/// own file after the commit, outside the database's lock.
extension PlannerDatabase {
    /// `planner sync`: applies the other devices' new events and the calendar's ticks now, writes this
    /// device's events and the calendar folder, and says what it found.
    public func sync(now: Instant) throws(PlannerError) -> SourcesReport {
        try change(at: now, from: .all) { _ in }.1
    }

    /// The sync folder's state without changing anything: its problems, for `status`.
    public func syncProblems() throws(PlannerError) -> (folder: String?, problems: [String]) {
        try read { t in
            guard let folder = try t.syncFolderSetting() else { return (nil, []) }
            var problems: [String] = []
            switch FolderLook.look(folder, timing: folderTiming) {
            case .folder: break
            case .missing: problems.append("the sync folder \(folder) is missing or not a folder: other devices' changes wait")
            case .notAnswering(let why):
                problems.append("the sync folder \(folder) is not answering (\(why)): shown as the database last knew it")
            }
            let stmt = try t.connection.prepare("SELECT name, problem FROM sync_file WHERE problem IS NOT NULL ORDER BY name")
            while try stmt.step() { problems.append("\(folder)/\(stmt.text(0)): \(stmt.text(1))") }
            let conflicts = try t.connection.integer("SELECT count(*) FROM event_conflict") ?? 0
            if conflicts > 0 {
                problems.append(
                    "\(conflicts) event\(conflicts == 1 ? "" : "s") arrived with two different contents (a conflict copy edited by hand?): every device keeps the same version, the one with the greater hash"
                )
            }
            if let waiting = try t.connection.integer("SELECT count(*) FROM event WHERE received_ms IS NULL AND published_ms IS NULL"), waiting > 0 {
                problems.append("\(waiting) change\(waiting == 1 ? "" : "s") of this device not yet written to the sync folder")
            }
            return (folder, problems)
        }
    }

    /// How recent another device's last change must be for its word that it carries a calendar to count: a
    /// computer retired without `setup --uninstall` must not keep the phone's alarms on the server for ever.
    public static let calendarCarrierRecentMilliseconds: Int64 = 30 * 86_400_000

    /// The other devices that said they write a calendar folder (their device line's `calendar=1`) and changed
    /// something within `calendarCarrierRecentMilliseconds`, by name; none when this device does not sync.
    public func otherCalendarCarriers(now: Instant) throws(PlannerError) -> [String] {
        try read { t in
            guard try t.syncFolderSetting() != nil else { return [] }
            let stmt = try t.connection.prepare(
                """
                SELECT CASE name WHEN '' THEN id ELSE name END FROM device
                WHERE is_self = 0 AND calendar = 1 AND max(coalesce(last_event_ms, 0), first_seen_ms) >= ?
                ORDER BY name, id
                """)
            try stmt.bind([.integer(now.milliseconds - Self.calendarCarrierRecentMilliseconds)])
            var names: [String] = []
            while try stmt.step() { names.append(stmt.text(0)) }
            return names
        }
    }

    /// The devices seen in the sync folder, this one first.
    public func devices() throws(PlannerError) -> [DeviceRow] {
        try read { t in
            let stmt = try t.connection.prepare(
                """
                SELECT id, name, is_self, last_event_ms, offset_ms, events FROM device ORDER BY is_self DESC, name, id
                """)
            var rows: [DeviceRow] = []
            while try stmt.step() {
                rows.append(
                    DeviceRow(
                        id: stmt.text(0), name: stmt.text(1), isSelf: stmt.int64(2) == 1,
                        lastEvent: stmt.isNull(3) ? nil : Instant(milliseconds: stmt.int64(3)),
                        offsetMilliseconds: stmt.isNull(4) ? nil : stmt.int64(4), events: stmt.int64(5)))
            }
            return rows
        }
    }

    // MARK: files

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        let name = String(cString: buffer)
        return SettingKey.deviceName.problem(name) == nil ? name : ""
    }

    static func folderNames(_ dir: Int32) -> [String] {
        let copy = dup(dir)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        // A dup shares the offset: a second listing of the same descriptor starts from the top.
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    enum OpenedFile {
        case opened(Int32, size: Int64, mtime: Int64)
        case refused(String)
        /// Listed, then gone when opened.
        case gone
    }

    /// Opens a file of the folder to read, without following a link, without blocking on a FIFO; refuses
    /// what is not a regular file of ours of a sane size.
    static func openFile(_ dir: Int32, _ name: String, maximumBytes: Int64 = SyncFileText.maximumFileBytes) -> OpenedFile {
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return .gone }
            return .refused(errno == ELOOP ? "a symbolic link (ignored)" : "cannot be opened (\(DatabaseFile.describe(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            return .refused("cannot be read")
        }
        let why: String?
        if info.st_mode & S_IFMT != S_IFREG {
            why = "not a regular file (ignored)"
        } else if info.st_uid != geteuid() {
            why = "belongs to another user (uid \(info.st_uid); ignored)"
        } else if Int64(info.st_size) > maximumBytes {
            why = "larger than \(maximumBytes >> 20) MiB (ignored)"
        } else {
            why = nil
        }
        if let why {
            close(fd)
            return .refused(why)
        }
        return .opened(fd, size: Int64(info.st_size), mtime: mtimeNanoseconds(info))
    }

    static func mtimeNanoseconds(_ info: stat) -> Int64 {
        Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    static func readBytes(_ fd: Int32, from: Int64, to size: Int64) -> [UInt8]? {
        guard size > from else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size - from))
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(from) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            done += n
        }
        return Array(bytes[..<done])
    }
}

extension Transaction {
    /// The folder set with `config set sync-folder`, or nil.
    func syncFolderSetting() throws -> String? {
        let folder = try connection.text("SELECT value FROM setting WHERE key = 'sync-folder'") ?? ""
        return folder.isEmpty ? nil : folder
    }

    /// Inside the caller's write transaction: reads what the other devices appended since the last read
    /// (what was read of each file is remembered here); the events are applied by the caller
    /// (`SyncFolderSource`). nil when this device does not sync.
    func readSyncFolder(now: Instant, budget limit: Int64? = nil) throws -> (report: SyncReport, events: [PlanEvent])? {
        guard let folder = try syncFolderSetting() else { return nil }
        var report = SyncReport(folder: folder)
        let selfID = try selfDeviceID()
        report.selfDevice = selfID
        var known: [String: (size: Int64, mtime: Int64, consumed: Int64, problem: String?, waiting: Int64?, newerReader: String?, tail: [UInt8])] =
            [:]
        let rows = try connection.prepare("SELECT name, size, mtime_ns, consumed, problem, waiting_ms, newer_reader, tail FROM sync_file")
        while try rows.step() {
            known[rows.text(0)] = (
                rows.int64(1), rows.int64(2), rows.int64(3), rows.isNull(4) ? nil : rows.text(4),
                rows.isNull(5) ? nil : rows.int64(5), rows.isNull(6) ? nil : rows.text(6), rows.isNull(7) ? [] : rows.blob(7)
            )
        }
        let own = try connection.prepare("SELECT id, out_seq, out_size FROM device WHERE is_self = 1 AND out_size > 0")
        let ownFile = try own.step() ? (name: SyncFileText.fileName(device: own.text(0), sequence: own.int64(1)), size: own.int64(2)) : nil
        // The folder's system calls are the folder child's (PeerFiles): a stalled mount costs a warning and
        // the other devices' changes wait; this transaction waits at most the child's deadline.
        var fds: [String: Int32] = [:]  // the child's
        var listing: PeerFiles.Listing?
        var ranges: [String: (from: Int64, size: Int64, mtime: Int64, tail: [UInt8])] = [:]
        var budget = limit ?? .max
        let outcome = try FolderChild.run(
            folder: folder, timing: database.folderTiming,
            observe: {
                PeerFiles.list(folder, own: ownFile?.name, fds: &fds)
            },
            decide: { observed throws -> [UInt8]? in
                guard let seen = PeerFiles.Listing(observed) else { return nil }
                listing = seen
                var job: [(name: String, from: Int64, to: Int64, tail: [UInt8])] = []
                for file in seen.files {
                    guard case .opened(let size, let mtime, _) = file.state, case .events = SyncFileText.classify(file.name) else { continue }
                    let previous = known[file.name]
                    // Unchanged, nothing in it waiting for this clock to catch up, and no line a newer planner wrote
                    // that this planner may now know (it was upgraded since): nothing new to read.
                    if let previous, previous.size == size, previous.mtime == mtime, previous.waiting.map({ now.milliseconds < $0 }) ?? true,
                        previous.newerReader.map({ $0 == PlanEventText.readerDigest }) ?? true
                    {
                        continue
                    }
                    // Appended since: read from where the last read stopped. A file that shrank was replaced: again
                    // from its start (every event applied is recorded by id, so nothing applies twice).
                    let from = previous.map { size >= $0.consumed ? $0.consumed : 0 } ?? 0
                    // Within the pass's budget (the ticker's): the rest is read by the next pass. Not a file holding a
                    // newer planner's lines: each read starts before them, so a budget would read one window for ever.
                    guard budget > 0 else {
                        report.more = true
                        continue
                    }
                    // A file that shrank is read whole, past the budget: what it no longer holds is relayed.
                    let shrank = previous.map { $0.consumed > 0 && size < $0.consumed } ?? false
                    let to = size - from > budget && previous?.newerReader == nil && !shrank ? from + budget : size
                    budget -= to - from
                    // What this device read last just before `from`: the child checks the file still holds it.
                    let tail = from > 0 ? previous?.tail ?? [] : []
                    ranges[file.name] = (from, size, mtime, tail)
                    job.append((file.name, from, to, tail))
                }
                return job.isEmpty ? nil : PeerFiles.job(job)
            }, act: { job in PeerFiles.read(job, fds: fds) }, release: { for fd in fds.values { close(fd) } })
        let read: [String: PeerFiles.Read]
        if let why = outcome.unfinished {
            // Said as it happens too, not only by `planner sync`: the command paid the deadline for it (found in
            // review: a stalled read cost 600 ms and said nothing).
            let problem = "the sync folder \(folder) cannot be read (\(why)): other devices' changes wait"
            report.problems.append(problem)
            warnOnce(problem)
            return (report, [])
        }
        if case .done(_, let acted) = outcome { read = acted.flatMap(PeerFiles.results) ?? [:] } else { read = [:] }
        guard let listing else {
            report.problems.append("the sync folder's child said nothing usable: other devices' changes wait")
            return (report, [])
        }
        if let code = listing.folderError {
            report.problems.append(
                "the sync folder \(folder) cannot be read (\(DatabaseFile.describe(code))): other devices' changes wait; is it mounted?")
            return (report, [])
        }
        var events: [PlanEvent] = []
        var names: [SyncFileText.DeviceName] = []
        var problemsByFile: [String: String] = [:]
        report.readWhole = !report.more
        let remember = try connection.prepare(
            """
            INSERT INTO sync_file (name, size, mtime_ns, consumed, problem, waiting_ms, newer_reader, tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
                consumed = excluded.consumed, problem = excluded.problem, waiting_ms = excluded.waiting_ms,
                newer_reader = excluded.newer_reader, tail = excluded.tail
            """)
        var impostor = false
        for file in listing.files {
            let name = file.name
            guard case .events(let device) = SyncFileText.classify(name) else {
                if SyncFileText.classify(name) == .unknown { problemsByFile[name] = "not a planner file (ignored)" }
                continue
            }
            let previous = known[name]
            switch file.state {
            // Syncthing replaces a file by deleting its name, then renaming the new one in: gone for a moment
            // is not a problem (the rename that follows wakes the ticker, and the next write reads it).
            case .gone:
                report.readWhole = false
                continue
            case .refused(let why):
                report.readWhole = false
                problemsByFile[name] = why
                continue
            case .opened(_, _, let links):
                if device == selfID, links > 1 {
                    problemsByFile[name] = "has other hard links (\(links) names): this device no longer writes to it"
                }
            }
            guard let range = ranges[name] else {
                if let problem = previous?.problem { report.problems.append("\(folder)/\(name): \(problem)") }
                continue
            }
            let bytes: [UInt8]
            var from = range.from
            // Put back (shorter than what was read, or other bytes where the last read stopped): read again from
            // its start. The events of its device this device holds and it no longer has are relayed.
            var rewound = previous.map { $0.consumed > 0 && range.size < $0.consumed } ?? false
            switch read[name] {
            case .bytes(let b)?: bytes = b
            case .rewound(let b)?:
                bytes = b
                from = 0
                rewound = true
            case .failed(let code)?:
                report.readWhole = false
                problemsByFile[name] = "cannot be read (\(DatabaseFile.describe(code)))"
                continue
            case nil:
                report.readWhole = false
                continue
            }
            let size = range.size
            let to = min(size, from + Int64(bytes.count))
            let text = SyncFileText.read(bytes[...], device: device, now: now)
            // The last bytes before where this read stopped, for the next read's check.
            let tail =
                text.consumed >= PeerFiles.tailBytes
                ? Array(bytes[(text.consumed - PeerFiles.tailBytes)..<text.consumed])
                : Array(((from == range.from ? range.tail : []) + bytes[..<text.consumed]).suffix(PeerFiles.tailBytes))
            if rewound, device != selfID, let selfID {
                report.relayed += try relay(device: device, file: name, present: text, selfID: selfID, now: now)
            }
            if to < size { report.more = true }
            if device == selfID {
                // Our own file holding events this database never made: another writer uses this id.
                for event in text.events where try connection.integer("SELECT count(*) FROM event WHERE id = ?", .text(event.id)) == 0 {
                    impostor = true
                }
            }
            events += text.events
            report.carriers += repeatElement(name, count: text.events.count)
            names += text.names
            var problem: String?
            if let first = text.refused.first {
                problem = text.refused.count == 1 ? "1 line refused: \(first)" : "\(text.refused.count) lines refused (first: \(first))"
            }
            if let until = text.waitingUntil {
                let waits =
                    "\(text.waiting) line\(text.waiting == 1 ? "" : "s") dated more than a day ahead of this device's clock, read again from \(PlannerDatabase.utcText(until)) (a clock ahead delays a change, never loses it)"
                problem = problem.map { $0 + "; " + waits } ?? waits
            }
            if text.newer > 0 {
                let newer =
                    "\(text.newer) line\(text.newer == 1 ? "" : "s") from a newer planner, kept and read again once this planner is upgraded: upgrade planner on this computer"
                problem = problem.map { $0 + "; " + newer } ?? newer
            }
            if let problem { problemsByFile[name] = problem }
            // Read only in part (the ticker's budget): remembered as read up to there, so the next pass reads on.
            try remember.run(
                .text(name), .integer(to), .integer(to < size ? -1 : range.mtime), .integer(from + Int64(text.consumed)),
                problem.map { .text($0) } ?? .null, text.waitingUntil.map { .integer($0.milliseconds) } ?? .null,
                text.newer > 0 ? .text(PlanEventText.readerDigest) : .null, .blob(tail))
            // Said once, when it first appears; `status` shows it every time.
            if let problem, problem != previous?.problem { warnOnce("the sync folder's file \(folder)/\(name) \(problem)") }
        }
        for (name, problem) in problemsByFile.sorted(by: { $0.key < $1.key })
        where !report.problems.contains(where: { $0.hasPrefix("\(folder)/\(name):") }) {
            report.problems.append("\(folder)/\(name): \(problem)")
        }
        if impostor, let selfID {
            // A copied database: both copies would append to the same files. This one takes a new id.
            try connection.prepare("UPDATE device SET is_self = 0 WHERE id = ?").run(.text(selfID))
            warnOnce(
                "another device writes to the sync folder as this device (\(selfID); a copied database?): this device takes a new id")
        }
        try recordDeviceNames(names, now: now)
        // This device's file as another program left it: gone, or shorter than this device wrote it (a
        // restore, a rolled-back sync). Its events are written again (to a new file) by this same command,
        // whichever command it is: `refill` from cron too. A file only longer is being appended to by another
        // process.
        if let ownFile, listing.ownSize.map { $0 < ownFile.size } ?? true {
            try forgetPublished()
        }
        return (report, events)
    }

    /// `device`'s file `file` was put back (the device restored from a backup, a rolled-back sync): the events
    /// that file's lines brought here (`event.carrier`) that it no longer has are written again by this
    /// device for it (`relay`, published with `via=`), so that device gets back what it had published, and so
    /// does every device that joins later. Said once. Returns how many.
    private func relay(device: String, file: String, present: SyncFileText.Read, selfID: String, now: Instant) throws -> Int {
        let kept = Set(present.events.map(\.id))
        let stmt = try connection.prepare(
            """
            SELECT id FROM event WHERE carrier = ? AND received_ms IS NOT NULL
              AND id NOT IN (SELECT event_id FROM relay WHERE published_ms IS NULL)
            """)
        try stmt.bind([.text(file)])
        var lost: [String] = []
        while try stmt.step() {
            let id = stmt.text(0)
            if !kept.contains(id) { lost.append(id) }
        }
        guard !lost.isEmpty else { return 0 }
        let insert = try connection.prepare(
            """
            INSERT INTO relay (event_id, device, noticed_ms) VALUES (?, ?, ?)
            ON CONFLICT (event_id) DO UPDATE SET noticed_ms = excluded.noticed_ms, published_ms = NULL
            """)
        for id in lost { try insert.run(.text(id), .text(device), .integer(now.milliseconds)) }
        warnOnce(
            "the sync folder's file \(file) was put back to an earlier state (its device restored from a backup?): \(lost.count) of its changes that it no longer holds are written again by this device, so that it gets them back"
        )
        return lost.count
    }

    /// Names devices said, the latest saying of each.
    private func recordDeviceNames(_ names: [SyncFileText.DeviceName], now: Instant) throws {
        guard !names.isEmpty else { return }
        let upsert = try connection.prepare(
            """
            INSERT INTO device (id, name, first_seen_ms, calendar) VALUES (?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, calendar = coalesce(excluded.calendar, device.calendar)
            WHERE device.is_self = 0
            """)
        var latest: [String: SyncFileText.DeviceName] = [:]
        // The latest saying; of two at the same instant, the one later in the files (read in order).
        for name in names where latest[name.id].map({ $0.at <= name.at }) ?? true { latest[name.id] = name }
        for name in latest.values.sorted(by: { $0.id < $1.id }) {
            try upsert.run(.text(name.id), .text(name.name), .integer(now.milliseconds), name.calendar.map { .integer($0 ? 1 : 0) } ?? .null)
        }
    }

    /// Each device's latest event and apparent clock offset: its events' own time minus when they arrived
    /// here is its clock's lead plus the carriage; the greatest (the least carriage) is the best estimate.
    func noteDevices(_ events: [PlanEvent], except selfID: String?, now: Instant) throws {
        var seen: [String: (last: Int64, offset: Int64, count: Int64)] = [:]
        // A file's events are one device's: its run is summed first and added once (hashing a device id for
        // each of a first sync's 10,000 events cost more than the rest of this).
        var run: (device: String, last: Int64, offset: Int64, count: Int64)?
        func add(_ run: (device: String, last: Int64, offset: Int64, count: Int64)) {
            let before = seen[run.device] ?? (run.last, run.offset, 0)
            seen[run.device] = (max(before.last, run.last), max(before.offset, run.offset), before.count + run.count)
        }
        for event in events {
            guard let device = event.stamp?.device, device != selfID else { continue }
            let offset = event.at.milliseconds - now.milliseconds
            if let current = run, current.device == device {
                run = (device, max(current.last, event.at.milliseconds), max(current.offset, offset), current.count + 1)
            } else {
                if let current = run { add(current) }
                run = (device, event.at.milliseconds, offset, 1)
            }
        }
        if let current = run { add(current) }
        let note = try connection.prepare(
            """
            INSERT INTO device (id, first_seen_ms, last_event_ms, offset_ms, events) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (id) DO UPDATE SET last_event_ms = max(coalesce(last_event_ms, ?3), ?3),
                offset_ms = max(coalesce(offset_ms, ?4), ?4), events = events + ?5
            """)
        for (device, fact) in seen.sorted(by: { $0.key < $1.key }) {
            try note.run(.text(device), .integer(now.milliseconds), .integer(fact.last), .integer(fact.offset), .integer(fact.count))
        }
    }

    /// Inside a write transaction: whether this device has events to write to its sync folder.
    /// (Or has no id yet: its first publish makes one, says its name and claims the plan's zone.)
    func hasEventsToPublish() throws -> Bool {
        try connection.integer(
            """
            SELECT EXISTS (SELECT 1 FROM setting WHERE key = 'sync-folder' AND value <> '')
               AND (EXISTS (SELECT 1 FROM event WHERE received_ms IS NULL AND published_ms IS NULL)
                    OR EXISTS (SELECT 1 FROM relay WHERE published_ms IS NULL)
                    OR NOT EXISTS (SELECT 1 FROM device WHERE is_self = 1))
            """) == 1
    }

    /// This device's events not yet written to the folder, in stamp order.
    /// With `relays` (some are waiting: rare, after another device's restore), also another device's this
    /// device relays (`relay`) and has not written yet; without, the plain statement every `open` prepares.
    func unpublishedEvents(relays withRelays: Bool) throws -> (own: [PlanEvent], relays: [PlanEvent]) {
        let stmt: Statement
        if withRelays {
            stmt = try connection.prepare(
                """
                SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device, 0 FROM event
                WHERE received_ms IS NULL AND published_ms IS NULL
                UNION ALL
                SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device, 1 FROM event
                WHERE id IN (SELECT event_id FROM relay WHERE published_ms IS NULL)
                ORDER BY 6, 7, 1
                """)
        } else {
            stmt = try connection.prepare(
                """
                SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device, 0 FROM event
                WHERE received_ms IS NULL AND published_ms IS NULL ORDER BY coalesce(stamp_ms, at_ms), stamp_counter, id
                """)
        }
        var events: [PlanEvent] = []
        var relays: [PlanEvent] = []
        while try stmt.step() {
            let line =
                PlanEventText.header + " "
                + PlanEventText.fields([
                    ("id", stmt.text(0)), ("at", String(stmt.int64(1))),
                    ("origin", stmt.text(2)), ("kind", stmt.text(3)),
                ])
                + (stmt.text(4).isEmpty ? "" : " " + stmt.text(4)) + "\n"
            guard var event = PlanEvent(line: line) else { continue }
            event.stamp = Stamp(milliseconds: stmt.int64(5), counter: stmt.int64(6), device: stmt.text(7))
            if stmt.int64(8) == 0 { events.append(event) } else { relays.append(event) }
        }
        return (events, relays)
    }
}

/// The sync folder as an event source: other devices' files read and applied inside the change's
/// transaction (unless `reading` is false: a login's `open` never waits on a folder), this device's new
/// events appended to its own file after the commit.
final class SyncFolderSource: EventSource {
    let reading: Bool
    /// At most this many bytes read (nil: all).
    let budget: Int64?
    private var found: SyncReport?
    private var publishes = false
    private var published = 0
    private var lockBusy = false

    /// When the change began (the source is made as it begins, before it waits for the database's lock).
    private let begun = SystemClock.monotonicMilliseconds()

    init(reading: Bool, budget: Int64? = nil) {
        self.reading = reading
        self.budget = budget
    }

    package var leftUnread: Bool { found?.more == true }

    package func collect(_ t: Transaction, now: Instant) throws -> [SourcedEvent] {
        guard reading, let (report, events) = try t.readSyncFolder(now: now, budget: budget) else { return [] }
        found = report
        return events.indices.map {
            SourcedEvent(event: events[$0], fromAnotherDevice: true, carrier: $0 < report.carriers.count ? report.carriers[$0] : nil)
        }
    }

    package func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws {
        let selfID = found?.selfDevice
        for applied in outcome.outcomes {
            found?.applied += applied.fresh.count
            found?.superseded += applied.effect.superseded
            found?.openedElsewhere += applied.effect.opens.map(\.date)
            // This device's own changes, relayed back by another device (this one was restored from a
            // backup): applied as they came (the relaying device's file keeps carrying them).
            let own = selfID.map { selfID in applied.fresh.count { $0.stamp?.device == selfID } } ?? 0
            if own > 0 {
                found?.cameBack += own
                t.warnOnce(
                    "\(own) change\(own == 1 ? "" : "s") this device made came back from another device (this database was restored from a backup?): applied again here"
                )
            }
            // They arrived no earlier than now, but `now` was read before this change waited for the lock
            // (a refill behind a long Anki read, seconds): a change another device made meanwhile would look
            // made ahead of this clock. The wait counts, in whole seconds (what is under 2 s is "in step").
            let waited = (SystemClock.monotonicMilliseconds() - begun) / 1000 * 1000
            try t.noteDevices(applied.fresh, except: selfID, now: now + waited)
        }
        for (event, why) in outcome.refused {
            found?.problems.append("an event \(event.id) from device \(event.stamp?.device ?? "?") was refused by the database (\(why))")
        }
    }

    package func seal(_ t: Transaction, now: Instant) throws {
        // Once the folder was read: this device claims the plan's zone unless a claim is there already (its
        // own, or another device's it now takes).
        if reading, found?.readWhole == true, found?.more == false, let selfID = try t.selfDeviceID() {
            try t.claimPlanZone(device: selfID, now: now)
        }
        publishes = try t.hasEventsToPublish()
    }

    package func finish(_ db: PlannerDatabase, now: Instant) {
        if publishes {
            (published, lockBusy) = db.publishToSyncFolder(now: now)
        }
    }

    package func report(into report: inout SourcesReport) {
        report.sync = found
        report.sync?.published = published
        report.sync?.lockBusy = lockBusy
    }
}
