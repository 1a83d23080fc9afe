/// The calendar folder in buckets, so that a pass costs what changed and not the horizon's length (without
/// them, every writing command paid for every day of `calendar-days`). A planner file belongs to the bucket of
/// the date its name carries (a slot's date, a day task's date), or to the one-offs' bucket. After a pass the
/// planner records, per bucket, a digest of the bucket's files as listed (`CalendarListingDigest`) and a key
/// of everything the plan makes the bucket's items from (`CalendarPlanFacts.key`); the next pass looks into
/// a bucket only when one of the two differs (`calendar_pass`, migration 0014).
public enum CalendarBucket {
    /// The one-offs' bucket: their names carry a digest, not a date.
    public static let oneOffs = "oneoff"
    /// The series' bucket (`CalendarFolderText.seriesItems`): their names carry a time of day.
    public static let series = "series"

    /// The bucket of a planner file's name; nil for any other name (the user's files, temporaries).
    public static func of(fileName name: String) -> String? {
        guard let uid = CalendarFolderText.uid(fromFileName: name) else { return nil }
        switch CalendarFolderText.kind(ofUID: uid) {
        case .slot(let date)?, .day(let date)?: return date.description
        case .oneOff?: return oneOffs
        case .series?: return series
        case nil: return nil
        }
    }

    /// The name ranges `[from, to)` that hold a bucket's files, for `calendar_file`'s primary key: a date's
    /// slots share a prefix, its day task is one name; one-offs share a prefix. (Names compare as bytes;
    /// every byte after these prefixes is below 0x7F.)
    public static func nameRanges(_ bucket: String) -> [(from: String, to: String)] {
        if bucket == oneOffs {
            let prefix = CalendarFolderText.uidPrefix + "oneoff-"
            return [(prefix, prefix + "\u{7F}")]
        }
        if bucket == series {
            let prefix = CalendarFolderText.uidPrefix + "series-"
            return [(prefix, prefix + "\u{7F}")]
        }
        guard let date = LocalDate(iso: bucket) else { return [] }
        let slot = SlotIdentifier.format(LocalDateTime(date: date, hour: 0, minute: 0))
        let prefix = CalendarFolderText.uidPrefix + slot.dropLast(5)  // "…_YYYY_MM_DD_" without "HH_MM"
        let day = CalendarFolderText.fileName(CalendarFolderText.dayUID(date))
        return [(prefix, prefix + "\u{7F}"), (day, day + "\u{1}")]
    }
}

/// Everything the calendar folder's items are made from (`CalendarFolderText.items` over `planAhead`), read
/// once per pass without making any item: the bucket keys are digests of these, and the items of the
/// buckets that must be looked into are made from these same values (`CalendarPlanFacts.plannedDays`), so a
/// key cannot miss an input the items use.
public struct CalendarPlanFacts: Sendable {
    /// The stored settings, as `key=value` lines sorted by key (every setting: one that items do not use
    /// only makes a pass look once more).
    public var settingsText: String
    public var settings: PlanSettings
    public var zone: Zone
    public var now: Instant
    /// The pause in force or to come (`HotQueries.pause`).
    public var pause: Pause?
    /// The first open of each study day from today on.
    public var opens: [LocalDate: Instant]
    /// Skipped study days from today on.
    public var skipped: Set<LocalDate>
    public var oneOffs: [CalendarFolderText.OneOff]

