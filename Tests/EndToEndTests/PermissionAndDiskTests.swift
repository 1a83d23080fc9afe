import Foundation
import PlannerHarness
import Testing

/// Files the user cannot write, and a full disk: a clear one-line error, exit 74, nothing changed.
/// As root, permissions do not apply, so those commands run as `nobody` (setpriv); the full disk is a
/// small tmpfs, which needs root to mount.
@Suite(.serialized) struct PermissionAndDiskTests {
    /// `planner ARGS` as an unprivileged user when the tests run as root.
    func asUser(_ h: Harness, _ args: [String]) throws -> Harness.Result {
        if getuid() == 0 {
            return try h.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", Harness.binary] + args, env: h.env)
        }
        return try h.planner(args)
    }

    func givenToUser(_ path: String) {
        if getuid() == 0 { _ = chown(path, 65534, 65534) }
    }

    func expectRefused(_ r: Harness.Result, saying text: String) {
        #expect(r.status == 74, "\(r.err)")
        #expect(r.err.hasPrefix("error: ") && r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
        #expect(r.err.contains(text), "\(r.err)")
    }

    /// A planner database in its own folder, owned by the unprivileged user.
    func database(_ h: Harness) throws -> String {
        let folder = h.dir + "/data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(h.dir, 0o755)
        let db = folder + "/planner.db"
        _ = try h.planner(["refill", "--db", db, "--now", "2026-11-23T08:00"])
        givenToUser(folder)
        givenToUser(db)
        return db
    }

    /// Output that cannot be written (stdout on a full device) is an error, not a silent exit 0.
    /// Out of file descriptors (`ulimit -n`), the stored zone is never said to be missing from the tz
    /// database, nor the plan rebuilt in another zone: each command either works or exits 74 saying why,
    /// whatever the limit.
    @Test func runningOutOfFileDescriptorsNeverChangesThePlansZone() throws {
        var h = try Harness()
        h.env["TZ"] = "Asia/Seoul"
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        let plan = try h.sqlite("SELECT group_concat(identifier) FROM pending_requests")
        for limit in 4...12 {
            for command in ["refill", "status", "list", "skip 2026-12-24"] {
                let args = command.split(separator: " ").map(String.init) + ["--db", h.db, "--now", "2026-11-23T08:05"]
                let r = try h.run("/bin/sh", ["-c", "ulimit -n \(limit); exec \"$@\"", "sh", Harness.binary] + args, env: h.env)
                #expect(!r.err.contains("tz database") && !r.err.contains("using the system zone"), "\(limit) \(command): \(r.err)")
                #expect(r.status == 0 || r.status == 74, "\(limit) \(command): \(r.status) \(r.err)")
                if r.status == 74 { #expect(r.err.split(separator: "\n").count == 1, "\(r.err)") }
            }
            #expect(try h.sqlite("SELECT value FROM settings WHERE key = 'zone'") == "Asia/Seoul")
            #expect(try h.sqlite("SELECT group_concat(identifier) FROM pending_requests") == plan, "ulimit -n \(limit)")
        }
    }

    @Test func outputToAFullDeviceFails() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        for args in [
            ["list"], ["list", "--json"], ["status"], ["history"], ["stats", "--json"], ["plan"],
            ["export", "--ics"], ["config"], ["--version"], ["--help"], ["config", "--help"],
        ] {
            let command = args[0].hasPrefix("--") || args.contains("--help") ? args : [args[0], "--db", h.db] + args.dropFirst()
            let r = try h.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", Harness.binary] + command, env: h.env)
            #expect(r.status == 74, "\(args)")
            #expect(r.err == "error: cannot write to stdout: No space left on device\n", "\(args)")
        }
    }

    @Test func readOnlyDatabaseFile() throws {
        let h = try Harness()
        let db = try database(h)
        chmod(db, 0o400)
        let before = h.bytes(db)
        expectRefused(try asUser(h, ["open", "--db", db, "--now", "2026-11-23T12:00"]), saying: "read-only")
        #expect(h.bytes(db) == before)
        // Reading still works.
        let list = try asUser(h, ["list", "--db", db, "--now", "2026-11-23T12:00"])
        #expect(list.status == 0 && list.out.contains("64/64 pending"), "\(list.err)")
    }

