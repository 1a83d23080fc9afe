import Foundation
import PlannerHarness
import Testing

/// A traveller's edges: zone changes across the date line, a ticker running through a zone change,
/// offsets with seconds, and what `--now` accepts. Instants are checked with Python's datetime/zoneinfo.
@Suite struct TravelTests {
    /// Every `planner history --json` row for one identifier: (state, fire_at_utc).
    func rows(_ h: Harness, _ id: String) throws -> [String] {
        try h.sqlite("SELECT state || ' ' || fire_at_ms FROM request WHERE identifier = '\(id)' ORDER BY id")
            .split(separator: "\n").map(String.init)
    }

    /// Kiritimati (+14) to Pago Pago (-11): 16:30 of the same date comes round again 25 hours later.
    /// An identifier that ran its course is never planned again, whatever the zone does.
    @Test func aZoneChangeAcrossTheDateLineNeverDeliversTwice() throws {
        var h = try Harness()
        h.env["TZ"] = "Pacific/Kiritimati"
        let id = "Noti_AppOpenPromotion_2026_11_23_16_30"
        _ = try h.plannerOK(["refill"], now: "2026-11-23T16:00")  // Monday
        #expect(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T16:30").hasPrefix(id + "\t"))
        try h.configOK(["set", "zone", "Pacific/Pago_Pago"], now: "2026-11-23T02:35:00Z")
        // Monday in Pago Pago: refills and ticks around its 16:30, which is 2026-11-24T03:30Z.
        var shown: [String] = []
        for now in ["2026-11-24T03:00:00Z", "2026-11-24T03:29:00Z", "2026-11-24T03:30:00Z", "2026-11-24T03:31:00Z"] {
            _ = try h.plannerOK(["refill"], now: now)
            shown += try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: now, stderrAllowed: true)
                .split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        #expect(!shown.contains(id), "delivered a second time: \(shown)")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE identifier = '\(id)' AND state IN ('pending', 'delivering', 'delivered')") == "1")
        // Its one row keeps its own instant: 16:30 in Kiritimati.
        #expect(try rows(h, id) == ["delivered \(epochMs("2026-11-23T02:30:00Z"))"])
        let history = try h.plannerOK(["history", "--json", "--limit", "500"], now: "2026-11-24T03:31:00Z")
        #expect(history.components(separatedBy: "\"identifier\": \"\(id)\"").count == 2, "history lists it once")
    }

