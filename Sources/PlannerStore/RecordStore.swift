import CSQLite
import PlannerCore

/// Reads for `planner stats`, `planner plan` and `planner export`: the record and the plan ahead, each in
/// one read transaction with the settings in force.
extension PlannerDatabase {
    /// Everything `studyRecord` needs for the dates `from` through `through`; opens over the whole history
    /// (the longest streak needs them), per-day counts only for those dates.
    public func studyRecordInput(from: LocalDate, through: LocalDate) throws(PlannerError) -> (input: RecordInput, settings: PlanSettings) {
        try read {
            let (settings, zone) = try readPlan()
            var input = RecordInput(schedule: settings.schedule, zone: zone, firstDate: nil)

            // The record starts with the first study slot the planner planned, or the first open.
            let firstSlot = try connection.prepare(
                "SELECT local_date FROM request WHERE kind = 'slot' ORDER BY fire_at_ms LIMIT 1")
            let firstOpen = try connection.prepare("SELECT min(local_date) FROM app_open")
            let starts = [try firstSlot.step() ? LocalDate(iso: firstSlot.text(0)) : nil,
                          try firstOpen.step() && !firstOpen.isNull(0) ? LocalDate(iso: firstOpen.text(0)) : nil]
            input.firstDate = starts.compactMap { $0 }.min()

            let opens = try connection.prepare("SELECT local_date, min(opened_at_ms) FROM app_open GROUP BY local_date")
            while try opens.step() {
                guard let date = LocalDate(iso: opens.text(0)) else { continue }
                input.days[date] = RecordedDay(firstOpen: Instant(milliseconds: opens.int64(1)))
            }

            // fire_at_ms bounds the scan (through its index); local_date, in the slot's own zone, decides.
            let counts = try connection.prepare("""
                WITH first_open AS (
                    SELECT local_date, min(opened_at_ms) AS at FROM app_open
                    WHERE local_date BETWEEN ?1 AND ?2 GROUP BY local_date)
                SELECT r.local_date,
                       sum(r.state = 'delivered' AND (f.at IS NULL OR r.delivered_at_ms < f.at)),
                       count(DISTINCT CASE WHEN r.state = 'missed' THEN r.identifier END)
                FROM request AS r LEFT JOIN first_open AS f ON f.local_date = r.local_date
                WHERE r.fire_at_ms BETWEEN ?3 AND ?4 AND r.kind = 'slot' AND r.state IN ('delivered', 'missed')
                  AND r.local_date BETWEEN ?1 AND ?2
                GROUP BY r.local_date
                """)
            // Two days of margin cover any zone's offset.
            try counts.bind([.text(from.description), .text(through.description),
                             .integer((from.dayNumber - 2) * 86_400_000), .integer((through.dayNumber + 3) * 86_400_000)])
            while try counts.step() {
                guard let date = LocalDate(iso: counts.text(0)) else { continue }
                var day = input.days[date] ?? RecordedDay()
                day.remindersBeforeOpen = Int(counts.int64(1))
                day.missed = Int(counts.int64(2))
                input.days[date] = day
            }

            let skipped = try connection.prepare("SELECT local_date FROM skipped_date WHERE removed_at_ms IS NULL")
            while try skipped.step() {
                if let date = LocalDate(iso: skipped.text(0)) { input.skippedDates.insert(date) }
            }
            // A pause ended by `resume` (or by a new pause) covered only up to then.
            let pauses = try connection.prepare("""
                SELECT since_ms, CASE WHEN until_ms IS NULL THEN ended_at_ms
                                      WHEN ended_at_ms IS NULL THEN until_ms
                                      ELSE min(until_ms, ended_at_ms) END
                FROM pause ORDER BY since_ms
                """)
            while try pauses.step() {
                input.pauses.append(Pause(since: Instant(milliseconds: pauses.int64(0)),
                                          until: pauses.isNull(1) ? nil : Instant(milliseconds: pauses.int64(1))))
            }
            return (input, settings)
        }
    }

    /// The settings, their zone and what excludes dates from now on: the inputs of `planAhead`.
    public func planAheadInput(now: Instant) throws(PlannerError) -> (settings: PlanSettings, zone: Zone, exclusions: Exclusions) {
        try read {
            let (settings, zone) = try readPlan()
            return (settings, zone, try readPlanState(now: now, zone: zone).exclusions)
        }
    }
}
