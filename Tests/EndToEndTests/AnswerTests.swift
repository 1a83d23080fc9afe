import Foundation
import PlannerHarness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Answering a reminder on a real notification server: a live `planner tick` shows a study reminder with
/// "Start studying" and "Snooze" through notify-send to dunst, and a test picks an action from dunst's
/// context menu as a person would (`PrivateDesktop.answer`). A snoozed reminder is a study reminder, so a
/// one-off named like one (`…_snoozed`) is due in a second without waiting for a real slot's time.
@Suite struct AnswerTests {
    static let study = "Noti_AppOpenPromotion_2026_11_23_09_30_snoozed"

    func setUp() throws -> (Harness, PrivateDesktop) {
        var h = try Harness()
        let desktop = try PrivateDesktop(in: h.dir)
        h.env["DBUS_SESSION_BUS_ADDRESS"] = desktop.busAddress
        _ = try h.planner(["refill", "--db", h.db])
        return (h, desktop)
    }

    func add(_ h: Harness, _ id: String, in delay: String = "1s") throws {
        let r = try h.planner(["add", "--in", delay, "--title", "Time to study?", "--body", "Lesson 12", "--id", id, "--db", h.db])
        #expect(r.status == 0, "\(r.err)")
    }

    func state(_ h: Harness, _ id: String) throws -> String {
        try h.sqlite("SELECT state FROM request WHERE identifier = '\(id)' ORDER BY id DESC LIMIT 1")
    }

