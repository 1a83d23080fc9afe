import Foundation
import PlannerHarness
import Testing

/// A long history in Anki's review log read for the first time (issue 48): years of study days become opens
/// without a request row per past slot, a slice to a transaction with the database free between slices, and
/// the collection's copy made outside the planner's write transaction. The collections are real ones made by
/// Anki's own backend; the years of reviews are written into their review log as Anki writes them (one row
/// per answer, its id the answer's epoch milliseconds), with Anki closed.
@Suite(.serialized) struct AnkiHistoryTests {
    /// Monday 2026-11-23 12:00 in Asia/Seoul (the harness's zone): 03:00Z.
    static let nowMS: Int64 = 1_795_402_800_000
    static let now = "2026-11-23T12:00"

    /// A collection with `days` past study days before today (`perDay` answers each, the first of each day
    /// at a time of day between 08:00 and 22:00 Seoul time), and `padMiB` of other data (a large collection).
    /// The tests study every day (`days daily`): each past day is a study day.
    func collection(_ h: Harness, at path: String? = nil, days: Int, perDay: Int = 3, padMiB: Int = 0) throws -> String {
        let path = path ?? h.dir + "/Anki2/User 1/collection.anki2"
        try AnkiFixture.run(["create", path, "--notes", "3"])
        _ = try h.python(
            """
            import random, sqlite3, sys
            path, days, per_day, pad, now = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
            con = sqlite3.connect(path)
            cid = con.execute("SELECT id FROM cards LIMIT 1").fetchone()[0]
            rng, rows = random.Random(48), []
            midnight = now - 12 * 3600000  # today's 00:00 in Seoul
            for d in range(days, 0, -1):
                t = midnight - d * 86400000 + rng.randrange(8 * 3600000, 22 * 3600000)
                rows += [(t + k * 7000, cid, -1, 3, 1, 1, 2500, 6000, 1) for k in range(per_day)]
            con.executemany("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?,?,?,?,?,?,?,?,?)", rows)
            if pad:
                con.execute("CREATE TABLE planner_test_pad (b BLOB)")
                con.executemany("INSERT INTO planner_test_pad VALUES (randomblob(1048576))", [()] * pad)
            con.commit()
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.close()
            """, [path, String(days), String(perDay), String(padMiB), String(Self.nowMS)])
        return path
    }

