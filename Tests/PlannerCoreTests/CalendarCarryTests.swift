import PlannerCore
import Testing

/// When a live ticker asks the server for the phone's changes (issue 30): only while the study day is not
/// yet opened and its window is near or open, once a minute, five minutes after a failure.
@Suite struct CalendarCarryTests {
    let t = Instant(milliseconds: 1_800_000_000_000)
    let minute: Int64 = 60_000

    @Test func nothingToAskForWhenTheDayIsOpenedSkippedOrOver() {
        #expect(CalendarCarry.nextPoll(firstReminder: nil, lastEnd: nil, failed: false, now: t) == nil)
        #expect(CalendarCarry.nextPoll(firstReminder: nil, lastEnd: t - minute, failed: false, now: t) == nil)
    }

    @Test func asksTwoMinutesBeforeTheWindowOpensThenOnceAMinute() {
        let first = t + 90 * minute
        #expect(CalendarCarry.nextPoll(firstReminder: first, lastEnd: nil, failed: false, now: t) == first - 2 * minute)
        // Inside the window: at once, then a minute after the last run ended.
        #expect(CalendarCarry.nextPoll(firstReminder: t - minute, lastEnd: nil, failed: false, now: t) == t)
        #expect(CalendarCarry.nextPoll(firstReminder: t - 30 * minute, lastEnd: t - 10_000, failed: false, now: t) == t + 50_000)
    }

    @Test func waitsFiveMinutesAfterAFailureFromItsEnd() {
        #expect(CalendarCarry.nextPoll(firstReminder: t - 30 * minute, lastEnd: t, failed: true, now: t) == t + 5 * minute)
        // A run stopped at the ticker's limit (it hung): the pause still follows it.
        #expect(CalendarCarry.runLimitMilliseconds > CalendarCarry.afterFailureMilliseconds)
    }

    @Test func aClockSetBackDoesNotHoldTheNextRunBack() {
        // The last run "ended" three hours from now: the clock went back since.
        #expect(CalendarCarry.nextPoll(firstReminder: t - 30 * minute, lastEnd: t + 180 * minute, failed: false, now: t) == t)
    }
}
