import CSQLite
import Foundation
import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// The request states are rows of `request_state` and `request_transition` (migration 0007): the Swift
/// enum must say the same, and every change of state the store makes must be one the table allows.
@Suite struct RequestStateTableTests {
    func rows(_ db: PlannerDatabase, _ sql: String) throws -> [[String]] {
        let stmt = try db.inspection.prepare(sql)
        var rows: [[String]] = []
        while try stmt.step() { rows.append((0..<sqlite3_column_count(stmt.handle)).map { stmt.text($0) }) }
        return rows
    }

    @Test func theEnumIsTheTable() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let table = try rows(db, "SELECT name, ends_slot FROM request_state ORDER BY name")
        let swift = RequestState.allCases.map { [$0.rawValue, $0.endsTheSlot ? "1" : "0"] }.sorted { $0[0] < $1[0] }
        #expect(table == swift)
    }

    /// The sets of states statements use are made from the enum's rules (`RequestState.sqlList`): pinned here,
    /// and each SQL list names exactly the states its rule holds for.
    @Test func theSQLListsAreTheRules() {
        #expect(RequestState.waitingSQL == "('pending', 'displaced')")
        #expect(RequestState.happenedSQL == "('delivered', 'missed', 'failed')")
        for state in RequestState.allCases {
            #expect(RequestState.waitingSQL.contains("'\(state.rawValue)'") == state.isWaiting, "\(state)")
            #expect(RequestState.happenedSQL.contains("'\(state.rawValue)'") == state.happenedToTheUser, "\(state)")
        }
    }

    /// Each `UPDATE request SET state` of the store: PlanStore.transition and DeliveryStore (claim, finish,
    /// abandon, replace) move a pending or displaced row to what a decision says, and a claimed one on.
    static let storeTransitions: [(RequestState, RequestState)] =
        [RequestState.pending, .displaced].flatMap { from in
            [RequestState.pending, .cancelled, .missed, .displaced, .paused, .skipped, .retired, .replaced].map { (from, $0) }
        } + [
            (.pending, .delivering), (.delivering, .delivered), (.delivering, .failed), (.delivering, .missed),
            // An open whose study day was derived again (SharedHistoryStore.rederiveOpens) frees its old day.
            (.cancelled, .retired),
        ]

    @Test func everyTransitionTheStoreMakesIsAllowed() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let allowed = Set(try rows(db, "SELECT from_state, to_state FROM request_transition").map { "\($0[0]) -> \($0[1])" })
        for (from, to) in Self.storeTransitions {
            #expect(allowed.contains("\(from.rawValue) -> \(to.rawValue)"))
        }
        // And no finished state (one that ends the slot, or stays as history) moves on, except a claim.
        for state in RequestState.allCases where ![.pending, .displaced, .delivering].contains(state) {
            let onward: Set<String> = state == .cancelled ? ["cancelled -> retired"] : []
            #expect(allowed.filter { $0.hasPrefix("\(state.rawValue) -> ") } == Set(["\(state.rawValue) -> \(state.rawValue)"]).union(onward))
        }
    }

    /// The states schema 6's CHECK allowed: a state added later cannot be in a file of that version.
    static let statesOfSchema6: [RequestState] = [
        .pending, .delivering, .delivered, .missed, .failed, .cancelled, .displaced, .replaced, .paused, .skipped, .retired,
    ]

    /// The reference's list of states (docs/sql.md, "Rows are never deleted: …") names every state, each once.
    @Test func theSQLReferenceNamesEveryState() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/sql.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "Rows are never deleted:"))
        let rest = text[start.lowerBound...]
        let paragraph = String(rest.range(of: "\n\n").map { rest[..<$0.lowerBound] } ?? rest)
        for state in RequestState.allCases {
            #expect(
                paragraph.components(separatedBy: "`\(state.rawValue)`").count == 2, "docs/sql.md's list of states names `\(state.rawValue)` once")
        }
    }

    /// A plan at schema 6 with a row in every state (and an answered one) upgrades keeping every row as it
    /// was, and its schema then is exactly a new plan's.
    @Test func aPlanWithHistoryUpgradesKeepingEveryRow() throws {
        let path = temporaryDatabasePath()
        let old = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        for migration in Migrations.all where migration.version <= 6 {
            try old.execute(migration.sql)
        }
        try old.execute("PRAGMA application_id = \(PlannerDatabase.applicationID)")
        try old.execute("PRAGMA user_version = 6")
        let insert = try old.prepare(
            """
            INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, state,
                                 created_at_ms, changed_at_ms, reason, delivered_at_ms, error, claimed_at_ms, attempts)
            VALUES (?, 'slot', ?, '2026-11-23', '2026-11-23T09:30:00+09:00', 'Asia/Seoul', 't', 'b', ?, 1, 2, 'r', 3, 'e', 4, 5)
            """)
        for (n, state) in Self.statesOfSchema6.enumerated() {
            try insert.run(.text("Noti_\(state.rawValue)"), .integer(1_795_444_200_000 + Int64(n)), .text(state.rawValue))
        }
        try old.execute(
            "INSERT INTO notification_action (request_id, identifier, action, at_ms, outcome) VALUES (3, 'Noti_delivered', 'start', 9, 'opened the day')"
        )
        // Schema 6's columns (later ones add columns, empty on old rows).
        let dump = """
            SELECT id, identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, state, created_at_ms, changed_at_ms,
                   reason, delivered_at_ms, error, claimed_at_ms, attempts FROM request ORDER BY id;
            SELECT * FROM notification_action; SELECT * FROM setting ORDER BY key
            """
        let before = try tableText(old, dump)
        old.close()

        let upgraded = try PlannerDatabase(path: path)
        #expect(try upgraded.inspection.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(try tableText(upgraded.inspection, dump) == before)
        #expect(try tableText(upgraded.inspection, "PRAGMA foreign_key_check") == "")
        let fresh = try PlannerDatabase(path: temporaryDatabasePath())
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name"
        #expect(try tableText(upgraded.inspection, schema) == tableText(fresh.inspection, schema))
        #expect(
            try upgraded.read { try PlannerDatabase.schemaFingerprint(of: $0.connection) }
                == PlannerDatabase.schemaFingerprints[Int(Migrations.latestVersion)])
    }

    func tableText(_ connection: Connection, _ sql: String) throws -> String {
        var text = ""
        for statement in sql.split(separator: ";") {
            let stmt = try connection.prepare(String(statement))
            while try stmt.step() {
                text += (0..<sqlite3_column_count(stmt.handle)).map { stmt.isNull($0) ? "NULL" : stmt.text($0) }.joined(separator: "|") + "\n"
            }
        }
        return text
    }
}
