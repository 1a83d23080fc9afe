import Foundation
import PlannerHarness
import Testing

/// Issue 32: Anki's own review log closes the study day. Every collection here is a real one, made and
/// changed by Anki's own backend (PyPI `anki`, the Rust backend of the desktop app) through
/// scripts/anki-fixture; review times are written through Anki's own database handle when a test needs
/// them exact, and cards are answered through its scheduler when it needs a real answer.
@Suite(.serialized) struct AnkiTests {
    /// Monday 2026-11-23 in the plan's zone (Asia/Seoul), as epoch milliseconds, by Python's zoneinfo.
    static func ms(_ local: String, zone: String = "Asia/Seoul") throws -> Int64 {
        let out = try Harness().python(
            """
            import sys; from datetime import datetime; from zoneinfo import ZoneInfo
            print(int(datetime.fromisoformat(sys.argv[1]).replace(tzinfo=ZoneInfo(sys.argv[2])).timestamp() * 1000))
            """, [local, zone])
        return try #require(Int64(out.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func collection(_ h: Harness, notes: Int = 20) throws -> String {
        let path = h.dir + "/Anki2/User 1/collection.anki2"
        try AnkiFixture.run(["create", path, "--notes", String(notes)])
        return path
    }

    @Test func eachStudyDaysFirstReviewIsAnOpenThatCancelsTheRestOfThatDayOnly() throws {
        let h = try Harness()
        let anki = try collection(h)
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-23T08:00")
        let friday = try Self.ms("2026-11-20T10:00")
        let first = try Self.ms("2026-11-23T11:15")
        let later = try Self.ms("2026-11-23T11:20")
        try AnkiFixture.run(["review", anki, String(friday), String(later), String(first)])

        // `sync` works with only anki-collection set, and says what it did.
        let sync = try h.plannerOK(["sync"], now: "2026-11-23T12:00")
        #expect(sync.contains("studied in Anki: 2026-11-20, 2026-11-23"), "\(sync)")
        // Never synced by Anki: status says only this computer's reviews count.
        let status = try h.plannerOK(["status"], now: "2026-11-23T12:00")
        #expect(status.contains("anki synced") && status.contains("never by Anki here"), "\(status)")
        #expect(status.contains("latest review Mon 2026-11-23 11:20"), "\(status)")
        let opens = try h.sqlite("SELECT opened_at, local_date, origin, cancelled FROM app_open_events ORDER BY opened_at")
        #expect(opens == "2026-11-20T01:00:00Z|2026-11-20|anki|0\n2026-11-23T02:15:00Z|2026-11-23|anki|25", "\(opens)")
        // Monday's pending reminders are cancelled (those before 11:15 too: no ticker showed them, and the
        // day is opened); Tuesday's stay.
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23%'") == "0")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_24%'") == "25")
        #expect(try h.sqlite("SELECT count(*) FROM events WHERE origin = 'anki' AND kind = 'open'") == "2")
        // The record and the history say where the opens came from.
        let stats = try h.plannerOK(["stats", "--json"], now: "2026-11-23T12:00")
        #expect(
            stats.contains("{\"date\": \"2026-11-20\", \"study_day\": true, \"opened_at\": \"2026-11-20T10:00:00+09:00\", \"opened_by\": \"anki\""),
            "\(stats.suffix(900))")
        #expect(stats.contains("\"opened_at\": \"2026-11-23T11:15:00+09:00\", \"opened_by\": \"anki\""))
        let history = try h.plannerOK(["history"], now: "2026-11-23T12:00")
        #expect(history.contains("anki        Mon 2026-11-23 11:15 +09:00  opened"), "\(history)")

        // The calendar folder's "Study today" for Monday is ticked (the phone's alarms stop too).
        try h.configOK(["set", "calendar-folder", h.dir + "/calendar"], now: "2026-11-23T12:00")
        let task = try String(contentsOfFile: h.dir + "/calendar/planner-day-2026-11-23.ics", encoding: .utf8)
        #expect(task.contains("STATUS:COMPLETED") && task.contains("COMPLETED:20261123T021500Z"), "\(task)")

