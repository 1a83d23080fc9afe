import Foundation
import Testing
import CSQLite
@testable import PlannerStore
import PlannerTestSupport

/// The fingerprints the planner checks at each open must be those of files its migrations really make.
@Suite struct SchemaCheckTests {
    /// A file migrated to `version` the way `PlannerDatabase.migrate` stamps it, without the planner.
    func migrated(to version: Int32) throws -> (Connection, String) {
        let path = temporaryDatabasePath()
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        for migration in Migrations.all where migration.version <= version {
            try connection.execute(String(decoding: migration.sql, as: UTF8.self))
        }
        try connection.execute("PRAGMA application_id = \(PlannerDatabase.applicationID)")
        try connection.execute("PRAGMA user_version = \(version)")
        return (connection, path)
    }

    @Test(arguments: Migrations.all.map(\.version)) func eachVersionsFingerprintIsWhatItsMigrationsMake(version: Int32) throws {
        let (connection, _) = try migrated(to: version)
        let actual = try PlannerDatabase.schemaFingerprint(of: connection)
        #expect(PlannerDatabase.schemaFingerprints[version] == actual,
                "schemaFingerprints[\(version)] should be 0x\(String(actual, radix: 16, uppercase: true))")
    }

    @Test func theObjectListNamesEveryObjectTheMigrationsCreate() throws {
        let (connection, _) = try migrated(to: Migrations.latestVersion)
        let stmt = try connection.prepare("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try stmt.step() { names.append(stmt.text(0)) }
        #expect(names == PlannerDatabase.plannerObjects.sorted())
    }

    @Test func anOlderVersionStillMigrates() throws {
        let (connection, path) = try migrated(to: 1)
        connection.close()
        let db = try PlannerDatabase(path: path)
        #expect(try db.connection.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
    }

    /// A plan made before settings existed keeps the zone its slots were planned in, whatever TZ the
    /// first command after the upgrade has (cron often has none).
    @Test func anUpgradedPlanKeepsTheZoneItWasMadeIn() throws {
        let (connection, path) = try migrated(to: 2)
        try connection.execute("""
            INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, created_at_ms, changed_at_ms)
            VALUES ('Noti_AppOpenPromotion_2026_11_23_09_30', 'slot', 1795444200000, '2026-11-23', '2026-11-23T09:30:00-05:00',
                    'America/New_York', 't', 'b', 1, 1)
            """)
        connection.close()
        let db = try PlannerDatabase(path: path, zoneForNewPlan: "Asia/Seoul")
        #expect(try db.planSettings().settings.zone == "America/New_York")
        // A new plan takes the creating command's TZ, else follows the system.
        #expect(try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul").planSettings().settings.zone == "Asia/Seoul")
        #expect(try PlannerDatabase(path: temporaryDatabasePath()).planSettings().settings.zone == "system")
    }

    @Test func objectsOfTheUsersOwnAreAllowed() throws {
        let path = temporaryDatabasePath()
        _ = try PlannerDatabase(path: path)
        let (connection, _) = (try Connection(path: path, flags: SQLITE_OPEN_READWRITE), ())
        try connection.execute("CREATE VIEW my_week AS SELECT * FROM request; CREATE INDEX my_index ON request (kind)")
        connection.close()
        #expect(throws: Never.self) { _ = try PlannerDatabase(path: path) }
    }
}