    public init(
        settingsText: String, settings: PlanSettings, zone: Zone, now: Instant, pause: Pause?, opens: [LocalDate: Instant],
        skipped: Set<LocalDate>, oneOffs: [CalendarFolderText.OneOff]
    ) {
        self.settingsText = settingsText
        self.settings = settings
        self.zone = zone
        self.now = now
        self.pause = pause
        self.opens = opens
        self.skipped = skipped
        self.oneOffs = oneOffs
        schedule = settings.schedule
        today = settings.schedule.studyDay(at: now, in: zone)
        // One VTIMEZONE for every item, from the earliest date any item carries (as `items` always chose it).
        let firstDate = ([today] + oneOffs.map { zone.local($0.fireAt).date }).min() ?? today
        head = CalendarFolderText.SharedHead(CalendarFolderText.calendarHead(zone: zone, year: firstDate.year))
        // The only way time moves a bucket's items between two passes on one study day: a slot of today's
        // passes (planAhead keeps slots after now).
        nextReading = schedule.readings(on: today).lazy.compactMap { zone.instant(for: $0) }.first { $0 > now }
        var global = "\(CalendarFolderText.recipeVersion)\0\(head.key)\0\(zone.name)\0\(settingsText)\0"
        if let pause { global += "\(pause.since.milliseconds) \(pause.until.map { String($0.milliseconds) } ?? "-")" }
        // Measurement mode's seed decides which slots have no item: turned off and on again, the same
        // settings text with another seed.
        if let seed = settings.experimentSeed { global += "\0experiment \(seed)" }
        // Which later slots are which series' and which their date's own items (`SeriesOffsets`): the zone's
        // changes of offset after today, as far as the horizon reaches. They move when today passes one or
        // one comes within reach, and with them every bucket is looked into. Said even with none: a folder
        // written before the series (one item per slot) is looked into whole once.
        var offsets = CalendarFolderText.SeriesOffsets(today: today, zone: zone)
        let changes = offsets.changes(through: today.adding(days: max(settings.calendarDays, 0) + 2))
        global += "\0series \(changes.map(\.description).joined(separator: ","))"
        // The usual-time schedule's decision moves slots without any setting changing.
        if let usual = settings.schedule.usual {
            global += "\0usual \(usual.from) \(usual.decision.minutes.map { $0.map(String.init).joined(separator: ",") } ?? "grid")"
        }
        globalKey = String(SHA256.hex(Array(global.utf8)).prefix(32))
    }

    public let schedule: Schedule
    public let today: LocalDate
    let head: CalendarFolderText.SharedHead
    let nextReading: Instant?
    let globalKey: String

    /// Until when time alone leaves every bucket's key as it is (nothing else changing): today's next slot
    /// passes (`nextReading`), the pause begins or ends, or the next study day begins. Milliseconds.
    public var unchangedUntil: Int64 {
        var until = nextReading?.milliseconds ?? .max
        if let pause {
            if pause.since > now { until = min(until, pause.since.milliseconds) }
            if let end = pause.until, end > now { until = min(until, end.milliseconds) }
        }
        // The next study day's first instant (its start minute on its own date). Skipped by a clock change, no
        // later than that reading at the larger of the offsets around it (early is safe: the facts are made again).
        let start = schedule.dayStartMinute
        let tomorrow = LocalDateTime(date: today.adding(days: 1), hour: start / 60, minute: start % 60)
        let wall = tomorrow.epochMillisecondsAsIfUTC
        let largest = max(zone.offset(at: Instant(milliseconds: wall - 86_400_000)), zone.offset(at: Instant(milliseconds: wall + 86_400_000)))
        until = min(until, zone.instant(for: tomorrow)?.milliseconds ?? wall - Int64(largest) * 1000)
        return until
    }

    public var exclusions: Exclusions { Exclusions(openedDates: Set(opens.keys), skippedDates: skipped, pause: pause) }

    /// The study days of the horizon, today first (`planAhead`'s `days`).
    public var horizon: [LocalDate] { (0..<max(settings.calendarDays, 0)).map { today.adding(days: $0) } }

    /// The buckets the plan puts items in: each date a study day of the horizon can carry a slot on, and the
    /// one-offs'.
    public var wantedBuckets: [String] {
        var dates = horizon
        if schedule.crossesMidnight, let last = dates.last { dates.append(last.adding(days: 1)) }
        return dates.map(\.description) + [CalendarBucket.oneOffs, CalendarBucket.series]
    }

