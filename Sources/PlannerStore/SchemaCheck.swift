import PlannerCore

/// The planner relies on its tables, indexes, triggers and views being exactly what its migrations made:
/// a column dropped or a `user_version` lowered by hand would otherwise fail late, with SQLite's raw text
/// ("duplicate column name", or at the first due request). So each open compares them with what the
/// file's `user_version` promises, and refuses a mismatch before anything is written.
extension PlannerDatabase {
    // `plannerObjects` (every object any migration creates; users may add their own beside these) and
    // `schemaFingerprints` (`schemaFingerprint(of:)` of a file after migrations 1…version) are data in
    // SchemaData.swift, written by `scripts/schema-data` from migrations/ and checked by SchemaCheckTests.

    /// FNV-1a over type, name, table and SQL of the planner's objects present, in name order. Hashed from
    /// SQLite's own bytes: every command runs this once, and Strings made of 12 KB of SQL cost a tenth of `open`.
    static func schemaFingerprint(of connection: Connection, objects: [String]? = nil) throws(SQLiteError) -> UInt64 {
        let names = objects.map(quoted) ?? plannerObjectsQuoted
        let stmt = try connection.prepare(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name IN (\(names)) ORDER BY name")
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        while try stmt.step() {
            for column in Int32(0)..<4 {
                for byte in stmt.bytes(column) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                hash = (hash ^ 1) &* 0x0000_0100_0000_01B3
            }
        }
        return hash
    }

    private static let plannerObjectsQuoted = quoted(plannerObjects)

    /// `'a','b'`, in a plain loop (no generic `joined`: every command builds this once).
    private static func quoted(_ objects: [String]) -> String {
        var list = ""
        list.reserveCapacity(objects.count * 24)
        for name in objects { list += list.isEmpty ? "'" : ",'"; list += name; list += "'" }
        return list
    }

    /// Throws when the planner's objects differ from what `userVersion`'s migrations leave.
    func checkSchema(userVersion: Int32) throws {
        guard Self.schemaFingerprints.indices.contains(Int(userVersion)),
            try Self.schemaFingerprint(of: connection) == Self.schemaFingerprints[Int(userVersion)]
        else {
            throw PlannerError.data(
                "\(path) has a planner schema changed by hand (its tables, indexes, triggers or views differ from what schema version \(userVersion) has): restore it from a backup, or move it away to start a new plan; nothing was changed"
            )
        }
    }
}
