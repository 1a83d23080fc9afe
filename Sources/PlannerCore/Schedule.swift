/// When study slots fall: a daily window, a step, and the days of the week. The plan's default is
/// seed 002's: 09:30 through 21:30 every 30 minutes (25 a day), Monday to Friday.
public struct Schedule: Equatable, Sendable {
    /// Minutes after midnight of the first and last possible slot (both inclusive). An end before the
    /// start is on the next date: `20:00-01:30` runs from 20:00 into 01:30 of the day after.
    public var startMinute: Int
    public var endMinute: Int
    public var intervalMinutes: Int
    public var days: Weekdays
    /// The `usual-time` schedule's decision (`UsualTime`), from its study day on; nil: the grid.
    public var usual: UsualTimePlan?

    public init(startMinute: Int, endMinute: Int, intervalMinutes: Int, days: Weekdays) {
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.intervalMinutes = intervalMinutes
        self.days = days
    }

    /// The declared defaults of `window`, `interval` and `days` (`SettingKey.declaration`).
    public static var standard: Schedule { PlanSettings.standard.schedule }

    /// The usual-time schedule's minutes for the study day `date` (from its midnight), or nil: the grid's.
    func usualMinutes(on date: LocalDate) -> [Int]? {
        guard let usual, date >= usual.from else { return nil }
        return usual.decision.minutes
    }

    /// Whether the window runs past midnight into the next date (`20:00-01:30`).
    public var crossesMidnight: Bool { endMinute < startMinute }

    /// The last slot's minute counted from the study day's own midnight (past 1440 when it crosses).
    var lastMinute: Int { crossesMidnight ? endMinute + 1440 : endMinute }

    /// The wall-clock readings of the slots of the study day `date` (none on a day not in `days`); when the
    /// window crosses midnight, those after it fall on the next date.
    public func readings(on date: LocalDate) -> [LocalDateTime] {
        guard days.contains(isoWeekday: date.isoWeekday) else { return [] }
        let next = date.adding(days: 1)
        if let chosen = usualMinutes(on: date) {
            return chosen.map { LocalDateTime(date: $0 >= 1440 ? next : date, hour: $0 % 1440 / 60, minute: $0 % 60) }
        }
        return stride(from: startMinute, through: lastMinute, by: intervalMinutes).map {
            LocalDateTime(date: $0 >= 1440 ? next : date, hour: $0 % 1440 / 60, minute: $0 % 60)
        }
    }

    /// The study day a wall-clock reading belongs to: the one rule every command uses (open, study, skip,
    /// stats, plan, export, the record, the requests' and opens' `local_date`). Anki's "next day starts at",
    /// made explicit: a study day runs from midnight to midnight, unless the window crosses midnight;
    /// then it ends when its next reminder would have come after the window's end (its end plus one
    /// interval, at the latest the next start), so "Start studying" on its last reminder still counts for it.
    /// With `20:00-01:30` every 30m, Monday's study day runs from Monday 02:00 to Tuesday 02:00.
    public func studyDay(of reading: LocalDateTime) -> LocalDate {
        guard crossesMidnight else { return reading.date }
        let time = ((reading.hour * 60 + reading.minute) * 60 + reading.second) * 1000 + reading.millisecond
        return time < dayStartMinute * 60_000 ? reading.date.adding(days: -1) : reading.date
    }

    /// The minute after midnight at which a study day begins on its own date: 0, or when the window
    /// crosses midnight, the previous day's end plus one interval (at the latest its own start).
    public var dayStartMinute: Int { crossesMidnight ? min(endMinute + intervalMinutes, startMinute) : 0 }

    /// The study day of an instant, read in `zone`.
    public func studyDay(at instant: Instant, in zone: Zone) -> LocalDate { studyDay(of: zone.local(instant)) }

    /// Whether `reading` is one of this schedule's slots.
    public func contains(_ reading: LocalDateTime) -> Bool {
        let day = studyDay(of: reading)
        let minute = reading.hour * 60 + reading.minute + (day == reading.date ? 0 : 1440)
        if let usual, day < usual.from {
            // A study day before the decision's (yesterday's last call still within its grace at midnight):
            // what was planned for it then stands; refill only keeps or misses it.
            return days.contains(isoWeekday: day.isoWeekday) && reading.second == 0 && reading.millisecond == 0
        }
        if let chosen = usualMinutes(on: day) {
            return days.contains(isoWeekday: day.isoWeekday) && reading.second == 0 && reading.millisecond == 0 && chosen.contains(minute)
        }
        return days.contains(isoWeekday: day.isoWeekday) && reading.second == 0 && reading.millisecond == 0
            && minute >= startMinute && minute <= lastMinute && (minute - startMinute) % intervalMinutes == 0
    }
}

/// A set of ISO weekdays (1 = Monday … 7 = Sunday).
public struct Weekdays: Equatable, Hashable, Sendable {
    public var mask: UInt8

    public init(mask: UInt8) { self.mask = mask & 0x7F }
    public init(_ isoWeekdays: [Int]) {
        mask = isoWeekdays.reduce(0) { $0 | (1 << UInt8($1 - 1)) }
    }

    public static let weekdays = Weekdays([1, 2, 3, 4, 5])
    public static let weekends = Weekdays([6, 7])
    public static let daily = Weekdays([1, 2, 3, 4, 5, 6, 7])

    public func contains(isoWeekday: Int) -> Bool { (1...7).contains(isoWeekday) && mask & (1 << UInt8(isoWeekday - 1)) != 0 }
    public var isEmpty: Bool { mask == 0 }

    public static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
}
