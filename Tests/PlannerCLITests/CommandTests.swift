import Foundation
import PlannerHarness
import Testing

@Suite struct CommandTests {
    @Test func refillAndOpenAreSilentOnSuccess() throws {
        let h = try Harness()
        for args in [["refill"], ["open"], ["refill"], ["open"]] {
            let r = try h.planner(args + ["--db", h.db, "--now", "2026-11-23T12:00"])
            #expect(r.status == 0)
            #expect(r.out.isEmpty)
            #expect(r.err.isEmpty)
        }
    }

    @Test func midDayOpenCancelsTheRestOfTodayAndRefillNeverBringsItBack() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let verbose = try h.plannerOK(["open", "--verbose"], now: "2026-11-23T12:40")
        #expect(verbose.contains("cancelled 19 of today's slots"))
        // 12:30 had passed but was not delivered: it is cancelled too.
        #expect(
            try h.sqlite("SELECT state, reason FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_30'") == "cancelled|app opened")
        #expect(try h.sqlite("SELECT count(*) FROM request_history WHERE state = 'cancelled'") == "19")
        #expect(try h.sqlite("SELECT local_date, cancelled FROM app_open_events") == "2026-11-23|19")

        for now in ["2026-11-23T12:41", "2026-11-23T15:00", "2026-11-23T21:00"] {
            _ = try h.plannerOK(["refill"], now: now)
            let list = try parseList(h.plannerOK(["list", "--json"], now: now))
            #expect(list.count == 64)
            #expect(list.allSatisfy { !$0["identifier"]!.contains("_2026_11_23_") })
        }
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23%'") == "0")
        // Open twice: nothing more changes.
        let again = try h.plannerOK(["open", "--verbose"], now: "2026-11-23T13:00")
        #expect(again.contains("cancelled 0 of today's slots"))
        #expect(again.contains("added 0"))
    }

    /// The plan keeps the zone it was made in: a later command's TZ does not move it (login, cron and the
    /// ticker agree whatever their environment); `config set zone` does, at the same wall-clock times.
    @Test func theZoneIsASettingNotTheEnvironment() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T17:00", extraEnv: ["TZ": "America/Los_Angeles"])
        let before = try h.sqlite("SELECT group_concat(fire_at_ms) FROM pending_requests")
        // A cron job without TZ, and a shell in Tokyo: nothing moves.
        _ = try h.plannerOK(["refill"], now: "2026-11-24T01:00Z", extraEnv: ["TZ": ""])
        _ = try h.plannerOK(["refill"], now: "2026-11-24T10:00", extraEnv: ["TZ": "Asia/Tokyo"])
        #expect(try h.sqlite("SELECT group_concat(fire_at_ms) FROM pending_requests") == before)
        #expect(try h.sqlite("SELECT value FROM settings WHERE key = 'zone'") == "America/Los_Angeles")
        let status = try h.plannerOK(["status"], now: "2026-11-24T10:00", extraEnv: ["TZ": "Asia/Tokyo"])
        #expect(status.contains("planner config set zone Asia/Tokyo"))

        // Travelled to Tokyo: Tuesday 10:00 there. Moving the plan, then opening, by Tokyo's calendar.
        let set = try h.planner(["config", "set", "zone", "Asia/Tokyo", "--db", h.db, "--now", "2026-11-24T10:00"], env: ["TZ": "Asia/Tokyo"])
        #expect(set.status == 0 && set.err.isEmpty, "\(set.err)")
        _ = try h.plannerOK(["open"], now: "2026-11-24T10:00", extraEnv: ["TZ": "Asia/Tokyo"])
        let list = try parseList(h.plannerOK(["list", "--json"], now: "2026-11-24T10:00", extraEnv: ["TZ": "Asia/Tokyo"]))
        #expect(list.count == 64)
        #expect(list.allSatisfy { !$0["identifier"]!.contains("_2026_11_24_") && !$0["identifier"]!.contains("_2026_11_23_") })
        // Every pending slot fires at the wall-clock time its identifier names, in Tokyo (checked by zoneinfo).
        let expected = try parseList(h.python(pythonSlots, ["Asia/Tokyo", "2026-11-24T21:30"]))
        #expect(list.map { $0["identifier"] } == expected.map { $0["id"] })
        #expect(list.map { $0["fire_at_local"] } == expected.map { $0["fire_at"] })
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'retired' AND reason = 'zone changed to Asia/Tokyo'") != "0")
    }

    @Test func openOnAWeekendCancelsNothing() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-21T10:00")
        let before = try h.sqlite("SELECT identifier FROM pending_requests")
        let out = try h.plannerOK(["open", "--verbose"], now: "2026-11-21T10:05")
        #expect(out.contains("cancelled 0"))
        #expect(try h.sqlite("SELECT identifier FROM pending_requests") == before)
        #expect(try h.sqlite("SELECT count(*) FROM app_open_events") == "1")
    }

    @Test func staleRequestsAreMarkedMissedAndTheCapRefilled() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T14:00")  // 12:30, 13:00, 13:30 are past grace
        #expect(
            try h.sqlite("SELECT group_concat(identifier) FROM (SELECT identifier FROM request WHERE state = 'missed' ORDER BY fire_at_ms)")
                == "Noti_AppOpenPromotion_2026_11_23_12_30,Noti_AppOpenPromotion_2026_11_23_13_00,Noti_AppOpenPromotion_2026_11_23_13_30")
        // 14:00 is due right now, within 15 minutes: still pending, and the cap is full again.
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests") == "64")
        #expect(try h.sqlite("SELECT min(identifier) FROM pending_requests") == "Noti_AppOpenPromotion_2026_11_23_14_00")
        _ = try h.plannerOK(["refill", "--grace", "1m"], now: "2026-11-23T14:01:00.001")
        #expect(try h.sqlite("SELECT min(identifier) FROM pending_requests") == "Noti_AppOpenPromotion_2026_11_23_14_30")
    }

    @Test func statusSaysWhatIsNextAndWhetherTheAppWasOpened() throws {
        let h = try Harness()
        var out = try h.plannerOK(["status"], now: "2026-11-23T12:00")
        #expect(out.contains("nothing pending"))
        #expect(out.contains("refilled  never"))
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        out = try h.plannerOK(["status"], now: "2026-11-23T12:00")
        #expect(out.contains("next      Mon 2026-11-23 12:30 +09:00 (in 30m), a study reminder\n"), "\(out)")
        #expect(out.contains("pending   64/64"))
        #expect(out.contains("opened    not today"))
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:05")
        out = try h.plannerOK(["status", "--json"], now: "2026-11-23T12:06")
        let status = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect(status?["opened_today"] as? Bool == true)
        #expect(status?["first_open_today"] as? String == "2026-11-23T12:05:00+09:00")
        #expect(status?["next_id"] as? String == "Noti_AppOpenPromotion_2026_11_24_09_30")
        #expect(status?["pending"] as? Int == 64)
    }

    @Test func listTableShowsLocalTimes() throws {
        let h = try Harness()
        #expect(try h.plannerOK(["list"], now: "2026-11-23T12:00").contains("nothing pending"))
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let lines = try h.plannerOK(["list"], now: "2026-11-23T12:00").split(separator: "\n")
        #expect(lines.count == 66)  // header, 64 rows, footer
        #expect(lines[1].hasPrefix("Noti_AppOpenPromotion_2026_11_23_12_30  Mon 2026-11-23 12:30 +09:00  in 30m"))
        #expect(lines.last == "64/64 pending")
    }

    @Test func schemaIsStampedAndJournaledForSeveralProcesses() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        #expect(try h.sqlite("PRAGMA application_id") == String(0x504C_4E52))
        let migrations = Harness.repository.appendingPathComponent("migrations").path
        let count = try FileManager.default.contentsOfDirectory(atPath: migrations).filter { $0.hasSuffix(".sql") }.count
        #expect(try h.sqlite("PRAGMA user_version") == String(count))
        #expect(try h.sqlite("PRAGMA journal_mode") == "wal")
        #expect(try h.sqlite("PRAGMA integrity_check") == "ok")
        // The cap and uniqueness hold for anyone writing with sqlite3, not only for the planner.
        let insert =
            "INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, created_at_ms, changed_at_ms) VALUES ('extra', 'oneoff', 0, '2026-11-23', 'x', 'UTC', 't', 'b', 0, 0)"
        let r = try h.run("/usr/bin/env", ["sqlite3", h.db, insert], env: h.env)
        #expect(r.status != 0)
        #expect(r.err.contains("at most 64 requests may be pending"))
    }

    @Test func nowComesFromPlannerNowWhenNotGiven() throws {
        let h = try Harness()
        let r = try h.planner(["refill", "--db", h.db], env: ["PLANNER_NOW": "2026-11-23T21:00"])
        #expect(r.status == 0)
        #expect(try h.sqlite("SELECT min(identifier) FROM pending_requests") == "Noti_AppOpenPromotion_2026_11_23_21_30")
        // --now wins over PLANNER_NOW.
        let s = try h.planner(["status", "--db", h.db, "--now", "2026-11-23T21:10"], env: ["PLANNER_NOW": "garbage"])
        #expect(s.status == 0)
    }

    @Test func helpAndVersion() throws {
        let h = try Harness()
        let help = try h.planner(["--help"])
        #expect(help.status == 0)
        for sub in ["refill", "open", "list", "status"] { #expect(help.out.contains(sub)) }
        let subHelp = try h.planner(["open", "--help"])
        #expect(subHelp.out.contains("--db") && subHelp.out.contains("--now") && subHelp.out.contains("--verbose"))
        let version = try h.planner(["--version"])
        #expect(version.status == 0)
        #expect(version.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    /// The help says what the README says (issue 30): logging in does not close the day; "Start studying",
    /// the launcher or `planner study` does, and `open --login` is for an account used only for study.
    @Test func theHelpSaysWhatClosesTheDay() throws {
        let h = try Harness()
        let help = try h.planner(["--help"]).out
        let open = try h.planner(["open", "--help"]).out
        for text in [help, open] {
            let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(!words.contains("from your login script") && !words.contains("Run it from your login"), "\(text)")
            #expect(words.contains("Start studying") && words.contains("planner study"), "\(text)")
            #expect(words.contains("setup --login-hook"), "\(text)")
        }
        // Like the other help texts, the overview fits 80 columns (ArgumentParser wraps it there).
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(help)")
        #expect(open.split(separator: "\n").filter { !$0.hasPrefix("USAGE:") }.allSatisfy { $0.count <= 80 }, "\(open)")
    }
}