    @Test func snoozeShowsItAgainLater() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        _ = try h.planner(["config", "set", "snooze", "10m", "--db", h.db])
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        let menu = try desktop.answer("Snooze")
        #expect(menu.contains("Start studying") && menu.contains("Snooze 10m"), "dunst offered: \(menu)")
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT count(*) FROM notification_actions") == "1" }
        #expect(try h.sqlite("SELECT identifier, action FROM notification_actions") == "\(Self.study)|snooze")
        // The same reminder again, 10 minutes after the answer, as a one-off counted under the 64.
        let again = try h.sqlite(
            """
            SELECT r.fire_at_ms - a.at_ms, r.kind, r.title, r.body FROM request r, notification_action a
            WHERE r.identifier = '\(Self.study)' AND r.state = 'pending'
            """)
        let parts = again.split(separator: "|")
        #expect(
            parts.count == 4 && abs((Int(parts[0]) ?? 0) - 600_000) < 1000 && parts[1] == "oneoff"
                && parts[2] == "Time to study?" && parts[3] == "Lesson 12", "\(again)")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests") == "64")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        // planner history shows the answer after the delivery it answers.
        let history = try h.planner(["history", "--limit", "2", "--db", h.db])
        // (Its last line counts the bookkeeping rows it leaves out, such as the slot the one-off displaced.)
        let lines = history.out.split(separator: "\n").dropFirst().filter { !$0.hasSuffix("not shown: planner history --all") }
        #expect(
            lines.count == 2 && lines.first?.contains("answered") == true && lines.first?.contains("snooze: snoozed as \(Self.study)") == true
                && lines.last?.contains("delivered") == true, "\(history.out)")
    }

    @Test func startOpensTheDayAndLaunchesTheStudyCommand() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let marker = h.dir + "/launched"
        _ = try h.planner(["config", "set", "study-command", "sh -c 'echo \"$0\" > \(marker)' lesson", "--db", h.db])
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        try desktop.answer("Start studying")
        // The shell makes the file (its `>`) before echo writes to it: wait for what it writes, not the file.
        try h.waitFor(seconds: 10) { (try? String(contentsOfFile: marker, encoding: .utf8)) == "lesson\n" }
        #expect(try String(contentsOfFile: marker, encoding: .utf8) == "lesson\n")
        // On dunst "Start studying" is the default action (a click on the bubble): the one entry of its menu.
        #expect(try h.sqlite("SELECT action FROM notification_actions") == "default")
        // Exactly like planner open: one open, today's study slots cancelled.
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
        let today = try h.sqlite("SELECT local_date FROM app_open")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE kind = 'slot' AND state = 'pending' AND local_date = '\(today)'") == "0")
        #expect(try h.sqlite("SELECT outcome FROM notification_actions").hasPrefix("opened \(today)"))
    }

    /// dunst draws no buttons: its context menu (dmenu) is where a person answers. It lists one line per
    /// action, and dmenu preselects the first: "Start studying" once, first, then "Snooze".
    @Test func dunstsMenuListsStartStudyingOnceAndFirst() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        let menu = try desktop.answer("Snooze")
        let labels = menu.split(separator: "\n").map { $0.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces) }
        #expect(labels == ["#Start studying", "#Snooze 15m"], "dunst offered: \(menu)")
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT count(*) FROM notification_actions") == "1" }
        #expect(try h.sqlite("SELECT action FROM notification_actions") == "snooze")
    }

    @Test func clickingTheBubbleIsTheDefaultActionAnOpen() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        // dunstctl action 0: what a click on the first bubble does (its default action).
        let r = try Harness.run(
            "/usr/bin/dunstctl", ["action", "0"], env: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress, "PATH": "/usr/bin:/bin"])
        #expect(r.status == 0, "\(r.err)")
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT count(*) FROM notification_actions") == "1" }
        #expect(try h.sqlite("SELECT action FROM notification_actions") == "default")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
    }

    @Test func aWaitingReminderHoldsUpNothingAndDismissingDoesNothing() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        // The first bubble waits for an answer; a reminder due meanwhile is shown on time anyway.
        try add(h, "Noti_Reminder_tea", in: "1s")
        try h.waitFor(seconds: 5) { try state(h, "Noti_Reminder_tea") == "delivered" }
        #expect(try h.sqlite("SELECT delivered_at_ms - fire_at_ms < 1000 FROM request WHERE identifier = 'Noti_Reminder_tea'") == "1")
        try desktop.dismissAll()
        // Its notify-send ends; nothing is recorded and the ticker keeps no child behind.
        try h.waitFor(seconds: 10) {
            let children =
                (try? String(contentsOfFile: "/proc/\(ticker.processIdentifier)/task/\(ticker.processIdentifier)/children", encoding: .utf8)) ?? "x"
            return children.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        #expect(try h.sqlite("SELECT count(*) FROM notification_actions") == "0")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "0")
        #expect(ticker.isRunning)
    }

    func displayed(_ desktop: PrivateDesktop) throws -> String {
        let r = try Harness.run(
            "/usr/bin/dunstctl", ["count", "displayed"],
            env: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress, "PATH": "/usr/bin:/bin"])
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anOpenElsewhereTakesTheDaysReminderOffTheScreen() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        try h.waitFor(seconds: 5) { try displayed(desktop) == "1" }
        // The login script (another process) says the app opened: the bubble goes.
        #expect(try h.planner(["open", "--db", h.db]).status == 0)
        try h.waitFor(seconds: 5) { try displayed(desktop) == "0" }
        #expect(h.text("tick.err").contains("\(Self.study): closed on screen (its day was opened)"))
        #expect(try h.sqlite("SELECT count(*) FROM notification_actions") == "0")
    }

    /// The same reminder on two screens, snoozed on the other computer: its snooze arrives through the sync
    /// folder, the bubble here closes, and the reminder comes back here too when the snooze ends.
    @Test func aSnoozeOnAnotherDeviceClosesTheReminderHereAndSnoozesItToo() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let folder = h.dir + "/sync"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(try h.planner(["config", "set", "sync-folder", folder, "device-name", "desktop", "--db", h.db]).status == 0)
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        try h.waitFor(seconds: 5) { try displayed(desktop) == "1" }
        // The laptop's planner answered "Snooze" on its own bubble of the same reminder: its line arrives.
        let laptop = String(repeating: "a", count: 32)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let until = now + 600_000
        let line =
            "planner-event 2 id=\(String(repeating: "b", count: 32)) at=\(now) origin=answer kind=snooze device=\(laptop) "
            + "stamp=\(now).0 identifier=\(Self.study) day=2026-11-23 until=\(until)\n"
        try line.write(toFile: folder + "/.syncthing.tmp", atomically: false, encoding: .utf8)
        rename(folder + "/.syncthing.tmp", folder + "/planner-\(laptop)-000001.events")
        try h.waitFor(seconds: 5) { try displayed(desktop) == "0" }
        #expect(h.text("tick.err").contains("\(Self.study): closed on screen (snoozed on another device)"), "\(h.text("tick.err"))")
        #expect(try h.sqlite("SELECT fire_at_ms FROM request WHERE identifier = '\(Self.study)' AND state = 'pending'") == String(until))
        #expect(try h.sqlite("SELECT count(*) FROM notification_actions") == "0", "answered there, not here")
    }

    @Test func aNewStudyReminderReplacesTheOneOnScreen() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        let second = "Noti_AppOpenPromotion_2026_11_23_10_00_snoozed"
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        let first = try desktop.waitForNotifications(count: 1)
        try add(h, second)
        try h.waitFor(seconds: 10) { try state(h, second) == "delivered" }
        // dunst runs its script once per notification id: a replacement rewrites the same one.
        try h.waitFor(seconds: 5) { try displayed(desktop) == "1" }
        usleep(300_000)
        let received = try desktop.waitForNotifications(count: 1)
        #expect(first.count == 1 && received.count == 1, "\(received)")
        // Answering the bubble answers the newest reminder.
        try desktop.answer("Snooze")
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT count(*) FROM notification_actions") == "1" }
        #expect(try h.sqlite("SELECT identifier FROM notification_actions") == second)
    }

    @Test func aStopWithABubbleWaitingIsStillAtOnce() throws {
        let (h, desktop) = try setUp()
        defer { desktop.stop() }
        let ticker = try h.startTicker(["--verbose"])
        try add(h, Self.study)
        try h.waitFor(seconds: 10) { try state(h, Self.study) == "delivered" }
        let child = try String(contentsOfFile: "/proc/\(ticker.processIdentifier)/task/\(ticker.processIdentifier)/children", encoding: .utf8)
            .split(separator: " ").first.map(String.init)
        #expect(child != nil, "a notify-send waits for the answer")
        let start = Date()
        ticker.terminate()
        ticker.waitUntilExit()
        #expect(Date().timeIntervalSince(start) < 1.0)
        #expect(ticker.terminationStatus == 0)
        if let child { #expect(Harness.hasExited(Int32(child)!), "the waiting notify-send must not outlive the ticker") }
    }
}

