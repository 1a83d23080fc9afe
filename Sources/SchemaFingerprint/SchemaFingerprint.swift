/// The fingerprint of a planner file's schema, written once for the two places that make one: every open,
/// which checks a file against its version's (PlannerStore's SchemaCheck), and the build, which records
/// every version's from migrations/ (planner-schema-data, run by the EmbedMigrations plugin). FNV-1a over
/// type, name, table and SQL of the planner's objects present, in name order, hashed from SQLite's own bytes.
public enum SchemaFingerprint {
    /// FNV-1a's offset basis: the fingerprint of no objects (schema version 0).
    public static let empty: UInt64 = 0xCBF2_9CE4_8422_2325
    /// How many columns of `query`'s rows are hashed.
    public static let columns: Int32 = 4

    /// The rows hashed: the objects named in `quotedNames` (`'a','b'`), in name order.
    public static func query(quotedNames: String) -> String {
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name IN (\(quotedNames)) ORDER BY name"
    }

    /// Triggers on the objects named in `quotedNames` that are not among them (a user's own on a planner
    /// table): name, table and SQL, in name order. SQLite keeps `tbl_name` as the trigger's author wrote it
    /// (`ON APP_OPEN`), so the table is compared without case; the trigger's own name exactly, as `query`
    /// compares it (a trigger named `Setting` is the user's, not the planner's `setting`).
    public static func foreignTriggersQuery(quotedNames: String) -> String {
        "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name COLLATE NOCASE IN (\(quotedNames)) AND name NOT IN (\(quotedNames)) ORDER BY name"
    }

    /// A name in `quotedNames` that two objects have (a trigger of the user's named like a planner table:
    /// triggers have names of their own apart from tables, views and indexes).
    public static func sharedNameQuery(quotedNames: String) -> String {
        "SELECT name FROM sqlite_schema WHERE name IN (\(quotedNames)) GROUP BY name HAVING count(*) > 1 ORDER BY name LIMIT 1"
    }

    /// The first (in name order) UNIQUE index made by `CREATE INDEX` on a table named in `quotedNames` that
    /// is not among them (a user's own on a planner table): its name and table.
    public static func foreignUniqueIndexQuery(quotedNames: String) -> String {
        "SELECT i.name, t.name FROM sqlite_schema AS t, pragma_index_list(t.name) AS i WHERE t.type = 'table' AND t.name COLLATE NOCASE IN (\(quotedNames)) AND i.\"unique\" = 1 AND i.origin = 'c' AND i.name NOT IN (\(quotedNames)) ORDER BY i.name LIMIT 1"
    }

    /// The three ways a row changes, each firing its own triggers.
    public enum Change: CaseIterable { case insert, update, delete }

    /// A statement that changes no row but makes SQLite compile every trigger on `table` for `change` (an
    /// update sets every column, for `UPDATE OF` triggers), to be prepared and never run. `table` and
    /// `columns` are the planner's own (names the schema check has just matched), quoted all the same.
    public static func triggerProbe(_ change: Change, table: String, columns: [String]) -> String {
        let t = identifier(table)
        switch change {
        case .insert: return "INSERT INTO " + t + " SELECT * FROM " + t + " WHERE 0"
        case .delete: return "DELETE FROM " + t + " WHERE 0"
        case .update:
            var update = "UPDATE " + t + " SET "
            for (i, column) in columns.enumerated() { update += (i == 0 ? "" : ", ") + identifier(column) + " = " + identifier(column) }
            return update + " WHERE 0"
        }
    }

    /// `"name"`, with any `"` doubled.
    public static func identifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// Adds one column's bytes, then a separator (so "ab","c" and "a","bc" differ). Inlinable: every command
    /// hashes its file's 12 KB of schema through this.
    @inlinable public static func add(_ bytes: UnsafeBufferPointer<UInt8>, to hash: inout UInt64) {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ 1) &* 0x0000_0100_0000_01B3
    }

    /// `'a','b'`, in a plain loop (no generic `joined`: every command builds this once).
    public static func quoted(_ names: [String]) -> String {
        var list = ""
        list.reserveCapacity(names.count * 24)
        for name in names {
            list += list.isEmpty ? "'" : ",'"
            list += name
            list += "'"
        }
        return list
    }
}
