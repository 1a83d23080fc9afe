import CFolderDigest
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// The calendar folder as a folder child lists it, in buckets (`CalendarBucket`): per bucket a digest of its
/// files (`CalendarListingDigest`) and their entries, kept as bytes until a pass must look into that bucket.
/// A pass over an unchanged bucket thus costs its digest's comparison, not its files' decoding.
struct CalendarListing {
    /// `.ics` names in the folder, the user's included (none at all where the planner wrote some: a folder
    /// not mounted).
    var icsCount = 0
    /// A digest of every bucket's digest: the read side compares this one value with what the last pass
    /// recorded (`calendar_pass` row '') and, when equal, looks into nothing.
    var total = ""
    /// The folder's quick digest (`quickDigest`), made just before the listing ("": it could not be made).
    var quick = ""
    /// Each bucket's digest, and where its entries are in `bytes` (decoded only for a bucket looked into).
    var buckets: [String: (digest: String, entries: Range<Int>)] = [:]
    private var bytes: [UInt8] = []

    /// In the child: a digest of every name of the folder that starts as a planner file's, with what it is,
    /// its owner, size, mtime, ctime and inode, and of how many `.ics` names it holds: what a pass compares
    /// first, so that a folder nothing touched since the last pass is not listed (`folder_digest`: no name
    /// kept or sorted, no bucket parsed). It holds everything the buckets' digests and `icsCount` hold, so
    /// equal quick digests mean an equal listing. nil when the folder cannot be listed.
    static func quickDigest(_ dir: Int32) -> String? {
        var sums = folder_sums()
        guard folder_digest(dir, CalendarFolderText.uidPrefix, CalendarFolderText.fileExtension, { FolderChild.progress() }, &sums) == 0
        else { return nil }
        return "\(hex(sums.a))\(hex(sums.b)) \(sums.entries) \(sums.suffixed)"
    }

    /// A 64-bit value as 16 hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// In the child: every planner file of the folder `dir`, by bucket, names in order within each, after
    /// its quick digest (`quick`: already made by the caller).
    static func write(_ dir: Int32, quick: String? = nil, into out: inout Wire.Writer) {
        let quick = quick ?? quickDigest(dir) ?? ""
        var ics = 0
        var found: [String: (digest: CalendarListingDigest, entries: Wire.Writer)] = [:]
        for name in PlannerDatabase.folderNames(dir) {
            FolderChild.progress()
            if name.hasSuffix(CalendarFolderText.fileExtension) { ics += 1 }
            guard let bucket = CalendarBucket.of(fileName: name) else { continue }
            var info = stat()
            guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            var bucketFiles = found[bucket] ?? (CalendarListingDigest(), Wire.Writer())
            bucketFiles.digest.add(
                name: name, kind: info.st_mode & S_IFMT, owner: info.st_uid, size: Int64(info.st_size),
                mtime: PlannerDatabase.mtimeNanoseconds(info),
                ctime: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec), inode: UInt64(info.st_ino))
            bucketFiles.entries.text(name)
            bucketFiles.entries.int(info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid() ? 1 : 0)
            bucketFiles.entries.int(Int64(info.st_size))
            bucketFiles.entries.int(PlannerDatabase.mtimeNanoseconds(info))
            found[bucket] = bucketFiles
        }
        let sorted = found.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.digest.hex, $0.value.entries.bytes) }
        out.int(Int64(ics))
        out.text(total(sorted.map { ($0.0, $0.1) }))
        out.text(quick)
        out.int(Int64(sorted.count))
        for (bucket, digest, entries) in sorted {
            out.text(bucket)
            out.text(digest)
            out.data(entries)
        }
    }

    /// The count of `.ics` names a quick digest says.
    static func icsCount(quick: String) -> Int? { quick.split(separator: " ").last.flatMap { Int($0) } }

    /// The digest of buckets' digests, in bucket order ("": no bucket).
    static func total(_ digests: [(bucket: String, digest: String)]) -> String {
        guard !digests.isEmpty else { return "" }
        var bytes: [UInt8] = []
        for (bucket, digest) in digests {
            bytes += bucket.utf8
            bytes.append(0)
            bytes += digest.utf8
            bytes.append(0)
        }
        return String(SHA256.hex(bytes).prefix(32))
    }

    init() {}

    /// A folder found as the last pass recorded it (`CalendarFiles.Bucketed.unchanged`): its total and
    /// counts, no bucket.
    init(unchanged quick: String, icsCount: Int, total: String) {
        self.quick = quick
        self.icsCount = icsCount
        self.total = total
    }

    /// In the parent: the listing `write` made (nil: not one). `headOnly`: its count of `.ics` names and
    /// its total, the buckets left unread.
    init?(_ r: inout Wire.Reader, headOnly: Bool = false) {
        guard let ics = r.int(), let total = r.text(), let quick = r.text(), let count = r.int(), count >= 0 else { return nil }
        icsCount = Int(ics)
        self.total = total
        self.quick = quick
        if headOnly { return }
        bytes = r.all
        for _ in 0..<count {
            guard let bucket = r.text(), let digest = r.text(), let entries = r.dataRange() else { return nil }
            buckets[bucket] = (digest, entries)
        }
    }

    /// The bucket's digest ("": no file in it).
    func digest(_ bucket: String) -> String { buckets[bucket]?.digest ?? "" }

    /// The files of `buckets` (nil: of every bucket), by name.
    func files(in wanted: Set<String>?) -> [String: CalendarFiles.Seen] {
        var seen: [String: CalendarFiles.Seen] = [:]
        for (bucket, files) in buckets where wanted?.contains(bucket) ?? true {
            var r = Wire.Reader(Array(bytes[files.entries]))
            while !r.atEnd {
                guard let name = r.text(), let regular = r.int(), let size = r.int(), let mtime = r.int() else { break }
                seen[name] = CalendarFiles.Seen(regular: regular == 1, size: size, mtime: mtime)
            }
        }
        return seen
    }
}