/// Without --sink the ticker decides at each delivery: a ticker started before the desktop follows it.
@Suite struct SinkPerDeliveryTests {
    @Test func aTickerStartedBeforeTheDesktopDeliversToItOnceItIsThere() throws {
        var h = try Harness()
        let desk = h.dir + "/desk"
        try FileManager.default.createDirectory(atPath: desk, withIntermediateDirectories: true)
        h.env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(desk)/bus"  // nobody listens there yet
        _ = try h.planner(["refill", "--db", h.db])
        let ticker = try h.startTicker([])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        #expect(try h.planner(["add", "--in", "1s", "--title", "before", "--id", "before", "--db", h.db]).status == 0)
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = 'before'") == "delivered" }
        #expect(h.text("tick.out").contains("before\t"))

        let desktop = try PrivateDesktop(in: desk)
        defer { desktop.stop() }
        #expect(desktop.busAddress.hasPrefix("unix:path=\(desk)/bus"))
        #expect(try h.planner(["add", "--in", "1s", "--title", "after", "--id", "after", "--db", h.db]).status == 0)
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = 'after'") == "delivered" }
        #expect(try desktop.waitForNotifications(count: 1).first?.summary == "after")
        #expect(!h.text("tick.out").contains("after\t"))
        #expect(
            try h.sqlite("SELECT identifier || ':' || reason FROM request_history WHERE identifier IN ('before', 'after') ORDER BY identifier")
                == "after:delivered through notify\nbefore:delivered through stdout")
    }
}

/// The `sound` setting reaches the server as the freedesktop `sound-name` hint, seen on the bus itself.
@Suite struct SoundHintTests {
    @Test func theSoundSettingIsSentAsSoundName() throws {
        var h = try Harness()
        let desktop = try PrivateDesktop(in: h.dir)
        defer { desktop.stop() }
        h.env["DBUS_SESSION_BUS_ADDRESS"] = desktop.busAddress
        _ = try h.planner(["refill", "--db", h.db])
        #expect(try h.planner(["config", "set", "sound", "complete", "--db", h.db]).status == 0)
        // dbus-monitor records every Notify call on the private bus.
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        monitor.arguments = ["--address", desktop.busAddress, "interface='org.freedesktop.Notifications',member='Notify'"]
        FileManager.default.createFile(atPath: h.dir + "/monitor.txt", contents: nil)
        monitor.standardOutput = FileHandle(forWritingAtPath: h.dir + "/monitor.txt")
        try monitor.run()
        defer { kill(monitor.processIdentifier, SIGKILL) }
        usleep(300_000)
        #expect(try h.planner(["add", "--in", "1s", "--title", "with sound", "--id", "ding", "--db", h.db]).status == 0)
        let ticker = try h.startTicker([])
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = 'ding'") == "delivered" }
        try h.waitFor(seconds: 5) { h.text("monitor.txt").contains("with sound") }
        // dbus-monitor prints the hints as dict entries: the name, then its variant.
        let call = h.text("monitor.txt").components(separatedBy: "quiet one").first ?? ""
        #expect(call.range(of: #"string "sound-name"\s+variant\s+string "complete""#, options: .regularExpression) != nil, "\(call)")
        // And an empty setting sends no sound hint.
        #expect(try h.planner(["config", "set", "sound", "", "--db", h.db]).status == 0)
        #expect(try h.planner(["add", "--in", "1s", "--title", "quiet one", "--id", "quiet", "--db", h.db]).status == 0)
        try h.waitFor(seconds: 10) { try h.sqlite("SELECT state FROM request WHERE identifier = 'quiet'") == "delivered" }
        try h.waitFor(seconds: 5) { h.text("monitor.txt").contains("quiet one") }
        let quiet = h.text("monitor.txt").components(separatedBy: "quiet one").last ?? ""
        #expect(!quiet.contains("sound-name"), "\(quiet)")
    }
}
