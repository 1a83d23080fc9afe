/// One VTIMEZONE per zone, the same in every file of the calendar folder and on every computer: a client,
/// server or importer that keeps the first definition it meets for a TZID (python3-vobject does; so do some
/// servers) then reads every event at the right instant. Per-file definitions cut down to each file's date
/// made one TZID mean something different in every file, and such a client read events after a DST change an
/// hour off.
///
/// Where the zone's changes follow yearly rules (the usual case: "last Sunday of March at 02:00"), the
/// definition is those rules (RRULE) from 1970, valid for every year the rules hold and never rewritten.
/// Otherwise it lists the changes of the previous, this and the next year, which covers the folder's
/// horizon (at most 60 days) and changes once a year, when every file is rewritten with it.
public enum ZoneDefinition {
    /// The VTIMEZONE's lines for `zone`, as it is in `year` (the year of the folder's first day).
    public static func lines(_ zone: Zone, year: Int) -> [String] {
        let start = utcMidnight(LocalDate(year: year - 1, month: 1, day: 1))
        let end = utcMidnight(LocalDate(year: year + 2, month: 1, day: 1))
        let changes = changes(zone, from: start, through: end)
        let tzid = ICalendar.parameter(zone.name)
        if changes.isEmpty {
            let offset = ICalendar.offsetText(zone.offset(at: start))
            return [
                "BEGIN:VTIMEZONE", "TZID:\(tzid)", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                "TZOFFSETFROM:\(offset)", "TZOFFSETTO:\(offset)", "END:STANDARD", "END:VTIMEZONE",
            ]
        }
        if let rules = yearlyRules(changes, years: 3) {
            var lines = ["BEGIN:VTIMEZONE", "TZID:\(tzid)"]
            for rule in rules {
                let kind = rule.to > rule.from ? "DAYLIGHT" : "STANDARD"
                let byDay = "\(rule.ordinal)\(weekdayNames[rule.weekday - 1])"
                lines += [
                    "BEGIN:\(kind)", "DTSTART:\(ICalendar.localStamp(rule.first(inYear: 1970)))",
                    "TZOFFSETFROM:\(ICalendar.offsetText(rule.from))", "TZOFFSETTO:\(ICalendar.offsetText(rule.to))",
                    "RRULE:FREQ=YEARLY;BYMONTH=\(rule.month);BYDAY=\(byDay)", "END:\(kind)",
                ]
            }
            return lines + ["END:VTIMEZONE"]
        }
        return ICalendar.timeZone(zone, from: start, through: end)
    }

    static let weekdayNames = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// A yearly change: in `month`, the `ordinal`th (-1: last) `weekday` (ISO, 1 = Monday), at `wall` (the
    /// local time just before it, read with the old offset), from one offset to another.
    struct Rule: Equatable {
        var month: Int
        var weekday: Int
        var ordinal: Int
        var hour: Int, minute: Int, second: Int
        var from: Int, to: Int

        func first(inYear year: Int) -> LocalDateTime {
            let days = LocalDate.daysIn(month: month, year: year)
            let candidates = (1...days).map { LocalDate(year: year, month: month, day: $0) }.filter { $0.isoWeekday == weekday }
            let date = ordinal == -1 ? candidates[candidates.count - 1] : candidates[ordinal - 1]
            return LocalDateTime(date: date, hour: hour, minute: minute, second: second)
        }
    }

    /// The rules the changes follow, one per kind of change (from one offset to another), when each kind
    /// happens once in each of `years` years and one rule gives every one of them exactly; nil otherwise.
    static func yearlyRules(_ changes: [(at: Instant, from: Int, to: Int)], years: Int) -> [Rule]? {
        var groups: [(from: Int, to: Int, walls: [LocalDateTime])] = []
        for change in changes {
            let wall = LocalDateTime(epochMillisecondsAsIfUTC: change.at.milliseconds + Int64(change.from) * 1000)
            if let i = groups.firstIndex(where: { $0.from == change.from && $0.to == change.to }) {
                groups[i].walls.append(wall)
            } else {
                groups.append((change.from, change.to, [wall]))
            }
        }
        var rules: [Rule] = []
        for group in groups {
            guard group.walls.count == years, let first = group.walls.first else { return nil }
            let d = first.date
            // "The 4th Sunday" of one year is the last of another: the last when it is the last every year.
            let isLast = group.walls.allSatisfy { $0.date.day + 7 > LocalDate.daysIn(month: $0.date.month, year: $0.date.year) }
            let rule = Rule(
                month: d.month, weekday: d.isoWeekday, ordinal: isLast ? -1 : (d.day - 1) / 7 + 1,
                hour: first.hour, minute: first.minute, second: first.second, from: group.from, to: group.to)
            guard rule.ordinal <= 4, group.walls.allSatisfy({ rule.first(inYear: $0.date.year) == $0 }) else { return nil }
            rules.append(rule)
        }
        return rules.sorted { $0.month < $1.month }
    }

    /// Every change of UTC offset in `[from, through]`, looked for a fortnight at a time (one zone's changes
    /// are months apart) and narrowed to the second: about a hundred offset lookups a year.
    static func changes(_ zone: Zone, from: Instant, through: Instant) -> [(at: Instant, from: Int, to: Int)] {
        var changes: [(at: Instant, from: Int, to: Int)] = []
        let step: Int64 = 14 * 86_400
        var t = from.seconds
        var offset = zone.probedOffset(at: from)
        while t < through.seconds {
            let next = min(t + step, through.seconds)
            guard zone.probedOffset(at: Instant(seconds: next)) != offset else {
                t = next
                continue
            }
            var low = t
            var high = next  // the offset at low is `offset`, at high another
            while high - low > 1 {
                let mid = low + (high - low) / 2
                if zone.probedOffset(at: Instant(seconds: mid)) == offset { low = mid } else { high = mid }
            }
            let found = zone.probedOffset(at: Instant(seconds: high))
            changes.append((Instant(seconds: high), offset, found))
            offset = found
            t = high
        }
        return changes
    }

    static func utcMidnight(_ date: LocalDate) -> Instant {
        Instant(milliseconds: LocalDateTime(date: date, hour: 0, minute: 0).epochMillisecondsAsIfUTC)
    }
}