extension CalendarFiles {
    /// In the child, for the read side: the folder opened (no lock: reading never changes it) and listed,
    /// unless its quick digest is `known` (what the last pass recorded): then nothing more is looked at.
    /// [status: 0 listed, 1 cannot open (errno), 3 unchanged (the quick digest, the count of `.ics` names)].
    static func openAndList(_ folder: String, known: String?, dir: inout Int32) -> [UInt8] {
        var out = Wire.Writer()
        dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            out.int(1)
            out.int(Int64(errno))
            return out.bytes
        }
        let quick = CalendarListing.quickDigest(dir)
        if let quick, let known, quick == known, let ics = CalendarListing.icsCount(quick: quick) {
            out.int(3)
            out.text(quick)
            out.int(Int64(ics))
            return out.bytes
        }
        out.int(0)
        CalendarListing.write(dir, quick: quick ?? "", into: &out)
        return out.bytes
    }

    enum Bucketed {
        case listed(CalendarListing)
        /// As the last pass recorded it: its quick digest and count of `.ics` names.
        case unchanged(quick: String, icsCount: Int)
        case cannotOpen(Int32)
        case busy
        case unreadable
    }

    /// What `openAndList` or `lockAndList(listing: true)` said (`headOnly`: `CalendarListing.init`).
    static func bucketed(_ bytes: [UInt8], headOnly: Bool = false) -> Bucketed {
        var r = Wire.Reader(bytes)
        switch r.int() {
        case 0: return CalendarListing(&r, headOnly: headOnly).map { .listed($0) } ?? .unreadable
        case 1: return r.int().map { .cannotOpen(Int32($0)) } ?? .unreadable
        case 2: return .busy
        case 3:
            guard let quick = r.text(), let ics = r.int() else { return .unreadable }
            return .unchanged(quick: quick, icsCount: Int(ics))
        default: return .unreadable
        }
    }

    /// A file the read side asked for, as the child found it when it read it.
    enum ReadFile {
        case bytes([UInt8], size: Int64, mtime: Int64)
        /// Not one to read (why), with its size and mtime as listed (-1: unknown), so that it is not asked
        /// for again until it changes.
        case refused(String, size: Int64, mtime: Int64)
        case gone
        case failed(Int32)
    }

    /// In the child: each named file opened (no link followed, no FIFO waited on) and read whole, with the
    /// size and mtime of what was read.
    static func readFiles(_ job: [UInt8], dir: Int32) -> [UInt8] {
        var r = Wire.Reader(job)
        var out = Wire.Writer()
        while !r.atEnd {
            guard let name = r.text() else { break }
            FolderChild.progress()
            out.text(name)
            switch PlannerDatabase.openFile(dir, name, maximumBytes: CalendarFolderText.maximumFileBytes) {
            case .gone: out.int(2)
            case .refused(let why):
                var info = stat()
                let known = fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0
                out.int(1)
                out.text(why)
                out.int(known ? Int64(info.st_size) : -1)
                out.int(known ? PlannerDatabase.mtimeNanoseconds(info) : -1)
            case .opened(let fd, let size, let mtime):
                defer { close(fd) }
                guard let bytes = PlannerDatabase.readBytes(fd, from: 0, to: size) else {
                    out.int(3)
                    out.int(Int64(errno))
                    continue
                }
                out.int(0)
                out.data(bytes)
                out.int(size)
                out.int(mtime)
            }
        }
        return out.bytes
    }

    static func readJob(_ names: [String]) -> [UInt8] {
        var w = Wire.Writer()
        for name in names { w.text(name) }
        return w.bytes
    }

    static func readResults(_ bytes: [UInt8]) -> [String: ReadFile] {
        var r = Wire.Reader(bytes)
        var results: [String: ReadFile] = [:]
        while !r.atEnd {
            guard let name = r.text(), let status = r.int() else { break }
            switch status {
            case 0:
                guard let data = r.data(), let size = r.int(), let mtime = r.int() else { return results }
                results[name] = .bytes(data, size: size, mtime: mtime)
            case 1:
                guard let why = r.text(), let size = r.int(), let mtime = r.int() else { return results }
                results[name] = .refused(why, size: size, mtime: mtime)
            case 2: results[name] = .gone
            default: results[name] = .failed(r.int().map { Int32($0) } ?? EIO)
            }
        }
        return results
    }
}

