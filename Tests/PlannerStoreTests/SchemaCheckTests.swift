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
            try connection.execute(migration.sql)
        }
        try connection.execute("PRAGMA application_id = \(PlannerDatabase.applicationID)")
        try connection.execute("PRAGMA user_version = \(version)")
        return (connection, path)
    }

    /// SchemaData.swift holds what migrations 1…n really make: every object name any version has, and each
    /// version's fingerprint over them. With PLANNER_WRITE_SCHEMA_DATA=1 (`scripts/schema-data`) it writes
    /// that file instead, refusing to change a fingerprint already recorded: old files would be refused.
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
        let fingerprints = try versions.map { try PlannerDatabase.schemaFingerprint(of: migrated(to: $0).0, objects: names) }
        let cookies = try versions.map { try Int64(migrated(to: $0).0.integer("PRAGMA schema_version") ?? -1) }
        let shipped = PlannerDatabase.schemaFingerprints
        let changed = versions.filter { v in shipped.indices.contains(Int(v)) && shipped[Int(v)] != fingerprints[Int(v)] }
        guard ProcessInfo.processInfo.environment["PLANNER_WRITE_SCHEMA_DATA"] == "1" else {
            #expect(names == PlannerDatabase.plannerObjects.sorted(), "run scripts/schema-data")
            #expect(fingerprints == PlannerDatabase.schemaFingerprints, "run scripts/schema-data")
            #expect(cookies == PlannerDatabase.schemaCookies, "run scripts/schema-data")
            return
        }
        #expect(changed.isEmpty, "the schema of shipped versions \(changed) changed: a shipped migration was edited; add a new one instead")
        guard changed.isEmpty else { return }
        try Self.schemaDataSource(objects: names, fingerprints: fingerprints, cookies: cookies)
            .write(to: Self.schemaDataFile, atomically: true, encoding: .utf8)
    }

    static let schemaDataFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/PlannerStore/SchemaData.swift").standardized

    static func schemaDataSource(objects: [String], fingerprints: [UInt64], cookies: [Int64]) -> String {
        var lines: [String] = []
        var line = "       "
        for name in objects.map({ "\"\($0)\"," }) {
            if line.count + 1 + name.count > 118 { lines.append(line); line = "       " }
            line += " " + name
        }
        lines.append(line)
        func hex(_ n: UInt64) -> String {
            let digits = String(n, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: 16 - digits.count) + digits
            return "0x"
                + stride(from: 0, to: 16, by: 4).map { i in
                    String(padded[padded.index(padded.startIndex, offsetBy: i)..<padded.index(padded.startIndex, offsetBy: i + 4)])
                }.joined(separator: "_")
        }
        return """
            // swift-format-ignore-file
            // Written by `scripts/schema-data` from migrations/ (SchemaCheckTests checks it): do not edit by hand.
            extension PlannerDatabase {
                static let plannerObjects = [
            \(lines.joined(separator: "\n"))
                ]

                static let schemaFingerprints: [UInt64] = [  // by schema version, from 0
            \(fingerprints.enumerated().map { "        \(hex($1)),  // \($0)" }.joined(separator: "\n"))
                ]

                /// `PRAGMA schema_version` after migrations 1…version, by version from 0.
                static let schemaCookies: [Int64] = [\(cookies.map(String.init).joined(separator: ", "))]
            }

            """
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
        connection.close()
        #expect(throws: Never.self) { _ = try PlannerDatabase(path: path) }
    }
}
