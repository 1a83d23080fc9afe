import Foundation
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerStore

@Suite struct StoreTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func freshDatabaseIsMigratedOnceAndStamped() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        #expect(try db.inspection.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(try db.inspection.integer("PRAGMA application_id") == Int64(PlannerDatabase.applicationID))
        #expect(try db.inspection.text("PRAGMA journal_mode") == "wal")
        #expect(try db.inspection.integer("PRAGMA busy_timeout") ?? 0 >= 5000)
        // Opening again applies nothing twice (the migration would fail on CREATE TABLE if it ran again).
        let again = try PlannerDatabase(path: path)
        #expect(try again.inspection.integer("SELECT count(*) FROM plan") == 1)
    }

    @Test func everyMigrationFileIsEmbedded() throws {
        // The migrations folder is the schema's only source: each file there must be compiled in.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../migrations").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files == Migrations.all.map(\.name))
        for m in Migrations.all {
            #expect(FileManager.default.contents(atPath: folder + "/" + m.name) == Data(m.sql.utf8))
            #expect(m.name.hasPrefix(String(format: "%04d_", m.version)))
        }
    }

    @Test func refillFillsAndIsIdempotent() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        #expect(try db.refill(now: at("2026-11-23T12:00"), zone: seoul).added.count == 64)
        #expect(try db.refill(now: at("2026-11-23T12:00"), zone: seoul).isEmpty)
        let pending = try db.pendingRequests()
        #expect(pending.count == 64)
        #expect(pending.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_30")
        #expect(try db.inspection.integer("SELECT count(*) FROM request") == 64)
    }

    @Test func openThenRefillSameDay() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T08:00"), zone: seoul)
        let open = try db.recordAppOpen(now: at("2026-11-23T12:10"), zone: seoul)
        #expect(open.cancelled.count == 25)
        for now in ["2026-11-23T12:11", "2026-11-23T20:00"] {
            try db.refill(now: at(now), zone: seoul)
            #expect(try db.pendingRequests().allSatisfy { !$0.identifier.contains("2026_11_23") })
        }
        #expect(try db.inspection.integer("SELECT count(*) FROM request WHERE state = 'cancelled'") == 25)
        #expect(try db.inspection.text("SELECT reason FROM request WHERE state = 'cancelled' LIMIT 1") == "app opened")
        let status = try db.status(now: at("2026-11-23T20:00"), zone: seoul)
        #expect(status.firstOpenToday == at("2026-11-23T12:10"))
        #expect(status.pendingCount == 64)
        #expect(status.lastRefill == at("2026-11-23T20:00"))
    }

    @Test func schemaRefusesDuplicatesOverflowAndBackwardTransitions() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let c = db.inspection
        // Make room, then try to add an identifier that is already pending.
        try c.execute("UPDATE request SET state = 'missed' WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_30'")
        #expect(throws: SQLiteError.self) {
            try c.execute(
                """
                INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, created_at_ms, changed_at_ms)
                VALUES ('Noti_AppOpenPromotion_2026_11_23_13_00', 'slot', 0, '2026-11-23', 'x', 'UTC', 't', 'b', 0, 0)
                """)
        }
        // A finished request never comes back to pending.
        #expect(throws: SQLiteError.self) {
            try c.execute("UPDATE request SET state = 'pending' WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_30'")
        }
        // The 64th slot again fits; a 65th does not, whoever writes it.
        try c.execute(
            """
            INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, created_at_ms, changed_at_ms)
            VALUES ('one', 'oneoff', 0, '2026-11-23', 'x', 'UTC', 't', 'b', 0, 0)
            """)
        do {
            try c.execute(
                """
                INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, created_at_ms, changed_at_ms)
                VALUES ('two', 'oneoff', 0, '2026-11-23', 'x', 'UTC', 't', 'b', 0, 0)
                """)
            Issue.record("the 65th pending request was accepted")
        } catch {
            #expect(error.message.contains("at most 64"))
        }
    }

    @Test func aFailedWriteLeavesNothingBehind() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        struct Boom: Error {}
        #expect(throws: PlannerError.self) {
            try db.write { t in
                try t.connection.execute("INSERT INTO app_open (opened_at_ms, local_date, local_time, zone) VALUES (0, '2026-11-23', 'x', 'UTC')")
                throw PlannerError.failure("boom")
            }
        }
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 0)
        #expect(sqlite3AutocommitIsOn(db))
    }

    @Test func aWriterWaitsForAnotherInsteadOfFailingBusy() throws {
        let path = temporaryDatabasePath()
        let holder = try PlannerDatabase(path: path)
        let waiter = try PlannerDatabase(path: path)
        try holder.inspection.execute("BEGIN IMMEDIATE")
        nonisolated(unsafe) let held = holder
        let release = Thread {
            usleep(400_000)
            try? held.inspection.execute("COMMIT")
        }
        release.start()
        let started = SystemClock.now()
        let decision = try waiter.refill(now: at("2026-11-23T12:00"), zone: seoul)
        #expect(decision.added.count == 64)
        #expect(SystemClock.now() - started >= 300)  // it really waited for the lock
    }

    /// A text is bound from its own UTF-8 with its length: it must store what the C string did, ending at a
    /// NUL, and an empty one as empty text, never NULL, whether Swift keeps it inline (15 bytes) or not.
    @Test func textsAreBoundAsTheCStringWas() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let cases: [(String, String)] = [
            ("a\0b", "a"), ("\0x", ""), ("", ""), ("fifteen bytes!!", "fifteen bytes!!"), ("sixteen bytes!!!", "sixteen bytes!!!"),
            ("공부 시간", "공부 시간"), (String(repeating: "x", count: 5_000) + "\0y", String(repeating: "x", count: 5_000)),
        ]
        for (bound, stored) in cases {
            let stmt = try db.inspection.prepare("SELECT ?, typeof(?), length(CAST(? AS BLOB))")
            try stmt.bind([.text(bound), .text(bound), .text(bound)])
            #expect(try stmt.step())
            #expect(
                stmt.text(0) == stored && stmt.text(1) == "text" && stmt.int64(2) == Int64(stored.utf8.count), "\(bound.prefix(20).debugDescription)")
        }
    }

    /// `open --verbose`'s report comes with the open, from its own transaction: the plan it was decided in;
    /// a plain open reads none.
    @Test func anOpensReportIsThePlanItWasDecidedIn() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        _ = try db.refill(now: at("2026-11-23T08:00"), zone: seoul)
        try db.inspection.execute("UPDATE setting SET value = 'Before' WHERE key = 'title'")
        let event = PlannerDatabase.openEvent(now: at("2026-11-23T12:00"), takenIn: seoul, policy: nil, origin: "open")
        let recorded = try db.recordAppOpen(event, reporting: true)
        let planZone = try db.planSettings().zone.name
        #expect(recorded.plan?.settings.title == "Before" && recorded.plan?.zone.name == planZone)
        #expect(recorded.decision.cancelled.count > 0)
        let quiet = try db.recordAppOpen(
            PlannerDatabase.openEvent(now: at("2026-11-23T12:10"), takenIn: seoul, policy: nil, origin: "open"), reporting: false)
        #expect(quiet.plan == nil)
    }

    /// A statement bound again with fewer values than it has parameters leaves none of the earlier binding.
    @Test func aShorterBindingLeavesNoEarlierValue() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let stmt = try db.inspection.prepare("SELECT ?1, ?2")
        try stmt.bind([.text("a"), .integer(2)])
        #expect(try stmt.step() && stmt.text(0) == "a" && stmt.int64(1) == 2)
        try stmt.bind([.text("c")])
        #expect(try stmt.step() && stmt.text(0) == "c" && stmt.isNull(1))
    }

    @Test func hotQueriesUseIndexesSoHistoryDoesNotSlowThemDown() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        var tables: Set<String> = []
        let names = try db.inspection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        while try names.step() { tables.insert(names.text(0)) }
        // The store's own SQL; with the parameters unbound the planner still picks its plan.
        for sql in HotQueries.all {
            let plan = try db.inspection.prepare("EXPLAIN QUERY PLAN " + sql)
            var details: [String] = []
            while try plan.step() { details.append(plan.text(3)) }
            // `setting` holds one row per key and `request_state` one per state, whatever the history:
            // scanning them is reading them (the state list is read once per statement). A scan of anything
            // but a table (a subquery's few rows, a SELECT's one constant row) is not a scan of the history.
            #expect(
                details.allSatisfy { detail in
                    let words = detail.split(separator: " ")
                    return words.first != "SCAN" || words.count < 2 || !tables.contains(String(words[1])) || detail.contains("INDEX")
                        || detail == "SCAN setting" || detail == "SCAN request_state"
                },
                "\(sql): \(details)")
        }
    }
}

func sqlite3AutocommitIsOn(_ db: PlannerDatabase) -> Bool {
    (try? db.inspection.execute("BEGIN; ROLLBACK")) != nil
}
