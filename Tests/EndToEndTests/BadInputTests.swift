import Foundation
import PlannerHarness
import Testing

/// Every bad input: one `error:` line on stderr, nothing on stdout, a deliberate exit code, and the
/// database file byte-identical (or not created at all).
@Suite struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var args: [String] = ["refill"]
        var env: [String: String] = [:]
        var prepare: @Sendable (Harness) throws -> Void = { _ in }
        var dbPath: @Sendable (Harness) -> String = { $0.db }
        var addDefaults = true  // append --db and --now
        var exitCode: Int32
        var says: String
        var testDescription: String { name }
    }

    /// A planner database with 64 pending, fully checkpointed into the main file.
    static func plannerDatabase(_ h: Harness) throws {
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.sqlite("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static let cases: [Case] = [
        Case(name: "--now not a time", args: ["refill", "--now", "tomorrow"], exitCode: 64, says: "invalid time 'tomorrow'"),
        Case(name: "--now impossible date", args: ["open", "--now", "2026-02-30T10:00"], exitCode: 64, says: "no such date"),
        Case(
            name: "--now skipped by DST", args: ["refill", "--now", "2026-03-08T02:30"], env: ["TZ": "America/New_York"],
            exitCode: 64, says: "does not exist in America/New_York"),
        Case(name: "PLANNER_NOW bad", args: ["status"], env: ["PLANNER_NOW": "2026-11-23 12:00"], exitCode: 64, says: "PLANNER_NOW"),
        Case(name: "--grace bad", args: ["refill", "--grace", "soon", "--now", "2026-11-23T12:00"], exitCode: 64, says: "invalid --grace"),
        Case(name: "TZ unknown", args: ["list"], env: ["TZ": "Mars/Olympus_Mons"], exitCode: 64, says: "unknown time zone 'Mars/Olympus_Mons'"),
        Case(name: "TZ escapes the zone folder", args: ["list"], env: ["TZ": "../../../etc/passwd"], exitCode: 64, says: "unknown time zone"),
        Case(name: "TZ a POSIX rule string", args: ["list"], env: ["TZ": "EST+5EDT,M3.2.0/2,M11.1.0/2"], exitCode: 64, says: "unknown time zone"),
        Case(name: "unknown option", args: ["refill", "--frobnicate"], exitCode: 64, says: "unknown option"),
        Case(name: "unknown subcommand", args: ["explode"], addDefaults: false, exitCode: 64, says: "unexpected argument 'explode'"),
        Case(name: "--db without value", args: ["list", "--db"], exitCode: 64, says: "missing value"),
        Case(
            name: "text file", prepare: { h in try "hello, not a database\n".write(toFile: h.db, atomically: true, encoding: .utf8) },
            exitCode: 65, says: "is not a SQLite database"),
        Case(
            name: "file with a damaged header",
            prepare: { h in
                try plannerDatabase(h)
                var data = h.bytes(h.db)!
                data.replaceSubrange(0..<16, with: Data(repeating: 0x41, count: 16))
                try data.write(to: URL(fileURLWithPath: h.db))
            }, exitCode: 65, says: "is not a SQLite database"),
        Case(
            name: "truncated planner database",
            prepare: { h in
                try plannerDatabase(h)
                let data = h.bytes(h.db)!
                try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: h.db))
            }, exitCode: 65, says: "is truncated"),
        Case(
            name: "planner database cut inside its header",
            prepare: { h in
                try plannerDatabase(h)
                try h.bytes(h.db)!.prefix(50).write(to: URL(fileURLWithPath: h.db))
            }, exitCode: 65, says: "not a SQLite database"),
        Case(
            name: "corrupt pages",
            prepare: { h in
                try plannerDatabase(h)
                var data = h.bytes(h.db)!
                let pageSize = 4096
                data.replaceSubrange(pageSize..<data.count, with: Data(repeating: 0xA5, count: data.count - pageSize))
                try data.write(to: URL(fileURLWithPath: h.db))
            }, exitCode: 65, says: "is corrupt"),
        Case(
            name: "someone else's SQLite database",
            prepare: { h in
                _ = try h.sqlite("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
            }, exitCode: 65, says: "belongs to another program"),
        Case(
            name: "someone else's with an application_id",
            prepare: { h in
                _ = try h.sqlite("PRAGMA application_id = 12345; CREATE TABLE t (x);")
            }, exitCode: 65, says: "belongs to another program"),
        Case(
            name: "newer planner database",
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("PRAGMA user_version = 99")
            }, exitCode: 65, says: "newer planner"),
        Case(
            name: "newer schema only in a leftover WAL",
            prepare: { h in
                try plannerDatabase(h)
                try writerKilledWithContentInWAL(h, "PRAGMA user_version = 99")
            }, exitCode: 65, says: "newer planner"),
        Case(
            name: "someone else's tables only in a leftover WAL",
            prepare: { h in
                try writerKilledWithContentInWAL(h, "PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT)")
            }, exitCode: 65, says: "belongs to another program"),
        // Found in review: closing checkpointed the WAL into a file it had just refused, and deleted the WAL.
        Case(
            name: "corrupt pages beside a WAL of committed changes", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                try writerKilledWithContentInWAL(h, "UPDATE setting SET value = 'Mine' WHERE key = 'title'")
                // One page (its second): all of them would be found corrupt while the file is still being checked.
                var data = h.bytes(h.db)!
                data.replaceSubrange(4096..<8192, with: Data(repeating: 0xA5, count: 4096))
                try data.write(to: URL(fileURLWithPath: h.db))
            }, exitCode: 65, says: "is corrupt"),
        // A backup put back without moving the old file's WAL away: its pages read as another file's.
        Case(
            name: "a backup put back beside the old file's WAL", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                let backup = h.dir + "/backup.db"
                guard try h.planner(["refill", "--db", backup, "--now", "2026-12-01T08:00"]).status == 0 else { throw HarnessError("no backup") }
                try writerKilledWithContentInWAL(h, "UPDATE request SET title = title || ' (edited)'")
                try FileManager.default.removeItem(atPath: h.db)
                try FileManager.default.copyItem(atPath: backup, toPath: h.db)
            }, exitCode: 65, says: "-wal is not its own: if you put the file back from a backup, move that -wal away"),
        Case(
            name: "a trigger of your own that writes a planner table", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TRIGGER forget_opens AFTER INSERT ON app_open BEGIN DELETE FROM app_open; END")
            }, exitCode: 65, says: "a trigger of your own, forget_opens, that writes the planner's app_open inside the planner's changes to app_open"),
        // The same through a table of one's own: the authorizer names the innermost trigger.
        Case(
            name: "a trigger of your own that writes a planner table through another", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite(
                    """
                    CREATE TABLE my_log (d TEXT);
                    CREATE TRIGGER "log ""opens"" here" AFTER INSERT ON app_open BEGIN INSERT INTO my_log VALUES (NEW.local_date); END;
                    CREATE TRIGGER my_log_cleans AFTER INSERT ON my_log BEGIN UPDATE request SET state = 'cancelled' WHERE 0; END;
                    """)
            }, exitCode: 65, says: "a trigger of your own, my_log_cleans, that writes the planner's request inside the planner's changes to app_open"),
        // A BEFORE trigger can skip the row: RAISE(IGNORE) loses every open without an error.
        Case(
            name: "a BEFORE trigger of your own on a planner table", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TRIGGER /* quiet */ [skip opens] BEFORE INSERT ON app_open BEGIN SELECT RAISE(IGNORE); END")
            }, exitCode: 65,
            says:
                #"a trigger of your own, skip opens, that runs before (or instead of) the planner's changes to app_open: it can skip them; drop it (DROP TRIGGER "skip opens";)"#
        ),
        Case(
            name: "a trigger of your own without a time (BEFORE)", args: ["refill"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TABLE my_log (x); CREATE TRIGGER counts INSERT ON request BEGIN INSERT INTO my_log VALUES (1); END")
            }, exitCode: 65, says: "a trigger of your own, counts, that runs before (or instead of) the planner's changes to request"),
        // Its table dropped since: every planner change to app_open would fail with SQLite's own text.
        Case(
            name: "a trigger of your own that SQLite cannot run", args: ["status"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite(
                    """
                    CREATE TABLE my_log (d TEXT);
                    CREATE TRIGGER log_opens AFTER INSERT ON app_open BEGIN INSERT INTO my_log VALUES (NEW.local_date); END;
                    DROP TABLE my_log;
                    """)
            }, exitCode: 65,
            says:
                "has a trigger of your own on the planner's app_open (log_opens) that SQLite cannot run (no such table: main.my_log): fix or drop it"),
        // SQLite keeps the table's name as written after ON, and names ignore case: found in review, a
        // trigger `ON Setting` was never looked at, and `config set` exited 0 having changed nothing.
        Case(
            name: "a BEFORE trigger of your own on a planner table named in another case", args: ["config", "set", "title", "Hello"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TRIGGER keep_title BEFORE UPDATE ON Setting BEGIN SELECT RAISE(IGNORE); END")
            }, exitCode: 65, says: "a trigger of your own, keep_title, that runs before (or instead of) the planner's changes to Setting"),
        // Found in review: a trigger named like a planner object in another case was taken for the planner's.
        Case(
            name: "a BEFORE trigger of your own named like a planner table", args: ["config", "set", "title", "Hello"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TRIGGER Setting BEFORE UPDATE ON setting BEGIN SELECT RAISE(IGNORE); END")
            }, exitCode: 65, says: "a trigger of your own, Setting, that runs before (or instead of) the planner's changes to setting"),
        // Named exactly like one: it was "a planner schema changed by hand", with a backup as the way out.
        Case(
            name: "a trigger of your own named exactly like a planner table", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE TABLE my_log (d); CREATE TRIGGER app_open AFTER INSERT ON app_open BEGIN INSERT INTO my_log VALUES (1); END")
            }, exitCode: 65, says: "has an object of your own (a trigger, say) named app_open like one of the planner's: rename or drop yours"),
        // A UNIQUE index refuses the planner's own rows: another device's second open of a day was left out.
        Case(
            name: "a unique index of your own on a planner table", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite("CREATE UNIQUE INDEX my_one_open_a_day ON app_open (local_date)")
            }, exitCode: 65,
            says:
                #"a unique index of your own, my_one_open_a_day, on the planner's app_open: it can refuse the planner's own changes; drop it (DROP INDEX "my_one_open_a_day";)"#
        ),
        Case(
            name: "a trigger of your own that writes a planner table, on a table named in another case", args: ["open"],
            prepare: { h in
                try plannerDatabase(h)
                _ = try h.sqlite(#"CREATE TRIGGER forget AFTER INSERT ON main."APP_OPEN" BEGIN DELETE FROM app_open WHERE id = NEW.id; END"#)
            }, exitCode: 65, says: "a trigger of your own, forget, that writes the planner's app_open inside the planner's changes to APP_OPEN"),
        Case(name: "--now year 9999", args: ["refill", "--now", "9999-12-31T12:00"], exitCode: 64, says: "between 1970 and 9990"),
        Case(name: "--now before 1970", args: ["refill", "--now", "1880-01-05T09:30"], exitCode: 64, says: "between 1970 and 9990"),
        Case(name: "TZ a leap-second zone", args: ["list"], env: ["TZ": "right/UTC"], exitCode: 64, says: "unknown time zone 'right/UTC'"),
        Case(name: "path ending in a slash", dbPath: { $0.dir + "/newfolder/" }, exitCode: 64, says: "names a folder"),
        Case(
            name: "dangling symlink",
            prepare: { h in
                try FileManager.default.createSymbolicLink(atPath: h.db, withDestinationPath: h.dir + "/missing/x.db")
            }, exitCode: 64, says: "symbolic link to a missing file"),
        Case(name: "a FIFO", prepare: { h in _ = mkfifo(h.db, 0o600) }, exitCode: 64, says: "not a regular file"),
        Case(name: "/dev/null", dbPath: { _ in "/dev/null" }, exitCode: 64, says: "not a regular file"),
        Case(
            name: "folder as database",
            prepare: { h in
                try FileManager.default.createDirectory(atPath: h.db, withIntermediateDirectories: true)
            }, exitCode: 64, says: "is a folder"),
        Case(
            name: "parent is a file",
            prepare: { h in
                _ = FileManager.default.createFile(atPath: h.dir + "/afile", contents: Data("x".utf8))
            }, dbPath: { $0.dir + "/afile/planner.db" }, exitCode: 74, says: "cannot"),
    ]

    /// Leaves `sql`'s effect only in the WAL, as when a writer is killed before it checkpoints.
    static func writerKilledWithContentInWAL(_ h: Harness, _ sql: String) throws {
        let script = """
            import os, shutil, sqlite3, sys
            db = sys.argv[1]
            shutil.copy(db, db + ".tmp") if os.path.exists(db) else None
            con = sqlite3.connect(db + ".tmp" if os.path.exists(db) else db + ".tmp", isolation_level=None)
            con.execute("PRAGMA journal_mode = WAL"); con.execute("PRAGMA wal_autocheckpoint = 0")
            for statement in sys.argv[2].split(";"):
                con.execute(statement)
            shutil.copy(db + ".tmp", db); shutil.copy(db + ".tmp-wal", db + "-wal")
            os._exit(0)  # no close: the WAL is not checkpointed
            """
        _ = try h.python(script, [h.db, sql])
        guard FileManager.default.fileExists(atPath: h.db + "-wal") else { throw HarnessError("no WAL was left") }
    }

    /// A command that only reads does not fold a WAL it found into the file as it closes: both stay as they
    /// were (found in review: `status` beside a `-wal` left from the file before a backup was put back wrote
    /// that WAL's pages into the restored file, and deleted the WAL).
    @Test(arguments: [["status"], ["list"]])
    func aReadingCommandLeavesTheFileAndItsWALAsTheyAre(_ args: [String]) throws {
        let h = try Harness()
        try Self.plannerDatabase(h)
        try Self.writerKilledWithContentInWAL(h, "UPDATE setting SET value = 'Mine' WHERE key = 'title'")
        let before = h.bytes(h.db)
        let walBefore = h.bytes(h.db + "-wal")
        _ = try h.plannerOK(args, now: "2026-11-23T12:30")
        #expect(h.bytes(h.db) == before, "the file changed")
        #expect(h.bytes(h.db + "-wal") == walBefore, "its WAL changed")
        // The next command that writes folds it in, as before.
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:30")
        #expect(try h.sqlite("SELECT value FROM setting WHERE key = 'title'") == "Mine")
        #expect(!FileManager.default.fileExists(atPath: h.db + "-wal"))
    }

    /// An audit log of one's own (AFTER triggers writing only tables of one's own) is a fair use of the
    /// schema, and bench/reliability/concurrency.py relies on one for the real order of opens and claims.
    @Test func anAuditTriggerOfYourOwnIsAllowed() throws {
        let h = try Harness()
        try Self.plannerDatabase(h)
        _ = try h.sqlite(
            """
            CREATE TABLE my_audit (what TEXT, identifier TEXT, local_date TEXT);
            CREATE TRIGGER my_audit_open AFTER INSERT ON app_open
            BEGIN INSERT INTO my_audit VALUES ('open', NULL, NEW.local_date); END;
            CREATE TRIGGER my_audit_claim AFTER UPDATE OF state ON request WHEN NEW.state = 'delivering'
            BEGIN INSERT INTO my_audit VALUES ('claim', NEW.identifier, NEW.local_date); END;
            """)
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:30")
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:45")
        #expect(
            try h.sqlite("SELECT group_concat(what || ' ' || coalesce(identifier, local_date), ', ') FROM my_audit")
                == "claim Noti_AppOpenPromotion_2026_11_23_12_30, open 2026-11-23")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
    }

    /// Found in review: another device's open, applied here under an audit trigger that failed (a UNIQUE
    /// constraint of the user's own table), was taken for an open the database refuses, left out and never
    /// read again: `sync` exited 0 and the day's reminders kept coming. The planner cannot tell the two
    /// apart, so with triggers of the user's own it stops, and the open waits for the trigger to be fixed.
    @Test(arguments: [
        (
            "INSERT INTO my_days VALUES (NEW.local_date)",
            "while the planner's tables have triggers of your own (my_days_opened): if one of them failed, fix or drop it"
        ),
        // Found in review: RAISE(ROLLBACK) ends the transaction, and the undo that followed said only "no
        // such savepoint", exit 1.
        ("SELECT RAISE(ROLLBACK, 'not today')", "a trigger of your own rolled the planner's change back (not today): fix or drop it"),
    ])
    func anotherDevicesOpenWaitsWhileATriggerOfYourOwnFails(_ body: String, _ says: String) throws {
        let laptop = try Harness()
        let desktop = try Harness()
        let folder = laptop.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (h, name) in [(laptop, "laptop"), (desktop, "desktop")] {
            let set = try h.planner(["config", "set", "sync-folder", folder, "device-name", name, "--db", h.db, "--now", "2026-11-23T08:00"])
            #expect(set.status == 0, "\(set.err)")
            _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        }
        _ = try desktop.sqlite(
            """
            CREATE TABLE my_days (d TEXT UNIQUE);
            CREATE TRIGGER my_days_opened AFTER INSERT ON app_open BEGIN \(body); END;
            INSERT INTO my_days VALUES ('2026-11-23');
            """)
        _ = try laptop.plannerOK(["open"], now: "2026-11-23T12:30")
        let pending = "SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-23'"
        let before = try desktop.sqlite(pending)
        let sync = try desktop.planner(["sync", "--db", desktop.db, "--now", "2026-11-23T12:31"])
        #expect(sync.status == 65, "\(sync.out) \(sync.err)")
        #expect(sync.err.contains(says), "\(sync.err)")
        #expect(try desktop.sqlite("SELECT count(*) FROM app_open") == "0")
        #expect(try desktop.sqlite(pending) == before)
        // Fixed, the open is read again and applied.
        _ = try desktop.sqlite("DROP TRIGGER my_days_opened")
        _ = try desktop.plannerOK(["sync"], now: "2026-11-23T12:32")
        #expect(try desktop.sqlite("SELECT local_date FROM app_open") == "2026-11-23")
        #expect(try desktop.sqlite(pending) == "0")
    }

    /// Found in review: a login's open under a trigger of one's own that fails (here a UNIQUE constraint of
    /// one's own table) exited 1 and was lost. It is saved for later, as when the database is busy; the
    /// next write says what fails, and once the trigger is dropped the open is applied at its own time.
    @Test func anOpenUnderAFailingTriggerOfYourOwnIsSavedForLater() throws {
        let h = try Harness()
        try Self.plannerDatabase(h)
        _ = try h.sqlite(
            """
            CREATE TABLE my_days (d TEXT UNIQUE);
            CREATE TRIGGER my_days_opened AFTER INSERT ON app_open BEGIN INSERT INTO my_days VALUES (NEW.local_date); END;
            INSERT INTO my_days VALUES ('2026-11-23');
            """)
        let open = try h.planner(["open", "--db", h.db, "--now", "2026-11-23T12:30"])
        #expect(open.status == 0, "\(open.err)")
        #expect(open.err.contains("was saved in") && open.err.contains("triggers of your own (my_days_opened)"), "\(open.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        let refill = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:40"])
        #expect(refill.status == 65, "\(refill.err)")
        #expect(refill.err.contains("triggers of your own (my_days_opened): if one of them failed, fix or drop it"), "\(refill.err)")
        _ = try h.sqlite("DROP TRIGGER my_days_opened")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:45")
        #expect(try h.sqlite("SELECT local_time FROM app_open").hasPrefix("2026-11-23T12:30:00"))
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-23'") == "0")
    }

    @Test(arguments: cases)
    func refusedWithOneLineAndNothingChanged(_ c: Case) throws {
        let h = try Harness()
        try c.prepare(h)
        let path = c.dbPath(h)
        let existed = FileManager.default.fileExists(atPath: path)
        let before = h.bytes(path)
        let walBefore = h.bytes(path + "-wal")
        var args = c.args
        if c.addDefaults && !args.contains("--db") { args += ["--db", path] }
        if c.addDefaults && !args.contains("--now") && c.env["PLANNER_NOW"] == nil { args += ["--now", "2026-11-23T12:30"] }
        let r = try h.planner(args, env: c.env)
        #expect(r.status == c.exitCode, "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(r.err.hasPrefix("error: "), "\(r.err)")
        #expect(r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
        #expect(r.err.contains(c.says), "\(r.err)")
        #expect(h.bytes(path) == before, "the file changed")
        // An existing WAL is untouched; SQLite may leave an empty one beside a file it found corrupt.
        #expect(h.bytes(path + "-wal") == walBefore || (walBefore == nil && h.bytes(path + "-wal")?.isEmpty == true), "its WAL changed")
        if !existed { #expect(!FileManager.default.fileExists(atPath: path), "a file was created") }
        #expect(!r.err.contains("Fatal error") && !r.err.contains("Stack"))
    }
}
