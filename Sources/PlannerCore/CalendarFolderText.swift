/// The calendar folder (`calendar-folder`): the plan as a vdir, one VCALENDAR per `<UID>.ics` file, for
/// vdirsyncer to carry to a CalDAV server and a phone. A VEVENT with one alarm per study reminder of today
/// and per pending one-off; the reminders of the later study days of the next `calendar-days` days as one
/// recurring VEVENT per time of day (a *series*: see `seriesItems`); a "Study today" VTODO per study day,
/// COMPLETED once the day is opened. Every UID is `planner-` and vdirsyncer's safe characters, so a file that comes back
/// from the server keeps its name; anything else in the folder is the user's.
public enum CalendarFolderText {
    public static let uidPrefix = "planner-"
    /// Files the planner writes aside and renames in: never `.ics` (vdirsyncer lists only those).
    public static let temporaryPrefix = ".planner-"
    public static let fileExtension = ".ics"
    /// A larger file is not one the planner wrote, nor a phone's rewrite of one: ignored unread.
    public static let maximumFileBytes: Int64 = 1 << 20
    public static let taskSummary = "Study today"

    // MARK: what an item says

    /// Prefixed to the digest of a planner file read back after someone else wrote it (vdirsyncer: the
    /// phone, or another computer carrying the same calendar): `read:` + its `semanticDigest`.
    public static let readPrefix = "read:"

    /// Properties that say nothing about what an item is (when and by what it was written): left out, as
    /// vdirsyncer leaves them out when it compares items.
    static let volatileProperties: Set<String> = [
        "DTSTAMP", "SEQUENCE", "PRODID", "LAST-MODIFIED", "CREATED", "METHOD",
        "X-RADICALE-NAME", "X-WR-CALNAME", "REV",
    ]

    /// What an item says, whoever wrote it: its content lines unfolded, without the volatile properties,
    /// sorted (a server may reorder or refold them). Two computers carrying one calendar each read the
    /// other's copy of an item as their own when this is equal — not as an edit to put back, which each
    /// would put back as a newer revision than the other's, for ever.
    public static func semanticDigest(_ text: String) -> String {
        var lines = semanticLines(text)
        return digest(ofLines: &lines)
    }

    /// `semanticDigest(shared + rest)` where `sharedLines` are `semanticLines(shared)`: the calendar head
    /// and its VTIMEZONE, the same for every item of a plan, read once per plan instead of once per item.
    /// `shared` must end a line and `rest` must not continue it (checked: else the whole text is read).
    static func semanticDigest(shared: String, sharedLines: [[UInt8]], rest: String) -> String {
        guard shared.utf8.last == 10, rest.utf8.first != 32, rest.utf8.first != 9 else { return semanticDigest(shared + rest) }
        var lines = sharedLines + semanticLines(rest)
        return digest(ofLines: &lines)
    }

    /// Sorted (a server may reorder them), joined by line breaks, hashed.
    private static func digest(ofLines lines: inout [[UInt8]]) -> String {
        lines.sort { $0.lexicographicallyPrecedes($1) }
        var joined: [UInt8] = []
        joined.reserveCapacity(lines.reduce(lines.count) { $0 + $1.count })
        for (n, line) in lines.enumerated() {
            if n > 0 { joined.append(10) }
            joined += line
        }
        return String(SHA256.hex(joined).prefix(32))
    }

