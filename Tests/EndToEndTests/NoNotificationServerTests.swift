import Foundation
import PlannerHarness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A session bus with no notification server on it and none it could start (a bare `dbus-daemon` with no
/// service folders): what a desktop without dunst, mako or a shell's own server gives. notify-send
/// (libnotify 0.8) prints the id 0 there before failing: nothing is on screen, so nothing is delivered.
@Suite struct NoNotificationServerTests {
    @Test func aStudyReminderNobodyShowsIsRetriedThenFailedNotDelivered() throws {
        var h = try Harness()
        let config = h.dir + "/bus.conf"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>session</type><listen>unix:path=\(h.dir)/bus</listen>
        <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=\(config)", "--nofork"]
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        defer {
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
        }
        try h.waitFor(seconds: 5) { FileManager.default.fileExists(atPath: h.dir + "/bus") }
        h.env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(h.dir)/bus"

        _ = try h.planner(["refill", "--db", h.db])
        let id = "Noti_AppOpenPromotion_2026_11_23_09_30_snoozed"  // a study reminder: it offers answers
        let ticker = try h.startTicker(["--verbose", "--grace", "3s"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        #expect(try h.planner(["add", "--in", "1s", "--title", "Time to study?", "--id", id, "--db", h.db]).status == 0)
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = '\(id)'") != "pending" }
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = '\(id)'") != "delivering" }
        let outcome = try h.sqlite("SELECT state, attempts >= 2 FROM request WHERE identifier = '\(id)'")
        #expect(outcome == "failed|1", "\(h.text("tick.err"))")
        let error = try h.sqlite("SELECT error FROM request WHERE identifier = '\(id)'")
        #expect(error.hasPrefix("notify-send exited with status 1"), "error: \(error)")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
        // The ticker's own question to the bus (which server is it?) adds nothing to its log.
        #expect(!h.text("tick.err").contains("Error org.freedesktop.DBus"), "\(h.text("tick.err"))")
    }
}
