import Foundation
import PlannerHarness
import Testing

/// The calendar folder as other programs meet it: khal reading it as its own vdir and calcurse importing it,
/// across a DST change; a running ticker noticing a tick; kills in the middle of a rewrite.
@Suite struct CalendarClientTests {
    /// khal, with its own configuration naming the folder, lists every event at its local time across
    /// Berlin's change of 25 October 2026, shown in Berlin and in New York (whose change is a week later).
    @Test func khalListsTheFolderAtTheRightLocalTimesAcrossADSTChange() throws {
        var h = try Harness()
        h.env["TZ"] = "Europe/Berlin"
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(
            ["set", "calendar-folder", folder, "calendar-days", "7", "days", "daily", "window", "09:00-11:00", "interval", "1h"],
            now: "2026-10-22T12:00")
        _ = try h.plannerOK(["refill"], now: "2026-10-22T12:00")
        for shown in ["Europe/Berlin", "America/New_York"] {
            let r = try h.khal(["list", "--day-format", "", "--format", "{start} {title}", "2026-10-22", "8d"], calendar: folder, zone: shown)
            #expect(r.status == 0, "\(r.err)")
            let listed = r.out.split(separator: "\n").map(String.init).sorted()
            let expected = try h.python(
                """
                import sys, datetime as dt, zoneinfo
                berlin, shown = zoneinfo.ZoneInfo("Europe/Berlin"), zoneinfo.ZoneInfo(sys.argv[1])
                now = dt.datetime(2026, 10, 22, 12, 0, tzinfo=berlin)
                for i in range(7):
                    d = now.date() + dt.timedelta(days=i)
                    for hour in (9, 10, 11):
                        t = dt.datetime(d.year, d.month, d.day, hour, tzinfo=berlin)
                        if t > now:
                            print(t.astimezone(shown).strftime("%Y-%m-%d %H:%M") + " Time to study?")
                """, [shown]
            ).split(separator: "\n").map(String.init).sorted()
            #expect(expected.count == 18)
            #expect(listed == expected, "\(shown): \(r.out)")
        }
    }

    /// calcurse (another real client, which keeps a recurring event as one rule with exception dates)
    /// imports every file of the folder and lists each reminder at its Berlin time across the change of 25
    /// October 2026: the series, one per time of day and per offset, and a skipped day's exceptions. calcurse
    /// keeps local times without a zone, converting each TZID to its own zone as it imports: imported in New
    /// York, the times are New York's (not Berlin's read as floating) up to New York's own change of 1
    /// November, after which it keeps each series at the offset of its first occurrence, an hour off (a
    /// limit of calcurse's, said in docs/phone.md).
    @Test(arguments: [("Europe/Berlin", "2026-11-05"), ("America/New_York", "2026-11-01")])
    func calcurseListsTheFolderAtTheRightLocalTimesAcrossADSTChange(shown: String, before: String) throws {
        var h = try Harness()
        h.env["TZ"] = "Europe/Berlin"
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(
            ["set", "calendar-folder", folder, "calendar-days", "14", "days", "daily", "window", "09:00-11:00", "interval", "1h"],
            now: "2026-10-22T12:00")
        _ = try h.plannerOK(["skip", "2026-10-28"], now: "2026-10-22T12:00")
        _ = try h.plannerOK(["refill"], now: "2026-10-22T12:00")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ics") && !$0.hasPrefix("planner-day-") }
        // The skipped day is an exception of each series after the change, not a cut in it.
        let series = files.filter { $0.hasPrefix("planner-series-") && $0.hasSuffix("-2026-10-25.ics") }
        #expect(series.count == 3)
        for file in series {
            #expect(try String(contentsOfFile: folder + "/" + file, encoding: .utf8).contains("EXDATE;TZID=Europe/Berlin:20261028T"))
        }
        var env = h.env
        env["TZ"] = shown
        let data = h.dir + "/calcurse"
        for file in files {
            let r = try h.run("/usr/bin/calcurse", ["-D", data, "-q", "-i", folder + "/" + file], env: env)
            #expect(r.status == 0, "\(file): \(r.err)")
        }
        let format = "%(start:%Y-%m-%d %H:%M) %m\\n"
        let r = try h.run(
            "/usr/bin/calcurse",
            [
                "-D", data, "--input-datefmt", "4", "-Q", "--from", "2026-10-22", "--days", "15", "--filter-type", "recur-apt,apt",
                "--format-recur-apt", format, "--format-apt", format,
            ], env: env)
        #expect(r.status == 0, "\(r.err)")
        let listed = r.out.split(separator: "\n").map(String.init).filter { $0.contains("Time to study?") && $0 < before }.sorted()
        let expected = try h.python(
            """
            import datetime as dt, sys, zoneinfo
            berlin, shown = zoneinfo.ZoneInfo("Europe/Berlin"), zoneinfo.ZoneInfo(sys.argv[1])
            now = dt.datetime(2026, 10, 22, 12, 0, tzinfo=berlin)
            for i in range(14):
                d = now.date() + dt.timedelta(days=i)
                for hour in (9, 10, 11):
                    t = dt.datetime(d.year, d.month, d.day, hour, tzinfo=berlin)
                    if t > now and d != dt.date(2026, 10, 28):
                        print(t.astimezone(shown).strftime("%Y-%m-%d %H:%M") + " Time to study?")
            """, [shown]
        ).split(separator: "\n").map(String.init).filter { $0 < before }.sorted()
        #expect(expected.count == (shown == "Europe/Berlin" ? 36 : 24))
        #expect(listed == expected, "\(Set(listed).symmetricDifference(expected).sorted())")
    }