    /// Defect 5 of issue 7: a write refused on a read-only database left a 0400 `-shm` behind, and every
    /// later write failed until someone deleted it by hand.
    @Test func aFailedWriteOnAReadOnlyDatabaseLeavesNothingBehind() throws {
        let h = try Harness()
        let db = try database(h)
        chmod(db, 0o400)
        expectRefused(try asUser(h, ["open", "--db", db, "--now", "2026-11-23T12:00"]), saying: "read-only")
        #expect(!FileManager.default.fileExists(atPath: db + "-shm") && !FileManager.default.fileExists(atPath: db + "-wal"))
        chmod(db, 0o600)
        let r = try asUser(h, ["open", "--db", db, "--now", "2026-11-23T12:00"])
        #expect(r.status == 0, "\(r.err)")
    }

    /// What an older planner (or a read on a 0400 database) left: the user's own 0400 `-shm`.
    @Test func aLeftoverReadOnlySharedMemoryFileIsRepaired() throws {
        let h = try Harness()
        let db = try database(h)
        for suffix in ["-shm", "-wal"] {
            FileManager.default.createFile(atPath: db + suffix, contents: Data())
            givenToUser(db + suffix)
            chmod(db + suffix, 0o400)
        }
        let r = try asUser(h, ["open", "--db", db, "--now", "2026-11-23T12:00"])
        #expect(r.status == 0, "\(r.err)")
    }

    @Test func readOnlyFolder() throws {
        let h = try Harness()
        let db = try database(h)
        chmod(h.dir + "/data", 0o500)
        defer { chmod(h.dir + "/data", 0o700) }
        let before = h.bytes(db)
        expectRefused(try asUser(h, ["refill", "--db", db, "--now", "2026-11-23T12:00"]), saying: "read-only")
        #expect(h.bytes(db) == before)
        expectRefused(try asUser(h, ["refill", "--db", h.dir + "/data/sub/new.db", "--now", "2026-11-23T12:00"]), saying: "cannot create folder")
    }

    @Test(.enabled(if: getuid() == 0, "needs a second user")) func someoneElsesPrivateDatabase() throws {
        let h = try Harness()
        chmod(h.dir, 0o755)
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T08:00"])  // root's, mode 0600
        let r = try asUser(h, ["list", "--db", h.db])
        #expect(r.status == 65 && r.err.contains("belongs to another user"), "\(r.err)")
    }