        // Nothing new: nothing read, nothing recorded again.
        let again = try h.plannerOK(["sync"], now: "2026-11-23T12:01")
        #expect(again.contains("unchanged since the last read"), "\(again)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "2")
    }

    /// A review made on the phone hours ago arrives through Anki's own sync after later ones were read: it
    /// counts at its own instant (the day's first open moves earlier), and a past day's fills the record.
    @Test func aReviewArrivingLaterWithAnEarlierTimeCountsAtItsOwnInstant() throws {
        let h = try Harness()
        let anki = try collection(h)
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-23T08:00")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T11:15"))])
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        #expect(try h.sqlite("SELECT group_concat(opened_at_local, ' ') FROM app_open_events") == "2026-11-23T11:15:00+09:00")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T09:40")), String(try Self.ms("2026-11-18T21:00"))])
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:05")
        // Monday's open moves to 09:40: the 11:15 one is no longer shown (both events stay, as on every device).
        let opens = try h.sqlite("SELECT opened_at_local, local_date FROM app_open_events ORDER BY opened_at")
        #expect(opens == "2026-11-18T21:00:00+09:00|2026-11-18\n2026-11-23T09:40:00+09:00|2026-11-23", "\(opens)")
        let history = try h.plannerOK(["history"], now: "2026-11-23T12:05")
        #expect(history.contains("09:40") && !history.contains("11:15"), "\(history)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "3")
        let status = try h.plannerOK(["status"], now: "2026-11-23T12:05")
        #expect(status.contains("yes, first at Mon 2026-11-23 09:40 +09:00"), "\(status)")
    }

    /// A hostile review's findings (each failed before its fix): ids no real review has (0, negative,
    /// Int64.max) are never read, and one far ahead waits for its time; a review removed (Anki's undo) while
    /// an older one arrives from the phone, and a collection replaced by a full sync, still open their days;
    /// going back to an earlier collection reads it whole.
    @Test func reviewsNoAnkiMadeAndReviewsThatMovedUnderneathAreHandled() throws {
        let h = try Harness()
        let anki = try collection(h)
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-20T08:00")
        try AnkiFixture.run([
            "review", anki, "9223372036854775807", "0", "-5", String(try Self.ms("2027-06-01T10:00")),
            String(try Self.ms("2026-11-18T10:00")), String(try Self.ms("2026-11-20T10:00")),
        ])
        for now in ["2026-11-20T13:00", "2026-11-20T13:01"] {
            let r = try h.planner(["refill", "--db", h.db, "--now", now])
            #expect(r.status == 0 && r.err.isEmpty, "\(r.status) \(r.err)")
            _ = try h.sqlite("UPDATE col SET mod = mod + 1", db: anki)
        }
        #expect(try h.sqlite("SELECT group_concat(local_date, ' ') FROM (SELECT local_date FROM app_open ORDER BY 1)") == "2026-11-18 2026-11-20")
        // Undo on this computer (the 11-20 review goes) while the phone's 11-19 review arrives: same count.
        _ = try h.sqlite("DELETE FROM revlog WHERE id = \(try Self.ms("2026-11-20T10:00"))", db: anki)
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-19T09:00"))])
        _ = try h.plannerOK(["refill"], now: "2026-11-20T13:05")
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '2026-11-19'") == "1")
        // A full sync replaces the file with another holding other reviews.
        let other = h.dir + "/other/collection.anki2"
        try AnkiFixture.run(["create", other])
        try AnkiFixture.run(["review", other, String(try Self.ms("2026-11-16T09:00")), String(try Self.ms("2026-11-17T09:00"))])
        #expect(rename(other, anki) == 0)
        _ = try h.plannerOK(["refill"], now: "2026-11-20T13:10")
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date IN ('2026-11-16', '2026-11-17')") == "2")
        // Another collection, then back to this one with a new review: no copy of the other's mixed in.
        let second = h.dir + "/second/collection.anki2"
        try AnkiFixture.run(["create", second])
        try h.configOK(["set", "anki-collection", second], now: "2026-11-20T13:15")
        _ = try h.plannerOK(["refill"], now: "2026-11-20T13:16")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-13T09:00"))])
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-20T13:20")
        let back = try h.planner(["refill", "--db", h.db, "--now", "2026-11-20T13:21"])
        #expect(back.status == 0 && back.err.isEmpty, "\(back.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '2026-11-13'") == "1")
        // The review dated next June waits for its time: read once the clock is past it.
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '2027-06-01' OR local_date < '2006-01-01'") == "0")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2027-06-01T10:00"))])
        _ = try h.plannerOK(["refill"], now: "2027-06-01T12:00")
        #expect(try h.sqlite("SELECT opened_at_local FROM app_open_events WHERE local_date = '2027-06-01'") == "2027-06-01T10:00:00+09:00")
    }

    /// A value written into the setting table past `config set` (not absolute) is no collection at all, as
    /// every other command reads it: nothing is read relative to wherever the command runs.
    @Test func aStoredValueConfigWouldRefuseIsNotRead() throws {
        let h = try Harness()
        let anki = try collection(h)
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T09:00"))])
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.sqlite("UPDATE setting SET value = 'Anki2/User 1/collection.anki2' WHERE key = 'anki-collection'")
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:00"])
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
    }

    /// A review made on the phone arrives through Anki's own sync: a real Anki sync server on 127.0.0.1 (the
    /// one Anki ships), a "phone" collection that answers and syncs, a "desktop" collection that syncs after
    /// (while Anki is not holding it), and the planner reading the desktop's: the day opens at the phone's
    /// review, hours before it arrived.
    @Test func aPhonesReviewArrivesThroughAnkisOwnSync() throws {
        let h = try Harness()
        let server = try AnkiFixture.SyncServer(folder: h.dir + "/server")
        defer { server.stop() }
        let phone = h.dir + "/phone/collection.anki2"
        let desktop = h.dir + "/Anki2/User 1/collection.anki2"
        try AnkiFixture.run(["create", phone, "--notes", "5"])
        try AnkiFixture.run(["create", desktop, "--notes", "0"])
        for path in [phone, desktop] { try AnkiFixture.run(["sync", path] + server.arguments) }  // full upload, full download
        try h.configOK(["set", "anki-collection", desktop], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        try AnkiFixture.run(["review", phone, String(try Self.ms("2026-11-23T09:40"))])
        _ = try h.plannerOK(["sync"], now: "2026-11-23T11:00")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0", "not synced yet")
        // status says when Anki last synced the desktop's collection: Anki's own col.ls, read by sqlite3.
        let firstSync = try h.sqlite("SELECT ls FROM col", db: desktop)
        #expect(Int64(firstSync).map { $0 > 0 } == true, "\(firstSync)")
        #expect(try h.sqlite("SELECT synced_ms FROM anki_read") == firstSync)
        let json = try h.plannerOK(["status", "--json"], now: "2026-11-23T11:00")
        #expect(json.contains("\"anki_synced_at\": \"2026-") || json.contains("\"anki_synced_at\":\"2026-"), "\(json)")
        for path in [phone, desktop] { try AnkiFixture.run(["sync", path] + server.arguments) }
        let secondSync = try h.sqlite("SELECT ls FROM col", db: desktop)
        #expect(Int64(secondSync)! > Int64(firstSync)!)
        let sync = try h.plannerOK(["sync"], now: "2026-11-23T12:00")
        #expect(try h.sqlite("SELECT synced_ms FROM anki_read") == secondSync)
        #expect(sync.contains("studied in Anki: 2026-11-23"), "\(sync)")
        #expect(try h.sqlite("SELECT opened_at_local || ' ' || origin FROM app_open_events") == "2026-11-23T09:40:00+09:00 anki")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23%'") == "0")
    }

    /// The planner's study day, not Anki's "next day starts at" (04:00): with a window that crosses
    /// midnight a review at 00:40 closes the day before; with one that does not, the new date's day.
    @Test func aReviewAfterMidnightBelongsToThePlannersStudyDay() throws {
        for (window, day, cancelledDay) in [("20:00-01:30", "2026-11-23", "2026_11_24_01_00"), ("09:30-21:30", "2026-11-24", "2026_11_24_09_30")] {
            let h = try Harness()
            let anki = try collection(h)
            try h.configOK(["set", "window", window, "days", "daily", "anki-collection", anki], now: "2026-11-23T19:00")
            _ = try h.plannerOK(["refill"], now: "2026-11-23T19:00")
            try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-24T00:40"))])
            _ = try h.plannerOK(["sync"], now: "2026-11-24T00:41")
            #expect(try h.sqlite("SELECT local_date || ' ' || origin FROM app_open_events") == "\(day) anki", "\(window)")
            #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'Noti_AppOpenPromotion_\(cancelledDay)'") == "cancelled", "\(window)")
        }
    }

    /// `open` (a login) never reads Anki's file: a FIFO in its place does not hold it up, and the commands that
    /// do read it say one line and go on.
    @Test func aLoginNeverReadsTheCollectionAndAFIFOHoldsNothingUp() throws {
        let h = try Harness()
        let fifo = h.dir + "/collection.anki2"
        #expect(mkfifo(fifo, 0o600) == 0)
        try h.configOK(["set", "anki-collection", fifo], now: "2026-11-23T08:00")
        let started = Date()
        _ = try h.plannerOK(["open"], now: "2026-11-23T09:00")
        let refill = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T09:01"])
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(refill.status == 0)
        #expect(refill.err == "warning: the Anki collection \(fifo) is not a regular file: reviews are read once it can be\n", "\(refill.err)")
        let status = try h.plannerOK(["status"], now: "2026-11-23T09:02")
        #expect(status.contains("anki problem  the Anki collection \(fifo) is not a regular file"), "\(status)")
        #expect(try h.sqlite("SELECT origin FROM app_open_events") == "open")
    }

    /// A collection that is missing, not SQLite, damaged, not Anki's, or from a newer Anki: one clear line in
    /// `status` (and once on stderr), exit 0, nothing recorded; once repaired, read.
    @Test func anUnusableCollectionIsOneLineAndNothingElse() throws {
        let h = try Harness()
        let anki = try collection(h)
        let newer = h.dir + "/newer/collection.anki2"
        try AnkiFixture.run(["create", newer])
        _ = try h.sqlite("UPDATE col SET ver = 19", db: newer)
        let text = h.dir + "/text.anki2"
        #expect(FileManager.default.createFile(atPath: text, contents: Data("not a database at all\n".utf8)))
        let foreign = h.dir + "/other.db"
        _ = try h.sqlite("CREATE TABLE t (x)", db: foreign)
        let damaged = h.dir + "/damaged/collection.anki2"
        try AnkiFixture.run(["create", damaged])
        try AnkiFixture.run(["review", damaged, String(try Self.ms("2026-11-23T09:00"))])
        try AnkiFixture.run(["corrupt", damaged])
        for (path, why) in [
            (h.dir + "/missing/collection.anki2", "is not there"), (text, "is not an SQLite database"),
            (foreign, "is not an Anki collection"), (damaged, "is damaged"),
            (newer, "has schema version 19, which this planner does not know"),
        ] {
            try h.configOK(["set", "anki-collection", path], now: "2026-11-23T10:00")
            let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:01"])
            #expect(r.status == 0, "\(path): \(r.err)")
            #expect(r.err.hasPrefix("warning: the Anki collection \(path) \(why)") && r.err.split(separator: "\n").count == 1, "\(path): \(r.err)")
            let status = try h.plannerOK(["status", "--json"], now: "2026-11-23T10:02")
            #expect(status.contains("\"anki_problem\": \"the Anki collection \(path) \(why)"), "\(status)")
            // Said once: the next command that reads it stays quiet while nothing changed.
            let quiet = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:03"])
            #expect(quiet.status == 0 && quiet.err.isEmpty, "\(path): \(quiet.err)")
        }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        // Repaired (set to a good one): read, and the problem is gone.
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T10:30"))])
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-23T10:40")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T10:41")
        #expect(try h.sqlite("SELECT origin FROM app_open_events") == "anki")
        #expect(try h.plannerOK(["status", "--json"], now: "2026-11-23T10:42").contains("\"anki_problem\": null"))
    }

    /// Anki never notices the planner: a real Anki process holds the collection open (exclusive locking, WAL)
    /// and answers cards before, while and after planner processes read it; Anki reports no error, every
    /// planner command exits 0, and nothing of the planner's is left beside the collection.
    @Test func ankiHoldingTheCollectionNeverNoticesThePlanner() throws {
        let h = try Harness()
        let anki = try collection(h, notes: 60)
        try h.configOK(["set", "anki-collection", anki, "window", "00:00-23:59", "days", "daily"], now: "2026-11-23T08:00")
        let holder = try AnkiFixture.Holder(anki)
        defer { holder.end() }
        _ = try holder.send("answer")
        // Planner commands in a loop, on another thread, while Anki answers cards here.
        let failures = LockedList()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<15 {
                let r = try? h.planner(["sync", "--db", h.db])
                if r?.status != 0 { failures.append("sync exited \(r?.status ?? -1): \(r?.err ?? "")") }
                if let err = r?.err, !err.isEmpty { failures.append("sync said: \(err)") }
            }
            done.signal()
        }
        var answered = 1
        var finished = false
        while !finished || answered < 20, answered < 58 {
            let line = try holder.send("answer")
            #expect(line.contains("\"id\""), "\(line)")
            answered += 1
            if !finished { finished = done.wait(timeout: .now() + .milliseconds(20)) == .success }
        }
        if !finished { done.wait() }
        let check = try holder.send("check")
        #expect(check.contains("\"ok\": true"), "\(check)")
        #expect(failures.items.isEmpty, "\(failures.items)")
        let last = try h.planner(["sync", "--db", h.db])
        #expect(last.status == 0 && last.err.isEmpty, "\(last.err)")
        #expect(try holder.send("close").contains("closed"))
        #expect(holder.exitStatus() == 0, "\(holder.errors())")
        let beside = try FileManager.default.contentsOfDirectory(atPath: (anki as NSString).deletingLastPathComponent).sorted()
        #expect(beside == ["collection.anki2", "collection.media"], "\(beside)")
        // Today's open is the first answer's instant.
        let first = try AnkiFixture.firstReview(anki)
        #expect(try h.sqlite("SELECT min(opened_at_ms) FROM app_open WHERE origin = 'anki'") == String(first))
    }

    /// The live ticker notices a card answered in a running Anki within two seconds (inotify on its files,
    /// no polling), and the rest of the day goes quiet.
    @Test(arguments: [false, true]) func aLiveTickerRecordsAnAnswerWithinTwoSeconds(throughALink: Bool) throws {
        let h = try Harness()
        let real = try collection(h)
        // Through a link to Anki's file: Anki writes its WAL beside the link's target, which is what is
        // read and watched.
        let anki = throughALink ? h.dir + "/linked.anki2" : real
        if throughALink { #expect(symlink(real, anki) == 0) }
        for args in [["config", "set", "anki-collection", anki, "window", "00:00-23:55", "interval", "5m", "days", "daily"], ["refill"]] {
            let r = try h.planner(args + ["--db", h.db])
            #expect(r.status == 0, "\(r.err)")
        }
        let holder = try AnkiFixture.Holder(anki)
        defer { holder.end() }
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }
        let answer = try holder.send("answer")
        let review = try #require(Int64(answer.filter(\.isNumber)), "\(answer)")
        try h.waitFor(seconds: 10) { h.text("tick.err").contains("studied in Anki, opened: ") }
        // The ticker's own reaction, from the answer's instant (the review's id) to the read that recorded it
        // (its clock, in anki_read): what the test process's polling or a loaded machine adds is not counted.
        let readAt = try #require(Int64(try h.sqlite("SELECT read_at_ms FROM anki_read")))
        #expect(readAt - review < 2_000, "read \(readAt - review) ms after the answer")
        let today = "date('now', '+9 hours')"
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = \(today)") == "0")
        #expect(try h.sqlite("SELECT origin FROM app_open_events") == "anki")
        // More answers the same day record nothing more.
        _ = try holder.send("answer")
        usleep(800_000)
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
        #expect(ticker.isRunning)
        #expect(try holder.send("close").contains("closed"))
        #expect(holder.exitStatus() == 0, "\(holder.errors())")
    }

    /// Two computers reading the same collection (Anki syncs it to both) and sharing a sync folder record
    /// one open for the same first review, not two: its id comes from the review's.
    /// Anki's "Set due date" and "Reset" (Manual rows, no button) and FSRS rescheduling the collection
    /// (Rescheduled rows) are not studying: only answers open a day, on the day they were made.
    @Test func reschedulingInAnkiIsNotStudying() throws {
        let h = try Harness()
        let anki = try collection(h, notes: 3)
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        try h.configOK(["set", "anki-collection", anki], now: "2026-11-23T08:00")
        try AnkiFixture.run(["manual", anki, String(try Self.ms("2026-11-23T10:00")), "--how", "due"])
        try AnkiFixture.run(["manual", anki, String(try Self.ms("2026-11-23T10:30")), "--how", "reset"])
        try AnkiFixture.run(["manual", anki, String(try Self.ms("2026-11-23T11:00")), "--how", "fsrs"])
        let sync = try h.plannerOK(["sync"], now: "2026-11-23T12:00")
        #expect(!sync.contains("studied in Anki"), "\(sync)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        #expect(try h.sqlite("SELECT count(*) FROM events WHERE kind = 'open'") == "0")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23_12_30'") == "1")
        // An answer later that day is the day's first: the open is at it, not at the first manual row.
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T12:10"))])
        try AnkiFixture.run(["manual", anki, String(try Self.ms("2026-11-24T09:00")), "--how", "due"])
        _ = try h.plannerOK(["sync"], now: "2026-11-24T10:00")
        #expect(try h.sqlite("SELECT group_concat(opened_at_local, ' ') FROM app_open_events") == "2026-11-23T12:10:00+09:00")
    }

    @Test func twoComputersReadingOneCollectionRecordOneOpen() throws {
        let a = try Harness()
        let b = try Harness()
        let anki = try collection(a)
        let folder = a.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // Made before the computers join (joining reads the collection at once: a review more than ten minutes
        // ahead of the clock waits for the next change to the collection, anki.md).
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T10:45"))])
        for h in [a, b] {
            try h.configOK(["set", "sync-folder", folder, "anki-collection", anki], now: "2026-11-23T11:00")
        }
        for h in [a, b, a] { _ = try h.plannerOK(["sync"], now: "2026-11-23T11:30") }
        for h in [a, b] {
            #expect(try h.sqlite("SELECT count(*) || ' ' || min(origin) FROM app_open") == "1 anki")
        }
    }

    /// One review read by two computers either side of a change of the study window: both record the same
    /// line (its stamp is the review's instant, nothing in it is the reader's), so both close the day the
    /// settings in force when it was *made* give, and no conflict is said. Before: each line carried its
    /// reader's stamp and device, and the greater SHA-256 chose Monday or Tuesday.
    @Test func oneReviewReadEitherSideOfAWindowChangeIsOneLineOnOneDay() throws {
        let a = try Harness()
        let b = try Harness()
        let anki = try collection(a)
        let folder = a.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try a.configOK(["set", "sync-folder", folder, "anki-collection", anki], now: "2026-11-23T20:00")
        try b.configOK(["set", "sync-folder", folder], now: "2026-11-23T20:05")
        for h in [a, b] { _ = try h.plannerOK(["sync"], now: "2026-11-23T20:10") }
        // Tuesday 00:30 by the default window (09:30–21:30: the day ends at midnight); Monday's by 20:00–01:30.
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-24T00:30"))])
        _ = try a.plannerOK(["sync"], now: "2026-11-24T00:40")
        // The laptop reads it before the sync engine brought the desktop's line (its files are set aside).
        let aside = a.dir + "/aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: false)
        let own = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            (try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8))?.contains("origin=anki") == true
        }
        for name in own { try FileManager.default.moveItem(atPath: folder + "/" + name, toPath: aside + "/" + name) }
        try b.configOK(["set", "window", "20:00-01:30"], now: "2026-11-24T00:50")
        try b.configOK(["set", "anki-collection", anki], now: "2026-11-24T00:55")
        _ = try b.plannerOK(["sync"], now: "2026-11-24T00:56")
        for name in own { try FileManager.default.moveItem(atPath: aside + "/" + name, toPath: folder + "/" + name) }
        for h in [a, b, a, b] { _ = try h.plannerOK(["sync"], now: "2026-11-24T01:00") }
        for h in [a, b] {
            #expect(try h.sqlite("SELECT group_concat(local_date || ' ' || origin, ', ') FROM app_open") == "2026-11-24 anki")
            #expect(try h.sqlite("SELECT count(*) FROM event_conflict") == "0")
            let status = try h.plannerOK(["status"], now: "2026-11-24T01:00")
            #expect(!status.contains("two different contents"), "\(status)")
        }
        let dump = try a.sqlite("SELECT * FROM events") + "\n--\n" + b.sqlite("SELECT * FROM events")
        // The two lines are one: the same bytes but for the device that wrote them.
        let lines = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".events") }.flatMap {
            try String(contentsOfFile: folder + "/" + $0, encoding: .utf8).split(separator: "\n").filter { $0.contains("origin=anki") }
        }
        #expect(lines.count == 2 && Set(lines.map { $0.replacing(/device=[0-9a-f]+/, with: "") }).count == 1, "\(lines) \(dump)")
    }

    /// After the window changes, the reviews are grouped by the rule in force when each was made: Monday's
    /// 00:30 review, Sunday's by the window then (20:00–01:30), records nothing once the window is the
    /// default, and Monday's first is its first review made since. Before: an extra open at 00:30, and
    /// none at 10:12.
    @Test func aWindowChangeRecordsNoOpenAtAReviewThatWasNeverAFirst() throws {
        let h = try Harness()
        let anki = try collection(h)
        try h.configOK(["set", "anki-collection", anki, "window", "20:00-01:30"], now: "2026-11-22T20:00")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-22T23:00")), String(try Self.ms("2026-11-23T00:30"))])
        _ = try h.plannerOK(["sync"], now: "2026-11-23T00:40")
        try h.configOK(["reset", "window"], now: "2026-11-23T10:10")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-23T10:12"))])
        _ = try h.plannerOK(["sync"], now: "2026-11-23T10:15")
        let opens = try h.sqlite("SELECT group_concat(local_date || ' ' || opened_at_local, ', ') FROM app_open_events")
        #expect(opens == "2026-11-22 2026-11-22T23:00:00+09:00, 2026-11-23 2026-11-23T10:12:00+09:00", "\(opens)")
    }

    /// A review made on the phone on Saturday 20:01 in Los Angeles, synced down after the plan's zone moved to
    /// Seoul: it is Saturday's (the settings in force when it was made), not Sunday 13:01 in Seoul, before
    /// Sunday's real first review.
    @Test func aReviewSyncedLateCountsByTheSettingsInForceWhenItWasMade() throws {
        let h = try Harness()
        let anki = try collection(h)
        try h.configOK(["set", "zone", "America/Los_Angeles", "anki-collection", anki], now: "2026-11-21T18:00Z")
        try h.configOK(["set", "zone", "Asia/Seoul"], now: "2026-11-22T04:30Z")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-22T14:00"))])
        _ = try h.plannerOK(["sync"], now: "2026-11-22T05:10Z")
        try AnkiFixture.run(["review", anki, String(try Self.ms("2026-11-21T20:01", zone: "America/Los_Angeles"))])
        _ = try h.plannerOK(["sync"], now: "2026-11-22T07:00Z")
        let opens = try h.sqlite("SELECT local_date || ' ' || opened_at_local FROM app_open_events ORDER BY opened_at")
        #expect(opens == "2026-11-21 2026-11-21T20:01:00-08:00\n2026-11-22 2026-11-22T14:00:00+09:00", "\(opens)")
    }
}

