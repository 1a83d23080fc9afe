import Foundation
import PlannerHarness
import Testing

/// Delivery promises under odd timing: each one-off is delivered, nothing past its grace period, a slow
/// or failing delivery never holds up another, a signal never leaves a claim unrecorded, and `--once`
/// finishes in seconds. Each test failed on the ticker before the poll-loop redesign (issue 7).
@Suite(.serialized) struct DeliveryHardeningTests {
    /// The stdout lines of a `tick --once`, first field only.
    func ids(_ out: String) -> [String] { out.split(separator: "\n").map { String($0.split(separator: "\t")[0]) } }

    @Test func oneOffsDueAtTheSameMomentAreEachDelivered() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        for id in ["tea", "call"] {
            _ = try h.plannerOK(["add", "--at", "2026-11-23T12:30", "--title", id, "--id", id], now: "2026-11-23T12:00")
        }
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:30")
        #expect(ids(out).sorted() == ["Noti_AppOpenPromotion_2026_11_23_12_30", "call", "tea"])
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'missed'") == "0")
    }

    /// A one-off holding a future slot's identifier (waiting outside the 64) used to make the slot come
    /// back beside it: `open` then failed with "UNIQUE constraint failed" on every login.
    @Test func aOneOffWithASlotsIdentifierNeverBreaksOpenOrRefill() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(
            ["add", "--at", "2026-11-25T20:00", "--title", "x", "--id", "Noti_AppOpenPromotion_2026_11_26_10_00"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["open"], now: "2026-11-23T09:00")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:10")
        _ = try h.plannerOK(["open"], now: "2026-11-24T09:00")
        #expect(
            try h.sqlite("SELECT kind || '/' || state FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_26_10_00'") == "oneoff/pending")
    }

    /// Days without a refill: 64 stale slots must not push a new one-off out of the cap, neither in
    /// `add` nor in a ticker running alone.
    @Test func aOneOffAfterDaysWithoutRefillIsDelivered() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")  // 64 slots up to Wednesday
        let added = try h.plannerOK(["add", "--in", "1h", "--title", "late", "--id", "late"], now: "2026-11-28T10:00")
        #expect(!added.contains("waiting"), "\(added)")
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'late'") == "pending")
        #expect(ids(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-28T11:00", stderrAllowed: true)) == ["late"])

        // Waiting when added (64 sooner were live then), due after they all went stale: the ticker alone
        // retires them and delivers it.
        let g = try Harness()
        _ = try g.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try g.plannerOK(["add", "--at", "2026-11-27T12:00", "--title", "w", "--id", "w"], now: "2026-11-23T08:00")
        #expect(try g.sqlite("SELECT state FROM request WHERE identifier = 'w'") == "displaced")
        #expect(ids(try g.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-27T12:00", stderrAllowed: true)) == ["w"])
    }

    /// A program that takes 4 s for one reminder must not delay the next one, due a second later.
    @Test func aSlowDeliveryDoesNotDelayTheNextOne() throws {
        let h = try Harness()
        let script = "echo \"$PLANNER_ID $(date +%s.%N)\" >> \(h.dir)/started; [ \"$PLANNER_ID\" = slow ] && sleep 4; exit 0"
        let ticker = try h.startTicker(["--exec", "/bin/sh", "-c", script])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "slow"])
        _ = try h.planner(["add", "--db", h.db, "--in", "2s", "--title", "t", "--id", "fast"])
        try h.waitFor(seconds: 8) { try h.sqlite("SELECT count(*) FROM delivered_notifications") == "2" }
        let lateness = try h.sqlite("SELECT lateness_ms FROM delivered_notifications WHERE identifier = 'fast'")
        #expect((Int(lateness) ?? .max) < 1500, "fast was \(lateness) ms late; \(h.text("tick.err"))")
        #expect(try h.stop(ticker).status == 0)
    }

    /// Suspended during a back-off (SIGSTOP stands in for a laptop lid): the retry that wakes up after the
    /// grace period must not deliver.
    @Test func aRetryAfterTheGracePeriodIsNotDelivered() throws {
        let h = try Harness()
        // Fails the first time, succeeds afterwards.
        let script = "if [ -e \(h.dir)/tried ]; then echo shown >> \(h.dir)/shown; exit 0; fi; touch \(h.dir)/tried; exit 1"
        let ticker = try h.startTicker(["--grace", "3s", "--exec", "/bin/sh", "-c", script])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "r"])
        try h.waitFor(seconds: 5) { FileManager.default.fileExists(atPath: h.dir + "/tried") }
        kill(ticker.processIdentifier, SIGSTOP)
        sleep(4)
        kill(ticker.processIdentifier, SIGCONT)
        try h.waitFor(seconds: 5) { try h.sqlite("SELECT state FROM request WHERE identifier = 'r'") != "delivering" }
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/shown"))
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'r'") == "failed")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'delivered' AND delivered_at_ms > fire_at_ms + 3000") == "0")
        #expect(try h.stop(ticker).status == 0)
    }

    /// From cron: a failing sink must not hold the job for the whole grace period, and must say so.
    @Test func onceWithAFailingSinkFinishesInSecondsAndExitsNonZero() throws {
        let h = try Harness()
        _ = try h.plannerOK(["add", "--at", "2026-11-23T12:05", "--title", "t", "--id", "x"], now: "2026-11-23T12:00")
        let start = Date()
        let r = try h.run(
            "/usr/bin/timeout", ["-s", "KILL", "40", Harness.binary, "tick", "--db", h.db, "--now", "2026-11-23T12:05", "--once", "--exec", "false"],
            env: h.env)
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(r.status == 1, "\(r.err)")
        #expect(r.err.hasSuffix("error: delivery failed: x: false exited with status 1\n"), "\(r.err)")
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'x'") == "failed")
    }

    /// `tick --once | head -0`: writing to a closed pipe is a failed delivery, not death by SIGPIPE with
    /// the claim left `delivering`.
    @Test func onceWritingToAClosedPipeRecordsTheFailure() throws {
        let h = try Harness()
        _ = try h.plannerOK(["add", "--at", "2026-11-23T12:05", "--title", "t", "--id", "p"], now: "2026-11-23T12:00")
        let script = """
            import os, subprocess, sys
            r, w = os.pipe(); os.close(r)
            p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
            print(p.returncode); sys.stderr.write(p.stderr.decode())
            """
        let out = try h.python(script, [Harness.binary, "tick", "--db", h.db, "--now", "2026-11-23T12:05", "--once", "--sink", "stdout"])
        #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'p'") == "failed")
    }

    /// SIGUSR1/USR2/ALRM are ignored; SIGHUP stops like SIGTERM. Neither leaves a claim `delivering`.
    @Test func signalsDuringADeliveryNeverLeaveAClaimUnrecorded() throws {
        let h = try Harness()
        let script = "touch \(h.dir)/running.$PLANNER_ID; sleep 1; echo $PLANNER_ID >> \(h.dir)/shown"
        let ticker = try h.startTicker(["--exec", "/bin/sh", "-c", script])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "a"])
        try h.waitFor(seconds: 5) { FileManager.default.fileExists(atPath: h.dir + "/running.a") }
        for s in [SIGUSR1, SIGUSR2, SIGALRM] { kill(ticker.processIdentifier, s) }
        try h.waitFor(seconds: 5) { try h.sqlite("SELECT state FROM request WHERE identifier = 'a'") == "delivered" }
        #expect(!Harness.hasExited(ticker.processIdentifier))

        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "b"])
        try h.waitFor(seconds: 5) { FileManager.default.fileExists(atPath: h.dir + "/running.b") }
        let (seconds, status) = try h.stop(ticker, signal: SIGHUP)
        #expect(status == 0, "\(h.text("tick.err"))")
        #expect(seconds < 1.5)
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'b'") != "delivering")
    }

    /// Someone deletes SQLite's `-shm` (or `-wal`) while the ticker runs: what later commands write must
    /// stay written, and a cron `tick --once` beside the live ticker must not show anything twice.
    @Test(arguments: ["-shm", "-wal"]) func deletedWALFilesLoseNothingAndShowNothingTwice(suffix: String) throws {
        let h = try Harness()
        _ = try h.planner(["status", "--db", h.db])
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1h", "--title", "t", "--id", "before"])
        usleep(200_000)
        try? FileManager.default.removeItem(atPath: h.db + suffix)
        usleep(200_000)
        for i in 1...3 {
            let r = try h.planner(["add", "--db", h.db, "--in", "\(i)s", "--title", "t", "--id", "after\(i)"])
            #expect(r.status == 0, "\(r.err)")
            let once = try h.planner(["tick", "--db", h.db, "--once", "--sink", "stdout"])
            try FileManager.default.createFile(atPath: h.dir + "/once\(i).out", contents: Data(once.out.utf8))
        }
        try h.waitFor(seconds: 8) { try h.sqlite("SELECT count(*) FROM request WHERE identifier LIKE 'after%' AND state = 'delivered'") == "3" }
        usleep(300_000)
        #expect(try h.stop(ticker).status == 0, "\(h.text("tick.err"))")
        let shown = (1...3).map { h.text("once\($0).out") }.joined() + h.text("tick.out")
        for i in 1...3 { #expect(shown.components(separatedBy: "after\(i)\t").count == 2, "\(shown)") }
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'before'") == "pending")
        #expect(try h.sqlite("PRAGMA integrity_check") == "ok")
    }
}
