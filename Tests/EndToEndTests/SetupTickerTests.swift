import Foundation
import PlannerHarness
import Testing

/// The live ticker setup starts with the desktop session (autostart, and the unit), and what --uninstall
/// leaves (issue 23): the real binary, a real ticker.
extension SetupTests {
    /// --uninstall stops the ticker the session started and leaves nothing beside the database: no
    /// `<db>.tick.lock`, no inbox folder.
    @Test func uninstallStopsTheTickerAndLeavesOnlyTheDatabase() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let full = h.env.merging(env) { $1 }
        let install = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: full)
        #expect(install.status == 0, "\(install.err)")
        let db = h.dir + "/.local/share/planner/planner.db"
        let ticker = try h.startTicker(["--sink", "stdout"], at: db)
        defer { if ticker.isRunning { ticker.terminate() } }
        #expect(FileManager.default.fileExists(atPath: db + ".tick.lock"))

        let undo = try h.run(bin, ["setup", "--uninstall"], env: full)
        #expect(undo.status == 0, "\(undo.err)")
        try? h.waitFor(seconds: 5) { !ticker.isRunning }
        #expect(!ticker.isRunning, "the ticker still runs after --uninstall")
        let left = try FileManager.default.contentsOfDirectory(atPath: h.dir + "/.local/share/planner").sorted()
        #expect(left == ["planner.db"], "\(left)")
    }

    /// Autostart and the unit may both start a ticker: the second exits 0 at once, with nothing on stdout
    /// or stderr (a desktop's session log), while by hand a second ticker still says why (75).
    @Test func aSecondTickerUnlessRunningExitsZeroSilently() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        let first = try h.startTicker(["--sink", "stdout"])
        defer {
            first.terminate()
            first.waitUntilExit()
        }
        let quiet = try h.planner(["tick", "--unless-running", "--db", h.db])
        #expect(quiet.status == 0 && quiet.out.isEmpty && quiet.err.isEmpty, "exit \(quiet.status): \(quiet.out)\(quiet.err)")
        let byHand = try h.planner(["tick", "--db", h.db])
        #expect(byHand.status == 75 && byHand.err.hasPrefix("error: another ticker"), "exit \(byHand.status): \(byHand.err)")
        #expect(first.isRunning)
    }

    /// The autostart entry: valid for desktop-file-validate, and it runs this binary's ticker on this database.
    @Test func theAutostartEntryIsValid() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let install = try h.run(
            bin, ["setup", "--install", "--scheduler", "cron"],
            env: h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir) + ":/usr/bin:/bin"]) { $1 })
        try #require(install.status == 0, "exit \(install.status): \(install.err)")
        let entry = h.dir + "/.config/autostart/planner-tick.desktop"
        let check = try h.run("/usr/bin/desktop-file-validate", [entry], env: h.env)
        #expect(check.status == 0 && check.out.isEmpty && check.err.isEmpty, "\(check.out)\(check.err)")
        let text = try String(contentsOfFile: entry, encoding: .utf8)
        #expect(text.contains("\nExec=\(bin) tick --unless-running --db \(h.dir)/.local/share/planner/planner.db\n"), "\(text)")
    }
}

extension SetupTests {
    /// The dry run says what will deliver reminders, and warns when nothing here would show one (no
    /// desktop here). With dunst on a real user bus, no warning: scripts/systemd-check.
    @Test func setupWarnsWhenNothingWouldShowAReminder() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let base = h.env.merging(env) { $1 }.merging(["PATH": "/usr/bin:/bin"]) { $1 }
            .filter { !["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"].contains($0.key) }
        func warnings(_ r: Harness.Result) -> [String] {
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("\nreminders: a live ticker starts with your desktop session"), "\(r.out)")
            return r.out.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map(String.init)
        }
        let none = try h.run(bin, ["setup", "--scheduler", "systemd"], env: base)
        #expect(warnings(none).contains { $0.hasPrefix("warning: no desktop session here") }, "\(none.out)")
    }
}
