import CSQLite
import PlannerCore

/// Reads for `planner stats`, `planner plan` and `planner export`: the record and the plan ahead, each in
/// one read transaction with the settings in force.
extension PlannerDatabase {
    /// Everything `studyRecord` needs for the dates `from` through `through`; opens over the whole history
    /// (the longest streak needs them), per-day counts only for those dates.
    public func studyRecordInput(from: LocalDate, through: LocalDate) throws(PlannerError) -> (input: RecordInput, settings: PlanSettings) {
        try read { t in
            let (settings, zone) = try t.readPlan()
            var input = RecordInput(schedule: settings.schedule, zone: zone, firstDate: nil)

            // The record starts with the first study slot the planner planned, or the first open.
            let firstSlot = try t.connection.prepare(
                "SELECT local_date FROM request WHERE kind = 'slot' ORDER BY fire_at_ms LIMIT 1")
            let firstOpen = try t.connection.prepare("SELECT min(local_date) FROM app_open")
            let starts = [
                try firstSlot.step() ? LocalDate(iso: firstSlot.text(0)) : nil,
                try firstOpen.step() && !firstOpen.isNull(0) ? LocalDate(iso: firstOpen.text(0)) : nil,
            ]
            input.firstDate = starts.compactMap { $0 }.min()

            // With min(), SQLite takes `origin` from the row holding the minimum: the first open's.
            let opens = try t.connection.prepare("SELECT local_date, min(opened_at_ms), origin FROM app_open GROUP BY local_date")
            while try opens.step() {
                guard let date = LocalDate(iso: opens.text(0)) else { continue }
                input.days[date] = RecordedDay(
                    firstOpen: Instant(milliseconds: opens.int64(1)), firstOpenOrigin: opens.isNull(2) ? nil : opens.text(2))
            }

            // Each day's delivered and missed study slots, through the covering index request_record (its WHERE
            // is repeated in the queries so that SQLite may use it).
            let counts = try t.connection.prepare(
                """
                SELECT local_date, state = 'delivered', count(*) FROM request
                WHERE kind = 'slot' AND state IN ('delivered', 'missed') AND local_date BETWEEN ?1 AND ?2
                GROUP BY local_date, state
                """)
            try counts.bind([.text(from.description), .text(through.description)])
            while try counts.step() {
                guard let date = LocalDate(iso: counts.text(0)) else { continue }
                var day = input.days[date] ?? RecordedDay()
                if counts.int64(1) != 0 { day.remindersBeforeOpen = Int(counts.int64(2)) } else { day.missed = Int(counts.int64(2)) }
                input.days[date] = day
            }
            // Reminders shown after the day's first open (rare: the open cancels the rest) are not "before".
            let afterOpen = try t.connection.prepare(
                """
                SELECT f.local_date,
                       (SELECT count(*) FROM request AS r
                        WHERE r.kind = 'slot' AND r.state IN ('delivered', 'missed') AND r.local_date = f.local_date
                          AND r.state = 'delivered' AND r.delivered_at_ms >= f.at)
                FROM (SELECT local_date, min(opened_at_ms) AS at FROM app_open
                      WHERE local_date BETWEEN ?1 AND ?2 GROUP BY local_date) AS f
                """)
            try afterOpen.bind([.text(from.description), .text(through.description)])
            while try afterOpen.step() {
                guard let date = LocalDate(iso: afterOpen.text(0)), afterOpen.int64(1) > 0 else { continue }
                input.days[date]?.remindersBeforeOpen -= Int(afterOpen.int64(1))
            }

            // Snoozes that took effect ("Snooze" on a day not yet opened), by the date of the reminder answered.
            let snoozes = try t.connection.prepare(
                """
                SELECT r.local_date, count(*) FROM notification_action AS a JOIN request AS r ON r.id = a.request_id
                WHERE a.action = 'snooze' AND a.outcome LIKE 'snoozed as %' AND r.local_date BETWEEN ?1 AND ?2
                GROUP BY r.local_date
                """)
            try snoozes.bind([.text(from.description), .text(through.description)])
            while try snoozes.step() {
                guard let date = LocalDate(iso: snoozes.text(0)) else { continue }
                input.days[date, default: RecordedDay()].snoozed = Int(snoozes.int64(1))
            }

            let skipped = try t.connection.prepare("SELECT local_date FROM skipped_date WHERE removed_at_ms IS NULL")
            while try skipped.step() {
                if let date = LocalDate(iso: skipped.text(0)) { input.skippedDates.insert(date) }
            }
            // A pause ended by `resume` (or by a new pause) covered only up to then.
            let pauses = try t.connection.prepare(
                """
                SELECT since_ms, CASE WHEN until_ms IS NULL THEN ended_at_ms
                                      WHEN ended_at_ms IS NULL THEN until_ms
                                      ELSE min(until_ms, ended_at_ms) END
                FROM pause ORDER BY since_ms
                """)
            while try pauses.step() {
                input.pauses.append(
                    Pause(
                        since: Instant(milliseconds: pauses.int64(0)),
                        until: pauses.isNull(1) ? nil : Instant(milliseconds: pauses.int64(1))))
            }
            return (input, settings)
        }
    }