    /// The key of a bucket: what its items are made from, short: the digest of what every bucket shares, and
    /// its days' own facts (a digest only for one-offs, whose text is free). Equal keys, equal items. Plain
    /// text, not a digest: a pass computes one for every bucket of the horizon.
    public func key(bucket: String) -> String {
        var text = globalKey
        if bucket == CalendarBucket.oneOffs {
            var all = ""
            // Its local time too: the item's text says it, and a tz database change moves it (a rule change
            // beyond the calendar head's years would otherwise leave one-offs at the old time).
            for o in oneOffs {
                let local = zone.local(o.fireAt)
                let start = LocalDateTime(date: local.date, hour: local.hour, minute: local.minute, second: local.second)
                all += "\(o.identifier)\0\(o.fireAt.milliseconds)\0\(ICalendar.localStamp(start))\0\(o.title)\0\(o.body)\0"
            }
            text += " "
            text += String(SHA256.hex(Array(all.utf8)).prefix(32))
        } else if bucket == CalendarBucket.series {
            // The slots of every study day after today's (`CalendarFolderText.seriesItems`): from tomorrow on.
            text += " series \(today)"
            for day in horizon.dropFirst() {
                text += " "
                text += opens[day].map { String($0.milliseconds) } ?? "-"
                text += skipped.contains(day) ? " skipped" : " -"
            }
        } else if let date = LocalDate(iso: bucket) {
            // A date carries the slots of its own study day and, across midnight, of the day before.
            let last = today.adding(days: max(settings.calendarDays, 0) - 1)
            for day in schedule.crossesMidnight ? [date.adding(days: -1), date] : [date] {
                guard day >= today, day <= last else {
                    text += " out"
                    continue
                }
                text += " in "
                text += opens[day].map { String($0.milliseconds) } ?? "-"
                text += skipped.contains(day) ? " skipped" : " -"
                if day == today {
                    text += " next "
                    text += nextReading.map { String($0.milliseconds) } ?? "-"
                }
            }
        }
        return text
    }

    /// The items of `buckets` alone, as `CalendarFolderText.items` makes them for the whole horizon.
    public func items(of buckets: Set<String>) -> [CalendarFolderText.Item] {
        var studyDays: Set<LocalDate> = []
        for bucket in buckets {
            guard let date = LocalDate(iso: bucket) else { continue }
            studyDays.insert(date)
            if schedule.crossesMidnight { studyDays.insert(date.adding(days: -1)) }
        }
        if buckets.contains(CalendarBucket.series) { studyDays.formUnion(horizon.dropFirst()) }
        let last = today.adding(days: max(settings.calendarDays, 0) - 1)
        let days = studyDays.filter { $0 >= today && $0 <= last }.sorted().map {
            plannedDay($0, now: now, zone: zone, schedule: schedule, exclusions: exclusions, withholding: settings)
        }
        let all = CalendarFolderText.items(
            days: days, opens: opens, oneOffs: buckets.contains(CalendarBucket.oneOffs) ? oneOffs : [], zone: zone, settings: settings,
            shared: head, today: today)
        let dates = Set(buckets.compactMap { LocalDate(iso: $0) })
        let withOneOffs = buckets.contains(CalendarBucket.oneOffs)
        let withSeries = buckets.contains(CalendarBucket.series)
        return all.filter { $0.isSeries ? withSeries : $0.fileDate.map(dates.contains) ?? withOneOffs }
    }
}

/// A digest of a bucket's files as a folder child lists them (no link followed): each name with what it is,
/// its size, mtime, ctime and inode, in name order. Equal digests: no file of the bucket was added, removed,
/// renamed over, written or touched since (a write in place changes mtime and ctime; a rename, the inode).
public struct CalendarListingDigest {
    private var bytes: [UInt8] = []
    public private(set) var count = 0

    public init() {}

    public mutating func add(name: String, kind: UInt32, owner: UInt32, size: Int64, mtime: Int64, ctime: Int64, inode: UInt64) {
        bytes += name.utf8
        bytes.append(0)
        for value in [Int64(kind), Int64(owner), size, mtime, ctime, Int64(bitPattern: inode)] {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        count += 1
    }

    public var hex: String { count == 0 ? "" : String(SHA256.hex(bytes).prefix(32)) }
}
