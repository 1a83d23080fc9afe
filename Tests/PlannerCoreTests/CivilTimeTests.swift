import Foundation
import Testing

@testable import PlannerCore

@Suite struct CivilTimeTests {
    @Test func dayNumbersOfKnownDates() {
        // Values from `date -u -d 2000-03-01 +%s` / 86400 and friends.
        #expect(LocalDate(year: 1970, month: 1, day: 1).dayNumber == 0)
        #expect(LocalDate(year: 2000, month: 3, day: 1).dayNumber == 11017)
        #expect(LocalDate(year: 2026, month: 11, day: 23).dayNumber == 20780)  // date -u -d 2026-11-23 +%s = 1795392000
        #expect(LocalDate(year: 1969, month: 12, day: 31).dayNumber == -1)
    }

    @Test func dayNumberRoundTripsAndWeekdaysCycle() {
        var previous = LocalDate(dayNumber: -800_000).isoWeekday
        for n in stride(from: Int64(-799_999), through: 800_000, by: 1) {
            let date = LocalDate(dayNumber: n)
            #expect(date.isValid)
            #expect(date.dayNumber == n)
            let weekday = date.isoWeekday
            #expect(weekday == previous % 7 + 1)
            previous = weekday
            if n % 100_000 == 0 { #expect(LocalDate(iso: date.description) == date || date.year < 0) }
        }
    }

    @Test func knownWeekdays() {
        #expect(LocalDate(year: 2026, month: 11, day: 23).isoWeekday == 1)  // Monday
        #expect(LocalDate(year: 2026, month: 11, day: 21).isoWeekday == 6)  // Saturday
        #expect(LocalDate(year: 2024, month: 2, day: 29).isoWeekday == 4)  // Thursday
    }

    @Test func leapYears() {
        #expect(LocalDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!LocalDate(year: 2026, month: 2, day: 29).isValid)
        #expect(!LocalDate(year: 1900, month: 2, day: 29).isValid)
        #expect(LocalDate(year: 2000, month: 2, day: 29).isValid)
    }

    @Test func parsesStoredDatesStrictly() {
        #expect(LocalDate(iso: "2026-11-23") == LocalDate(year: 2026, month: 11, day: 23))
        for bad in ["2026-11-31", "2026-1-23", "26-11-23", "2026/11/23", "", "2026-11-23x"] {
            #expect(LocalDate(iso: bad) == nil, "\(bad)")
        }
    }

    @Test func durations() {
        #expect(describeDuration(milliseconds: 45_000) == "45s")
        #expect(describeDuration(milliseconds: 29 * 60_000) == "29m")
        #expect(describeDuration(milliseconds: 2 * 3_600_000 + 5 * 60_000) == "2h 05m")
        #expect(describeDuration(milliseconds: 42 * 3_600_000) == "1d 18h")
        #expect(parseDuration("90s") == 90_000)
        #expect(parseDuration("15m") == 900_000)
        #expect(parseDuration("2h") == 7_200_000)
        for bad in ["", "m", "15", "15x", "-5m", "1.5h", "15 m"] { #expect(parseDuration(bad) == nil, "\(bad)") }
    }

    /// `pad` against the C library's `%0*ld`, on both sides of its fast path's limits.
    @Test func padMatchesPrintf() {
        for value in [0, 1, 7, 9, 10, 59, 99, 100, 999, 2026, 9999, 10_000, 99_999_999, 100_000_000, 123_456_789_012, -1, -7, -2026] {
            for width in [0, 1, 2, 3, 4, 8, 9, 12] {
                // The width counts digits: a negative number's sign comes on top.
                let expected = value < 0 ? "-" + String(format: "%0*ld", width, -value) : String(format: "%0*ld", width, value)
                #expect(pad(value, width) == expected, "pad(\(value), \(width))")
            }
        }
    }
}
