import Foundation
import PlannerHarness
import Testing

/// Inputs that used to poison every command or lead to a dead end (issue 19, items 7 and 8): a bad file in
/// the open spool, a stored setting the planner cannot use. Each command still does its job, says what
/// is wrong once, and the repair the message names works.
@Suite struct PoisonedInputTests {
    /// Every command that writes, and the ticker's `--once`, as a cron job or a login would run them.
    static let writers: [[String]] = [
        ["refill"], ["open"], ["add", "--in", "1h", "--title", "x"], ["config", "set", "snooze", "10m"],
        ["pause", "--for", "1h"], ["resume"], ["tick", "--once", "--sink", "stdout"],
    ]

    func run(_ h: Harness, _ args: [String], now: String) throws -> Harness.Result {
        // `config`'s options come after its sub-subcommand; the others' right after the command.
        args[0] == "config"
            ? try h.planner(args + ["--db", h.db, "--now", now])
            : try h.planner([args[0], "--db", h.db, "--now", now] + args.dropFirst())
    }

    /// A spool entry dated outside 1970–9990, garbage, an empty file: set aside with one warning line
    /// each, and every command goes on — the login's open is recorded.
    @Test func oneBadFileInTheSpoolStopsNoWriter() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        try FileManager.default.createDirectory(atPath: h.spool, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        func plant() throws {
            try "planner-open 1 -99999999999999 0 -1 UTC\n".write(toFile: h.spool + "/000000000000001-1-a.open", atomically: false, encoding: .utf8)
            try "planner-open 1 999999999999999999 0 -1 UTC\n".write(
                toFile: h.spool + "/000000000000002-1-b.open", atomically: false, encoding: .utf8)
            try "not an open\n".write(toFile: h.spool + "/000000000000003-1-c.open", atomically: false, encoding: .utf8)
        }
        for (i, args) in Self.writers.enumerated() {
            try plant()
            let r = try run(h, args, now: "2026-11-23T09:\(10 + i)")
            #expect(r.status == 0, "\(args): \(r.err)")
            #expect(!r.err.contains("CHECK"), "\(args): \(r.err)")
            let warnings = r.err.split(separator: "\n").filter { $0.hasPrefix("warning: a saved open") }
            #expect(warnings.count == 3, "\(args): \(r.err)")
            #expect(h.spoolFiles().filter { $0.hasSuffix(".open") }.isEmpty, "\(args): \(h.spoolFiles())")
        }
        // The login's open was recorded, the day closed.
        #expect(try h.sqlite("SELECT local_date FROM app_open") == "2026-11-23")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-23' AND kind = 'slot'") == "0")
        // Set aside, kept for the user to read; status says so, in one line.
        #expect(h.spoolFiles().contains("000000000000001-1-a.open.rejected"))
        let status = try h.plannerOK(["status"], now: "2026-11-23T09:30")
        #expect(status.split(separator: "\n").filter { $0.hasPrefix("spool") }.count == 1)
        #expect(status.contains("refused and set aside"))
    }

    /// Files the spool never touches (a link, a FIFO, another name) are said in `status`, and an open
    /// waiting in the spool shows there instead of "not today".
    @Test func statusSaysWhatWaitsAndWhatIsIgnored() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        let holder = try SQLiteHolder(h, "BEGIN IMMEDIATE;")
        let saved = try h.timedOpen(now: "2026-11-23T09:05")
        #expect(saved.result.status == 0 && saved.result.err.contains("saved"), "\(saved.result.err)")
        let status = try h.plannerOK(["status"], now: "2026-11-23T09:06")
        holder.release()
        #expect(!status.contains("not today"), "\(status)")
        #expect(status.contains("saved while the database was held"), "\(status)")
        #expect(status.contains("1 open waiting"), "\(status)")
        let json = try h.plannerOK(["status", "--json"], now: "2026-11-23T09:06")
        #expect(json.contains("\"opens_waiting\": 1") || json.contains("\"opens_waiting\":1"), "\(json)")

        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:07")  // applies it
        #expect(h.spoolFiles().isEmpty)
        try FileManager.default.createSymbolicLink(atPath: h.spool + "/link.open", withDestinationPath: "/etc/passwd")
        #expect(mkfifo(h.spool + "/fifo.open", 0o600) == 0)
        try "x".write(toFile: h.spool + "/notes.txt", atomically: false, encoding: .utf8)
        let later = try h.plannerOK(["status"], now: "2026-11-23T09:08")
        #expect(later.contains("3 ignored"), "\(later)")
        // Still there (never followed, read or moved), and no command fails for them.
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:09")
        #expect(h.spoolFiles() == ["fifo.open", "link.open", "notes.txt"])
    }

    /// A stored zone this machine lacks, or a value edited by hand: every command still runs (with the
    /// default, saying so once), the login's open is recorded, and the repair the message names works.
    @Test(arguments: [("zone", "Mars/Base", "Asia/Seoul"), ("window", "25:00-26:00", "08:00-20:00"), ("grace", "forever", "10m")])
    func anUnusableStoredSettingIsNoDeadEnd(key: String, bad: String, good: String) throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        _ = try h.sqlite("UPDATE setting SET value = '\(bad)' WHERE key = '\(key)'")
        for (i, args) in (Self.writers + [["status"], ["list"], ["config"], ["history"], ["plan"], ["stats"]]).enumerated() {
            let r = try run(h, args, now: "2026-11-23T10:\(10 + i)")
            #expect(r.status == 0, "\(args) with \(key)=\(bad): \(r.err)")
            let warnings = r.err.split(separator: "\n").filter { $0.hasPrefix("warning: the stored \(key) setting") }
            #expect(warnings.count == 1, "\(args): \(r.err)")
            #expect(warnings.first?.contains("planner config set \(key)") == true)
        }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1", "the login's open was not recorded")
        // The repairs the message names.
        var r = try h.config(["set", key, good], now: "2026-11-23T11:00")
        #expect(r.status == 0, "\(r.err)")
        #expect(try h.config(["get", key], now: "2026-11-23T11:01").out == good + "\n")
        #expect(try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T11:02"]).err.isEmpty)
        _ = try h.sqlite("UPDATE setting SET value = '\(bad)' WHERE key = '\(key)'")
        r = try h.config(["reset", key], now: "2026-11-23T11:03")
        #expect(r.status == 0, "\(r.err)")
        #expect(try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T11:04"]).err.isEmpty)
    }
}
