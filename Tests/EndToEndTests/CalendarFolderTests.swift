import Foundation
import PlannerHarness
import Testing

/// The calendar folder (issue 22) through the binary: what it holds, read back by a real iCalendar parser
/// (python3-icalendar) and a real client (khal); an open and a phone's tick; the user's own files; hostile
/// files; kills in the middle of a rewrite. End-to-end: the folder child is forked only in a process of one
/// thread (in-process it works in the test's thread), and "one warning each" needs a process per command.
@Suite struct CalendarFolderTests {
    @Test func refillWritesEachReminderWithItsAlarmAndOneTaskPerStudyDay() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness(), days: 7)
        try h.configOK(
            ["set", "title", "공부; now, \\ really", "body", String(repeating: "Start the lesson, please; ", count: 5)], now: "2026-11-23T12:10")
        _ = try h.planner([
            "add", "--db", h.db, "--now", "2026-11-23T12:10", "--at", "2026-11-28T08:00", "--title", "Dentist", "--id", "dentist / 3pm",
        ])
        let files = try CalendarFolderFixture.folder(h, folder)
        // Expected from zoneinfo, not from the planner: Mon 12:30 to 21:30, then Tue-Fri whole (Sat/Sun none).
        let expected = try h.python(
            """
            import datetime as dt, zoneinfo
            z = zoneinfo.ZoneInfo("Asia/Seoul")
            now = dt.datetime(2026, 11, 23, 12, 10, tzinfo=z)
            for i in range(7):
                d = now.date() + dt.timedelta(days=i)
                if d.isoweekday() > 5: continue
                for k in range(25):
                    m = 9 * 60 + 30 + 30 * k
                    t = dt.datetime(d.year, d.month, d.day, m // 60, m % 60, tzinfo=z)
                    if t > now:
                        print("planner-Noti_AppOpenPromotion_" + t.strftime("%Y_%m_%d_%H_%M") + ".ics " + t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
            """, []
        ).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let events = files.filter { $0.value["kind"] == "VEVENT" && $0.key.hasPrefix("planner-Noti") }
        #expect(events.count == expected.count && expected.count == 19 + 4 * 25)
        for pair in expected {
            #expect(events[pair[0]]?["start"] == pair[1], "\(pair[0])")
            #expect(events[pair[0]]?["tzid"] == "Asia/Seoul" && events[pair[0]]?["summary"] == "공부; now, \\ really")
            // Today's slots are items of their own; a later day's are occurrences of their time's series.
            let time = pair[0].dropLast(4).suffix(5).replacingOccurrences(of: "_", with: "")
            let today = pair[0].hasPrefix("planner-Noti_AppOpenPromotion_2026_11_23_")
            #expect(events[pair[0]]?["uid"] == (today ? String(pair[0].dropLast(4)) : "planner-series-" + time))
        }
        // 19 files for today's, 25 for the four days after (one per time of day), whatever the horizon.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.filter { $0.hasPrefix("planner-Noti_") }.count == 19 && names.filter { $0.hasPrefix("planner-series-") }.count == 25)
        let tasks = files.filter { $0.value["kind"] == "VTODO" }
        #expect(tasks.keys.sorted() == ["23", "24", "25", "26", "27"].map { "planner-day-2026-11-\($0).ics" })
        #expect(tasks["planner-day-2026-11-24.ics"]?["due"] == "2026-11-24T12:30:00Z")  // 21:30 in Seoul
        #expect(tasks.values.allSatisfy { $0["status"] == "NEEDS-ACTION" && $0["summary"] == "Study today" })
        // The one-off: its UID from a digest of its identifier, its own title.
        let digest = try h.python("import hashlib; print(hashlib.sha256('dentist / 3pm'.encode()).hexdigest()[:32])", [])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let oneOff = try #require(files["planner-oneoff-\(digest).ics"])
        #expect(oneOff["start"] == "2026-11-27T23:00:00Z" && oneOff["summary"] == "Dentist" && oneOff["id"] == "dentist / 3pm")
        #expect(files.count == events.count + tasks.count + 1)
        // Nothing changed, nothing rewritten: the same bytes (DTSTAMP included) after another refill.
        let before = try CalendarFolderFixture.snapshot(folder)
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:11")
        #expect(try CalendarFolderFixture.snapshot(folder) == before)
    }

    /// What `open` removes or replaces it leaves aside (`.planner-….tmp`, listed by no calendar program)
    /// for the next pass to unlink: the login does not wait on the file system freeing blocks (issue 31).
    /// The next pass is cron's `tick --once` (or the live ticker's, or any writing command).
    @Test func anOpenRemovesOnlyTheRestOfTodayAndCompletesTheTask() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let before = try CalendarFolderFixture.snapshot(folder)
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:15:30")
        let all = try CalendarFolderFixture.snapshot(folder)
        let after = all.filter { !$0.key.hasPrefix(".") }
        // Aside: the very files that went, and the task as it was before it was completed; nothing else.
        let aside = all.filter { $0.key.hasPrefix(".planner-") && $0.key.hasSuffix(".tmp") }
        #expect(aside.count + after.count == all.count)
        let wentOut = before.filter { after[$0.key] != $0.value }.map(\.value)
        #expect(aside.values.sorted(by: { $0.lexicographicallyPrecedes($1) }) == wentOut.sorted(by: { $0.lexicographicallyPrecedes($1) }))
        #expect(aside.count == 20)
        // The next pass unlinks them, and changes nothing else.
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:16")
        #expect(try CalendarFolderFixture.snapshot(folder) == after)
        let gone = Set(before.keys).subtracting(after.keys).sorted()
        let todayLater = (0..<19).map { k -> String in
            let m = 12 * 60 + 30 + 30 * k
            return "planner-Noti_AppOpenPromotion_2026_11_23_\(m / 60)_\(m % 60 == 0 ? "00" : "30").ics"
        }
        #expect(gone == todayLater.sorted())
        #expect(Set(after.keys).subtracting(before.keys).isEmpty)
        let changed = after.keys.filter { after[$0] != before[$0] }
        #expect(changed == ["planner-day-2026-11-23.ics"])
        let task = try #require(try CalendarFolderFixture.folder(h, folder)["planner-day-2026-11-23.ics"])
        #expect(task["status"] == "COMPLETED" && task["completed"] == "2026-11-23T03:15:30Z", "\(task)")
    }

    /// The day's first command is its open, no pass having run since the study day began: yesterday's
    /// series still hold today's slots. The open makes them again, or the rest of the day rang from them
    /// (and twice once today's own files were written); the day's task alone among today's rows, gone from
    /// the folder, is not a folder that lost everything.
    @Test func anOpenBeforeTheDaysFirstPassTakesTodayOutOfTheSeries() throws {
        for variant in ["open", "open without its task"] {
            let (h, folder) = try CalendarFolderFixture.setUp(Harness(), days: 7)
            _ = try h.plannerOK(["sync"], now: "2026-11-23T22:00")
            let series = try String(contentsOfFile: folder + "/planner-series-1030.ics", encoding: .utf8)
            #expect(series.contains("DTSTART;TZID=Asia/Seoul:20261124T103000\r\n"))
            if variant == "open without its task" { #expect(unlink(folder + "/planner-day-2026-11-24.ics") == 0) }
            let r = try h.planner(["open", "--db", h.db, "--now", "2026-11-24T10:10"])
            #expect(r.status == 0 && !r.err.contains("has lost every file"), "\(variant): \(r.err)")
            // Read as a client does (a reminder twice fails the read): nothing of the 24th is left.
            let shown = try CalendarFolderFixture.folder(h, folder).filter { $0.value["kind"] == "VEVENT" }
            #expect(!shown.keys.contains { $0.contains("_2026_11_24_") }, "\(variant): \(shown.keys.sorted().prefix(3))")
            #expect(shown.keys.contains("planner-Noti_AppOpenPromotion_2026_11_25_10_30.ics"), "\(variant)")
        }
    }

    /// Issue 31: an item is known by the recipe remembered beside its file (`calendar_file.recipe`), so
    /// its text is not made. Rows without one (written before migration 0013) or with another are compared
    /// by their digests: nothing is rewritten and the recipes are learned. A title changed rewrites every
    /// event, and leaves the tasks (which do not show it) alone.
    @Test func filesAreKnownByTheirRecipesAndRowsWithoutOneLearnThem() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness(), days: 7)
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let unknown = "SELECT count(*) FROM calendar_file WHERE digest IS NOT NULL AND recipe IS NULL"
        #expect(try h.sqlite(unknown) == "0")
        let rows = try h.sqlite("SELECT name, digest, size, mtime_ns, recipe FROM calendar_file ORDER BY name")
        let before = try CalendarFolderFixture.snapshot(folder)
        // As a database from before 0013 has them, and so without any pass recorded (0014).
        _ = try h.sqlite(
            "UPDATE calendar_file SET recipe = CASE WHEN name LIKE '%0.ics' THEN NULL ELSE 'another' END; DELETE FROM calendar_pass")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:11")
        #expect(try CalendarFolderFixture.snapshot(folder) == before)
        #expect(try h.sqlite("SELECT name, digest, size, mtime_ns, recipe FROM calendar_file ORDER BY name") == rows)
        try h.configOK(["set", "title", "Lessons"], now: "2026-11-23T12:12")
        let after = try CalendarFolderFixture.snapshot(folder)
        let changed = Set(after.keys.filter { after[$0] != before[$0] })
        let events = Set(before.keys.filter { $0.hasPrefix("planner-Noti_") || $0.hasPrefix("planner-series-") })
        #expect(changed == events && events.count == 19 + 25)
        #expect(try h.sqlite(unknown) == "0")
    }

    /// A planner from before migration 0013 still running (a ticker started before the upgrade) reads a
    /// phone's edit with its own statement, which sets the digest and not the recipe: the recipe must no
    /// longer hold (it is bound to its digest), or the new binary would take the edited file for the plan's
    /// and never put it back. (Found by a hostile review; the statement is the pre-0013 one.)
    @Test func aDigestWrittenWithoutItsRecipeIsComparedAgain() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let file = "planner-Noti_AppOpenPromotion_2026_11_23_15_00.ics"
        let path = folder + "/" + file
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try CalendarFolderFixture.deliver(original.replacingOccurrences(of: "TRIGGER;RELATED=START:PT0S", with: "TRIGGER:-PT10M"), to: path)
        var info = stat()
        _ = stat(path, &info)
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        _ = try h.sqlite(
            """
            INSERT INTO calendar_file (name, day, digest, size, mtime_ns, problem) VALUES ('\(file)', '2026-11-24', 'read:0123', \(info.st_size), \(mtime), NULL)
            ON CONFLICT (name) DO UPDATE SET day = excluded.day, digest = excluded.digest, size = excluded.size,
                mtime_ns = excluded.mtime_ns, problem = excluded.problem
            """)
        // Its recipe stays, bound to the digest it was learned with (`boundRecipe`): no longer this row's.
        #expect(try h.sqlite("SELECT recipe NOT LIKE '% ' || digest FROM calendar_file WHERE name = '\(file)'") == "1")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:20")
        let now = try String(contentsOfFile: path, encoding: .utf8)
        #expect(now.contains("TRIGGER;RELATED=START:PT0S") && !now.contains("TRIGGER:-PT10M"), "the phone's edit stayed")
    }

    /// A title or a zone changed and changed back: every file back to its first bytes (the recipes follow
    /// the plan's title and zone both ways).
    @Test func aTitleOrZoneChangedAndBackLeavesTheFirstFiles() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let before = try CalendarFolderFixture.snapshot(folder)
        try h.configOK(["set", "title", "Lessons"], now: "2026-11-23T12:11")
        #expect(try CalendarFolderFixture.snapshot(folder) != before)
        try h.configOK(["reset", "title"], now: "2026-11-23T12:12")
        #expect(try CalendarFolderFixture.snapshot(folder) == before)
        try h.configOK(["set", "zone", "Asia/Tokyo"], now: "2026-11-23T12:13")
        #expect(
            String(decoding: try CalendarFolderFixture.snapshot(folder)["planner-day-2026-11-24.ics"] ?? Data(), as: UTF8.self).contains(
                "TZID=Asia/Tokyo"))
        try h.configOK(["set", "zone", "Asia/Seoul"], now: "2026-11-23T12:14")
        #expect(try CalendarFolderFixture.snapshot(folder) == before)
    }

    /// An event removed by an open, touched on the phone meanwhile, comes back through vdirsyncer: the next
    /// run that reads the folder removes it again (and never a file of the user's).
    @Test func aRemovedEventThatComesBackIsRemovedAgain() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let name = folder + "/planner-Noti_AppOpenPromotion_2026_11_23_15_00.ics"
        let original = try String(contentsOfFile: name, encoding: .utf8)
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:15")
        #expect(!FileManager.default.fileExists(atPath: name))
        let touched = original.replacingOccurrences(of: "TRIGGER;RELATED=START:PT0S", with: "TRIGGER:-PT10M")
        try CalendarFolderFixture.deliver(touched, to: name)
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:20")
        #expect(!FileManager.default.fileExists(atPath: name))
        #expect(try h.sqlite("SELECT count(*) FROM calendar_file WHERE name LIKE '%2026_11_23_15_00%'") == "0")
    }

    @Test func aTaskTickedOnThePhoneOpensTheDayFromTheCalendar() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        let shared = h.dir + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        try h.configOK(["set", "sync-folder", shared], now: "2026-11-23T12:10")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        try CalendarFolderFixture.deliver(
            CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T041500Z"), to: folder + "/planner-day-2026-11-23.ics")
        // `open` does not read the folder (the login must not wait on it): the tick waits.
        let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T13:20"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("\"calendar_ticks\": [\"2026-11-23\"]"), "\(r.out)")
        #expect(try h.sqlite("SELECT origin || ' ' || local_time FROM app_open") == "calendar 2026-11-23T13:15:00+09:00")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-23'") == "0")
        // An open cancels every slot of its day still pending (12:30 and 13:00 too: no ticker delivered them).
        #expect(
            try h.sqlite("SELECT count(*) FROM request WHERE state = 'cancelled' AND reason = 'app opened' AND local_date = '2026-11-23'") == "19")
        // Its events are gone, the task is the planner's again (COMPLETED at the tick's time).
        let files = try CalendarFolderFixture.folder(h, folder)
        #expect(!files.keys.contains { $0.hasPrefix("planner-Noti_AppOpenPromotion_2026_11_23") })
        #expect(files["planner-day-2026-11-23.ics"]?["completed"] == "2026-11-23T04:15:00Z")
        #expect(try String(contentsOfFile: folder + "/planner-day-2026-11-23.ics", encoding: .utf8).contains("PRODID:-//planner//"))
        // The open reached the sync folder as any open does.
        let published = try FileManager.default.contentsOfDirectory(atPath: shared).map {
            try String(contentsOfFile: shared + "/" + $0, encoding: .utf8)
        }.joined()
        #expect(published.contains("origin=calendar kind=open"), "\(published)")
        // Read again: nothing applied twice.
        let again = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T13:30"])
        #expect(again.out.contains("\"calendar_ticks\": []") && again.err.isEmpty, "\(again.out) \(again.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
    }

    /// A window across midnight: Monday's study day lasts until Tuesday 02:00 (`Schedule.studyDay`), so its
    /// task is due Tuesday 01:30, and a tick at Tuesday 00:45 closes Monday (its 01:00 and 01:30 too).
    @Test func aWindowAcrossMidnightKeepsTheTaskInItsStudyDay() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        try h.configOK(["set", "window", "20:00-01:30", "days", "daily"], now: "2026-11-23T21:00")
        let monday = try String(contentsOfFile: folder + "/planner-day-2026-11-23.ics", encoding: .utf8)
        #expect(monday.contains("DUE;TZID=Asia/Seoul:20261124T013000") && monday.contains("DTSTART;TZID=Asia/Seoul:20261123T200000"), "\(monday)")
        try CalendarFolderFixture.deliver(
            CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T154500Z"), to: folder + "/planner-day-2026-11-23.ics")
        let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-24T00:46"])
        #expect(r.out.contains("\"calendar_ticks\": [\"2026-11-23\"]"), "\(r.out) \(r.err)")
        #expect(try h.sqlite("SELECT local_date || ' ' || local_time FROM app_open") == "2026-11-23 2026-11-24T00:45:00+09:00")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_24_01_%'") == "0")
    }

    @Test func aTickInTheFutureIsClampedToNowAndOneWithoutATimeIsNow() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        try CalendarFolderFixture.deliver(
            CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T110000Z"), to: folder + "/planner-day-2026-11-23.ics")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:20")
        #expect(try h.sqlite("SELECT origin || ' ' || local_time FROM app_open") == "calendar 2026-11-23T12:20:00+09:00")
        let untimed = CalendarFolderFixture.phoneTick(day: "2026-11-24", completedUTC: "X").replacingOccurrences(
            of: "completed;VALUE=DATE-TIME:X\r\n", with: "")
        try CalendarFolderFixture.deliver(untimed, to: folder + "/planner-day-2026-11-24.ics")
        _ = try h.plannerOK(["refill"], now: "2026-11-24T08:00")
        #expect(
            try h.sqlite("SELECT local_time FROM app_open WHERE origin = 'calendar' ORDER BY 1")
                == "2026-11-23T12:20:00+09:00\n2026-11-24T08:00:00+09:00")
    }

    @Test func theUsersOwnItemsStayByteIdenticalThroughEveryCommand() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        let own: [String: String] = [
            "work.ics":
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:me\r\nBEGIN:VEVENT\r\nUID:work@example.org\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261123T050000Z\r\nSUMMARY:Work\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            "notes.txt": "not a calendar\n",
            // Named like the planner's, but its UID is someone else's: never rewritten or removed.
            "planner-day-2026-11-24.ics":
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:me\r\nBEGIN:VTODO\r\nUID:mine-too\r\nSTATUS:COMPLETED\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
            "planner-Noti_AppOpenPromotion_2026_11_23_12_30.ics": "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:other\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        ]
        for (name, text) in own { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let steps: [[String]] = [
            ["refill"], ["open"], ["config", "set", "calendar-days", "5"], ["skip", "2026-11-25"], ["pause", "--for", "2h"],
            ["resume"], ["config", "set", "title", "Study?"], ["sync"], ["config", "set", "calendar-days", "1"],
        ]
        var warnings = ""
        for step in steps {
            let r =
                step[0] == "config"
                ? try h.config(Array(step.dropFirst()), now: "2026-11-23T12:40")
                : try h.planner([step[0], "--db", h.db, "--now", "2026-11-23T12:40"] + step.dropFirst())
            #expect(r.status == 0, "\(step): \(r.err)")
            warnings += r.err
            for (name, text) in own {
                #expect(FileManager.default.contents(atPath: folder + "/" + name) == Data(text.utf8), "\(step) changed \(name)")
            }
        }
        // Each foreign file said once, not at every command.
        #expect(warnings.components(separatedBy: "planner-day-2026-11-24.ics").count == 2, "\(warnings)")
        #expect(warnings.contains("its UID 'mine-too' is not the planner's"), "\(warnings)")
        let status = try h.planner(["status", "--db", h.db, "--now", "2026-11-23T12:40"])
        #expect(status.out.contains("calendar problem") && status.out.contains("planner-day-2026-11-24.ics"), "\(status.out)")
        // calendar-days 1: only today's task left of the planner's (today was opened at 12:40).
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == (own.keys + ["planner-day-2026-11-23.ics"]).sorted(), "\(left)")
    }

    @Test func hostileFilesAreIgnoredWithOneWarningEachAndApplyNothing() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let secret = h.dir + "/secret.ics"
        let tick = CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T031500Z")
        try Data(tick.utf8).write(to: URL(fileURLWithPath: secret))
        let day = folder + "/planner-day-2026-11-23.ics"
        try FileManager.default.removeItem(atPath: day)
        try FileManager.default.createSymbolicLink(atPath: day, withDestinationPath: secret)
        try FileManager.default.removeItem(atPath: folder + "/planner-day-2026-11-24.ics")
        #expect(mkfifo(folder + "/planner-day-2026-11-24.ics", 0o644) == 0)
        try FileManager.default.removeItem(atPath: folder + "/planner-day-2026-11-25.ics")
        var big = CalendarFolderFixture.phoneTick(day: "2026-11-25", completedUTC: "20261123T031500Z")
        big = big.replacingOccurrences(of: "END:VTODO", with: "X-PAD:" + String(repeating: "a", count: 1 << 20) + "\r\nEND:VTODO")
        try Data(big.utf8).write(to: URL(fileURLWithPath: folder + "/planner-day-2026-11-25.ics"))
        var badUTF8 = Data(CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T031500Z").utf8)
        badUTF8.append(contentsOf: [0xff, 0xfe])
        let slotFile = folder + "/planner-Noti_AppOpenPromotion_2026_11_23_13_00.ics"
        try badUTF8.write(to: URL(fileURLWithPath: slotFile))
        let noTodo = folder + "/planner-day-2026-11-26.ics"
        try Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:planner-day-2026-11-26\r\nSTATUS:COMPLETED\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8).write(
            to: URL(fileURLWithPath: noTodo))

        let first = try h.planner(["sync", "--db", h.db, "--now", "2026-11-23T12:20"])
        #expect(first.status == 0, "\(first.err)")
        let warned = first.err.split(separator: "\n")
        #expect(warned.count == 5, "\(first.err)")
        for (name, why) in [
            ("planner-day-2026-11-23.ics", "symbolic link"), ("planner-day-2026-11-24.ics", "not a regular file"),
            ("planner-day-2026-11-25.ics", "larger than 1 MiB"), ("planner-Noti_AppOpenPromotion_2026_11_23_13_00.ics", "not UTF-8"),
            ("planner-day-2026-11-26.ics", "without its one VTODO"),
        ] {
            #expect(warned.contains { $0.contains(name) && $0.contains(why) }, "\(name): \(first.err)")
        }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        // Left as they are; said once only.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: day) == secret)
        #expect(FileManager.default.contents(atPath: secret) == Data(tick.utf8))
        #expect(FileManager.default.contents(atPath: slotFile) == badUTF8)
        let second = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:21"])
        #expect(second.status == 0 && second.err.isEmpty, "\(second.err)")
        #expect(try h.sqlite("SELECT count(*) FROM calendar_file WHERE problem IS NOT NULL") == "5")
    }
}
