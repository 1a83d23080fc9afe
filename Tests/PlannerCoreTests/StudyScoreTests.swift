import Foundation
import PlannerTestSupport
import Testing

@testable import PlannerCore

/// The forgiving study score (`StudyScore`) against Loop Habit Tracker's procedure written again here (its
/// 14-day rolling share over 2k for a habit of k days a week, `m = 0.5^(sqrt(k/7) / 13)` from `pow`) from the
/// generator's own skipped and paused dates, over random plans, skips, pauses and opens (fixed seeds).
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

    /// Loop's procedure written again from its description, sharing nothing with the planner's: the plan's
    /// days from the mask, the paused dates as the generator made them (whole days from midnight).
    static func loop(
        first: LocalDate, today: LocalDate, mask: UInt8, skipped: Set<LocalDate>, paused: Set<LocalDate>, opened: Set<LocalDate>
    ) -> Double {
        let k = (0..<7).filter { mask & (1 << UInt8($0)) != 0 }.count
        let m = pow(0.5, (Double(k) / 7).squareRoot() / 13)
        var score = 0.0
        var counted: [LocalDate] = []  // the days not skipped nor paused, in order
        for n in 0...Int(today.dayNumber - first.dayNumber) {
            let d = first.adding(days: n)
            if d == today && !opened.contains(d) { break }
            if skipped.contains(d) || paused.contains(d) { continue }
            counted.append(d)
            let fortnight = counted.suffix(14).filter { opened.contains($0) }.count
            score = score * m + min(1, Double(fortnight) / Double(2 * k)) * (1 - m)
        }
        return score
    }

    @Test(arguments: 1...40) func theScoreIsLoopsFormulaOverRandomHistories(seed: Int) {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9)
        let zone = Zone.utc
        let first = LocalDate(year: 2026, month: 1, day: 1).adding(days: g.below(30))
        let today = first.adding(days: g.below(400))
        let mask = UInt8(1 + g.below(127))
        let schedule = Schedule(startMinute: 570, endMinute: 1290, intervalMinutes: 30, days: Weekdays(mask: mask))
        var skipped: Set<LocalDate> = []
        var paused: Set<LocalDate> = []
        var opened: Set<LocalDate> = []
        var days: [LocalDate: RecordedDay] = [:]
        var pauses: [Pause] = []
        let openRate = g.below(101)
        var d = first
        while d <= today {
            if g.below(100) < 5 { skipped.insert(d) }
            if g.below(100) < openRate {
                let at = zone.instant(for: LocalDateTime(date: d, hour: 8 + g.below(14), minute: g.below(60)))!
                days[d] = RecordedDay(firstOpen: at, firstOpenOrigin: "open")
                opened.insert(d)
            }
            if g.below(100) < 2, !paused.contains(d) {
                let length = 1 + g.below(5)
                let since = zone.instant(for: LocalDateTime(date: d, hour: 0, minute: 0))!
                pauses.append(Pause(since: since, until: Instant(milliseconds: since.milliseconds + Int64(length) * 86_400_000)))
                for i in 0..<length { paused.insert(d.adding(days: i)) }
            }
            d = d.adding(days: 1)
        }
        let input = RecordInput(schedule: schedule, zone: zone, firstDate: first, skippedDates: skipped, pauses: pauses, days: days)
        let record = studyRecord(from: today, through: today, today: today, input: input)
        let expected = Self.loop(first: first, today: today, mask: mask, skipped: skipped, paused: paused, opened: opened)
        #expect(abs(record.score - expected) < 1e-9, "seed \(seed): \(record.score) against \(expected)")
        #expect((0...1).contains(record.score))
    }

    /// A perfect Monday-to-Friday student keeps climbing over the weekend (a week's five opens are the whole
    /// share); a skipped day leaves the score as it was; one day missed costs a few points, not the habit.
    @Test func daysOffLeaveItAndAMissedDayLowersItALittle() {
        let zone = Zone.utc
        let monday = LocalDate(year: 2026, month: 11, day: 2)
        var days: [LocalDate: RecordedDay] = [:]
        for i in 0..<28 where monday.adding(days: i).isoWeekday <= 5 {
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
        // Today counts once opened: Saturday (never opened) counts on Sunday.
        #expect(score(today: monday.adding(days: 20)) > score(today: monday.adding(days: 19)))
        let skippedMonday = monday.adding(days: 21)
        #expect(score(skipping: [skippedMonday], today: skippedMonday) == score(missing: skippedMonday, today: skippedMonday))
        let friday = monday.adding(days: 25)
        let missed = score(missing: monday.adding(days: 22), today: friday)
        #expect(missed < score(today: friday) && score(today: friday) - missed < 0.05)
    }
}
