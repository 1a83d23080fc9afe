import Foundation
import PlannerCore
import PlannerHarness
import Testing

/// `planner history` shows by default what happened to the user — delivered, answered, missed, failed, and
/// the opens — and the plan's bookkeeping (retired, displaced, cancelled …) with `--all`.
@Suite struct HistoryViewTests {
    static func day() throws -> Harness {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        // One change of interval pushes most pending slots out of the 64 (displaced) for sooner ones.
        try h.configOK(["set", "interval", "5m"], now: "2026-11-23T09:01")
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T09:35", stderrAllowed: true)
        // 09:40 and 09:45 pass with no ticker: recorded missed at 10:05, 09:50-10:00 superseded by 10:05.
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T10:05", stderrAllowed: true)
        _ = try h.plannerOK(["open"], now: "2026-11-23T10:07")
        return h
    }

    @Test func theDefaultViewIsWhatHappenedToTheUser() throws {
        let h = try Self.day()
        let bookkeeping = try Int(h.sqlite("SELECT count(*) FROM request WHERE state IN ('retired', 'displaced', 'cancelled')")) ?? 0
        #expect(bookkeeping >= 50)
        let out = try h.plannerOK(["history", "--limit", "100"], now: "2026-11-23T10:08")
        let lines = out.split(separator: "\n").map(String.init)
        let rows = lines.dropFirst().filter { !$0.contains("bookkeeping rows") }
        // A line of reminders missed together ("3 reminders … missed …") counts each of them.
        let states = rows.map { $0.split(separator: " ", omittingEmptySubsequences: true) }.flatMap { words -> [String] in
            let state = words.first {
                ["delivered", "answered", "missed", "failed", "opened", "retired", "displaced", "cancelled", "replaced", "skipped", "paused"]
                    .contains(String($0))
            }.map(String.init)
            let times = words.count > 1 && words[1] == "reminders" ? Int(words[0]) ?? 1 : 1
            return state.map { Array(repeating: $0, count: times) } ?? []
        }
        // What the database says happened to the user, counted there.
        let delivered = try Int(h.sqlite("SELECT count(*) FROM request WHERE state IN ('delivered', 'missed', 'failed')")) ?? -1
        let opens = try Int(h.sqlite("SELECT count(*) FROM app_open")) ?? -1
        #expect(states.count == delivered + opens, "\(out)")
        #expect(Set(states).isSubset(of: ["delivered", "missed", "failed", "opened", "answered"]), "\(out)")
        #expect(states.first == "opened", "\(out)")
        #expect(rows.first?.hasPrefix("planner open ") == true, "\(out)")
        #expect(states.contains("delivered") && states.contains("missed"))
        // The bookkeeping is counted, and --all shows it.
        #expect(lines.last == "\(bookkeeping) bookkeeping rows (cancelled, displaced, retired …) not shown: planner history --all", "\(out)")
        let all = try h.plannerOK(["history", "--all", "--limit", "500"], now: "2026-11-23T10:08")
        #expect(all.contains(" displaced ") && all.contains(" cancelled "))
        let everything = try Int(h.sqlite("SELECT count(*) FROM request WHERE state <> 'pending'")) ?? -1
        // Each line one row, but a line of reminders missed together ("N reminders …"), N rows.
        let shown = all.split(separator: "\n").dropFirst().map { line -> Int in
            let words = line.split(separator: " ")
            return words.count > 1 && words[1] == "reminders" ? Int(words[0]) ?? 1 : 1
        }
        #expect(shown.reduce(0, +) == everything + opens, "\(all)")
    }