    /// Pago Pago to Kiritimati at 10:10 there (11:10 the next day in Kiritimati): the new day's 11:00 is
    /// already past. A re-plan follows refill's rule: only slots strictly after now, nothing fires at once.
    @Test func aReplanAfterAZoneChangeCreatesNoSlotInThePast() throws {
        var h = try Harness()
        h.env["TZ"] = "Pacific/Pago_Pago"
        _ = try h.plannerOK(["refill"], now: "2026-11-23T10:10")  // Monday
        let change = "2026-11-23T21:10:00Z"  // Tuesday 11:10 in Kiritimati
        try h.configOK(["set", "zone", "Pacific/Kiritimati"], now: change)
        let pending = try h.pendingRows()
        #expect(pending.count == 64)
        #expect(pending.allSatisfy { $0.at > epochMs(change) }, "planned into the past: \(pending.prefix(2))")
        #expect(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: change) == "", "a reminder fired at once")
        #expect(
            try h.sqlite("SELECT state FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_24_11_00' ORDER BY id DESC LIMIT 1") == "missed"
        )
        // What is pending is Kiritimati's plan from now on, computed by zoneinfo.
        let expected = try h.expectedPlan(["zone": "Pacific/Kiritimati", "now": change])
        #expect(pending.map(\.id) == expected.map(\.id))
        #expect(pending.map(\.at) == expected.map(\.utcMs))
    }

    /// A live ticker started in one zone formats times in the plan's zone at the moment of delivery:
    /// the stdout line and `PLANNER_FIRE_AT` after `config set zone`.
    @Test func aLiveTickerFollowsAZoneChange() throws {
        let h = try Harness()  // Seoul
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }
        try h.run(Harness.binary, ["config", "set", "zone", "Europe/Berlin", "--db", h.db], env: h.env).check()
        try h.run(Harness.binary, ["add", "--in", "1s", "--title", "t", "--id", "berlin", "--db", h.db], env: h.env).check()
        try h.waitFor(seconds: 10) { h.text("tick.out").contains("berlin\t") }
        let line = h.text("tick.out").split(separator: "\n").first { $0.hasPrefix("berlin\t") }.map(String.init) ?? ""
        try expectSameInstant(h, line.split(separator: "\t")[1], "berlin", zone: "Europe/Berlin")
        _ = try h.stop(ticker)

        // The program sink, started in Berlin, after a change to New York.
        let exec = try h.startTicker(["--exec", "/bin/sh", "-c", "echo \"$PLANNER_ID $PLANNER_FIRE_AT\" >> fired.txt"], name: "exec")
        defer { _ = try? h.stop(exec) }
        try h.run(Harness.binary, ["config", "set", "zone", "America/New_York", "--db", h.db], env: h.env).check()
        try h.run(Harness.binary, ["add", "--in", "1s", "--title", "t", "--id", "newyork", "--db", h.db], env: h.env).check()
        try h.waitFor(seconds: 10) { h.text("fired.txt").contains("newyork ") }
        let fired = h.text("fired.txt").split(separator: "\n").first { $0.hasPrefix("newyork ") }.map(String.init) ?? ""
        try expectSameInstant(h, fired.split(separator: " ")[1], "newyork", zone: "America/New_York")
    }

    /// `text` is the stored instant of request `id`, written with `zone`'s offset at that instant.
    func expectSameInstant(_ h: Harness, _ text: Substring, _ id: String, zone: String) throws {
        let stored = try h.sqlite("SELECT fire_at_ms FROM request WHERE identifier = '\(id)'")
        let check = try h.python(
            """
            import sys, datetime as dt, zoneinfo
            t = dt.datetime.fromisoformat(sys.argv[1])
            want = dt.datetime.fromtimestamp(int(sys.argv[2]) / 1000, zoneinfo.ZoneInfo(sys.argv[3]))
            print(round(t.timestamp() * 1000) == int(sys.argv[2]) and t.utcoffset() == want.utcoffset(), end="")
            """, [String(text), stored, zone])
        #expect(check == "True", "\(id): \(text) is not \(stored) in \(zone)")
    }

    /// Africa/Monrovia was -00:44:30 until 1972: every printed timestamp names the stored instant (the
    /// offset with its seconds), reads back as --now, and the calendar export's VTIMEZONE agrees.
    @Test func offsetsWithSecondsArePrintedWithTheirSeconds() throws {
        var h = try Harness()
        h.env["TZ"] = "Africa/Monrovia"
        _ = try h.plannerOK(["refill"], now: "1971-03-01T12:00")  // a Monday
        let list = try h.plannerOK(["list", "--json"], now: "1971-03-01T12:00")
        let check = try h.python(
            """
            import sys, json, datetime as dt, zoneinfo
            zone = zoneinfo.ZoneInfo("Africa/Monrovia")
            rows = json.loads(sys.argv[1])
            bad = [r["fire_at_local"] for r in rows
                   if dt.datetime.fromisoformat(r["fire_at_local"]) != dt.datetime.fromisoformat(r["fire_at"].replace("Z", "+00:00"))
                   or dt.datetime.fromisoformat(r["fire_at_local"]).utcoffset() != dt.datetime.fromisoformat(r["fire_at_local"]).astimezone(zone).utcoffset()]
            print(len(rows), bad, end="")
            """, [list])
        #expect(check == "64 []")
        // The stdout sink's line, read back as --now by the next run, names the same instant.
        let line = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "1971-03-01T12:30")
        let printed = String(line.split(separator: "\t")[1])
        #expect(printed == "1971-03-01T12:30:00-00:44:30")
        #expect(try h.sqlite("SELECT local_time FROM request WHERE identifier = 'Noti_AppOpenPromotion_1971_03_01_12_30'") == printed)
        _ = try h.plannerOK(["add", "--at", printed, "--title", "same", "--id", "same"], now: "1971-03-01T12:29")
        #expect(
            try h.sqlite(
                "SELECT a.fire_at_ms = b.fire_at_ms FROM request a, request b WHERE a.identifier = 'same' AND b.identifier = 'Noti_AppOpenPromotion_1971_03_01_12_30'"
            ) == "1")
        #expect(try h.plannerOK(["status"], now: "1971-03-01T12:31").contains("-00:44:30"))

        // The export across Monrovia's change to UTC (1972-01-07), checked by python3-icalendar and zoneinfo.
        let now = "1971-12-30T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        let (calendar, r) = try h.checkedExport(now: now)
        #expect(r.status == 0, "\(r.err)")
        #expect(calendar.contains("TZOFFSETFROM:-004430\r\n"))
    }

    /// `--now`/`--at` take a fraction of 1 to 9 digits, kept to the millisecond; the README, `--help` and
    /// the manual say so in the same words.
    @Test func fractionDigitsAreWhatTheDocumentsSay() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(
            ["add", "--at", "2026-11-23T13:00:00.123456789+09:00", "--title", "t", "--id", "t"],
            now: "2026-11-23T12:30:00.987654321")
        #expect(try h.sqlite("SELECT fire_at_ms % 1000, created_at_ms % 1000 FROM request WHERE identifier = 't'") == "123|987")
        let tooMany = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:30:00.1234567891"])
        #expect(tooMany.status == 64 && tooMany.err.hasPrefix("error: --now: invalid time"))
        let words = "a fraction of 1 to 9 digits, cut to the millisecond"
        let help = try h.planner(["refill", "--help"]).out.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(help.contains(words))
        let readme = try Harness.repositoryText("docs/guide.md")
            .replacingOccurrences(of: "\n", with: " ")
        #expect(readme.contains(words))
        let manual = try Harness.repositoryText("man/planner.1")
        #expect(manual.contains(words))
    }

    /// A displaced one-off comes back when it is among the soonest 64 again: at a refill, or when a
    /// ticker marks requests missed (a ticker alone for days still delivers it), never by a delivery alone.
    @Test func aWaitingOneOffComesBackAsTheREADMESays() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")  // Monday: 64 pending through Wednesday
        _ = try h.plannerOK(["add", "--at", "2026-11-27T12:00", "--title", "later", "--id", "later"], now: "2026-11-23T09:00")
        func state() throws -> String { try h.sqlite("SELECT state FROM request WHERE identifier = 'later'") }
        #expect(try state() == "displaced")
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T09:30")
        #expect(try state() == "displaced", "a delivery alone let it in")
        // The machine slept until Thursday: the ticker marks Monday to Wednesday's slots missed.
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-26T09:00", stderrAllowed: true)
        #expect(try state() == "pending")
        let readme = try Harness.repositoryText("docs/guide.md")
            .replacingOccurrences(of: "\n", with: " ")
        #expect(readme.contains("never by a delivery alone"))
    }

    /// docs/sync.md, *Clocks*: a change made with `--now` months ahead is stamped 12 hours ahead of the real
    /// clock, not at its `--now`, and the next change made here is stamped just after it (so it still wins),
    /// carrying that 12-hour lead and never more.
    @Test func aChangeMonthsAheadLendsTheNextChangeTwelveHoursAtMost() throws {
        let h = try Harness()
        let ahead = try h.planner(["skip", "2027-06-01", "--db", h.db, "--now", "2027-06-01T10:00"])
        #expect(ahead.status == 0, "\(ahead.err)")
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let next = try h.planner(["skip", "2027-06-02", "--db", h.db])
        #expect(next.status == 0, "\(next.err)")
        let stamps = try h.sqlite("SELECT stamp_ms || ' ' || stamp_counter FROM event WHERE kind = 'skip' ORDER BY stamp_ms, stamp_counter")
            .split(separator: "\n").map { $0.split(separator: " ").compactMap { Int64($0) } }
        try #require(stamps.count == 2 && stamps.allSatisfy { $0.count == 2 }, "\(stamps)")
        let twelveHours: Int64 = 12 * 3_600_000
        // Capped at the real clock + 12 h (the real clock as the command read it, a moment before `before`).
        #expect(stamps[0][0] <= before + twelveHours && stamps[0][0] > before + twelveHours - 60_000, "\(stamps)")
        #expect(stamps[1] == [stamps[0][0], stamps[0][1] + 1], "\(stamps)")
    }
}