/// What a pass records for the whole folder (`calendar_pass` row ''), beside every bucket's record: the total of
/// the buckets' listings (`CalendarListing.total`) in `listing`, and in `plan` the folder's quick digest at that
/// listing (`CalendarListing.quickDigest`), the plan's fingerprint (`calendarPlanFingerprint`) and the instant
/// span of time over which time alone leaves the plan's items as they are (from the pass's clock to
/// `CalendarPlanFacts.unchangedUntil`), as `total=… quick=… plan=… from=… until=…`. The total is said again
/// there because a planner from before these sets `listing` alone: a column whose total is not the row's was
/// left by a pass before another one changed the folder, and says nothing (nor does one `lookAgain` wrote).
/// A pass that finds the same quick digest and the same fingerprint before that instant knows the folder is
/// what the plan wants, without listing it or making a key.
struct CalendarPassHead: Equatable {
    var total: String
    var quick: String?
    var plan: String?
    var from: Int64?
    var until: Int64?

    init(total: String, quick: String? = nil, plan: String? = nil, from: Int64? = nil, until: Int64? = nil) {
        (self.total, self.quick, self.plan, self.from, self.until) = (total, quick, plan, from, until)
    }

    /// From `listing` and `plan` joined by US (0x1F).
    init(joined: UnsafeBufferPointer<UInt8>) {
        let cut = joined.firstIndex(of: 0x1F) ?? joined.endIndex
        self.init(
            total: String(decoding: joined[..<cut], as: UTF8.self),
            column: cut < joined.endIndex ? String(decoding: joined[(cut + 1)...], as: UTF8.self) : "")
    }

