/// When study slots fall: a daily window, a step, and the days of the week. The plan's default is
/// seed 002's: 09:30 through 21:30 every 30 minutes (25 a day), Monday to Friday.
public struct Schedule: Equatable, Sendable {
    /// Minutes after midnight of the first and last possible slot (both inclusive).
    public var startMinute: Int
    public var endMinute: Int
    public var intervalMinutes: Int
    public var days: Weekdays

    public init(startMinute: Int, endMinute: Int, intervalMinutes: Int, days: Weekdays) {
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.intervalMinutes = intervalMinutes
        self.days = days
    }

    /// The declared defaults of `window`, `interval` and `days` (`SettingKey.declaration`).
    public static var standard: Schedule { PlanSettings.standard.schedule }

    /// The wall-clock readings of the slots on `date` (none on a day not in `days`).
    public func readings(on date: LocalDate) -> [LocalDateTime] {
        guard days.contains(isoWeekday: date.isoWeekday) else { return [] }
        return stride(from: startMinute, through: endMinute, by: intervalMinutes).map {
            LocalDateTime(date: date, hour: $0 / 60, minute: $0 % 60)
        }
    }

    /// Whether `reading` is one of this schedule's slots.
    public func contains(_ reading: LocalDateTime) -> Bool {
        let minute = reading.hour * 60 + reading.minute
        return days.contains(isoWeekday: reading.date.isoWeekday) && reading.second == 0 && reading.millisecond == 0
            && minute >= startMinute && minute <= endMinute && (minute - startMinute) % intervalMinutes == 0
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
