import PlannerCore

/// The planner relies on its tables, indexes, triggers and views being exactly what its migrations made:
/// a column dropped or a `user_version` lowered by hand would otherwise fail late, with SQLite's raw text
/// ("duplicate column name", or at the first due request). So each open compares them with what the
/// file's `user_version` promises, and refuses a mismatch before anything is written.
extension PlannerDatabase {
    /// Every object any migration creates. Users may add their own objects beside these.
    static let plannerObjects = [
        "app_open", "app_open_events", "app_open_local_date", "delivered_notifications", "pending_requests",
        "plan", "request", "request_cap_on_insert", "request_cap_on_update", "request_changed_at",
        "request_delivering", "request_fire_at", "request_history", "request_pending_fire_at",
        "request_pending_identifier", "request_state_transition", "setting", "settings", "skipped_date",
        "skipped_dates", "pause", "pause_open", "pauses", "request_record", "notification_action",
        "notification_actions", "request_state", "request_transition", "request_state_known_on_insert",
        "request_state_known_on_update", "request_states",
    ]

    /// `schemaFingerprint(of:)` of a file after migrations 1…version (SchemaCheckTests migrates fresh files
    /// step by step and compares). Add the new version's value with each migration.
    static let schemaFingerprints: [Int32: UInt64] = [
        0: 0xCBF2_9CE4_8422_2325,
        1: 0x880B_A633_A7F6_E578,
        2: 0x1691_E2D7_DA61_A0F0,
        3: 0x0A23_0C33_3B7A_1983,
        4: 0x558B_9EEC_404F_AA42,
        5: 0x558B_9EEC_404F_AA42,  // rows only: the same objects as 4
        6: 0x4018_DFA2_E550_B7ED,
        7: 0x5301_6A4D_6704_A5D6,
    ]

    /// FNV-1a over type, name, table and SQL of the planner's objects present, in name order.
    static func schemaFingerprint(of connection: Connection) throws(SQLiteError) -> UInt64 {
        let names = Self.plannerObjects.map { "'\($0)'" }.joined(separator: ",")
        let stmt = try connection.prepare(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name IN (\(names)) ORDER BY name")
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        while try stmt.step() {
            for column in Int32(0)..<4 {
                for byte in stmt.text(column).utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                hash = (hash ^ 1) &* 0x0000_0100_0000_01B3
            }
        }
        return hash
    }

    /// Throws when the planner's objects differ from what `userVersion`'s migrations leave.
    func checkSchema(userVersion: Int32) throws {
        guard let expected = Self.schemaFingerprints[userVersion], try Self.schemaFingerprint(of: connection) == expected else {
            throw PlannerError.data("\(path) has a planner schema changed by hand (its tables, indexes, triggers or views differ from what schema version \(userVersion) has): restore it from a backup, or move it away to start a new plan; nothing was changed")
        }
    }
}