/// `planner setup` finds Anki's profiles (its own folder and the Flatpak's) and sets `anki-collection` at
/// `--install` when there is exactly one; with several it says which it found and sets nothing.
@Suite struct AnkiSetupTests {
    @Test func setupSetsTheOneProfilesCollectionAndNamesSeveral() throws {
        for flatpak in [false, true] {
            let (h, env) = try SetupTests().home()
            let bin = h.dir + "/.local/bin/planner"
            let anki = (flatpak ? h.dir + "/.var/app/net.ankiweb.Anki/data" : h.dir + "/.local/share") + "/Anki2/User 1/collection.anki2"
            try AnkiFixture.run(["create", anki])
            let dry = try h.run(bin, ["setup", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
            #expect(dry.out.contains("Anki: found \(anki); --install sets anki-collection to it"), "\(dry.out)")
            let install = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
            #expect(install.status == 0, "\(install.err)")
            #expect(install.out.contains("anki-collection: \(anki) (a card answered there closes the day"), "\(install.out)")
            let get = try h.run(bin, ["config", "get", "anki-collection"], env: h.env.merging(env) { $1 })
            #expect(get.out == anki + "\n", "\(get.out) \(get.err)")
        }
        let (h, env) = try SetupTests().home()
        let bin = h.dir + "/.local/bin/planner"
        let profiles = ["User 1", "Japanese"].map { h.dir + "/.local/share/Anki2/\($0)/collection.anki2" }
        for path in profiles { try AnkiFixture.run(["create", path]) }
        let install = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(install.status == 0, "\(install.err)")
        #expect(
            install.out.contains(
                "Anki: found 2 profiles (\(profiles.sorted().joined(separator: ", "))): choose the one you study in with planner config set anki-collection FILE"
            ), "\(install.out)")
        let get = try h.run(bin, ["config", "get", "anki-collection"], env: h.env.merging(env) { $1 })
        #expect(get.out == "\n", "\(get.out)")
    }
}

/// scripts/anki-fixture run by the Python that has Anki's backend: `.build/anki-venv` (made by scripts/test),
/// or `PLANNER_ANKI_PYTHON`.
enum AnkiFixture {
    static let python: String = {
        if let p = ProcessInfo.processInfo.environment["PLANNER_ANKI_PYTHON"], !p.isEmpty { return p }
        return Harness.repository.appendingPathComponent(".build/anki-venv/bin/python3").path
    }()
    static let script = Harness.repository.appendingPathComponent("scripts/anki-fixture").path