    /// The settings, their zone and what excludes dates from now on: the inputs of `planAhead`.
    public func planAheadInput(now: Instant) throws(PlannerError) -> (settings: PlanSettings, zone: Zone, exclusions: Exclusions) {
        try read { t in
            let (settings, zone) = try t.readPlan(at: now)
            return (settings, zone, try t.readPlanState(now: now, zone: zone).exclusions)
        }
    }
}

extension PlannerDatabase {
    /// Measurement mode's decision points: each slot `measured_reminders` lists whose study day had not
    /// started by its time, with the reminders this device showed earlier that study day, the day's first open,
    /// and when the day's next slot came (the decay's outcome: started before it; after the day's last, the
    /// interval in force now); and the settings, in one read transaction.
    public func nudgeDecisions() throws(PlannerError) -> (points: [NudgeEffects.Point], settings: PlanSettings) {
        try read { t in
            let (settings, _) = try t.readPlan()
            let interval = Int64(settings.schedule.intervalMinutes) * 60_000
            let stmt = try t.connection.prepare(
                """
                SELECT m.local_date, m.identifier,
                       (SELECT count(*) FROM request d WHERE d.local_date = m.local_date AND d.kind = 'slot' AND d.state = 'delivered'
                                                        AND d.fire_at_ms < m.fire_at_ms),
                       m.shown, m.withhold_probability, o.first_open_ms <= m.fire_at_ms + 3600000,
                       coalesce((SELECT min(n.fire_at_ms) FROM request n
                                 WHERE n.kind = 'slot' AND n.local_date = m.local_date AND n.fire_at_ms > m.fire_at_ms), m.fire_at_ms + ?),
                       o.first_open_ms
                FROM measured_reminders m
                LEFT JOIN (SELECT local_date, min(opened_at_ms) AS first_open_ms FROM app_open GROUP BY local_date) o
                       ON o.local_date = m.local_date
                WHERE o.first_open_ms IS NULL OR o.first_open_ms > m.fire_at_ms
                ORDER BY m.fire_at_ms
                """)
            try stmt.bind([.integer(interval)])
            var days: [String: Int] = [:]
            var points: [NudgeEffects.Point] = []
            while try stmt.step() {
                guard let reading = SlotIdentifier.parse(stmt.text(1)) else { continue }
                let day = stmt.text(0)
                let cluster = days[day] ?? days.count
                days[day] = cluster
                let firstOpen = stmt.isNull(7) ? nil : stmt.int64(7)
                points.append(
                    NudgeEffects.Point(
                        cluster: cluster, minute: reading.hour * 60 + reading.minute, shownBefore: Int(stmt.int64(2)), shown: stmt.int64(3) == 1,
                        withholdProbability: stmt.double(4), startedWithin60: stmt.int64(5) == 1,
                        startedBeforeNext: firstOpen.map { $0 <= stmt.int64(6) } ?? false))
            }
            return (points, settings)
        }
    }
}
