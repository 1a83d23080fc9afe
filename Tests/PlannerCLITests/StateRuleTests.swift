import Foundation
import PlannerHarness
import Testing

/// The state rules hold in a user's own `sqlite3` shell, where foreign keys are off: they come from the
/// `request_state` and `request_transition` rows, so a new state is rows, not a rebuilt table.
@Suite struct StateRuleTests {
    /// A plan where Monday's morning slots were cancelled by an open: pending and cancelled rows.
    func plan() throws -> Harness {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:00")
        return h
    }

    /// Runs SQL in the real sqlite3 shell with foreign keys off, as a user's shell has them.
    func shell(_ h: Harness, _ sql: String) throws -> Harness.Result {
        try h.run("/usr/bin/env", ["sqlite3", h.db, "PRAGMA foreign_keys = OFF; " + sql], env: h.env)
    }

    @Test func aStateNotInTheTableIsRefused() throws {
        let h = try plan()
        let before = h.bytes(h.db)
        let inserted = try shell(
            h,
            """
            INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, state, created_at_ms, changed_at_ms)
            VALUES ('x', 'oneoff', 1, '2026-11-24', 't', 'Asia/Seoul', 't', 'b', 'snoozed', 1, 1)
            """)
        #expect(inserted.status != 0)
        #expect(inserted.err.contains("planner: not a request state"), "\(inserted.err)")
        let updated = try shell(h, "UPDATE request SET state = 'snoozed' WHERE state = 'pending'")
        #expect(updated.status != 0)
        #expect(updated.err.contains("planner: not a request state"), "\(updated.err)")
        #expect(h.bytes(h.db) == before)
    }

    @Test func aTransitionNotInTheTableIsRefused() throws {
        let h = try plan()
        let before = h.bytes(h.db)
        let back = try shell(h, "UPDATE request SET state = 'pending' WHERE state = 'cancelled'")
        #expect(back.status != 0)
        #expect(back.err.contains("planner: a finished request cannot change state"), "\(back.err)")
        #expect(h.bytes(h.db) == before)
        // An allowed one goes through, in the same shell: pending -> missed.
        let allowed = try shell(h, "UPDATE request SET state = 'missed' WHERE id = (SELECT min(id) FROM request WHERE state = 'pending')")
        #expect(allowed.status == 0, "\(allowed.err)")
    }

    /// What a migration adding a state does: rows only. The new state is then accepted, and its own
    /// transitions are the only ways out of it.
    @Test func aNewStateIsRows() throws {
        let h = try plan()
        #expect(
            try shell(
                h,
                """
                INSERT INTO request_state (name, ends_slot, meaning) VALUES ('snoozed', 0, 'put off by the user');
                INSERT INTO request_transition (from_state, to_state) VALUES ('pending', 'snoozed'), ('snoozed', 'snoozed');
                UPDATE request SET state = 'snoozed' WHERE id = (SELECT min(id) FROM request WHERE state = 'pending');
                """
            ).status == 0)
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'snoozed'") == "1")
        let out = try shell(h, "UPDATE request SET state = 'pending' WHERE state = 'snoozed'")
        #expect(out.err.contains("planner: a finished request cannot change state"), "\(out.err)")
        #expect(try h.sqlite("SELECT may_become FROM request_states WHERE state = 'pending'").contains("snoozed"))
    }
}