    static func ready() throws {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessError("no Python with Anki's backend at \(python): run scripts/test (it makes .build/anki-venv), or set PLANNER_ANKI_PYTHON")
        }
    }

    @discardableResult
    static func run(_ args: [String]) throws -> String {
        try ready()
        let r = try Harness.run(python, [script] + args, env: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        guard r.status == 0 else { throw HarnessError("anki-fixture \(args.first ?? "") failed: \(r.err)") }
        return r.out
    }

    /// The first review's id in the collection (through Anki's own handle).
    static func firstReview(_ path: String) throws -> Int64 {
        let out = try Harness.run(
            python,
            [
                "-c",
                """
                import sys; from anki.collection import Collection
                col = Collection(sys.argv[1]); print(col.db.scalar("select min(id) from revlog")); col.close()
                """, path,
            ], env: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        return try #require(Int64(out.out.trimmingCharacters(in: .whitespacesAndNewlines)), "\(out.err)")
    }

    /// Anki's own sync server (`python -m anki.syncserver`) on a free port of 127.0.0.1, one user.
    final class SyncServer {
        let process = Process()
        let port: Int
        var arguments: [String] { ["--endpoint", "http://127.0.0.1:\(port)/", "--user", "u", "--password", "p"] }

        init(folder: String) throws {
            try AnkiFixture.ready()
            let free = try Harness.run(
                AnkiFixture.python, ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"], env: [:])
            port = try #require(Int(free.out.trimmingCharacters(in: .whitespacesAndNewlines)))
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: AnkiFixture.python)
            process.arguments = ["-m", "anki.syncserver"]
            process.environment = [
                "SYNC_USER1": "u:p", "SYNC_BASE": folder, "SYNC_HOST": "127.0.0.1", "SYNC_PORT": String(port),
                "PATH": "/usr/bin:/bin", "HOME": folder,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Ready once it answers /health.
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                let probe = try Harness.run(
                    AnkiFixture.python,
                    [
                        "-c", "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)",
                        "http://127.0.0.1:\(port)/health",
                    ], env: [:])
                if probe.status == 0 { return }
                usleep(50_000)
            }
            stop()
            throw HarnessError("Anki's sync server did not answer on port \(port) within 15 s")
        }

        /// SIGKILL: the server does not end on SIGTERM.
        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// `anki-fixture hold`: a real Anki holding the collection open, answering on command.
    final class Holder {
        let process = Process()
        let input = Pipe(), output = Pipe(), errorPipe = Pipe()
        private var buffer = Data()

        init(_ path: String) throws {
            try AnkiFixture.ready()
            process.executableURL = URL(fileURLWithPath: AnkiFixture.python)
            process.arguments = [AnkiFixture.script, "hold", path]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errorPipe
            try process.run()
            let ready = try line()
            guard ready.contains("\"ready\": true") else { throw HarnessError("anki-fixture hold: \(ready) \(errors())") }
        }

        /// Sends one command, returns the JSON line it printed.
        func send(_ command: String) throws -> String {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
            return try line()
        }

        private func line() throws -> String {
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...end)
                    return line
                }
                let more = output.fileHandleForReading.availableData
                guard !more.isEmpty else { throw HarnessError("anki-fixture hold ended: \(errors())") }
                buffer += more
            }
        }

        func exitStatus() -> Int32 {
            process.waitUntilExit()
            return process.terminationStatus
        }

        func errors() -> String {
            process.isRunning ? "" : String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }

        func end() {
            if process.isRunning { process.terminate() }
        }
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) {
        lock.lock()
        list.append(item)
        lock.unlock()
    }
    var items: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