    /// A change of zone retires a day's worth of reminders at once: the text says so in one line, with the
    /// times they were due, so the day's open is not pushed off the page; --json keeps every row.
    @Test func remindersMissedTogetherAreOneLine() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:00", stderrAllowed: true)
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:01")
        let missed = try Int(h.sqlite("SELECT count(*) FROM request WHERE state = 'missed'")) ?? 0
        #expect(missed >= 3)
        let out = try h.plannerOK(["history", "--limit", "3"], now: "2026-11-23T12:02")
        let rows = out.split(separator: "\n").dropFirst().filter { !$0.contains("bookkeeping rows") }
        #expect(rows.count == 3, "\(out)")
        #expect(rows.first?.hasPrefix("planner open ") == true, "\(out)")
        #expect(rows.last?.hasPrefix("\(missed) reminders ") == true, "\(out)")
        #expect(rows.last?.contains("Mon 2026-11-23 09:30 +09:00 … Mon 2026-11-23 11:30 +09:00") == true, "\(out)")
        let json = try h.plannerOK(["history", "--json", "--limit", "100"], now: "2026-11-23T12:02")
        #expect(json.components(separatedBy: "\"state\": \"missed\"").count - 1 == missed, "\(json)")
    }

    /// `--limit` lines of whole groups, however many rows they hold: six plans missed whole (64 rows each, more
    /// than the text reads ahead at first), five lines of 64.
    @Test func theLimitCountsWholeGroups() throws {
        let h = try Harness()
        var day = try #require(LocalDate(iso: "2026-11-02"))
        for _ in 0..<6 {
            _ = try h.plannerOK(["refill"], now: "\(day)T08:00")
            day = day.adding(days: 21)
            _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "\(day)T07:00", stderrAllowed: true)
        }
        let out = try h.plannerOK(["history", "--limit", "5"], now: "2027-03-01T08:00")
        let rows = out.split(separator: "\n").dropFirst().filter { !$0.contains("bookkeeping rows") }
        #expect(rows.count == 5 && rows.allSatisfy { $0.hasPrefix("64 reminders ") }, "\(out)")
    }

    /// A pause and a resume are things the user did: in the history, with the pause's end.
    @Test func pauseAndResumeAreInTheHistory() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["pause", "--until", "2026-11-25"], now: "2026-11-23T08:10")
        _ = try h.plannerOK(["resume"], now: "2026-11-24T08:10")
        let out = try h.plannerOK(["history"], now: "2026-11-24T08:11")
        let rows = out.split(separator: "\n").dropFirst().filter { !$0.contains("bookkeeping rows") }
        #expect(rows.count == 2, "\(out)")
        #expect(rows.first?.hasPrefix("planner resume ") == true && rows.first?.contains(" resumed ") == true, "\(out)")
        #expect(rows.last?.hasPrefix("planner pause ") == true && rows.last?.contains(" paused ") == true, "\(out)")
        #expect(rows.last?.contains("until Wed 2026-11-25 00:00 +09:00") == true, "\(out)")
        let json = try h.plannerOK(["history", "--json"], now: "2026-11-24T08:11")
        #expect(json.contains("\"kind\": \"pause\"") && json.contains("\"kind\": \"resume\""), "\(json)")
    }

    /// Issue 33: `list --json` and `history --json` use the views' names with the views' values — each field
    /// the view has is what `sqlite3` reads from the view for that row (the views' SQL is the oracle, not the
    /// code that prints the JSON) — and still print the earlier names `id` (and `fire_at_utc`) beside them.
    @Test func jsonNamesAndValuesAreTheViews() throws {
        let h = try Self.day()
        let list = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["list", "--json"], now: "2026-11-23T10:08").utf8)) as? [[String: Any]])
        let pending = try h.sqlite(
            "SELECT identifier || '|' || fire_at || '|' || fire_at_local || '|' || kind || '|' || title FROM pending_requests")
        #expect(list.count == 64)
        #expect(
            list.map { "\($0["identifier"]!)|\($0["fire_at"]!)|\($0["fire_at_local"]!)|\($0["kind"]!)|\($0["title"]!)" }
                == pending.split(separator: "\n").map(String.init))
        #expect(list.allSatisfy { $0["id"] as? String == $0["identifier"] as? String && $0["fire_at_utc"] as? String == $0["fire_at"] as? String })

        let history = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["history", "--json", "--all", "--limit", "500"], now: "2026-11-23T10:08").utf8))
                as? [[String: Any]])
        let requests = history.filter { $0["kind"] as? String != "open" }
        #expect(requests.count > 60)
        for row in requests {
            let id = try #require(row["identifier"] as? String)
            #expect(row["id"] as? String == id)
            let view = try h.sqlite(
                "SELECT fire_at || '|' || fire_at_local || '|' || kind || '|' || state || '|' || coalesce(reason, '') || '|' || changed_at FROM request_history WHERE identifier = '\(id)' AND state = '\(row["state"]!)' ORDER BY changed_at DESC LIMIT 1"
            )
            // The view gives changed_at to the second; the JSON to the millisecond.
            let changed = (row["changed_at"] as? String ?? "").replacingOccurrences(of: #"\.\d{3}Z$"#, with: "Z", options: .regularExpression)
            let json = "\(row["fire_at"]!)|\(row["fire_at_local"]!)|\(row["kind"]!)|\(row["state"]!)|\(row["reason"] as? String ?? "")|\(changed)"
            #expect(json == view, "\(id)")
        }
        for row in requests where row["state"] as? String == "delivered" {
            let id = try #require(row["identifier"] as? String)
            let view = try h.sqlite("SELECT delivered_at || '|' || lateness_ms FROM delivered_notifications WHERE identifier = '\(id)'")
            #expect("\(row["delivered_at"]!)|\(row["lateness_ms"]!)" == view, "\(id)")
        }
    }

    @Test func jsonFollowsTheSameViewAndSaysWhichRowsAreBookkeeping() throws {
        let h = try Self.day()
        let json = try h.plannerOK(["history", "--json", "--limit", "500"], now: "2026-11-23T10:08")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(!entries.isEmpty)
        #expect(entries.allSatisfy { $0["bookkeeping"] as? Bool == false })
        let open = try #require(entries.first { $0["state"] as? String == "opened" })
        #expect(open["kind"] as? String == "open")
        #expect(open["fire_at_local"] as? String == "2026-11-23T10:07:00+09:00" && open["fire_at"] as? String == "2026-11-23T01:07:00Z")
        let all = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["history", "--json", "--all", "--limit", "500"], now: "2026-11-23T10:08").utf8))
                as? [[String: Any]])
        #expect(all.contains { $0["state"] as? String == "displaced" && $0["bookkeeping"] as? Bool == true })
        #expect(all.count > entries.count)
    }
}
