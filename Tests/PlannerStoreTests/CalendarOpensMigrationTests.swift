import CSQLite
import Foundation
import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// Migration 0018: opens read from the phone's tick, recorded before with the computer that read them, say
/// `calendar` afterwards, and the conflicts they alone caused (each computer's copy of one tick) are gone;
/// every other event and conflict stays as it was.
@Suite struct CalendarOpensMigrationTests {
    @Test func ticksRecordedBeforeAreTheCalendarsAndTheirConflictsGo() throws {
        let path = temporaryDatabasePath()
        let old = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        for migration in Migrations.all where migration.version <= 17 { try old.execute(migration.sql) }
        try old.execute("PRAGMA application_id = \(PlannerDatabase.applicationID)")
        try old.execute("PRAGMA user_version = 17")
        try old.execute(
            """
            INSERT INTO event (id, at_ms, origin, kind, payload, device, stamp_ms) VALUES
              ('tick-0001', 1, 'calendar', 'open', 'zone=UTC offset=0', 'laptop-id', 1),
              ('open-0001', 2, 'open', 'open', 'zone=UTC offset=0', 'laptop-id', 2),
              ('conf-0001', 3, 'config', 'settings', 'set.title=x', 'desktop-id', 3);
            INSERT INTO event_conflict (id, first_seen_ms) VALUES ('tick-0001', 10), ('conf-0001', 11);
            """)
        old.close()
        let upgraded = try PlannerDatabase(path: path)
        #expect(try upgraded.inspection.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(
            try rows(upgraded.inspection, "SELECT id || '|' || device FROM event ORDER BY id") == [
                "conf-0001|desktop-id", "open-0001|laptop-id", "tick-0001|calendar",
            ])
        #expect(try rows(upgraded.inspection, "SELECT id FROM event_conflict") == ["conf-0001"])
    }

    func rows(_ connection: Connection, _ sql: String) throws -> [String] {
        let stmt = try connection.prepare(sql)
        var out: [String] = []
        while try stmt.step() { out.append(stmt.text(0)) }
        return out
    }
}
