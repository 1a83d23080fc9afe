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
        try read {
            let stmt = try connection.prepare("SELECT key, value, value = default_value FROM setting")
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

    /// Rows for the declared keys the database does not hold yet, at their declared defaults.
    func addMissingSettingRows() throws {
        guard !missingSettingKeys.isEmpty else { return }
        let insert = try connection.prepare("INSERT OR IGNORE INTO setting (key, value, default_value) VALUES (?, ?, ?)")
        for key in missingSettingKeys { try insert.run(.text(key.rawValue), .text(key.defaultValue), .text(key.defaultValue)) }
        missingSettingKeys = []
    }

    /// Sets (canonical values, checked by the caller) and resets keys, then re-plans: all or nothing.
    @discardableResult
    public func configure(set values: [(SettingKey, String)], reset keys: [SettingKey], now: Instant) throws(PlannerError) -> RefillDecision {
        try write {
            // Rows for keys the file does not hold yet first (their declared defaults), so a set has a row.
            _ = try readPlan()
            try addMissingSettingRows()
            let set = try connection.prepare("UPDATE setting SET value = ?, changed_at_ms = ? WHERE key = ? AND value <> ?")
            for (key, value) in values {
                try set.run(.text(value), .integer(now.milliseconds), .text(key.rawValue), .text(value))
            }
            let reset = try connection.prepare(
                "UPDATE setting SET value = default_value, changed_at_ms = ? WHERE key = ? AND value <> default_value")
            for key in keys { try reset.run(.integer(now.milliseconds), .text(key.rawValue)) }
            return try replan(now: now)
        }
    }

    /// Pauses study slots from `now` until `until` (nil: until `resume`), replacing any pause in force.
    @discardableResult
    public func pause(now: Instant, until: Instant?) throws(PlannerError) -> RefillDecision {
        try write {
            try endPauses(now: now)
            try connection.prepare("INSERT INTO pause (since_ms, until_ms) VALUES (?, ?)")
                .run(.integer(now.milliseconds), until.map { .integer($0.milliseconds) } ?? .null)
            return try replan(now: now)
        }
    }

    /// Ends the pause in force; false when there was none.
    public func resume(now: Instant) throws(PlannerError) -> (ended: Bool, decision: RefillDecision) {
        try write {
            let ended = try endPauses(now: now)
            return (ended, try replan(now: now))
        }
    }

    @discardableResult
    private func endPauses(now: Instant) throws -> Bool {
        try connection.prepare("""
            UPDATE pause SET ended_at_ms = ?
            WHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?)
            """).run(.integer(now.milliseconds), .integer(now.milliseconds))
        return sqlite3Changes() > 0
    }

    /// The pause in force or to come at `now`.
    public func currentPause(now: Instant) throws(PlannerError) -> Pause? {
        try read {
            let stmt = try connection.prepare(HotQueries.pause)
            try stmt.bind([.integer(now.milliseconds)])
            guard try stmt.step() else { return nil }
            return Pause(since: Instant(milliseconds: stmt.int64(0)), until: stmt.isNull(1) ? nil : Instant(milliseconds: stmt.int64(1)))
        }
    }

    /// Skips `dates` (a skip already there gets the new reason), then re-plans.
    @discardableResult
    public func skip(_ dates: [LocalDate], reason: String?, now: Instant) throws(PlannerError) -> RefillDecision {
        try write {
            let insert = try connection.prepare("""
                INSERT INTO skipped_date (local_date, reason, skipped_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (local_date) DO UPDATE
                SET reason = excluded.reason, skipped_at_ms = excluded.skipped_at_ms, removed_at_ms = NULL
                """)
            for date in dates {
                try insert.run(.text(date.description), reason.map { .text($0) } ?? .null, .integer(now.milliseconds))
            }
            return try replan(now: now)
        }
    }

    /// Removes the skips of `dates` (the rows stay, marked removed), then re-plans: the slots still ahead
    /// come back. Returns how many skips were removed.
    public func unskip(_ dates: [LocalDate], now: Instant) throws(PlannerError) -> (removed: Int, decision: RefillDecision) {
        try write {
            let update = try connection.prepare(
                "UPDATE skipped_date SET removed_at_ms = ? WHERE local_date = ? AND removed_at_ms IS NULL")
            var removed = 0
            for date in dates {
                try update.run(.integer(now.milliseconds), .text(date.description))
                removed += sqlite3Changes()
            }
            return (removed, try replan(now: now))
        }
    }

    /// Dates skipped now, oldest first.
    public func skippedDates() throws(PlannerError) -> [(date: String, reason: String?)] {
        try read {
            let stmt = try connection.prepare("SELECT local_date, reason FROM skipped_dates")
            var rows: [(String, String?)] = []
            while try stmt.step() { rows.append((stmt.text(0), stmt.isNull(1) ? nil : stmt.text(1))) }
            return rows
        }
    }
}

extension PlannerDatabase {
    /// Rows the last statement changed.
    func sqlite3Changes() -> Int { Int(sqlite3_changes(connection.handle)) }
}
