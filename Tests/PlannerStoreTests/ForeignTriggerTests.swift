import CSQLite
import Foundation
import PlannerTestSupport
import SchemaFingerprint
import Testing

@testable import PlannerStore

/// A trigger's time is read from the SQL SQLite itself stored, so the oracle is SQLite: whatever form a
/// trigger was written in (a name quoted any of four ways, comments, `IF NOT EXISTS`, `main.`, lower
/// case), SQLite accepted it and `TriggerText.runsAfter` must say AFTER exactly when it was written AFTER.
/// CI runs the fixed seeds; many more: `PLANNER_PROPERTY_SEEDS=20000 swift test --filter ForeignTriggerTests`.
@Suite struct ForeignTriggerTests {
    @Test func aTriggersTimeIsReadAsWritten() throws {
        let count = ProcessInfo.processInfo.environment["PLANNER_PROPERTY_SEEDS"].flatMap { UInt64($0) } ?? 400
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute("CREATE TABLE t (a, b); CREATE VIEW v AS SELECT * FROM t; CREATE TABLE log (x)")
        var seen: [String: Int] = [:]
        for seed in 0..<count {
            var rng = SeededGenerator(seed: seed)
            func gap() -> String {
                [" ", "  ", "\n", "\t", " /* after before */ ", " -- AFTER\n", "/**/", " /* -- */ "].randomElement(using: &rng)!
                    .replacingOccurrences(of: "/**/", with: Bool.random(using: &rng) ? " /**/ " : "/**/")
            }
            func cased(_ word: String) -> String {
                String(word.map { Bool.random(using: &rng) ? Character($0.uppercased()) : Character($0.lowercased()) })
            }
            let bare = ["after", "before", "x", "instead", "_a$1", "트리거", "after_before"].randomElement(using: &rng)!
            let inner = ["after", "before x", "a\"b", "a]b", "a`b", "a'b", "--", "/*", " "].randomElement(using: &rng)!
            let name: String
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: name = bare + String(seed)
            case 1: name = "\"" + inner.replacingOccurrences(of: "\"", with: "\"\"") + "\(seed)\""
            case 2: name = "[" + inner.replacingOccurrences(of: "]", with: "") + "\(seed)]"
            case 3: name = "`" + inner.replacingOccurrences(of: "`", with: "``") + "\(seed)`"
            default: name = "'" + inner.replacingOccurrences(of: "'", with: "''") + "\(seed)'"
            }
            let onView = Int.random(in: 0..<5, using: &rng) == 0
            let time = onView ? "INSTEAD OF" : ["", "BEFORE", "AFTER"].randomElement(using: &rng)!
            let event = ["INSERT", "DELETE", "UPDATE", "UPDATE OF b"].randomElement(using: &rng)!
            var sql = cased("CREATE") + gap()
            if Bool.random(using: &rng) {
                sql += cased("TRIGGER") + gap() + cased("IF") + gap() + cased("NOT") + gap() + cased("EXISTS")
            } else {
                sql += cased("TRIGGER")
            }
            sql += gap() + (Bool.random(using: &rng) ? "main" + gap() + "." + gap() : "") + name + gap()
            sql += time.split(separator: " ").map { cased(String($0)) }.joined(separator: gap()) + (time.isEmpty ? "" : gap())
            sql += cased(event) + gap() + cased("ON") + gap() + (onView ? "v" : "t") + gap() + "BEGIN INSERT INTO log VALUES (1); END"
            try connection.execute(sql)
            let stmt = try connection.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'")
            #expect(try stmt.step(), "\(sql)")
            let stored = stmt.text(1)
            #expect(TriggerText.runsAfter(stored) == (time == "AFTER"), "seed \(seed): \(stored)")
            seen[time.isEmpty ? "none" : time, default: 0] += 1
            try connection.execute("DROP TRIGGER " + SchemaFingerprint.identifier(stmt.text(0)))
        }
        #expect(seen.count == 4 && seen.values.allSatisfy { $0 > count / 10 }, "\(seen)")
    }

    /// What SQLite would not store is refused: it reads as not AFTER.
    @Test(arguments: [
        "", "CREATE", "CREATE TRIGGER", "CREATE TRIGGER \"x", "CREATE TABLE after", "CREATE TRIGGER x /* AFTER", "DROP TRIGGER x AFTER",
    ])
    func whatCannotBeReadIsNotAfter(_ sql: String) {
        #expect(!TriggerText.runsAfter(sql))
    }
}
