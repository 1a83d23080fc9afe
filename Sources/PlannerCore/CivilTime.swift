/// An instant on the UTC time line, in milliseconds since the Unix epoch.
/// Milliseconds because `--now` accepts fractions and the ticker measures lateness.
public struct Instant: Hashable, Comparable, Sendable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) {
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        self.milliseconds = overflow ? (seconds < 0 ? .min : .max) : ms
    }

    /// Whole seconds, rounded toward the past (so -0.5 s is -1 s).
    public var seconds: Int64 { floorDiv(milliseconds, 1000) }

    public static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }
    // Saturating: an instant read from a hostile file or a huge duration must not trap (a crash with a
    // stack trace); Int64's ends lie 292 million years away, far outside any year the planner accepts.
    public static func + (a: Instant, ms: Int64) -> Instant { Instant(milliseconds: saturatingAdd(a.milliseconds, ms)) }
    public static func - (a: Instant, ms: Int64) -> Instant { Instant(milliseconds: saturatingSubtract(a.milliseconds, ms)) }
    public static func - (a: Instant, b: Instant) -> Int64 { saturatingSubtract(a.milliseconds, b.milliseconds) }
}

/// A calendar date without a zone (proleptic Gregorian).
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    public var dayNumber: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The inverse of `dayNumber` (`civil_from_days`).
    public init(dayNumber z0: Int64) {
        let z = z0 + 719468
        let era = floorDiv(z, 146097)
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), month: Int(m), day: Int(d))
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday. 1970-01-01 was a Thursday.
    public var isoWeekday: Int { Int(floorMod(dayNumber + 3, 7)) + 1 }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + Int64(days)) }

    public var isValid: Bool {
        month >= 1 && month <= 12 && day >= 1 && day <= LocalDate.daysIn(month: month, year: year)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `2026-11-23`
    public var description: String {
        guard (0...9999).contains(year) else { return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }
        // Written as bytes: every insert of a request and every read of a day formats one.
        return String(unsafeUninitializedCapacity: 10) { buffer in writeISO(into: buffer, at: 0) }
    }

    /// `YYYY-MM-DD` at `buffer[at...]` (a year of 0-9999); the index after it.
    func writeISO(into buffer: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        var i = writeDigits(buffer, at, year, 4)
        buffer[i] = UInt8(ascii: "-")
        i = writeDigits(buffer, i + 1, month, 2)
        buffer[i] = UInt8(ascii: "-")
        return writeDigits(buffer, i + 1, day, 2)
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Parses `YYYY-MM-DD` (as stored in the database); nil for anything else.
    /// Byte by byte: it runs for every pending row on every command.
    public init?(iso text: String) {
        let parsed = text.utf8.withContiguousStorageIfAvailable(LocalDate.parseISO) ?? LocalDate.parseISO(Array(text.utf8))
        guard let parsed, parsed.isValid else { return nil }
        self = parsed
    }

    private static func parseISO<Bytes: RandomAccessCollection<UInt8>>(_ b: Bytes) -> LocalDate? where Bytes.Index == Int {
        guard b.count == 10, b[b.startIndex + 4] == UInt8(ascii: "-"), b[b.startIndex + 7] == UInt8(ascii: "-") else { return nil }
        func number(_ from: Int, _ to: Int) -> Int? {
            var value = 0
            for i in from..<to {
                let c = b[b.startIndex + i]
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(c - UInt8(ascii: "0"))
            }
            return value
        }
        guard let y = number(0, 4), let m = number(5, 7), let d = number(8, 10) else { return nil }
        return LocalDate(year: y, month: m, day: d)
    }
}

/// A wall-clock reading: what a clock on the wall in some zone shows.
public struct LocalDateTime: Hashable, Comparable, Sendable {
    public var date: LocalDate
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    public init(date: LocalDate, hour: Int, minute: Int, second: Int = 0, millisecond: Int = 0) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// This reading taken as if it were UTC, in milliseconds since the epoch.
    public var epochMillisecondsAsIfUTC: Int64 {
        ((date.dayNumber * 86400 + Int64(hour * 3600 + minute * 60 + second)) * 1000) + Int64(millisecond)
    }

    public init(epochMillisecondsAsIfUTC ms: Int64) {
        let days = floorDiv(ms, 86_400_000)
        let rest = floorMod(ms, 86_400_000)
        self.init(
            date: LocalDate(dayNumber: days),
            hour: Int(rest / 3_600_000),
            minute: Int(rest / 60_000 % 60),
            second: Int(rest / 1000 % 60),
            millisecond: Int(rest % 1000)
        )
    }

    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool {
        a.epochMillisecondsAsIfUTC < b.epochMillisecondsAsIfUTC
    }
}

@inlinable func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

// Not `a - floorDiv(a, b) * b`: that overflows (traps) for a near Int64.min.
@inlinable func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
    let r = a % b
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r
}

/// `value` (0 or more, at most `width` digits) zero-padded to `width` digits at `buffer[at...]`; the index after.
@inline(__always)
func writeDigits(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ at: Int, _ value: Int, _ width: Int) -> Int {
    var rest = value
    for i in stride(from: at + width - 1, through: at, by: -1) {
        buffer[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
    }
    return at + width
}

/// Zero-padded decimal, e.g. pad(7, 2) == "07". Negative numbers keep their sign.
public func pad(_ value: Int, _ width: Int) -> String {
    // Fast path, written straight into a small string: a year's plan formats tens of thousands of these.
    if value >= 0 && value < 100_000_000 && width <= 8 {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        count = max(count, width)
        return String(unsafeUninitializedCapacity: count) { buffer in
            var v = value
            for i in stride(from: count - 1, through: 0, by: -1) {
                buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
            }
            return count
        }
    }
    let digits = String(value < 0 ? -value : value)
    let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    return value < 0 ? "-" + padded : padded
}

@inlinable func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? .max : .min) : sum
}

@inlinable func saturatingSubtract(_ a: Int64, _ b: Int64) -> Int64 {
    let (difference, overflow) = a.subtractingReportingOverflow(b)
    return overflow ? (b < 0 ? .max : .min) : difference
}