    /// A database on a file system mounted read-only (a rescue boot, a backup disk): `status`, `list` and
    /// `history` read it (they had exited 74 blaming permissions); a writing command exits 74 saying the
    /// file system is read-only; nothing is created beside the file. With a -wal left there too.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func aReadOnlyFileSystemIsReadAndSaidSo() throws {
        var h = try Harness()
        h.env["TZ"] = "Asia/Seoul"
        let mountPoint = h.dir + "/ro"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try h.run("/bin/mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint], env: h.env)
        try #require(mounted.status == 0, "mount: \(mounted.err)")
        defer { _ = try? h.run("/bin/umount", [mountPoint], env: h.env) }
        let db = mountPoint + "/planner.db"
        for withWAL in [false, true] {
            _ = try? h.run("/bin/mount", ["-o", "remount,rw", mountPoint], env: h.env)
            for name in ["planner.db", "planner.db-wal", "planner.db-shm"] { try? FileManager.default.removeItem(atPath: mountPoint + "/" + name) }
            #expect(try h.planner(["refill", "--db", db, "--now", "2026-11-23T08:00"]).status == 0)
            #expect(try h.planner(["skip", "2026-11-24", "--db", db, "--now", "2026-11-23T08:00"]).status == 0)
            var holder: Process?
            if withWAL {
                // A change committed in the -wal only: another process keeps it from being folded in.
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                p.arguments = [
                    "-c",
                    "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]); c.execute('BEGIN'); c.execute('SELECT count(*) FROM request').fetchall(); time.sleep(30)",
                    db,
                ]
                try p.run()
                holder = p
                usleep(300_000)
                #expect(try h.planner(["skip", "2026-11-25", "--db", db, "--now", "2026-11-23T08:01"]).status == 0)
            }
            let expected = withWAL ? "2026-11-24,2026-11-25" : "2026-11-24"
            if let holder {
                kill(holder.processIdentifier, SIGKILL)
                holder.waitUntilExit()
            }
            #expect(FileManager.default.fileExists(atPath: db + "-wal") == withWAL)
            let remount = try h.run("/bin/mount", ["-o", "remount,ro", mountPoint], env: h.env)
            try #require(remount.status == 0, "remount with a -wal \(withWAL): \(remount.err) \(remount.out)")
            let before = try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted()
            for command in [["status"], ["list"], ["history"], ["stats", "--json"]] {
                let r = try h.planner(command + ["--db", db, "--now", "2026-11-23T08:05"])
                #expect(r.status == 0, "\(command) with a -wal \(withWAL): \(r.status) \(r.err)")
            }
            // What the file and its -wal hold is what is read.
            let skipped = try h.planner(["skip", "--list", "--json", "--db", db, "--now", "2026-11-23T08:05"])
            #expect(skipped.status == 0, "\(skipped.err)")
            for date in expected.split(separator: ",") { #expect(skipped.out.contains(String(date)), "\(date): \(skipped.out)") }
            let write = try h.planner(["refill", "--db", db, "--now", "2026-11-23T08:05"])
            #expect(write.status == 74 && write.err.contains("mounted read-only") && write.err.split(separator: "\n").count == 1, "\(write.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted() == before)
        }
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func fullDisk() throws {
        let h = try Harness()
        let mountPoint = h.dir + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // Room for a new database and the WAL its eleven migrations leave (about 520 KiB in all), then filled.
        let mounted = try h.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], env: h.env)
        try #require(mounted.status == 0, "mount: \(mounted.err)")
        defer { _ = try? h.run("/bin/umount", [mountPoint], env: h.env) }
        let db = mountPoint + "/planner.db"
        _ = try h.planner(["refill", "--db", db, "--now", "2026-11-23T08:00"])
        // Fill what is left.
        _ = try h.run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/filler", "bs=4k"], env: h.env)
        let before = h.bytes(db)
        let r = try h.planner(["open", "--db", db, "--now", "2026-11-23T12:00"])
        expectRefused(r, saying: "is full")
        #expect(h.bytes(db) == before)
        // Space freed: the same command succeeds.
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        let again = try h.planner(["open", "--db", db, "--now", "2026-11-23T12:00"])
        #expect(again.status == 0, "\(again.err)")
    }