    init(total: String, column: String) {
        self.total = total
        var said: String?
        defer {
            // Written before an older planner's pass changed the folder: not this listing's.
            if said != total { (quick, plan, from, until) = (nil, nil, nil, nil) }
        }
        // By bytes: every command with a calendar folder reads it (String's split and prefixes cost more than the rest).
        let bytes = Array(column.utf8)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 9 { end += 1 }
            let field = bytes[start..<end]
            if let equals = field.firstIndex(of: UInt8(ascii: "=")) {
                let value = String(decoding: bytes[(equals + 1)..<end], as: UTF8.self)
                switch String(decoding: bytes[start..<equals], as: UTF8.self) {
                case "total": said = value
                case "quick": quick = value
                case "plan": plan = value
                case "from": from = Int64(value)
                case "until": until = Int64(value)
                default: break
                }
            }
            start = end + 1
        }
    }

    var column: String {
        ["total=\(total)", quick.map { "quick=\($0)" }, plan.map { "plan=\($0)" }, from.map { "from=\($0)" }, until.map { "until=\($0)" }].compactMap
        { $0 }
        .joined(separator: "\t")
    }

    /// Whether the folder, found with the quick digest `quick`, is what the plan with fingerprint `plan` wants
    /// at `now`, as this head recorded.
    func holds(quick seen: String, plan current: String?, now: Instant) -> Bool {
        guard total != PlannerDatabase.lookAgain, !total.isEmpty, let quick, quick == seen, let plan, let current, plan == current, let from,
            let until
        else {
            return false
        }
        // A clock set back before the pass that recorded it: slots it had seen pass may be ahead again.
        return from <= now.milliseconds && now.milliseconds < until
    }
}

/// What a pass recorded per bucket (`calendar_pass`), and what it reads to decide which buckets to look into.
extension PlannerDatabase {
    typealias PassRecords = [String: (listing: String, plan: String)]

    /// A listing no folder has: a bucket recorded with it is looked into by the next pass, whatever it lists.
    static let lookAgain = "-"

    /// Whether a bucket's files after a pass are exactly its rows: each file as its row says (size, mtime),
    /// and a row for each file. Only then may the pass be recorded: a file the pass did not account for (a
    /// phone's tick renamed in meanwhile) keeps the bucket looked into until it has been read.
    static func bucketMatches(_ files: [String: CalendarFiles.Seen], rows: [String: CalendarRow]) -> Bool {
        guard files.count == rows.count else { return false }
        for (name, file) in files {
            guard let row = rows[name], row.size == file.size, row.mtime == file.mtime else { return false }
        }
        return true
    }
}

extension Transaction {
    /// What the last passes recorded for each bucket of `folder` (the whole folder's row '' left out).
    func calendarPassRecords(_ folder: String) throws -> PlannerDatabase.PassRecords {
        var records: PlannerDatabase.PassRecords = [:]
        let stmt = try connection.prepare("SELECT bucket, listing, plan FROM calendar_pass WHERE folder = ? AND bucket != ''")
        try stmt.bind([.text(folder)])
        while try stmt.step() { records[stmt.text(0)] = (stmt.text(1), stmt.text(2)) }
        return records
    }

    /// What the last pass recorded for the whole folder (row ''), when it left every bucket recorded as listed.
    func calendarPassHead(_ folder: String) throws -> CalendarPassHead? {
        let stmt = try connection.prepare("SELECT listing, plan FROM calendar_pass WHERE folder = ? AND bucket = ''")
        try stmt.bind([.text(folder)])
        return try stmt.step() ? CalendarPassHead(total: stmt.text(0), column: stmt.text(1)) : nil
    }

    /// Records the head (`nil`: forgets it, the folder's total then unknown).
    func recordCalendarPassHead(_ folder: String, _ head: CalendarPassHead?) throws {
        guard let head else {
            try connection.prepare("DELETE FROM calendar_pass WHERE folder = ? AND bucket = ''").run(.text(folder))
            return
        }
        try connection.prepare(
            """
            INSERT INTO calendar_pass (folder, bucket, listing, plan) VALUES (?, '', ?, ?)
            ON CONFLICT (folder, bucket) DO UPDATE SET listing = excluded.listing, plan = excluded.plan
            """
        ).run(.text(folder), .text(head.total), .text(head.column))
    }

