/// The reads every `open`, `refill` and ticker wake-up runs. Kept in one place so the test that checks
/// their query plans stay on indexes (however long the history) checks exactly what the store runs.
enum HotQueries {
    /// Columns read by `pendingRequest(_:)`.
    static let pending =
        "SELECT id, identifier, kind, fire_at_ms, local_date, zone, title, body FROM request WHERE state = 'pending'"
    /// The same without title and body (`status`: only the one shown needs them).
    static let pendingWithoutText =
        "SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request WHERE state = 'pending'"
    /// Slots that ran their course since ?, which must not come back (the states whose `ends_slot` is 1
    /// in `request_state`). The caller looks back `PlannerDatabase.finishedLookBack`: far enough for any zone change.
    static let finishedSlots = """
        SELECT identifier FROM request
        WHERE fire_at_ms > ? AND kind = 'slot'
          AND state IN (SELECT name FROM request_state WHERE ends_slot)
        """
    /// One-offs waiting outside the cap, due after ?.
    static let waitingOneOffs = """
        SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request
        WHERE fire_at_ms > ? AND state = 'displaced' AND kind = 'oneoff'
        """
    static let openedDates = "SELECT DISTINCT local_date FROM app_open WHERE local_date >= ?"
    static let skippedDates = "SELECT local_date FROM skipped_date WHERE local_date >= ? AND removed_at_ms IS NULL"
    /// The pause in force or still to come (the latest one not ended and not over at ?).
    static let pause = """
        SELECT since_ms, until_ms FROM pause
        WHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?)
        ORDER BY since_ms DESC LIMIT 1
        """
    static let settings = "SELECT key, value, default_value FROM setting"
    /// Pending requests due at ?.
    static let due = """
        SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request
        WHERE state = 'pending' AND fire_at_ms <= ?
        """
    static let nextFireAt = "SELECT min(fire_at_ms) FROM request WHERE state = 'pending'"
    /// What the cap triggers count before every insert or return to pending.
    static let pendingCount = "SELECT count(*) FROM request WHERE state = 'pending'"

    static let all = [
        pending, pendingWithoutText, finishedSlots, waitingOneOffs, openedDates, skippedDates, pause, settings, due, nextFireAt, pendingCount,
    ]
}
