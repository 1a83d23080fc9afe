import Foundation
import PlannerHarness
import Testing

/// Every change a person or program makes is an event a user can read with `sqlite3` (the `events` view),
/// and an event saved in the inbox by another program is applied once, at its own time, by the next write.
@Suite struct EventTests {
    @Test func eachCommandsChangeIsAnEventRow() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["skip", "2026-12-24", "--reason", "Christmas Eve"], now: "2026-11-23T08:01")
        _ = try h.plannerOK(["skip", "--remove", "2026-12-24"], now: "2026-11-23T08:02")
        _ = try h.plannerOK(["pause", "--until", "2026-11-23T09:00"], now: "2026-11-23T08:03")
        _ = try h.plannerOK(["resume"], now: "2026-11-23T08:04")
        let config = try h.planner(["config", "set", "interval", "45m", "--db", h.db, "--now", "2026-11-23T08:05"])
        #expect(config.status == 0, "\(config.err)")
        _ = try h.plannerOK(["open"], now: "2026-11-23T08:06")
        let study = try h.planner(["study", "--db", h.db, "--now", "2026-11-23T08:07", "--", "/bin/true"])
        #expect(study.status == 0, "\(study.err)")
        // A refill changes nothing the user owns: no event.
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:08")
        #expect(
            try h.sqlite("SELECT group_concat(at || ' ' || origin || ' ' || kind, char(10)) FROM events") == """
                2026-11-22T23:01:00.000Z skip skip
                2026-11-22T23:02:00.000Z skip unskip
                2026-11-22T23:03:00.000Z pause pause
                2026-11-22T23:04:00.000Z resume resume
                2026-11-22T23:05:00.000Z config settings
                2026-11-22T23:06:00.000Z open open
                2026-11-22T23:07:00.000Z study open
                """)
        #expect(try h.sqlite("SELECT payload FROM events WHERE kind = 'skip'") == "dates=2026-12-24 reason=Christmas%20Eve")
        #expect(try h.sqlite("SELECT payload FROM events WHERE kind = 'settings'") == "set.interval=45m")
        // Each open says which event it was and where it came from.
        #expect(
            try h.sqlite("SELECT group_concat(origin || ':' || (event_id IN (SELECT id FROM event)), ' ') FROM app_open_events") == "open:1 study:1")
        #expect(try h.sqlite("SELECT count(DISTINCT id) FROM event WHERE id GLOB '" + String(repeating: "[0-9a-f]", count: 32) + "'") == "7")
    }

    /// Another program (here python, from the format in PlanEventText's documentation) saves a skip, a
    /// settings change and two lines no planner would write: the next write applies the first two at
    /// their own instants, sets the others aside with one warning each, and a copy arriving again is
    /// not applied twice.
    @Test func eventsSavedByAnotherProgramAreAppliedOnceAtTheirOwnTime() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        let inbox = h.db + ".opens"
        let script = """
            import os, sys
            folder = sys.argv[1]
            os.makedirs(folder, mode=0o700, exist_ok=True)
            lines = {
                "001795392000000-py-a.open": "planner-event 2 id=aaaaaaaa00000001 at=1795392000000 origin=skip kind=skip dates=2026-11-23 reason=sick%20day\\n",
                "001795392060000-py-b.open": "planner-event 2 id=aaaaaaaa00000002 at=1795392060000 origin=config kind=settings set.title=Study%20now\\n",
                "001795392120000-py-c.open": "planner-event 2 id=aaaaaaaa00000003 at=1795392120000 origin=config kind=settings set.interval=forever\\n",
                "001795392180000-py-d.open": "planner-event 2 id=AAAA at=1795392180000 origin=skip kind=resume\\n",
            }
            for name, line in lines.items():
                with open(os.path.join(folder, name), "w") as f:
                    f.write(line)
            """
        _ = try h.python(script, [inbox])
        let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:00"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.split(separator: "\n").filter { $0.hasPrefix("warning: a saved change") }.count == 2, "\(r.err)")
        // 1795392000000 is 2026-11-23T09:00+09:00: the skip took that day's slots out then, not at 10:00.
        #expect(
            try h.sqlite("SELECT count(*), min(changed_at_ms) FROM request WHERE state = 'skipped' AND local_date = '2026-11-23'")
                == "25|1795392000000")
        #expect(try h.sqlite("SELECT reason FROM skipped_dates") == "sick day")
        #expect(try h.sqlite("SELECT value, changed_at_ms FROM setting WHERE key = 'title'") == "Study now|1795392060000")
        #expect(try h.sqlite("SELECT value FROM setting WHERE key = 'interval'") == "30m")
        #expect(try h.sqlite("SELECT group_concat(origin || ' ' || kind, ', ') FROM events") == "skip skip, config settings")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: inbox).sorted()
                == ["001795392120000-py-c.open.rejected", "001795392180000-py-d.open.rejected"])
        // The same skip arriving again (a copy) changes nothing, even after its removal.
        _ = try h.plannerOK(["skip", "--remove", "2026-11-23"], now: "2026-11-23T10:01")
        _ = try h.python(script, [inbox])
        let before = try h.sqlite("SELECT group_concat(local_date || removed_at_ms, ' ') FROM skipped_date")
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:02"])
        #expect(try h.sqlite("SELECT group_concat(local_date || removed_at_ms, ' ') FROM skipped_date") == before)
        #expect(try h.sqlite("SELECT count(*) FROM event") == "3")
    }
}
