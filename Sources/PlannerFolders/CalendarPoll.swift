import PlannerCore
import PlannerStore

extension PlannerDatabase {
    /// When the window of the study day under way at `now` opens (its first reading, planned or not: a
    /// plan made mid-window starts later), when one of that day's study reminders is still pending; nil
    /// otherwise (opened, skipped, paused, over, or not a study day). What `CalendarCarry.nextPoll` asks.
    public func studyDayStillOpen(now: Instant) throws(PlannerError) -> Instant? {
        try read { t in
            let (settings, zone) = try t.readPlan()
            let day = settings.schedule.studyDay(at: now, in: zone)
            let stmt = try t.connection.prepare(
                """
                SELECT min(fire_at_ms) FROM request WHERE kind = 'slot' AND local_date = ? AND state = 'pending'
                """)
            try stmt.bind([.text(day.description)])
            guard try stmt.step(), !stmt.isNull(0) else { return nil }
            let first = Instant(milliseconds: stmt.int64(0))
            guard let opens = settings.schedule.readings(on: day).first.flatMap(zone.instant(for:)) else { return first }
            return Swift.min(opens, first)
        }
    }
}
