import PlannerCore

/// The reads every `open`, `refill` and ticker wake-up runs. Kept in one place so the test that checks
/// their query plans stay on indexes (however long the history) checks exactly what the store runs.
package enum HotQueries {
    /// Columns read by `PlannerDatabase.pendingRequest(_:)`.
    package static let pending =
        "SELECT id, identifier, kind, fire_at_ms, local_date, zone, title, body FROM request WHERE state = 'pending'"
    /// The same without title and body (`status`: only the one shown needs them).
    package static let pendingWithoutText =
        "SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request WHERE state = 'pending'"
    /// Slots that ran their course since ?, which must not come back (the states whose `ends_slot` is 1
    /// in `request_state`). The caller looks back `PlannerDatabase.finishedLookBack`: far enough for any zone change.
    package static let finishedSlots = """
        SELECT identifier FROM request
        WHERE fire_at_ms > ? AND kind = 'slot'
          AND state IN (SELECT name FROM request_state WHERE ends_slot)
        """
    /// One-offs waiting outside the cap, due after ?.
    package static let waitingOneOffs = """
        SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request
        WHERE fire_at_ms > ? AND state = 'displaced' AND kind = 'oneoff'
        """
    /// The one-offs whose items the calendar folder carries (request_oneoff).
    /// Whether a series' row says its file may hold a slot of the study day ?3 or before
    /// (`planTodaysCalendar`): its recipe's first date (after `?4`, the series' recipe prefix,
    /// and its name), or no recipe to say. ?1 and ?2: the series' names (`CalendarBucket.nameRanges`).
    package static let staleSeries = """
        SELECT EXISTS (SELECT 1 FROM calendar_file WHERE name >= ?1 AND name < ?2 AND digest IS NOT NULL AND problem IS NULL
            AND (recipe IS NULL OR substr(recipe, 1, length(?4)) != ?4
                OR substr(recipe, length(?4) + 1 + instr(substr(recipe, length(?4) + 1), ' '), 10) <= ?3))
        """

    package static let calendarOneOffs = """
        SELECT identifier, fire_at_ms, title, body FROM request WHERE kind = 'oneoff' AND state IN \(RequestState.waitingSQL)
        ORDER BY fire_at_ms, identifier
        """
    /// What a calendar pass's plan is made from (`calendarPlanFingerprint`), with the pass recorded for the
    /// folder ?3. ?1: a date before today's study day; ?2: the name of measurement mode's register. Fields are
    /// separated by the control characters US (0x1F) and RS (0x1E), written as literals: `char(31)` is a
    /// function each process would resolve while parsing.
    package static let calendarFingerprint = """
        SELECT (SELECT listing || '\u{1F}' || plan FROM calendar_pass WHERE folder = ?3 AND bucket = ''),
               (SELECT group_concat(key || '=' || value, '\u{1F}') FROM setting),
               (SELECT group_concat(local_date || ' ' || opened_at_ms, '\u{1F}') FROM app_open WHERE local_date >= ?1),
               (SELECT group_concat(local_date, '\u{1F}') FROM skipped_date WHERE local_date >= ?1 AND removed_at_ms IS NULL),
               (SELECT group_concat(since_ms || ' ' || ifnull(until_ms, '-'), '\u{1F}') FROM pause WHERE ended_at_ms IS NULL),
               (SELECT group_concat(identifier || '\u{1E}' || fire_at_ms || '\u{1E}' || title || '\u{1E}' || body, '\u{1F}')
                FROM request WHERE kind = 'oneoff' AND state IN \(RequestState.waitingSQL)),
               (SELECT event_id FROM register WHERE name = ?2)
        """
    package static let openedDates = "SELECT DISTINCT local_date FROM app_open WHERE local_date >= ?"
    package static let skippedDates = "SELECT local_date FROM skipped_date WHERE local_date >= ? AND removed_at_ms IS NULL"
    /// The pause in force or still to come (the latest one not ended and not over at ?).
    package static let pause = """
        SELECT since_ms, until_ms FROM pause
        WHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?)
        ORDER BY since_ms DESC LIMIT 1
        """
    package static let settings = "SELECT key, value, default_value FROM setting"
    /// Pending requests due at ?.
    package static let due = """
        SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request
        WHERE state = 'pending' AND fire_at_ms <= ?
        """
    package static let nextFireAt = "SELECT min(fire_at_ms) FROM request WHERE state = 'pending'"
    /// What the cap triggers count before every insert or return to pending.
    package static let pendingCount = "SELECT count(*) FROM request WHERE state = 'pending'"

    /// This device's id, the registers' greatest stamp not after ?1, and the greatest stamp not after ?1 of
    /// the events of kind ?2 (`latestStampAndSelf`, run once a kind): every change made here reads them. One
    /// seek of `event_kind_stamp` a kind, since an index on the stamp alone would be one more insert for every
    /// event a first sync records. `+?2`, not `?2`: SQLite checks a bound value against a partial index's WHERE
    /// (`event_day_rule`'s `kind = 'settings'`), and a statement whose plan depends on a bound value is
    /// compiled again at every new binding.
    package static let latestStamp = """
        SELECT (SELECT id FROM device WHERE is_self = 1), (SELECT max(stamp_ms) FROM register WHERE stamp_ms <= ?1),
               e.stamp_ms, e.stamp_counter, e.device
        FROM (SELECT 1) LEFT JOIN (SELECT stamp_ms, stamp_counter, device FROM event WHERE kind = +?2 AND stamp_ms <= ?1
                                   ORDER BY stamp_ms DESC, stamp_counter DESC LIMIT 1) e
        """
    package static let all = [
        pending, pendingWithoutText, finishedSlots, waitingOneOffs, calendarOneOffs, calendarFingerprint, openedDates, skippedDates, pause, settings,
        due, nextFireAt, pendingCount, latestStamp,
    ]
}
