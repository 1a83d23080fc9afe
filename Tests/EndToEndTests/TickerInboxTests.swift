import Foundation
import PlannerHarness
import Testing

/// A live ticker watches the inbox: an open saved there while another program held the database is
/// applied by the ticker itself once the database is free, not only by the next command that writes.
@Suite(.serialized) struct TickerInboxTests {
    @Test func anOpenSavedWhileTheDatabaseWasHeldIsAppliedByTheRunningTicker() throws {
        let h = try Harness()
        // Slots every 5 minutes, all day, every day: whenever the test runs, today has slots left to cancel
        // (but in the last 5 minutes of the day, Seoul time).
        let config = try h.planner(["config", "set", "window", "00:00-23:55", "interval", "5m", "days", "daily", "--db", h.db])
        #expect(config.status == 0, "\(config.err)")
        _ = try h.planner(["refill", "--db", h.db])
        let today = "date('now', '+9 hours')"  // the plan's zone is the harness's TZ, Asia/Seoul (no summer time)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }

        let holder = try SQLiteHolder(h, "BEGIN IMMEDIATE;")
        let open = try h.planner(["open", "--db", h.db])
        #expect(open.status == 0, "\(open.err)")
        #expect(open.err.contains("saved in \(h.spool)/"), "\(open.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        holder.release()

        // No other command runs: the ticker noticed the saved open and applied it at its own time.
        // Waits by looking at the folder only: a process opening the database to look (sqlite3) would
        // wake the ticker through its database watch, as `planner open` itself did above.
        try h.waitFor(seconds: 5) { h.spoolFiles().isEmpty }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
        #expect(try h.sqlite("SELECT local_date = \(today) FROM app_open_events") == "1")
        #expect(
            try h.sqlite(
                """
                SELECT count(*) FROM request WHERE state = 'pending' AND local_date = \(today)
                AND fire_at_ms > (SELECT opened_at_ms FROM app_open)
                """) == "0")
        let cancelled = try h.sqlite("SELECT count(*) FROM request WHERE state = 'cancelled' AND reason = 'app opened'")
        let nearMidnight = try h.sqlite("SELECT time('now', '+9 hours') >= '23:54'") == "1"
        #expect(nearMidnight || Int(cancelled) ?? 0 > 0, "cancelled \(cancelled)")
        #expect(h.spoolFiles().isEmpty)
        #expect(ticker.isRunning)
    }

    /// A saved open that arrives in the inbox without anything touching the database (as one from another
    /// device or program will): here, saved by `planner open` for another database while that one was
    /// held, then moved in. Only a watch on the inbox can notice it.
    @Test func anOpenMovedIntoTheInboxIsAppliedWithoutAnyOtherWrite() throws {
        let h = try Harness()
        let config = try h.planner(["config", "set", "window", "00:00-23:55", "interval", "5m", "days", "daily", "--db", h.db])
        #expect(config.status == 0, "\(config.err)")
        _ = try h.planner(["refill", "--db", h.db])
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }

        let elsewhere = try Harness()
        _ = try elsewhere.planner(["refill", "--db", elsewhere.db])
        let holder = try SQLiteHolder(elsewhere, "BEGIN IMMEDIATE;")
        let open = try elsewhere.planner(["open", "--db", elsewhere.db])
        holder.release()
        #expect(open.err.contains("saved in \(elsewhere.spool)/"), "\(open.err)")
        let saved = try #require(elsewhere.spoolFiles().first)
        try moveIntoInbox(elsewhere.spool + "/" + saved, h)

        // Waits by looking at the folder only: a process opening the database to look (sqlite3) would
        // wake the ticker through its database watch, as `planner open` itself did above.
        try h.waitFor(seconds: 5) { h.spoolFiles().isEmpty }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
        #expect(
            try h.sqlite(
                """
                SELECT count(*) FROM request WHERE state = 'pending' AND local_date = date('now', '+9 hours')
                AND fire_at_ms > (SELECT opened_at_ms FROM app_open)
                """) == "0")
        #expect(h.spoolFiles().isEmpty)

        // The inbox folder removed and made again (the spool removes it once empty; a user may too):
        // the ticker watches the new one.
        try? FileManager.default.removeItem(atPath: h.spool)
        let again = try SQLiteHolder(elsewhere, "BEGIN IMMEDIATE;")
        _ = try elsewhere.planner(["open", "--db", elsewhere.db])
        again.release()
        let second = try #require(elsewhere.spoolFiles().first)
        try moveIntoInbox(elsewhere.spool + "/" + second, h)
        try h.waitFor(seconds: 5) { h.spoolFiles().isEmpty }
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "2")
        #expect(ticker.isRunning)
    }

    /// Puts `file` in the inbox of `h`'s database by moving in a folder holding it: an empty inbox is
    /// removed by the next write (the spool's rule today), so a file moved into it could find it gone.
    private func moveIntoInbox(_ file: String, _ h: Harness) throws {
        let incoming = h.dir + "/incoming-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: incoming, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        let name = URL(fileURLWithPath: file).lastPathComponent
        #expect(rename(file, incoming + "/" + name) == 0)
        // rename(2) replaces the inbox if it is there and empty.
        #expect(rename(incoming, h.spool) == 0, "\(String(cString: strerror(errno)))")
    }
}
