import CSQLite
import Foundation
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// The fingerprints the planner checks at each open must be those of files its migrations really make.
@Suite struct SchemaCheckTests {
    /// A file migrated to `version` the way `PlannerDatabase.migrate` stamps it, without the planner.
    func migrated(to version: Int32) throws -> (Connection, String) {
        let path = temporaryDatabasePath()
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        for migration in Migrations.all where migration.version <= version {
            try connection.execute(migration.sql)
        }
        try connection.execute("PRAGMA application_id = \(PlannerDatabase.applicationID)")
        try connection.execute("PRAGMA user_version = \(version)")
        return (connection, path)
    }

    /// The schema data the build computed (planner-schema-data, run by the EmbedMigrations plugin) is what
    /// migrations 1…n make when applied to a file the way `PlannerDatabase.migrate` stamps it: every object
    /// name any version has, each version's fingerprint over them (through the check's own code) and cookie.
    @Test func schemaDataIsWhatTheMigrationsMake() throws {
        let versions = [Int32(0)] + Migrations.all.map(\.version)
        #expect(Migrations.all.map(\.version) == Array(1...Migrations.latestVersion), "migrations are numbered 0001, 0002, … without gaps")
        var objects = Set<String>()
        for version in versions {
            let (connection, _) = try migrated(to: version)
            let stmt = try connection.prepare("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
            while try stmt.step() { objects.insert(stmt.text(0)) }
        }
        let names = objects.sorted()
        #expect(names == PlannerDatabase.plannerObjects.sorted())
        #expect(
            try versions.map { try PlannerDatabase.schemaFingerprint(of: migrated(to: $0).0, objects: names) } == PlannerDatabase.schemaFingerprints)
        #expect(try versions.map { try Int64(migrated(to: $0).0.integer("PRAGMA schema_version") ?? -1) } == PlannerDatabase.schemaCookies)
    }

    /// Every shipped version's fingerprint, as the binaries that made files of it check them: a shipped
    /// migration edited would change its version's, and every file made by an earlier binary would then be
    /// refused as "changed by hand". The newest migration may still change before it ships; when the next one
    /// is added, its fingerprint is pinned here (the test prints the line).
    static let shippedFingerprints: [UInt64] = [
        0xCBF2_9CE4_8422_2325,  // 0
        0x880B_A633_A7F6_E578,  // 1
        0x1691_E2D7_DA61_A0F0,  // 2
        0x0A23_0C33_3B7A_1983,  // 3
        0x558B_9EEC_404F_AA42,  // 4
        0x558B_9EEC_404F_AA42,  // 5
        0x4018_DFA2_E550_B7ED,  // 6
        0x5301_6A4D_6704_A5D6,  // 7
        0xB629_37D0_96F7_37A9,  // 8
        0x700F_1D84_DA2B_B35E,  // 9
        0xDDDB_2A99_5004_A1F8,  // 10
        0x3F4B_14B8_771E_DF5F,  // 11
        0x3AA7_F4D5_A91C_0385,  // 12
        0x435D_3C16_547B_61B2,  // 13
        0x7DAF_318D_27D7_57C4,  // 14
        0x96D9_EF16_1064_4DC6,  // 15
        0xC3EE_B52C_FF10_A3B7,  // 16
        0x4903_84AE_9B97_BC36,  // 17
        0x4903_84AE_9B97_BC36,  // 18
        0xF1BE_3A09_3DF1_8EF3,  // 19
        0x76EA_81DF_08C0_B801,  // 20
    ]

    @Test func shippedMigrationsKeepTheirFingerprints() {
        let built = PlannerDatabase.schemaFingerprints
        for (version, pinned) in Self.shippedFingerprints.enumerated() where version < built.count {
            #expect(
                built[version] == pinned,
                "schema version \(version) changed: a shipped migration was edited (files made by earlier binaries would be refused); put it back and add a new migration"
            )
        }
        // Every version but the newest is pinned: the newest may still change before it ships.
        for version in Self.shippedFingerprints.count..<max(Self.shippedFingerprints.count, built.count - 1) {
            Issue.record(
                "pin schema version \(version) in SchemaCheckTests.shippedFingerprints: 0x\(String(built[version], radix: 16, uppercase: true)),  // \(version)"
            )
        }
    }

    @Test func anOlderVersionStillMigrates() throws {
        let (connection, path) = try migrated(to: 1)
        connection.close()
        let db = try PlannerDatabase(path: path)
        #expect(try db.inspection.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
    }

    /// A plan made before settings existed keeps the zone its slots were planned in, whatever TZ the
    /// first command after the upgrade has (cron often has none).
    @Test func anUpgradedPlanKeepsTheZoneItWasMadeIn() throws {
        let (connection, path) = try migrated(to: 2)
        try connection.execute(
            """
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
        // A trigger of one's own is fine on a table of one's own (not on the planner's: BadInputTests).
        try connection.execute(
            "CREATE TABLE my_log (at INTEGER); CREATE TRIGGER my_log_trim AFTER INSERT ON my_log BEGIN DELETE FROM my_log WHERE at < new.at - 100; END"
        )
        connection.close()
        #expect(throws: Never.self) { _ = try PlannerDatabase(path: path) }
    }
}