    /// The content lines of `text` as `semanticDigest` compares them, in the order found: unfolded, without
    /// their line ends, volatile properties left out, a UTC time in Radicale's form normalized. On the UTF-8
    /// bytes (every byte that matters here is ASCII): String's character-level splitting cost millions of
    /// instructions per file, and a refill digests every item of the horizon.
    static func semanticLines(_ text: String) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        func add(_ bytes: [UInt8]) {
            var line = bytes
            while line.last == 13 { line.removeLast() }
            guard !line.isEmpty else { return }
            var nameEnd = 0
            while nameEnd < line.count, line[nameEnd] != 58, line[nameEnd] != 59 { nameEnd += 1 }  // ':' ';'
            if isVolatile(line[0..<nameEnd]) { return }
            let normalized = utcTimeNormalized(line[...])
            lines.append(normalized.count == line.count ? line : Array(normalized))
        }
        var text = text
        text.withUTF8 { bytes in
            // Lines are copied whole from the text; only a folded one is put together piece by piece.
            var folded: [UInt8]?
            var start = 0
            var i = 0
            while i < bytes.count {
                guard bytes[i] == 10 else {
                    i += 1
                    continue
                }
                if i + 1 < bytes.count, bytes[i + 1] == 32 || bytes[i + 1] == 9 {
                    // A line that starts with a space or a tab continues this one (RFC 5545 folding); the
                    // line break before it goes (its CR too).
                    var joined = folded ?? []
                    joined += bytes[start..<i]
                    if joined.last == 13 { joined.removeLast() }
                    folded = joined
                    i += 2
                    start = i
                    continue
                }
                if var joined = folded {
                    joined += bytes[start..<i]
                    add(joined)
                    folded = nil
                } else {
                    add(Array(bytes[start..<i]))
                }
                i += 1
                start = i
            }
            if var joined = folded {
                joined += bytes[start..<bytes.count]
                add(joined)
            } else if start < bytes.count {
                add(Array(bytes[start..<bytes.count]))
            }
        }
        return lines
    }

    /// `volatileProperties` as uppercase bytes, compared without making a String per line.
    private static let volatileNames: [[UInt8]] = volatileProperties.map { Array($0.utf8) }

    private static func isVolatile(_ name: ArraySlice<UInt8>) -> Bool {
        volatileNames.contains { volatile in
            volatile.count == name.count && zip(volatile, name).allSatisfy { v, n in v == ((97...122).contains(n) ? n - 32 : n) }
        }
    }

    /// Radicale 3.1.8 writes a time in the zone named UTC as `;TZID=UTC:…Z` (measured): the same instant as
    /// ours, `;TZID=UTC:…`, and as `:…Z`; all three read as the last. In any other zone whose offset is always
    /// 0 (Etc/UTC, Africa/Abidjan, Atlantic/Reykjavik), Radicale 3.1.8 (python3-vobject) ends each local time
    /// with a `Z` after the TZID (`;TZID=Etc/UTC:20261124T093000Z`, an EXDATE's every value; measured): read
    /// without it, as ours (`CalendarZoneTests.itemsAsVobjectWritesThemAreThePlannersOwn`).
    static func utcTimeNormalized(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let marker = Array(";TZID=".utf8)
        guard line.count >= marker.count + 17 else { return line }
        var at = line.startIndex
        while at + marker.count <= line.endIndex {
            if line[at] == 59, line[at..<(at + marker.count)].elementsEqual(marker) {  // 59: the marker's first byte
                // The zone's name, to the value's ':' (a zone name holds none).
                let name = at + marker.count
                guard let colon = line[name...].firstIndex(of: 58) else { return line }
                let value = line[(colon + 1)...]
                if line[name..<colon].elementsEqual("UTC".utf8) {
                    guard value.count == 15 || (value.count == 16 && value.last == 90) else { return line }  // 'Z'
                    return ArraySlice(Array(line[..<at]) + [58] + Array(value.prefix(15)) + [90])
                }
                // Local times of 15 bytes, each with a 'Z', separated by commas: each without its 'Z'.
                guard value.count % 17 == 16 else { return line }
                var plain = Array(line[...colon])
                for (n, byte) in value.enumerated() {
                    switch n % 17 {
                    case 15: guard byte == 90 else { return line }
                    case 16: guard byte == 44 else { return line }  // ','
                    default: break
                    }
                    if n % 17 != 15 { plain.append(byte) }
                }
                return ArraySlice(plain)
            }
            at += 1
        }
        return line
    }

    /// Whether a remembered digest says the file holds `item`: written by this planner, or read back and
    /// saying the same.
    public static func holds(_ digest: String?, _ item: Item) -> Bool {
        holds(digest, made: item.digest)
    }

    /// What `calendar_file.recipe` holds: the recipe bound to the digest it was found or written with, so a
    /// digest changed by anything else (a planner from before the column, still running; a hand edit)
    /// leaves a recipe that no longer holds, and the file is compared by its digest again.
    public static func boundRecipe(_ recipe: String, digest: String) -> String { recipe + " " + digest }

    /// Whether a row's remembered recipe (`boundRecipe`) says it holds `recipe`'s item, as its digest is now.
    /// On the bytes, without making the bound text: this runs for every item of the horizon.
    public static func recipeHolds(_ stored: String?, recipe: String, digest: String?) -> Bool {
        guard let stored, let digest, stored.utf8.count == recipe.utf8.count + 1 + digest.utf8.count else { return false }
        // ASCII both: String's own prefix and suffix checks compare the bytes (no iteration of a UTF8View).
        return stored.hasPrefix(recipe) && stored.hasSuffix(digest)
            && stored.utf8[stored.utf8.index(stored.utf8.startIndex, offsetBy: recipe.utf8.count)] == 32
    }

    /// The same for an item's digest already made (`Item.made()`).
    public static func holds(_ digest: String?, made: String) -> Bool {
        guard let digest else { return false }
        return digest == made || digest == readPrefix + made
    }

    /// What every message about an unwritten calendar folder ends with: nothing is lost.
    public static let writtenAgain = "it is written again by the next planner command once it can"

    /// Why the calendar folder could not be brought in line now (`why`: the system's or the folder child's
    /// words). `again`: whether the next command will (not for a folder being emptied because the planner
    /// leaves it: nothing looks at it again).
    public static func cannotWrite(_ folder: String, _ why: String, again: Bool = true) -> String {
        "cannot write the calendar folder \(folder) (\(why))" + (again ? ": \(writtenAgain)" : "")
    }

    /// Why a folder that lost every file the planner wrote there is left alone.
    public static func vanishedWarning(_ folder: String) -> String {
        "the calendar folder \(folder) has lost every file the planner wrote there (not mounted?): it is left alone, so that vdirsyncer never takes your missing items for deleted ones; if you emptied it yourself, run planner config reset calendar-folder, then set it again"
    }

    // MARK: names

    public static func slotUID(_ identifier: String) -> String { uidPrefix + identifier }
    /// A one-off's identifier is free text: its UID is a digest of it.
    public static func oneOffUID(_ identifier: String) -> String { uidPrefix + "oneoff-" + SHA256.hex(identifier.utf8).prefix(32) }
    public static func dayUID(_ date: LocalDate) -> String { uidPrefix + "day-" + date.description }
    /// The series of the reminders at `hour:minute` after today, from the zone's change of offset on `from`
    /// (nil: at today's offset): its name says the time of day and the offset's first date alone, so that a
    /// change of title, a skip or a new day rewrites one file per time (and per change ahead), whatever
    /// `calendar-days` is.
    public static func seriesUID(hour: Int, minute: Int, from: LocalDate? = nil) -> String {
        uidPrefix + seriesName(hour: hour, minute: minute, from: from)
    }
    static func seriesName(hour: Int, minute: Int, from: LocalDate?) -> String {
        "series-" + String(hour / 10) + String(hour % 10) + String(minute / 10) + String(minute % 10) + (from.map { "-" + $0.description } ?? "")
    }
    public static func fileName(_ uid: String) -> String { uid + fileExtension }

    /// What a planner UID names; nil for any other UID (the user's).
    public enum UIDKind: Equatable, Sendable {
        case slot(LocalDate)
        case oneOff
        case day(LocalDate)
        case series
    }

    public static func kind(ofUID uid: String) -> UIDKind? {
        guard uid.hasPrefix(uidPrefix) else { return nil }
        let rest = String(uid.dropFirst(uidPrefix.count))
        if rest.hasPrefix("day-") {
            let text = String(rest.dropFirst(4))
            guard let date = LocalDate(iso: text), date.description == text else { return nil }
            return .day(date)
        }
        if rest.hasPrefix("series-") {
            let name = Array(rest.utf8.dropFirst(7))
            let digits = name.prefix(4)
            if name.count > 4 {
                // `-YYYY-MM-DD`: the first date of a later offset.
                let text = String(decoding: name.dropFirst(5), as: UTF8.self)
                guard name[4] == 0x2D, let date = LocalDate(iso: text), date.description == text else { return nil }
            }
            guard digits.count == 4, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let hour = Int(digits[digits.startIndex] - 0x30) * 10 + Int(digits[digits.startIndex + 1] - 0x30)
            let minute = Int(digits[digits.startIndex + 2] - 0x30) * 10 + Int(digits[digits.startIndex + 3] - 0x30)
            return hour < 24 && minute < 60 ? .series : nil
        }
        if rest.hasPrefix("oneoff-") {
            let hex = rest.dropFirst(7).utf8
            return hex.count == 32 && hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) ? .oneOff : nil
        }
        guard let local = SlotIdentifier.parse(rest), SlotIdentifier.format(local) == rest else { return nil }
        return .slot(local.date)
    }

    /// The UID a file name says, when it names a planner item (`planner-….ics`); the file must still say it.
    public static func uid(fromFileName name: String) -> String? {
        guard name.hasSuffix(fileExtension), name.hasPrefix(uidPrefix) else { return nil }
        let uid = String(name.dropLast(fileExtension.count))
        return kind(ofUID: uid) == nil ? nil : uid
    }

    // MARK: the folder wanted

    /// A pending one-off, with its own text: the fields `planner add` asked for.
    public typealias OneOff = NewRequest

    /// Bump whenever the text an item is made into changes, in any byte that `semanticDigest` reads: a
    /// remembered recipe of an older version then no longer matches, and the item is compared by its text
    /// again (CalendarFolderTextTests pins the texts of version 1).
    public static let recipeVersion = 1

    /// One file's content, made only when asked for: a refill compares every item of the horizon with the
    /// folder, and nearly all of them are as they were (`recipe`), so their text is never made.
    public struct Item: Equatable, Sendable {
        public let uid: String
        /// The study day it belongs to (nil: a one-off).
        public let day: LocalDate?
        public let isTask: Bool
        /// What the item's text is made from, in one short string that starts with `recipeVersion`: two
        /// items with one recipe have one text. Remembered beside the file (`calendar_file.recipe`), so an
        /// item as it was is recognised without making or digesting its text.
        public let recipe: String
        let make: Make
        let shared: SharedHead
        /// SEQUENCE, set only on an item put back after someone else changed it (see `revised(at:)`).
        public var sequence: Int64?

        enum Make: Sendable {
            case event(plannerID: String, start: LocalDateTime, title: String, body: String, zoneName: String)
            /// Reminders at one time of day: from `start`, daily until the instant `until` (nil: `start` alone),
            /// except on `exceptions`.
            case series(
                plannerID: String, start: LocalDateTime, until: Instant?, exceptions: [LocalDateTime], title: String, body: String,
                zoneName: String)
            case task(date: LocalDate, completed: Instant?, start: LocalDateTime, due: LocalDateTime, zoneName: String)
        }

        public static func == (a: Item, b: Item) -> Bool {
            a.uid == b.uid && a.day == b.day && a.isTask == b.isTask && a.recipe == b.recipe && a.sequence == b.sequence
        }

        /// `<uid>.ics`, made once: the folder's pass looks each item up by it several times.
        public let fileName: String

        /// The date its file's name carries (its `CalendarBucket`): a slot's own date (after midnight, the
        /// next one), a task's; nil for a one-off.
        public var fileDate: LocalDate? {
            guard day != nil else { return nil }
            switch make {
            case .event(_, let start, _, _, _): return start.date
            case .task(let date, _, _, _, _): return date
            case .series: return nil
            }
        }

        /// Whether it is a series (`seriesItems`).
        public var isSeries: Bool {
            if case .series = make { return true }
            return false
        }

        /// Its `CalendarBucket`, without reading its name.
        public var bucket: String { isSeries ? CalendarBucket.series : fileDate?.description ?? CalendarBucket.oneOffs }

        init(uid: String, day: LocalDate?, isTask: Bool, recipe: String, make: Make, shared: SharedHead) {
            self.uid = uid
            self.day = day
            self.isTask = isTask
            self.recipe = recipe
            self.make = make
            self.shared = shared
            fileName = CalendarFolderText.fileName(uid)
        }

        /// The text after the shared calendar head, up to DTSTAMP and from after it; and the DTSTAMP: a
        /// function of the item, not of when or where it was written, so every computer writes the same
        /// bytes for the same plan (vdirsyncer and CalDAV servers ignore DTSTAMP when they compare).
        private func parts() -> (head: String, tail: String, stamp: Instant) {
            switch make {
            case .event(let plannerID, let start, let title, let body, let zoneName):
                let tail = [
                    "DTSTART;TZID=\(ICalendar.parameter(zoneName)):\(ICalendar.localStamp(start))", "DURATION:PT5M",
                    "SUMMARY:\(ICalendar.text(title))", "DESCRIPTION:\(ICalendar.text(body))", "TRANSP:TRANSPARENT",
                    "X-PLANNER-ID:\(ICalendar.text(plannerID))", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(ICalendar.text(title))",
                    "TRIGGER;RELATED=START:PT0S", "END:VALARM", "END:VEVENT", "END:VCALENDAR",
                ].map(ICalendar.fold).joined()
                return ("BEGIN:VEVENT\r\n" + ICalendar.fold("UID:\(uid)"), tail, plannedStamp(start.date))
            case .series(let plannerID, let start, let until, let exceptions, let title, let body, let zoneName):
                let tzid = ICalendar.parameter(zoneName)
                var lines = ["DTSTART;TZID=\(tzid):\(ICalendar.localStamp(start))", "DURATION:PT5M"]
                // UNTIL in UTC, as RFC 5545 wants it with a DTSTART in a zone; inclusive.
                if let until { lines.append("RRULE:FREQ=DAILY;UNTIL=\(ICalendar.utcStamp(until))") }
                // One line, the values in order: the form vobject (Radicale) writes back.
                if !exceptions.isEmpty { lines.append("EXDATE;TZID=\(tzid):" + exceptions.map(ICalendar.localStamp).joined(separator: ",")) }
                lines += [
                    "SUMMARY:\(ICalendar.text(title))", "DESCRIPTION:\(ICalendar.text(body))", "TRANSP:TRANSPARENT",
                    "X-PLANNER-ID:\(ICalendar.text(plannerID))", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(ICalendar.text(title))",
                    "TRIGGER;RELATED=START:PT0S", "END:VALARM", "END:VEVENT", "END:VCALENDAR",
                ]
                return ("BEGIN:VEVENT\r\n" + ICalendar.fold("UID:\(uid)"), lines.map(ICalendar.fold).joined(), plannedStamp(start.date))
            case .task(let date, let completed, let start, let due, let zoneName):
                let tzid = ICalendar.parameter(zoneName)
                var lines = ["SUMMARY:\(taskSummary)"]
                // A task app hides a task until its start; DUE must come after DTSTART.
                if start < due { lines.append("DTSTART;TZID=\(tzid):\(ICalendar.localStamp(start))") }
                lines.append("DUE;TZID=\(tzid):\(ICalendar.localStamp(due))")
                if let completed {
                    lines += ["STATUS:COMPLETED", "COMPLETED:\(ICalendar.utcStamp(Instant(seconds: completed.seconds)))", "PERCENT-COMPLETE:100"]
                } else {
                    lines.append("STATUS:NEEDS-ACTION")
                }
                lines += ["X-PLANNER-ID:\(date)", "END:VTODO", "END:VCALENDAR"]
                let stamp = completed.map { Instant(seconds: $0.seconds) } ?? plannedStamp(date)
                return ("BEGIN:VTODO\r\n" + ICalendar.fold("UID:\(uid)"), lines.map(ICalendar.fold).joined(), stamp)
            }
        }

        /// What the text says (`semanticDigest`: DTSTAMP and SEQUENCE left out), with the shared head's
        /// lines read once per plan. Made on each call: ask once (or `made()` for the bytes too).
        public var digest: String { made().digest }

        /// The file's bytes.
        public func bytes() -> [UInt8] { made().bytes }

        /// The text made once: the file's bytes and its `digest`.
        public func made() -> (bytes: [UInt8], digest: String) {
            let (head, tail, stamp) = parts()
            let sequence = self.sequence.map { "SEQUENCE:\($0)\r\n" } ?? ""
            let bytes = Array((shared.text + head + "DTSTAMP:\(ICalendar.utcStamp(stamp))\r\n" + sequence + tail).utf8)
            return (bytes, CalendarFolderText.semanticDigest(shared: shared.text, sharedLines: shared.lines, rest: head + tail))
        }

        /// This item put back over a phone's edit, as a newer revision: vdirsyncer 0.19 records a download
        /// under the hash of the copy it replaced, so a put-back equal to that copy (DTSTAMP aside, which it
        /// ignores) would never be uploaded. SEQUENCE: minutes since 2020, rising with each put-back.
        public func revised(at now: Instant) -> Item {
            var item = self
            item.sequence = max(1, (now.milliseconds / 1000 - 1_577_836_800) / 60)
            return item
        }
    }

    /// The folder as the plan wants it: `days` from `planAhead` (today first), the first open of each of
    /// those days, the pending one-offs. Every item's text is a function of these alone; none is made here.
    public static func items(
        days: [PlannedDay], opens: [LocalDate: Instant], oneOffs: [OneOff], zone: Zone,
        settings: PlanSettings
    ) -> [Item] {
        // One VTIMEZONE for every item (`ZoneDefinition`), made once: the costly part of an item's text.
        let firstDate = (days.map(\.date) + oneOffs.map { zone.local($0.fireAt).date }).min()
        let shared = SharedHead(firstDate.map { calendarHead(zone: zone, year: $0.year) } ?? "")
        return items(days: days, opens: opens, oneOffs: oneOffs, zone: zone, settings: settings, shared: shared, today: days.first?.date)
    }

    /// The same with the calendar head given: a part of the horizon's items (`CalendarPlanFacts.items(of:)`)
    /// shares the whole horizon's head.
    /// `today`: the study day whose slots are items of their own; a later day's are in the series.
    static func items(
        days: [PlannedDay], opens: [LocalDate: Instant], oneOffs: [OneOff], zone: Zone,
        settings: PlanSettings, shared: SharedHead, today: LocalDate?
    ) -> [Item] {
        var items: [Item] = []
        // What every slot's and every task's text shares besides its own fields, in one digest per plan.
        let eventKey = String(SHA256.hex(Array("\(shared.key)\0\(zone.name)\0\(settings.title)\0\(settings.body)".utf8)).prefix(32))
        let schedule = settings.schedule
        let taskKey = String(
            SHA256.hex(Array("\(shared.key)\0\(zone.name)\0\(schedule.startMinute) \(schedule.endMinute) \(schedule.crossesMidnight)".utf8)).prefix(
                32))
        // A slot's identifier names its date and time (`SlotIdentifier`): with the plan's key, all its text
        // depends on. Appended, not interpolated: this runs for every slot of the horizon.
        let eventPrefix = "\(recipeVersion) E "
        var series: [String: [Slot]] = [:]
        var offsets = today.map { SeriesOffsets(today: $0, zone: zone) }
        for day in days {
            for slot in day.slots {
                if let today, day.date > today, let from = offsets?.series(of: slot) {
                    series[seriesName(hour: slot.local.hour, minute: slot.local.minute, from: from), default: []].append(slot)
                    continue
                }
                var recipe = eventPrefix
                recipe.reserveCapacity(eventPrefix.utf8.count + slot.identifier.utf8.count + 1 + eventKey.utf8.count)
                recipe += slot.identifier
                recipe += " "
                recipe += eventKey
                items.append(
                    Item(
                        uid: slotUID(slot.identifier), day: day.date, isTask: false, recipe: recipe,
                        make: .event(plannerID: slot.identifier, start: slot.local, title: settings.title, body: settings.body, zoneName: zone.name),
                        shared: shared))
            }
            let studyDay: Bool
            switch day.noSlots {
            case nil, .opened?, .over?: studyDay = true
            case .notInDays?, .skipped?, .paused?: studyDay = opens[day.date] != nil
            }
            if studyDay { items.append(task(day.date, completed: opens[day.date], zone: zone, schedule: schedule, shared: shared, key: taskKey)) }
        }
        items += seriesItems(series, eventKey: eventKey, zone: zone, settings: settings, shared: shared)
        for oneOff in oneOffs {
            let local = zone.local(oneOff.fireAt)
            let start = LocalDateTime(date: local.date, hour: local.hour, minute: local.minute, second: local.second)
            // A one-off's identifier, title and body are free text: in the recipe as one digest.
            let key = SHA256.hex(Array("\(shared.key)\0\(zone.name)\0\(oneOff.identifier)\0\(oneOff.title)\0\(oneOff.body)".utf8)).prefix(32)
            items.append(
                Item(
                    uid: oneOffUID(oneOff.identifier), day: nil, isTask: false,
                    recipe: "\(recipeVersion) O \(ICalendar.localStamp(start)) \(key)",
                    make: .event(plannerID: oneOff.identifier, start: start, title: oneOff.title, body: oneOff.body, zoneName: zone.name),
                    shared: shared))
        }
        return items
    }

    /// Which later slots are occurrences of a series, and of which: a series holds one offset, from today's
    /// or from a change of it within the horizon (a date whose offset at noon is not the day before's) up to
    /// the next, because python3-vobject (Radicale's parser) with pytz expands a daily rule, and matches its
    /// exceptions, at its DTSTART's offset: an hour off across Casablanca's changes (`CalendarZoneTests`).
    /// A slot within a day of a change is an item of its own (where a local time is skipped or repeated,
    /// clients disagree), its date an exception of the series around it. A function of today and the zone alone,
    /// whichever days are asked for (`CalendarPlanFacts.items(of:)`).
    struct SeriesOffsets {
        let zone: Zone
        /// The dates probed (at noon) from today's on, their offsets' changes found so far (each the first
        /// date of a new offset), and the last date's offset.
        var probed: LocalDate
        var changes: [LocalDate] = []
        var last: Int

        init(today: LocalDate, zone: Zone) {
            self.zone = zone
            probed = today
            last = Self.offset(zone, at: today)
        }

        /// The offset at noon of `date` (its UTC noon moved by that day's offset at UTC noon: a probe, not a
        /// conversion).
        static func offset(_ zone: Zone, at date: LocalDate) -> Int {
            let noon = LocalDateTime(date: date, hour: 12, minute: 0).epochMillisecondsAsIfUTC
            return zone.offset(at: Instant(milliseconds: noon - Int64(zone.offset(at: Instant(milliseconds: noon))) * 1000))
        }

        /// The changes after today, looked for through `date`.
        mutating func changes(through date: LocalDate) -> [LocalDate] {
            while probed < date {
                probed = probed.adding(days: 1)
                let offset = Self.offset(zone, at: probed)
                if offset != last { changes.append(probed) }
                last = offset
            }
            return changes
        }

        /// The series a later slot is an occurrence of: `.some(nil)`, today's offset's; `.some(date)`, the
        /// offset from that change on; nil, none (an item of its own).
        mutating func series(of slot: Slot) -> LocalDate?? {
            let date = slot.local.date
            let changes = changes(through: date.adding(days: 1))
            // No change within a day of the slot: its offset is its date's at noon, and so, changes being found
            // at noon, that of every date since the last change on or before its date (the series' one).
            let offset = zone.offset(at: slot.fireAt)
            guard slot.local.second == 0, zone.offset(at: Instant(milliseconds: slot.fireAt.milliseconds - 86_400_000)) == offset,
                zone.offset(at: Instant(milliseconds: slot.fireAt.milliseconds + 86_400_000)) == offset,
                slot.local.epochMillisecondsAsIfUTC - Int64(offset) * 1000 == slot.fireAt.milliseconds
            else { return nil }
            return .some(changes.last { $0 <= date })
        }
    }

    /// How a series' recipe begins: its name and its first date follow (`HotQueries.staleSeries` reads it).
    public static let seriesRecipePrefix = "\(recipeVersion) S "

    /// One recurring VEVENT per time of day for the slots of the study days after today: its first slot's
    /// DTSTART, daily until its last, each date between without a slot at that time an EXDATE (a weekend,
    /// a skipped, paused or opened day, a slot measurement mode withholds, one near or after a clock change). A
    /// change that touches every day (a title) rewrites one file per time of day, not one per slot; the
    /// occurrences are the slots exactly (`CalendarSeriesTests`, and the real clients in
    /// `scripts/calendar-check`).
    static func seriesItems(_ series: [String: [Slot]], eventKey: String, zone: Zone, settings: PlanSettings, shared: SharedHead) -> [Item] {
        var items: [Item] = []
        for (name, slots) in series.sorted(by: { $0.key < $1.key }) {
            guard let first = slots.first, let last = slots.last else { continue }
            let (hour, minute) = (first.local.hour, first.local.minute)
            var exceptions: [LocalDateTime] = []
            var dates = slots.map(\.local.date)[...]
            var date = first.local.date
            var exceptionText = ""
            while date < last.local.date {
                if dates.first == date {
                    dates.removeFirst()
                } else {
                    exceptions.append(LocalDateTime(date: date, hour: hour, minute: minute))
                    exceptionText += " "
                    exceptionText += date.description
                }
                date = date.adding(days: 1)
            }
            let until = slots.count > 1 ? last.fireAt : nil
            let recipe = "\(seriesRecipePrefix)\(name) \(first.local.date) \(last.local.date) \(last.fireAt.milliseconds)\(exceptionText) \(eventKey)"
            items.append(
                Item(
                    uid: uidPrefix + name, day: nil, isTask: false, recipe: recipe,
                    make: .series(
                        plannerID: name, start: first.local, until: until, exceptions: exceptions, title: settings.title, body: settings.body,
                        zoneName: zone.name),
                    shared: shared))
        }
        return items
    }

    /// The calendar's opening lines and the zone's one VTIMEZONE as it is in `year` (`ZoneDefinition`).
    static func calendarHead(zone: Zone, year: Int) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//planner//planner//EN", "CALSCALE:GREGORIAN"]
            + ZoneDefinition.lines(zone, year: year)).map(ICalendar.fold).joined()
    }

    /// An item's DTSTAMP when nothing later revised it: 00:00 UTC of its date.
    static func plannedStamp(_ date: LocalDate) -> Instant { ZoneDefinition.utcMidnight(date) }

    /// A calendar head made once per plan, with its lines as `semanticDigest` reads them and a digest of
    /// it for the recipes. A class: every item of the plan shares the one copy.
    final class SharedHead: Sendable {
        let text: String
        let lines: [[UInt8]]
        let key: String
        init(_ text: String) {
            self.text = text
            lines = CalendarFolderText.semanticLines(text)
            key = String(SHA256.hex(Array(text.utf8)).prefix(32))
        }
    }

    /// "Study today", due at the end of the day's window; COMPLETED at the day's first open.
    static func task(_ date: LocalDate, completed: Instant?, zone: Zone, schedule: Schedule, shared: SharedHead, key: String) -> Item {
        // A window across midnight ends on the next date, still in this study day (`Schedule.studyDay`).
        let due = LocalDateTime(
            date: schedule.crossesMidnight ? date.adding(days: 1) : date,
            hour: schedule.endMinute / 60, minute: schedule.endMinute % 60)
        let start = LocalDateTime(date: date, hour: schedule.startMinute / 60, minute: schedule.startMinute % 60)
        // COMPLETED is written to the second.
        let completedText = completed.map { String($0.seconds) } ?? "-"
        return Item(
            uid: dayUID(date), day: date, isTask: true, recipe: "\(recipeVersion) T \(date) \(completedText) \(key)",
            make: .task(date: date, completed: completed, start: start, due: due, zoneName: zone.name), shared: shared)
    }
}
