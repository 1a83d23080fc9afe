import Foundation
import PlannerTestSupport
import Testing

@testable import PlannerCore

/// The forgiving study score (`StudyScore`) against an independent implementation of Loop Habit Tracker's
/// formula: not the recursion but its closed form, `S = sum over counted days i of v_i (1 - m) m^(n - i)`, with
/// `m = 0.5^(sqrt(f) / 13)` from `pow`, over random plans, skips, pauses and opens (fixed seeds).
@Suite struct StudyScoreTests {
    @Test func theMultipliersAreLoopsFormula() {
        for k in 1...7 {
            let m = pow(0.5, (Double(k) / 7).squareRoot() / 13)
            #expect(abs(StudyScore.multiplier(studyDaysPerWeek: k) - m) < 1e-15, "\(k) study days a week")
        }
        // Monday to Friday: half of the score goes after 15.4 study days without an open.
        let m = StudyScore.multiplier(studyDaysPerWeek: 5)
        #expect(abs(log(0.5) / log(m) - 15.3818) < 0.001)
    }

    /// The closed form over the days the record counts: study days up to yesterday, and today once opened.
    static func closedForm(_ input: RecordInput, today: LocalDate) -> Double {
        guard var d = input.firstDate else { return 0 }
        let k = (1...7).filter { input.schedule.days.contains(isoWeekday: $0) }.count
        let m = k == 0 ? 1 : pow(0.5, (Double(k) / 7).squareRoot() / 13)
        var values: [Double] = []
        while d <= today {
            let opened = input.days[d]?.firstOpen != nil
            if input.isStudyDay(d), d < today || opened { values.append(opened ? 1 : 0) }
            d = d.adding(days: 1)
        }
        let n = values.count
        return values.enumerated().reduce(0) { $0 + $1.element * (1 - m) * pow(m, Double(n - 1 - $1.offset)) }
    }

    @Test(arguments: 1...40) func theScoreIsLoopsFormulaOverRandomHistories(seed: Int) {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9)
        let zone = Zone.utc
        let first = LocalDate(year: 2026, month: 1, day: 1).adding(days: g.below(30))
        let today = first.adding(days: g.below(400))
        let schedule = Schedule(startMinute: 570, endMinute: 1290, intervalMinutes: 30, days: Weekdays(mask: UInt8(1 + g.below(127))))
        var skipped: Set<LocalDate> = []
        var days: [LocalDate: RecordedDay] = [:]
        var pauses: [Pause] = []
        let openRate = g.below(101)
        var d = first
        while d <= today {
            if g.below(100) < 5 { skipped.insert(d) }
            if g.below(100) < openRate {
                let at = zone.instant(for: LocalDateTime(date: d, hour: 8 + g.below(14), minute: g.below(60)))!
                days[d] = RecordedDay(firstOpen: at, firstOpenOrigin: "open")
            }
            if g.below(100) < 2 {
                let since = zone.instant(for: LocalDateTime(date: d, hour: 0, minute: 0))!
                pauses.append(Pause(since: since, until: Instant(milliseconds: since.milliseconds + Int64(1 + g.below(5)) * 86_400_000)))
            }
            d = d.adding(days: 1)
        }
        let input = RecordInput(schedule: schedule, zone: zone, firstDate: first, skippedDates: skipped, pauses: pauses, days: days)
        let record = studyRecord(from: today, through: today, today: today, input: input)
        let expected = Self.closedForm(input, today: today)
        #expect(abs(record.score - expected) < 1e-9, "seed \(seed): \(record.score) against \(expected)")
        #expect((0...1).contains(record.score))
    }

    /// A skipped day, a paused one and a day that is not a study day leave the score as it was; a day not
    /// opened lowers it by a few points where it breaks a streak.
    @Test func daysOffLeaveItAndAMissedDayLowersItALittle() {
        let zone = Zone.utc
        let monday = LocalDate(year: 2026, month: 11, day: 2)
        var days: [LocalDate: RecordedDay] = [:]
        for i in 0..<28 {
            let d = monday.adding(days: i)
            days[d] = RecordedDay(firstOpen: zone.instant(for: LocalDateTime(date: d, hour: 10, minute: 0))!)
        }
        let schedule = Schedule(startMinute: 570, endMinute: 1290, intervalMinutes: 30, days: .weekdays)
        func score(skipping: Set<LocalDate> = [], missing: LocalDate? = nil, today: LocalDate) -> Double {
            var d = days
            if let missing { d[missing] = nil }
            let input = RecordInput(schedule: schedule, zone: zone, firstDate: monday, skippedDates: skipping, days: d)
            return studyRecord(from: today, through: today, today: today, input: input).score
        }
        let friday = monday.adding(days: 25)
        let plain = score(today: friday)
        // The weekend before (not a study day) and a skip change nothing but the count of days behind.
        let saturday = monday.adding(days: 19)
        #expect(score(today: saturday) == score(today: monday.adding(days: 18)))
        let skippedMonday = monday.adding(days: 21)
        #expect(score(skipping: [skippedMonday], missing: skippedMonday, today: skippedMonday) == score(today: monday.adding(days: 18)))
        // One day missed: the streak restarts, the score loses less than a tenth.
        let missed = score(missing: monday.adding(days: 22), today: friday)
        #expect(missed < plain && plain - missed < 0.1)
    }
}