    /// What the last pass recorded for the whole folder (`calendarPassHead`), and a digest of everything
    /// `calendarPlanFacts` reads, made with one statement and no setting parsed (nil with the usual-time
    /// schedule, whose decision reads weeks of the record: every pass then makes the facts): the settings'
    /// rows; the opens and the skipped dates from two days before `now`'s UTC date (no study day of any zone
    /// is earlier); the pauses not ended; the one-offs still waiting; measurement mode's seed; the zone's
    /// file (a tz database update replaces it); and this program's file. Equal fingerprints, equal facts —
    /// except for what time alone changes, which `CalendarPlanFacts.unchangedUntil` bounds. 64 bits (a
    /// `folder_digest` state): it detects change, it does not authenticate.
    func calendarPlanFingerprint(folder: String, now: Instant) throws -> (head: CalendarPassHead?, fingerprint: String?) {
        let stmt = try connection.prepare(HotQueries.calendarFingerprint)
        let utcDate = LocalDateTime(epochMillisecondsAsIfUTC: now.milliseconds).date.adding(days: -2)
        try stmt.bind([.text(utcDate.description), .text(Register.setting(.experiment).name), .text(folder)])
        guard try stmt.step() else { return (nil, nil) }
        let head = stmt.isNull(0) ? nil : CalendarPassHead(joined: stmt.bytes(0))
        // Each column's bytes as SQLite holds them, folded in one after the other (each with its length; a NULL
        // as the byte 0xFF, which no text holds), with the recipe version, the date and the zone's file.
        var state: UInt64 = 0x243f_6a88_85a3_08d3
        var version = "\(CalendarFolderText.recipeVersion) \(utcDate)"
        version.withUTF8 { folder_digest_feed(&state, $0.baseAddress, $0.count) }
        var null: UInt8 = 0xFF
        for column: Int32 in 1...6 {
            if stmt.isNull(column) {
                folder_digest_feed(&state, &null, 1)
            } else {
                let bytes = stmt.bytes(column)
                folder_digest_feed(&state, bytes.baseAddress, bytes.count)
            }
        }
        // The settings' zone and schedule, from their rows (`key=value`, separated by 0x1F) without parsing them all.
        var zone = "system"
        let settings = stmt.bytes(1)
        var start = 0
        while start < settings.count {
            var end = start
            while end < settings.count, settings[end] != 31 { end += 1 }
            let row = UnsafeBufferPointer(rebasing: settings[start..<end])
            if row.starts(with: "schedule=usual-time".utf8), row.count == 19 { return (head, nil) }
            if row.starts(with: "zone=".utf8) { zone = String(decoding: row.dropFirst(5), as: UTF8.self) }
            start = end + 1
        }
        // The zone's files and the program's (another build may make other items of the same inputs): each one's
        // device, inode, size and times, as numbers (no text made).
        var (paths, link) = SystemZone.files(setting: zone)
        if let program = ExecutableFile.running { paths.append(program) }
        for path in paths {
            var info = stat()
            var numbers: (Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (-1, 0, 0, 0, 0, 0, 0)
            if stat(path, &info) == 0 {
                numbers = (
                    Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size),
                    Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)
                )
            }
            withUnsafeBytes(of: &numbers) { folder_digest_feed(&state, $0.baseAddress, $0.count) }
        }
        link.withUTF8 { folder_digest_feed(&state, $0.baseAddress, $0.count) }
        var lanes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutablePointer(to: &lanes) { $0.withMemoryRebound(to: UInt64.self, capacity: 2) { folder_digest_finish(state, $0) } }
        return (head, CalendarListing.hex(lanes.0) + CalendarListing.hex(lanes.1))
    }

    /// Marks `buckets` of `folder` to be looked into by the next pass (`lookAgain`), and the whole folder's
    /// total with them: their rows were changed by something other than a pass. Marked, not deleted, so
    /// that a bucket whose files then all go is still known, and its rows forgotten. One short statement:
    /// `open` runs it.
    func lookAgain(_ folder: String, buckets: Set<String>) throws {
        let mark = try connection.prepare("INSERT OR REPLACE INTO calendar_pass (folder, bucket, listing, plan) VALUES (?, ?, ?, '')")
        for bucket in [""] + buckets.sorted() { try mark.run(.text(folder), .text(bucket), .text(PlannerDatabase.lookAgain)) }
    }

    /// The rows of the files of `buckets` (nil: every row), by name: two ranges of the primary key per bucket.
    func calendarRows(in buckets: Set<String>?) throws -> [String: PlannerDatabase.CalendarRow] {
        var rows: [String: PlannerDatabase.CalendarRow] = [:]
        func add(_ stmt: Statement, bucket: String?) throws {
            while try stmt.step() {
                let name = stmt.text(0)
                rows[name] = PlannerDatabase.CalendarRow(
                    day: stmt.isNull(1) ? nil : stmt.text(1), digest: stmt.isNull(2) ? nil : stmt.text(2),
                    size: stmt.int64(3), mtime: stmt.int64(4), recipe: stmt.isNull(5) ? nil : stmt.text(5),
                    problem: stmt.isNull(6) ? nil : stmt.text(6), bucket: bucket ?? CalendarBucket.of(fileName: name))
            }
        }
        guard let buckets else {
            try add(try connection.prepare("SELECT name, day, digest, size, mtime_ns, recipe, problem FROM calendar_file"), bucket: nil)
            return rows
        }
        let range = try connection.prepare(
            "SELECT name, day, digest, size, mtime_ns, recipe, problem FROM calendar_file WHERE name >= ? AND name < ?")
        for bucket in buckets.sorted() {
            for (from, to) in CalendarBucket.nameRanges(bucket) {
                try range.bind([.text(from), .text(to)])
                try add(range, bucket: bucket)
            }
        }
        return rows
    }

    /// What the plan makes the folder's items from (`CalendarPlanFacts`), read in one go.
    func calendarPlanFacts(now: Instant) throws -> CalendarPlanFacts {
        let values = try readSettingRows(withDefaults: false).values
        var (settings, zone) = try plan(from: values)
        if settings.usualTime {
            let (opens, skipped) = try usualTimeRecord(now: now, zone: zone, schedule: settings.schedule)
            settings.schedule.usual = UsualTime.plan(settings: settings, zone: zone, now: now, firstOpens: opens, skipped: skipped)
        }
        let settingsText = values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        let today = settings.schedule.studyDay(at: now, in: zone)
        var pause: Pause?
        let paused = try connection.prepare(HotQueries.pause)
        try paused.bind([.integer(now.milliseconds)])
        if try paused.step() {
            pause = Pause(since: Instant(milliseconds: paused.int64(0)), until: paused.isNull(1) ? nil : Instant(milliseconds: paused.int64(1)))
        }
        var opens: [LocalDate: Instant] = [:]
        let opened = try connection.prepare("SELECT local_date, min(opened_at_ms) FROM app_open WHERE local_date >= ? GROUP BY local_date")
        try opened.bind([.text(today.description)])
        while try opened.step() {
            if let date = LocalDate(iso: opened.text(0)) { opens[date] = Instant(milliseconds: opened.int64(1)) }
        }
        var skipped: Set<LocalDate> = []
        let skips = try connection.prepare(HotQueries.skippedDates)
        try skips.bind([.text(today.description)])
        while try skips.step() {
            if let date = LocalDate(iso: skips.text(0)) { skipped.insert(date) }
        }
        var oneOffs: [CalendarFolderText.OneOff] = []
        let pending = try connection.prepare(HotQueries.calendarOneOffs)
        while try pending.step() {
            oneOffs.append(
                .init(identifier: pending.text(0), fireAt: Instant(milliseconds: pending.int64(1)), title: pending.text(2), body: pending.text(3)))
        }
        return CalendarPlanFacts(
            settingsText: settingsText, settings: settings, zone: zone, now: now, pause: pause, opens: opens, skipped: skipped,
            oneOffs: oneOffs)
    }
}