    /// Seven years read by one `refill`: every past day is an open, and not one request row is made for a
    /// past day (each past day had been planned at its own instant: 43 MB of rows for twenty years).
    @Test func aFirstReadOfYearsRecordsEveryDayAndNoRequestForAPastOne() throws {
        let h = try Harness()
        let anki = try collection(h, days: 2_555)
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        _ = try h.plannerOK(["refill"], now: Self.now)
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE origin = 'anki'") == "2555")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE local_date < '2026-11-23'") == "0")
        #expect(try h.sqlite("SELECT count(*) FROM request") == "64")
        #expect(try h.sqlite("SELECT more, problem IS NULL FROM anki_read") == "0|1")
        // Each day's open is at its first answer, by the plan's day rule, and the record holds them all.
        #expect(try h.sqlite("SELECT count(DISTINCT local_date), max(local_date) FROM app_open") == "2555|2026-11-22")
        let stats = try h.plannerOK(["stats", "--json"], now: Self.now)
        #expect(stats.contains("\"opened_by\": \"anki\""), "\(stats.prefix(400))")
        // Read again with nothing new: nothing more.
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:01")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "2555")
    }

    /// A first read of twenty years holds the database a slice at a time: another process that wants it
    /// (a login's `open`, the ticker's claim) gets it between slices, and sees the history half read.
    @Test func anotherProcessGetsTheDatabaseBetweenSlices() throws {
        let h = try Harness()
        let anki = try collection(h, days: 7_300, perDay: 2)
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        // A process taking the write lock again and again while `refill` reads: the counts it saw, and its
        // longest wait.
        let seen = h.dir + "/seen"
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        waiter.arguments = [
            "-c",
            """
            import os, sqlite3, sys, time
            db, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
            con = sqlite3.connect(db, timeout=30, isolation_level=None)
            counts, longest = set(), 0.0
            while not os.path.exists(stop):
                t = time.monotonic()
                con.execute("BEGIN IMMEDIATE")
                longest = max(longest, time.monotonic() - t)
                counts.add(con.execute("SELECT count(*) FROM app_open").fetchone()[0])
                con.execute("COMMIT")
                time.sleep(0.002)
            open(out, "w").write(" ".join(map(str, sorted(counts))) + "\\n%.3f\\n" % longest)
            """, h.db, seen, h.dir + "/stop",
        ]
        try waiter.run()
        let r = try h.planner(["refill", "--db", h.db, "--now", Self.now])
        FileManager.default.createFile(atPath: h.dir + "/stop", contents: nil)
        waiter.waitUntilExit()
        #expect(r.status == 0, "\(r.err)")
        let lines = h.text("seen").split(separator: "\n")
        try #require(lines.count == 2, "\(lines)")
        let counts = lines[0].split(separator: " ").compactMap { Int($0) }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "7300")
        // Seen between slices: more than none and fewer than all.
        #expect(counts.contains { $0 > 0 && $0 < 7_300 }, "counts seen: \(counts)")
        #expect(Double(lines[1]) ?? 99 < 1.0, "longest wait for the database: \(lines[1]) s")
    }

    /// Twenty years set while the ticker runs: it reads them a slice a pass, and a reminder due meanwhile
    /// is shown on time.
    @Test func aLiveTickerReadsTwentyYearsAndShowsAReminderOnTime() throws {
        let h = try Harness()
        let anki = try collection(h, days: 7_300, perDay: 2)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }
        // A reminder due in two seconds, then the collection: its first read runs across the reminder's time.
        _ = try h.planner(["add", "--db", h.db, "--in", "2s", "--title", "due now", "--id", "due-now"]).check()
        _ = try h.planner(["config", "set", "anki-collection", anki, "days", "daily", "--db", h.db]).check()
        try h.waitFor(seconds: 30) { try h.sqlite("SELECT count(*) FROM app_open") == "7300" }
        try h.waitFor(seconds: 10) { h.text("tick.out").contains("due now") }
        let late = try #require(Int64(try h.sqlite("SELECT delivered_at_ms - fire_at_ms FROM request WHERE identifier = 'due-now'")))
        #expect(late < 1_000, "shown \(late) ms after its time")
        #expect(try h.sqlite("SELECT more FROM anki_read") == "0")
        // Its log says each slice as a count and a span, not a thousand dates.
        #expect(h.text("tick.err").contains("studied in Anki, opened: 1000 days, "), "\(h.text("tick.err").suffix(600))")
        #expect(ticker.isRunning)
    }

    /// A login's `open` while a `refill` copies a large collection (here one on a mount that stalls in the
    /// middle of the copy): the copy is made outside the planner's write transaction, so the login records
    /// its open at once instead of waiting for the database and spooling it to the inbox.
    @Test(.enabled(if: StalledMountTests.usable, "needs root, /dev/fuse and python3-pyfuse3"))
    func aLoginOpensWhileTheCollectionIsBeingCopied() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMountTests.StalledMount(h)
        defer { mount.close() }
        _ = try collection(h, at: mount.source + "/collection.anki2", days: 30, padMiB: 96)
        let anki = mount.point + "/collection.anki2"
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        let refill = Process()
        refill.executableURL = URL(fileURLWithPath: Harness.binary)
        refill.arguments = ["refill", "--db", h.db, "--now", Self.now]
        refill.environment = h.env.merging(["PLANNER_FOLDER_DEADLINE_MS": "30000"]) { $1 }
        refill.standardOutput = FileHandle.nullDevice
        refill.standardError = FileHandle.nullDevice
        try refill.run()
        // The copy has begun: the mount stops answering in the middle of it.
        let partial = h.db + ".anki-copy/collection.anki2.planner-tmp"
        let deadline = Date().addingTimeInterval(20)
        while access(partial, F_OK) != 0, Date() < deadline { usleep(500) }
        try #require(access(partial, F_OK) == 0, "the copy never began")
        mount.stall()
        usleep(300_000)
        let start = Date()
        let login = try h.run(
            "/usr/bin/timeout", ["-s", "KILL", "10", Harness.binary, "open", "--login", "--db", h.db, "--now", Self.now], env: h.env)
        let seconds = Date().timeIntervalSince(start)
        #expect(login.status == 0 && seconds < 0.9, "open --login took \(seconds) s: \(login.status) \(login.err)")
        // Recorded in the database itself, not spooled for later.
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE origin <> 'anki'") == "1")
        #expect(refill.isRunning, "the copy was not held up")
        mount.answer()
        refill.waitUntilExit()
        #expect(refill.terminationStatus == 0)
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE origin = 'anki'") == "30")
    }

    /// The copy is made before the transaction that records it: a command killed in between leaves a copy
    /// (here another collection's, as switching collections does) that no row describes. The copy folder
    /// says which database file its copy was taken from (`copied-from`, removed before a whole copy), so
    /// the next read never lays this collection's WAL over that copy.
    @Test func aCopyNoTransactionRecordedIsNeverTakenForTheOneRecorded() throws {
        let h = try Harness()
        let anki = try collection(h, days: 5)
        let other = try collection(h, at: h.dir + "/other/collection.anki2", days: 400, padMiB: 2)
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        let holder = try AnkiFixture.Holder(anki)
        defer { holder.end() }
        _ = try h.plannerOK(["refill"], now: Self.now)
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "5")
        // What a child copying the other collection leaves when its command dies before the transaction.
        let copy = h.db + ".anki-copy"
        unlink(copy + "/copied-from")
        unlink(copy + "/collection.anki2-wal")
        #expect(unlink(copy + "/collection.anki2") == 0)
        try FileManager.default.copyItem(atPath: other, toPath: copy + "/collection.anki2")
        // Anki, still running, writes a review of an earlier day into its WAL: the database file is unchanged.
        let monday = Self.nowMS - 7 * 86_400_000
        _ = try holder.send("review \(monday)")
        let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:01"])
        #expect(r.status == 0 && r.err.isEmpty, "\(r.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '2026-11-16'") == "1")
        #expect(try h.sqlite("SELECT problem IS NULL FROM anki_read") == "1")
    }

    /// The copy is made outside the planner's write transaction, so two planner processes may copy at once:
    /// the one that finds the copy folder locked (here by a stand-in holding its lock) does not wait past a
    /// child's lock wait, says nothing is wrong, and leaves the read to the next change.
    @Test func aCopyFolderLockedByAnotherCopyIsLeftForTheNextChange() throws {
        let h = try Harness(productDeadline: true)
        let anki = try collection(h, days: 5)
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        _ = try h.plannerOK(["refill"], now: Self.now)
        // Anki changed since; another process's child holds the copy folder's lock (it copies for a second).
        _ = try h.sqlite("UPDATE col SET mod = mod + 1", db: anki)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); open(sys.argv[2], 'w').close(); time.sleep(60)",
            h.db + ".anki-copy/lock", h.dir + "/held",
        ]
        try holder.run()
        defer {
            if holder.isRunning {
                kill(holder.processIdentifier, SIGKILL)
                holder.waitUntilExit()
            }
        }
        try h.waitFor(seconds: 10) { access(h.dir + "/held", F_OK) == 0 }
        let start = Date()
        let r = try h.planner(["sync", "--db", h.db, "--now", "2026-11-23T12:01"])
        #expect(r.status == 0 && r.err.isEmpty, "\(r.status) \(r.err)")
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(r.out.contains("is being copied by another planner process: read by the next change"), "\(r.out)")
        #expect(try h.sqlite("SELECT problem IS NULL FROM anki_read") == "1")
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try AnkiFixture.run(["review", anki, String(Self.nowMS - 7 * 86_400_000)])
        let after = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:02"])
        #expect(after.status == 0 && after.err.isEmpty, "\(after.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '2026-11-16'") == "1")
    }

    /// Each slice of a first read is published to the sync folder as it commits: another computer sees the
    /// whole history after one command, not the latest 1,000 days until this one's next change.
    @Test func everySliceIsPublishedToTheSyncFolder() throws {
        let h = try Harness()
        let anki = try collection(h, days: 2_555, perDay: 1)
        let folder = h.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try h.configOK(["set", "sync-folder", folder, "device-name", "laptop"], now: Self.now)
        try h.configOK(["set", "anki-collection", anki, "days", "daily"], now: Self.now)
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        _ = try h.plannerOK(["refill"], now: Self.now)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".events") }
        let lines = try files.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined()
            .split(separator: "\n").filter { $0.contains("kind=open") && $0.contains("origin=anki") }
        #expect(lines.count == 2_555, "\(lines.count) opens published")
    }
}
