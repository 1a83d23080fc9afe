/// When a live ticker runs the calendar job (`planner calendar-sync`, or the systemd unit that runs it): the
/// phone's tick of "Study today" must silence the computers within the phone's own sync plus two minutes, and
/// what the planner writes to the calendar folder must reach the server within seconds — but the server is
/// asked only while the answer can change something: a study day not yet opened, from just before its first
/// reminder until its last one has gone. Never after the day is opened, never outside the window, never in a
/// loop (a run follows a change, or the clock; a run that changes nothing starts nothing).
public enum CalendarCarry {
    /// Between two runs that ask the server for the phone's changes.
    public static let pollEveryMilliseconds: Int64 = 60_000
    /// How long before a study day's first reminder the asking starts: a tick made on the phone before the
    /// window opens silences its first reminder too.
    public static let leadMilliseconds: Int64 = 120_000
    /// A change to the folder goes out this long after the last one seen (a refill writes hundreds of files).
    public static let settleMilliseconds: Int64 = 2_000
    /// After a failed run (the server unreachable), the next one waits this long.
    public static let afterFailureMilliseconds: Int64 = 300_000
    /// A run that takes longer is stopped: above `planner calendar-sync`'s own bound on a round (a minute
    /// less, its lock wait included), so that the round stops its runs and records how it ended.
    public static let runLimitMilliseconds: Int64 = 900_000

    /// When the ticker should next ask the server, or nil: `firstReminder` is the first reminder of the study
    /// day now under way when one of that day's reminders is still pending (nil: none, or the day is opened,
    /// skipped or paused); `lastEnd` when the last run ended (measured from its end: a run as long as the
    /// pause would otherwise be followed by the next at once); `failed` whether it failed.
    public static func nextPoll(firstReminder: Instant?, lastEnd: Instant?, failed: Bool, now: Instant) -> Instant? {
        guard let firstReminder else { return nil }
        let opens = firstReminder - leadMilliseconds
        // A clock set back since the last run must not hold the next one back by as much.
        guard let lastEnd, lastEnd <= now else { return Swift.max(opens, now) }
        let next = lastEnd + (failed ? afterFailureMilliseconds : pollEveryMilliseconds)
        return Swift.max(opens, next)
    }
}
