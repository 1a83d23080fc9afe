import Foundation
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerCore

/// The series (`CalendarFolderText.seriesItems`): every reminder of the plan is in the folder exactly once,
/// as an item of its own or an occurrence of its time's series, at its instant. The occurrences are
/// expanded from the items' text as the least careful client here does it (python3-vobject with pytz: each
/// at its DTSTART's offset), so a series that crossed a change of offset would fail.
/// CI runs the fixed seeds; for many more: `PLANNER_SERIES_SEEDS=2000 swift test --filter CalendarSeriesTests`.
@Suite struct CalendarSeriesTests {
    /// A zone with yearly rules, one without any, one whose changes follow no rule, one south.
    static let zones = ["Europe/Berlin", "Asia/Seoul", "Africa/Casablanca", "Australia/Sydney", "America/Santiago"]

    @Test func everyReminderIsInTheFolderOnceAtItsInstant() throws {
        let seeds = ProcessInfo.processInfo.environment["PLANNER_SERIES_SEEDS"].flatMap { Int($0) } ?? 150
        let zones = try Self.zones.map { try SystemZone.named($0) }
        var sawSeriesWithExceptions = false
        var sawItemNearAChange = false
        var sawSeveralOffsets = false
        for seed in 0..<seeds {
            var random = SeededGenerator(seed: UInt64(seed))
            var zone = random.pick(zones)
            var settings = PlanSettings()
            settings.calendarDays = 1 + random.below(60)
            settings.schedule.startMinute = random.pick([570, 480, 1200, 1380])
            settings.schedule.endMinute = random.pick([1290, 60, 720, 1410])
            settings.schedule.intervalMinutes = random.pick([30, 45, 60, 90])
            settings.schedule.days = random.pick([.weekdays, .daily, .weekends, Weekdays([1, 3])])
            if random.below(4) == 0 { settings.experimentSeed = "seed-\(seed)" }
            // Any day of 2026-2027 at any minute: every change of these zones is met.
            var now = Instant(milliseconds: 1_767_225_600_000 + Int64(random.below(730 * 1440)) * 60_000)
            if seed % 7 == 0 {
                // Casablanca's Ramadan: a change and one back within the horizon (7 February to 14 March 2027).
                zone = zones[2]
                settings.calendarDays = 60
                now = Instant(milliseconds: 1_800_000_000_000 + Int64(random.below(20 * 1440)) * 60_000)
            }
            let today = settings.schedule.studyDay(at: now, in: zone)
            var exclusions = Exclusions()
            for _ in 0..<random.below(6) { exclusions.skippedDates.insert(today.adding(days: random.below(settings.calendarDays + 1))) }
            if random.below(3) == 0 { exclusions.openedDates.insert(today) }
            if random.below(5) == 0 {
                let since = now.milliseconds + Int64(random.below(20 * 1440)) * 60_000
                exclusions.pause = Pause(
                    since: Instant(milliseconds: since), until: Instant(milliseconds: since + Int64(random.below(10 * 1440)) * 60_000))
            }
            let days = planAhead(
                now: now, zone: zone, schedule: settings.schedule, exclusions: exclusions, days: settings.calendarDays, withholding: settings)
            let items = CalendarFolderText.items(days: days, opens: [:], oneOffs: [], zone: zone, settings: settings)
            let planned = days.flatMap(\.slots).map(\.fireAt.milliseconds).sorted()
            var found: [Int64] = []
            for item in items where !item.isTask {
                let text = String(decoding: item.bytes(), as: UTF8.self)
                let occurrences = try #require(Self.occurrences(text, zone: zone), "seed \(seed): \(item.fileName)")
                found += occurrences
                if item.isSeries, text.contains("EXDATE") { sawSeriesWithExceptions = true }
                if !item.isSeries, let first = occurrences.first, first > now.milliseconds + 86_400_000 * 2 { sawItemNearAChange = true }
                // Today's are items of their own.
                if item.isSeries { #expect(occurrences.allSatisfy { zone.local(Instant(milliseconds: $0)).date > today }, "seed \(seed)") }
            }
            #expect(found.sorted() == planned, "seed \(seed): \(zone.name) now \(now.milliseconds), \(found.count) found, \(planned.count) planned")
            // One series per time of day and per offset the horizon sees (changes counted at each date's 12:00 UTC).
            let offsets = Set(
                (0...settings.calendarDays + 2).map { zone.offset(at: Instant(milliseconds: now.milliseconds + Int64($0) * 86_400_000)) })
            let changes = (1...settings.calendarDays + 2).filter {
                zone.offset(at: Instant(milliseconds: now.milliseconds + Int64($0) * 86_400_000))
                    != zone.offset(at: Instant(milliseconds: now.milliseconds + Int64($0 - 1) * 86_400_000))
            }.count
            #expect(items.filter(\.isSeries).count <= (1440 / settings.schedule.intervalMinutes + 1) * (1 + changes), "seed \(seed)")
            if changes > 0 && offsets.count > 1 && settings.calendarDays > 20 { sawSeveralOffsets = true }
        }
        #expect(sawSeriesWithExceptions && sawItemNearAChange && sawSeveralOffsets)
    }

    /// A pass makes the items of the buckets it looks into alone (`CalendarPlanFacts.items(of:)`): the same
    /// items as the whole horizon's, whichever buckets are asked for together (a later date's slot near a
    /// clock change is its date's item, never a series', whether or not the series is asked for).
    @Test func theItemsOfSomeBucketsAreTheWholePlansItemsOfThem() throws {
        let zones = try Self.zones.map { try SystemZone.named($0) }
        for seed in 0..<60 {
            var random = SeededGenerator(seed: UInt64(1000 + seed))
            var settings = PlanSettings()
            settings.calendarDays = 1 + random.below(60)
            settings.schedule.startMinute = random.pick([570, 1380])
            settings.schedule.endMinute = random.pick([1290, 60])
            settings.schedule.days = random.pick([.weekdays, .daily])
            let zone = random.pick(zones)
            let now = Instant(milliseconds: 1_767_225_600_000 + Int64(random.below(730 * 1440)) * 60_000)
            let today = settings.schedule.studyDay(at: now, in: zone)
            let skipped: Set<LocalDate> = [today.adding(days: random.below(settings.calendarDays + 1))]
            let facts = CalendarPlanFacts(
                settingsText: "", settings: settings, zone: zone, now: now, pause: nil, opens: [:], skipped: skipped, oneOffs: [])
            let buckets = facts.wantedBuckets
            let all = facts.items(of: Set(buckets))
            #expect(all.allSatisfy { buckets.contains($0.bucket) }, "seed \(seed)")
            for _ in 0..<5 {
                let some = Set((0..<(1 + random.below(3))).map { _ in random.pick(buckets) })
                #expect(facts.items(of: some) == all.filter { some.contains($0.bucket) }, "seed \(seed): \(some.sorted())")
            }
        }
    }

    /// The instants an event's text says: its DTSTART alone, or each day from it to its rule's UNTIL that no
    /// EXDATE names, each at DTSTART's offset, and an EXDATE matched by its instant in the zone (what pytz
    /// makes of each). nil when a line is not as the planner writes it.
    static func occurrences(_ text: String, zone: Zone) -> [Int64]? {
        // Unfolded, on the bytes (a String's "\r\n" is one character).
        var bytes: [UInt8] = []
        let raw = Array(text.utf8)
        var i = 0
        while i < raw.count {
            if raw[i] == 13, i + 2 < raw.count, raw[i + 1] == 10, raw[i + 2] == 32 {
                i += 3
                continue
            }
            if raw[i] != 13 { bytes.append(raw[i]) }
            i += 1
        }
        // The event's own lines (the VTIMEZONE has RRULEs and DTSTARTs too).
        let lines = bytes.split(separator: 10).map { String(decoding: $0, as: UTF8.self) }.drop { $0 != "BEGIN:VEVENT" }
        func value(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } }
        func local(_ stamp: Substring) -> LocalDateTime? {
            let d = Array(stamp.utf8)
            guard d.count == 15, d[8] == UInt8(ascii: "T") else { return nil }
            func n(_ r: Range<Int>) -> Int { Int(String(decoding: d[r], as: UTF8.self))! }
            return LocalDateTime(
                date: LocalDate(year: n(0..<4), month: n(4..<6), day: n(6..<8)), hour: n(9..<11), minute: n(11..<13), second: n(13..<15))
        }
        guard let start = value("DTSTART;TZID=\(zone.name):").flatMap({ local($0[...]) }), let first = zone.instant(for: start) else { return nil }
        let offset = Int64(start.epochMillisecondsAsIfUTC - first.milliseconds)
        guard let rule = value("RRULE:") else { return [first.milliseconds] }
        guard rule.hasPrefix("FREQ=DAILY;UNTIL="), rule.hasSuffix("Z"), let until = local(rule.dropFirst(17).dropLast()) else { return nil }
        let exceptions = Set(
            (value("EXDATE;TZID=\(zone.name):")?.split(separator: ",") ?? []).compactMap { local($0).flatMap(zone.instant(for:))?.milliseconds })
        var all: [Int64] = []
        var at = start
        while true {
            let instant = at.epochMillisecondsAsIfUTC - offset
            if instant > until.epochMillisecondsAsIfUTC { break }
            if !exceptions.contains(instant) { all.append(instant) }
            at = LocalDateTime(date: at.date.adding(days: 1), hour: at.hour, minute: at.minute, second: at.second)
        }
        return all
    }
}