    /// A small tmpfs holding a database with one one-off due in `seconds`; returns (mount point, db).
    func smallDisk(_ h: Harness, dueIn seconds: Int) throws -> (String, String) {
        let mountPoint = h.dir + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try h.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], env: h.env)
        try #require(mounted.status == 0, "mount: \(mounted.err)")
        let db = mountPoint + "/planner.db"
        let added = try h.planner(["add", "--db", db, "--in", "\(seconds)s", "--title", "due", "--id", "due"])
        try #require(added.status == 0, "\(added.err)")
        return (mountPoint, db)
    }

    /// Defect 17 of issue 7: a live ticker on a full disk keeps running (it used to exit 74 at its first due
    /// request), and delivers and records the request once space returns.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func aTickerWaitsOutAFullDisk() throws {
        let h = try Harness()
        let (mountPoint, db) = try smallDisk(h, dueIn: 3)
        defer { _ = try? h.run("/bin/umount", ["-l", mountPoint], env: h.env) }
        let ticker = try h.startTicker(["--sink", "stdout"], at: db)
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/filler", "bs=4k"], env: h.env)
        // Due, and the disk full for a while: the ticker waits.
        Thread.sleep(forTimeInterval: 5)
        #expect(!Harness.hasExited(ticker.processIdentifier), "the ticker exited: \(h.text("tick.err"))")
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        try h.waitFor(seconds: 15) { (try? h.sqlite("SELECT state FROM request WHERE identifier = 'due'", db: db)) == "delivered" }
        #expect(h.text("tick.out").split(separator: "\n").filter { $0.hasPrefix("due\t") }.count == 1)
        #expect(try h.stop(ticker).status == 0)
    }

    /// The disk fills while a reminder is being shown (the sink itself fills it): the outcome is recorded
    /// once space returns, not left `delivering`, and the reminder is shown once.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func aDeliveryShownWhileTheDiskFilledIsRecordedLater() throws {
        let h = try Harness()
        let (mountPoint, db) = try smallDisk(h, dueIn: 2)
        defer { _ = try? h.run("/bin/umount", ["-l", mountPoint], env: h.env) }
        let shown = h.dir + "/shown"
        let ticker = try h.startTicker(
            ["--exec", "/bin/sh", "-c", "dd if=/dev/zero of=\(mountPoint)/filler bs=4k 2>/dev/null; echo x >> \(shown)"], at: db)
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 10) { FileManager.default.fileExists(atPath: shown) }
        Thread.sleep(forTimeInterval: 3)
        #expect(!Harness.hasExited(ticker.processIdentifier), "the ticker exited: \(h.text("tick.err"))")
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        try h.waitFor(seconds: 15) { (try? h.sqlite("SELECT state FROM request WHERE identifier = 'due'", db: db)) == "delivered" }
        #expect(h.text("shown") == "x\n")
        #expect(try h.stop(ticker).status == 0)
    }

    /// Issue 19 item 13: stopped (SIGTERM) after space came back but before its next 5 s retry, the ticker
    /// makes one last attempt: the reminder it showed is recorded `delivered`, not left `delivering`.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func aTickerStoppedAfterSpaceCameBackRecordsWhatItShowed() throws {
        let h = try Harness()
        let (mountPoint, db) = try smallDisk(h, dueIn: 2)
        defer { _ = try? h.run("/bin/umount", ["-l", mountPoint], env: h.env) }
        let shown = h.dir + "/shown"
        // The ticker's WAL keeps its length (`checkpointKeepingWAL`), so its outcome would fit in blocks the
        // file already has: the sink empties it first, so that recording the outcome needs new space.
        let ticker = try h.startTicker(
            [
                "--exec", "/bin/sh", "-c",
                "sqlite3 \(db) 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null; dd if=/dev/zero of=\(mountPoint)/filler bs=4k 2>/dev/null; echo x >> \(shown)",
            ], at: db)
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 10) { h.text("tick.err").contains("the disk is full") }
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        #expect(try h.stop(ticker).status == 0)
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'due'", db: db) == "delivered", "\(h.text("tick.err"))")
        #expect(h.text("shown") == "x\n")
    }

    /// Failed commands on a full disk leave the database file byte-identical; SQLite may leave its `-wal`
    /// grown by the frames it could write before the disk filled (README), and every later failure adds none.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func repeatedFailuresOnAFullDiskChangeNothing() throws {
        let h = try Harness()
        let (mountPoint, db) = try smallDisk(h, dueIn: 3600)
        defer { _ = try? h.run("/bin/umount", ["-l", mountPoint], env: h.env) }
        _ = try h.planner(["refill", "--db", db, "--now", "2026-11-23T08:00"])
        _ = try h.run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/filler", "bs=4k"], env: h.env)
        let before = h.bytes(db)
        var walSizes: [Int] = []
        for (i, args) in [["open"], ["refill"], ["add", "--in", "2h", "--title", "t"], ["open"], ["open"]].enumerated() {
            let r = try h.planner([args[0], "--db", db, "--now", "2026-11-23T12:0\(i)"] + args.dropFirst())
            expectRefused(r, saying: "is full")
            #expect(h.bytes(db) == before)
            walSizes.append(h.bytes(db + "-wal")?.count ?? 0)
        }
        #expect(Set(walSizes.dropFirst()).count <= 1, "the WAL kept growing: \(walSizes)")
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        #expect(try h.planner(["open", "--db", db, "--now", "2026-11-23T12:10"]).status == 0)
        #expect(try h.sqlite("SELECT count(*) FROM app_open", db: db) == "1")
    }
}