    @Test func aRunningTickerOpensADayTickedInTheFolder() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let set = try h.planner([
            "config", "set", "window", "00:00-23:55", "interval", "5m", "days", "daily", "calendar-folder", folder,
            "calendar-days", "2", "--db", h.db,
        ])
        #expect(set.status == 0, "\(set.err)")
        #expect(try h.planner(["refill", "--db", h.db]).status == 0)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }
        let today = try h.sqlite("SELECT date('now', '+9 hours')")
        let name = folder + "/planner-day-\(today).ics"
        #expect(FileManager.default.fileExists(atPath: name))
        let stamp = try h.sqlite("SELECT strftime('%Y%m%dT%H%M%SZ', 'now')")
        try CalendarFolderFixture.deliver(CalendarFolderFixture.phoneTick(day: today, completedUTC: stamp), to: name)
        // Waits on the ticker's log only: looking into the database would wake the ticker by itself.
        try h.waitFor(seconds: 5) { h.text("tick.err").contains("ticked off in the calendar folder") }
        #expect(h.text("tick.err").contains("ticked off in the calendar folder, opened: \(today)"), "\(h.text("tick.err"))")
        #expect(try h.sqlite("SELECT origin FROM app_open") == "calendar")
        // The ticker wrote the day back as the plan says: the task COMPLETED, the day's events gone.
        try h.waitFor(seconds: 5) {
            (try? String(contentsOfFile: name, encoding: .utf8))?.contains("PRODID:-//planner//") == true
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        let todayEvents = left.filter { $0.hasPrefix("planner-Noti_AppOpenPromotion_" + today.replacingOccurrences(of: "-", with: "_")) }
        #expect(todayEvents.isEmpty, "\(todayEvents)")
        #expect(ticker.isRunning)
    }

    /// kill -9 at random moments of runs that rewrite every file: no `.ics` is ever half written, and the
    /// next run leaves no temporary file and the folder as the plan says.
    @Test func killsDuringARewriteLeaveNoPartialFileAndNoTemporaryAfterTheNextRun() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(["set", "calendar-folder", folder, "calendar-days", "60", "days", "daily", "interval", "15m"], now: "2026-11-23T08:00")
        // Kill times follow how long a whole rewrite takes on this machine (a fast, idle machine finishes
        // before a fixed delay): one timed run first, then kills spread over that run's span.
        let started = Date()
        try h.configOK(["set", "title", "Study warm-up"], now: "2026-11-23T08:00")
        var span = max(Date().timeIntervalSince(started), 0.05)
        var killedWithTemp = 0
        var rounds = 0
        var generator = SystemRandomNumberGenerator()
        // 16 rounds, more (up to 48) until one kill has landed while a temporary file existed.
        for round in 0..<48 where round < 16 || killedWithTemp == 0 {
            rounds += 1
            // Each round changes the title: every event file is rewritten.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Harness.binary)
            p.arguments = ["config", "set", "title", "Study \(round)", "--db", h.db, "--now", "2026-11-23T08:00"]
            p.environment = h.env
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            if round % 2 == 0 {
                usleep(UInt32(Double.random(in: 0.1...0.95, using: &generator) * span * 1_000_000))
            } else {
                // Every other round kills as soon as a temporary file is seen: a busy machine's timing then
                // cannot make every kill miss the window (fresh-machine once landed none of 48 random ones).
                let end = Date().addingTimeInterval(max(span * 2, 1))
                while p.isRunning, Date() < end,
                    !((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains(where: { $0.hasPrefix(".planner-") })
                {
                    usleep(200)
                }
            }
            // A run already over: the warm-up was slower than the runs (a busy machine then, fresher caches
            // now): later kills come sooner (fresh-machine once landed none of 48 after a slow warm-up).
            if !p.isRunning { span = max(span * 0.7, 0.05) }
            // The folder work is done by a child process (FolderChild): kill it too, or the rewrite completes.
            let pid = p.processIdentifier
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGKILL) }
            kill(pid, SIGKILL)
            p.waitUntilExit()
            usleep(20_000)  // a killed child's last rename has landed
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            if names.contains(where: { $0.hasPrefix(".planner-") }) { killedWithTemp += 1 }
            #expect(!names.contains { $0.hasSuffix(".ics") && !$0.hasPrefix("planner-") })
            for name in names where name.hasSuffix(".ics") {
                let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n") && text.hasSuffix("END:VCALENDAR\r\n"), "round \(round): \(name) is partial")
            }
        }
        let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T08:00"])
        #expect(r.status == 0, "\(r.err)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names.filter { $0.hasPrefix(".") }) \(r.err)")
        // Whichever round last committed, the folder now says its title everywhere, and every slot is there.
        let title = try h.sqlite("SELECT value FROM setting WHERE key = 'title'")
        let files = try CalendarFolderFixture.folder(h, folder)
        let events = files.values.filter { $0["kind"] == "VEVENT" }
        #expect(events.count == 60 * 49)  // 09:30-21:30 every 15 m, 49 a day, today whole (from 08:00)
        #expect(events.allSatisfy { $0["summary"] == title }, "\(title)")
        #expect(files.values.filter { $0["kind"] == "VTODO" }.count == 60)
        print("kills that left a temporary file behind: \(killedWithTemp) of \(rounds) (a whole rewrite: \(span) s)")
        #expect(killedWithTemp > 0, "no kill landed between a temporary write and its rename: the test proved nothing")
    }
}
