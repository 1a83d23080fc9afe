import PlannerCore
import SchemaFingerprint

/// The planner relies on its tables, indexes, triggers and views being exactly what its migrations made:
/// a column dropped or a `user_version` lowered by hand would otherwise fail late, with SQLite's raw text
/// ("duplicate column name", or at the first due request). So each open compares them with what the
/// file's `user_version` promises, and refuses a mismatch before anything is written.
extension PlannerDatabase {
    // `plannerObjects` (every object any migration creates; users may add their own beside these),
    // `schemaFingerprints` (`schemaFingerprint(of:)` of a file after migrations 1…version) and `schemaCookies`
    // are computed from migrations/ at build time (the EmbedMigrations plugin runs planner-schema-data).

    /// `SchemaFingerprint` of the planner's objects present in the connection's file (or of `objects`).
    package static func schemaFingerprint(of connection: Connection, objects: [String]? = nil) throws(SQLiteError) -> UInt64 {
        let stmt = try connection.prepare(SchemaFingerprint.query(quotedNames: objects.map(SchemaFingerprint.quoted) ?? plannerObjectsQuoted))
        var hash = SchemaFingerprint.empty
        while try stmt.step() {
            for column in Int32(0)..<SchemaFingerprint.columns { SchemaFingerprint.add(stmt.bytes(column), to: &hash) }
        }
        return hash
    }

    package static let plannerObjectsQuoted = SchemaFingerprint.quoted(plannerObjects)
}

extension Transaction {

    /// Throws when the planner's objects differ from what `userVersion`'s migrations leave.
    package func checkSchema(userVersion: Int32) throws {
        guard PlannerDatabase.schemaFingerprints.indices.contains(Int(userVersion)),
            try PlannerDatabase.schemaFingerprint(of: connection) == PlannerDatabase.schemaFingerprints[Int(userVersion)]
        else {
            // Not the planner's schema changed, but an object of the user's with one of its names: say so,
            // rather than send them to a backup.
            let shared = try connection.prepare(SchemaFingerprint.sharedNameQuery(quotedNames: PlannerDatabase.plannerObjectsQuoted))
            if try shared.step() {
                throw PlannerError.data(
                    "\(path) has an object of your own (a trigger, say) named \(shared.text(0)) like one of the planner's: rename or drop yours; nothing was changed"
                )
            }
            throw PlannerError.data(
                "\(path) has a planner schema changed by hand (its tables, indexes, triggers or views differ from what schema version \(userVersion) has): restore it from a backup, or move it away to start a new plan; nothing was changed"
            )
        }
        // Objects of the user's own are fine, but not every trigger on a planner table (ForeignTriggers).
        // Only read when the cookie says the schema changed.
        try checkForeignTriggers(quotedPlannerObjects: PlannerDatabase.plannerObjectsQuoted)
    }
}
