import CSQLite
import PlannerCore

/// One row of `planner config`.
public struct SettingRow: Sendable, Equatable {
    public var key: SettingKey
    public var value: String
    public var isDefault: Bool
}

/// Settings, skipped dates and pauses: each change re-plans in the same transaction, so `list`, `status`
/// and `sqlite3` show its effect at once.
extension PlannerDatabase {
    public func settingRows() throws(PlannerError) -> [SettingRow] {
        try read { t in
            let stmt = try t.connection.prepare("SELECT key, value, value = default_value FROM setting")
            var rows: [SettingRow] = []
            while try stmt.step() {
                guard let key = SettingKey(rawValue: stmt.text(0)) else { continue }
                rows.append(SettingRow(key: key, value: stmt.text(1), isDefault: stmt.int64(2) != 0))
            }
            // A declared key without a row (newer than the file) is at its declared default.
            return SettingKey.allCases.map { key in
                rows.first { $0.key == key } ?? SettingRow(key: key, value: key.defaultValue, isDefault: true)
            }
        }
    }

    /// Sets (canonical values, checked by the caller) and resets keys, then re-plans: all or nothing.
    @discardableResult
    public func configure(set values: [(SettingKey, String)], reset keys: [SettingKey], now: Instant) throws(PlannerError) -> RefillDecision {
        try change(.settings(set: values.map { SettingChange($0.0, $0.1) }, reset: keys), origin: "config", now: now).effect.refill
    }

    /// Pauses study slots from `now` until `until` (nil: until `resume`), replacing any pause in force.
    @discardableResult
    public func pause(now: Instant, until: Instant?) throws(PlannerError) -> RefillDecision {
        try change(.pause(until: until), origin: "pause", now: now).effect.refill
    }

    /// Ends the pause in force; false when there was none.
    public func resume(now: Instant) throws(PlannerError) -> (ended: Bool, decision: RefillDecision) {
        let outcome = try change(.resume, origin: "resume", now: now)
        return (outcome.effect.endsPause, outcome.effect.refill)
    }

    /// A change made here and now by a command: a new event, applied at once.
    private func change(_ change: PlanChange, origin: String, now: Instant) throws(PlannerError) -> EventOutcome {
        // A fresh id is never recorded yet: the event is always applied.
        try apply(PlanEvent(id: Self.newEventID(), at: now, origin: origin, change: change))!
    }

    /// The pause in force or to come at `now`.
    public func currentPause(now: Instant) throws(PlannerError) -> Pause? {
        try read { t in
            let stmt = try t.connection.prepare(HotQueries.pause)
            try stmt.bind([.integer(now.milliseconds)])
            guard try stmt.step() else { return nil }
            return Pause(since: Instant(milliseconds: stmt.int64(0)), until: stmt.isNull(1) ? nil : Instant(milliseconds: stmt.int64(1)))
        }
    }

    /// Skips `dates` (a skip already there gets the new reason), then re-plans.
    @discardableResult
    public func skip(_ dates: [LocalDate], reason: String?, now: Instant) throws(PlannerError) -> RefillDecision {
        try change(.skip(dates: dates, reason: reason), origin: "skip", now: now).effect.refill
    }

    /// Removes the skips of `dates` (the rows stay, marked removed), then re-plans: the slots still ahead
    /// come back. Returns how many skips were removed.
    public func unskip(_ dates: [LocalDate], now: Instant) throws(PlannerError) -> (removed: Int, decision: RefillDecision) {
        let outcome = try change(.unskip(dates: dates), origin: "skip", now: now)
        return (outcome.removedSkips, outcome.effect.refill)
    }

    /// Dates skipped now, oldest first.
    public func skippedDates() throws(PlannerError) -> [(date: String, reason: String?)] {
        try read { t in
            let stmt = try t.connection.prepare("SELECT local_date, reason FROM skipped_dates")
            var rows: [(String, String?)] = []
            while try stmt.step() { rows.append((stmt.text(0), stmt.isNull(1) ? nil : stmt.text(1))) }
            return rows
        }
    }
}

extension Transaction {
    /// Rows for the declared keys the database does not hold yet, at their declared defaults.
    package func addMissingSettingRows() throws {
        guard !database.missingSettingKeys.isEmpty else { return }
        let insert = try connection.prepare("INSERT OR IGNORE INTO setting (key, value, default_value) VALUES (?, ?, ?)")
        for key in database.missingSettingKeys { try insert.run(.text(key.rawValue), .text(key.defaultValue), .text(key.defaultValue)) }
        database.missingSettingKeys = []
    }

    /// Rows the last statement changed.
    package func sqlite3Changes() -> Int { Int(sqlite3_changes(connection.handle)) }
}
