import Glibc
import PlannerCommands
import PlannerCore
import PlannerStore
import PlannerTestSupport
import Testing

/// `planner setup --calendar`: the sync job (vdirsyncer sync, then planner sync) as systemd user units or a
/// cron line; refused with the next step when a fact is missing; never in the login's line; undone by
/// --uninstall to the byte.
@Suite struct SetupCalendarTests {
    /// A fake home with a database whose calendar-folder is set (when `folder`), vdirsyncer on PATH (when
    /// `vdirsyncer`) and its configuration (when `configured`).
    struct Home {
        let home: String, db: String, folder: String, bin: String
        let process: FakeProcess
    }

    func home(
        folder setFolder: Bool = true, vdirsyncer: Bool = true, configured: Bool = true,
        systemd: Bool = true
    ) throws -> Home {
        let home = temporaryFolder()
        let bin = temporaryFolder()
        let folder = home + "/calendars/planner"
        writeFile(home + "/.profile", "# mine\n")
        let process = FakeProcess(environment: ["HOME": home, "PATH": bin, "TZ": "Asia/Seoul"])
        process.currentFolder = home
        process.answer = { arguments in
            if arguments == ["systemctl", "--user", "is-system-running"] { return systemd ? (0, "running\n") : (1, "offline\n") }
            if arguments.first == "systemctl" || arguments.first == "crontab" { return (0, "") }
            return nil
        }
        let db = home + "/p.db"
        if setFolder {
            _ = try ConfigCommand.set(process.context, db: db, now: "2026-11-23T12:00", pairs: ["calendar-folder", folder])
        }
        if vdirsyncer { writeFile(bin + "/vdirsyncer", "#!/bin/sh\n", mode: 0o755) }
        if configured {
            try makeFolder(home + "/.config")
            try makeFolder(home + "/.config/vdirsyncer")
            writeFile(home + "/.config/vdirsyncer/config", "[general]\n")
        }
        return Home(home: home, db: db, folder: folder, bin: bin, process: process)
    }

    /// Every file below `folder` with its bytes.
    func snapshot(_ folder: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: filesBelow(folder).map { ($0, readFile(folder + "/" + $0) ?? "<folder>") })
    }

    func run(
        _ h: Home, install: Bool = false, uninstall: Bool = false, calendar: Bool = true,
        loginHook: Bool = false
    ) throws {
        var options = SetupCommand.Options(
            db: h.db, now: "2026-11-23T12:00", install: install, uninstall: uninstall,
            loginHook: loginHook)
        options.calendar = calendar
        try SetupCommand.run(h.process.context, options, extras: SetupFactsTests.extras)
    }

    func refusal(_ h: Home) -> String? {
        do {
            try run(h, install: true)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func refusedWithTheNextStepWhenAFactIsMissingAndNothingWritten() throws {
        for (h, expected) in [
            (try home(folder: false), "calendar-folder is not set: run planner config set calendar-folder FOLDER"),
            (try home(vdirsyncer: false), "vdirsyncer is not installed (not on PATH): install it (Debian: sudo apt install vdirsyncer)"),
            (try home(configured: false), "vdirsyncer is not configured (no "),
        ] {
            let before = snapshot(h.home)
            let error = refusal(h)
            #expect(error?.contains(expected) == true, "\(error ?? "no error")")
            #expect(snapshot(h.home) == before)
            #expect(!h.process.ran.contains { $0.first == "crontab" && $0 != ["crontab", "-l"] })
        }
    }

    @Test func theDryRunNamesTheThreeUnitsAndWritesNothing() throws {
        let h = try home()
        let before = snapshot(h.home)
        try run(h)
        let units = h.home + "/.config/systemd/user/"
        let lines = h.process.lines
        #expect(
            lines.contains(
                "  create \(units)planner-calendar.service: planner calendar-sync: vdirsyncer sync, planner sync, vdirsyncer sync (run by the ticker, the timer and the path unit)"
            ))
        #expect(lines.contains("  create \(units)planner-calendar.timer: the calendar sync schedule (systemd user timer)"))
        #expect(lines.contains("  create \(units)planner-calendar.path: sync when the calendar folder changes (systemd path unit)"))
        #expect(lines.contains("  run systemctl --user enable --now planner-calendar.timer planner-calendar.path"))
        #expect(snapshot(h.home) == before)
    }

    /// Issue 49: the docs' order is `setup --install`, then `setup --calendar --install`, which changes
    /// planner-tick.service to carry the calendar; the ticker already running is restarted so it does at once
    /// (it carried on without the calendar until the next login). And the ticker starts only after setup's
    /// refill made the database (started first, it could make it in the unit's zone, not the shell's).
    @Test func aRunningTickerWhoseUnitChangesIsRestartedAfterTheRefill() throws {
        let h = try home(folder: false)
        let answer = h.process.answer
        var databaseWasThere: [Bool] = []
        h.process.answer = { arguments in
            if arguments == ["systemctl", "--user", "is-active", "--quiet", "planner-tick.service"] { return (0, "") }
            if arguments.first == "systemctl", arguments.contains("planner-tick.service"),
                arguments.contains("start") || arguments.contains("restart")
            {
                databaseWasThere.append(access(h.db, F_OK) == 0)
            }
            return answer(arguments)
        }
        try run(h, install: true, calendar: false)
        #expect(h.process.ran.contains(["systemctl", "--user", "start", "planner-tick.service"]))
        #expect(!h.process.ran.contains(["systemctl", "--user", "restart", "planner-tick.service"]))
        _ = try ConfigCommand.set(h.process.context, db: h.db, now: "2026-11-23T12:00", pairs: ["calendar-folder", h.folder])
        try run(h, install: true, calendar: true)
        #expect(h.process.ran.contains(["systemctl", "--user", "restart", "planner-tick.service"]))
        #expect(h.process.lines.contains { $0.hasPrefix("restarted the running ticker (planner-tick.service)") })
        #expect(databaseWasThere == [true, true], "\(databaseWasThere)")
        // Nothing changed: nothing restarted.
        let restarts = h.process.ran.filter { $0 == ["systemctl", "--user", "restart", "planner-tick.service"] }.count
        try run(h, install: true, calendar: true)
        #expect(h.process.ran.filter { $0 == ["systemctl", "--user", "restart", "planner-tick.service"] }.count == restarts)
    }

    /// Issue 49: on the cron path `setup --install` started no ticker while saying one starts with the desktop
    /// session: until the next login only cron delivered. With a desktop session here it starts the
    /// autostart entry's command now; after `--calendar` changed that entry it restarts it; without a session
    /// it says exactly what to run.
    @Test func onTheCronPathTheTickerStartsNowWhenADesktopSessionIsHere() throws {
        let h = try home(folder: false, systemd: false)
        h.process.environment["DISPLAY"] = ":0"
        h.process.environment["DBUS_SESSION_BUS_ADDRESS"] = "tcp:host=127.0.0.1,port=1"
        try run(h, install: true, calendar: false)
        #expect(h.process.started == [["/opt/test/bin/planner", "tick", "--unless-running", "--db", h.db]])
        #expect(h.process.lines.contains("started the live ticker now (from now on it starts with your desktop session)"))
        // The calendar changes the entry: with no ticker running, it is started as the new entry says.
        _ = try ConfigCommand.set(h.process.context, db: h.db, now: "2026-11-23T12:00", pairs: ["calendar-folder", h.folder])
        try run(h, install: true, calendar: true)
        #expect(
            h.process.started.last == ["/opt/test/bin/planner", "tick", "--unless-running", "--calendar-job", h.bin + "/vdirsyncer", "--db", h.db])
        // No desktop here (ssh): nothing started, and the line says what to run.
        let count = h.process.started.count
        h.process.environment["DISPLAY"] = nil
        try run(h, install: true, calendar: true)
        #expect(h.process.started.count == count)
        #expect(
            h.process.lines.contains {
                $0.hasPrefix("no desktop session here: the live ticker starts at your next desktop login")
                    && $0.hasSuffix("'/opt/test/bin/planner' 'tick' '--unless-running' '--calendar-job' '\(h.bin)/vdirsyncer' '--db' '\(h.db)'")
            }, "\(h.process.lines)")
    }

    @Test func installWritesTheJobAndUninstallPutsEveryByteBack() throws {
        let h = try home()
        let before = snapshot(h.home)
        try run(h, install: true, loginHook: true)
        let units = h.home + "/.config/systemd/user/"
        let service = try #require(readFile(units + "planner-calendar.service"))
        let exec = service.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
        // One job (calendar-sync: vdirsyncer, the phone's ticks applied on setup's database, vdirsyncer again),
        // the same the ticker and cron run; the ticker starts this unit (it has the network).
        #expect(exec == ["ExecStart=\"/opt/test/bin/planner\" calendar-sync --db \"\(h.db)\" --vdirsyncer \"\(h.bin)/vdirsyncer\""])
        let tick = try #require(readFile(units + "planner-tick.service"))
        #expect(tick.contains(" tick --unless-running --calendar-job \"systemd\" --db "))
        #expect(service.contains("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"))
        let path = try #require(readFile(units + "planner-calendar.path"))
        #expect(path.contains("\nPathChanged=\(h.folder)\n"))
        #expect(path.contains("\nUnit=planner-calendar.service\n"))
        #expect(try #require(readFile(units + "planner-calendar.timer")).contains("\nOnCalendar=*:7/15\n"))
        // The login hook (when asked for) only opens: the network sync never runs inside it.
        let profile = try #require(readFile(h.home + "/.profile"))
        #expect(profile.contains(" open --login --db ") && !profile.contains("vdirsyncer") && !profile.contains(" sync"))
        #expect(h.process.ran.contains(["systemctl", "--user", "enable", "--now", "planner-calendar.timer", "planner-calendar.path"]))
        #expect(h.process.lines.contains("enabled planner-calendar.timer and planner-calendar.path (systemctl --user)"))

        try run(h, uninstall: true, calendar: false)
        #expect(h.process.ran.contains(["systemctl", "--user", "disable", "--now", "planner-calendar.timer", "planner-calendar.path"]))
        // The database setup's refill made stays (as every uninstall keeps it); the planner's items leave the
        // calendar folder (the phone stops ringing once that is carried out); everything else is as before.
        var after = snapshot(h.home)
        after["p.db"] = before["p.db"]
        #expect(before.keys.contains { $0.hasPrefix("calendars/planner/planner-") })
        let kept = before.filter { !$0.key.hasPrefix("calendars/planner/planner-") }
        #expect(after.keys.sorted() == kept.keys.sorted())
        #expect(after == kept)
    }

    /// Two computers carry the calendar (each its own folder and job) and share a sync folder: uninstalling
    /// one must not take the items off the server the other still keeps for the phone. The other's device
    /// line says it carries a calendar; once it no longer does, uninstall takes them off as before.
    @Test(arguments: [true, false]) func uninstallLeavesTheServersItemsWhileAnotherComputerCarriesThem(otherCarries: Bool) throws {
        let h = try home()
        let shared = temporaryFolder()
        let laptop = try home()
        _ = try ConfigCommand.set(
            laptop.process.context, db: laptop.db, now: "2026-11-23T11:50", pairs: ["sync-folder", shared, "device-name", "laptop"])
        if !otherCarries { try ConfigCommand.reset(laptop.process.context, db: laptop.db, now: "2026-11-23T11:51", keys: ["calendar-folder"]) }
        _ = try ConfigCommand.set(h.process.context, db: h.db, now: "2026-11-23T11:52", pairs: ["sync-folder", shared, "device-name", "desktop"])
        try run(h, install: true)
        let items = filesBelow(h.folder).filter { $0.hasPrefix("planner-") }
        #expect(!items.isEmpty)
        // The desktop's word that it now carries a calendar reaches the laptop without another change (a
        // setting of its own is no event: its device line alone says so).
        let laptopDB = try PlannerDatabase(path: laptop.db, zoneForNewPlan: nil)
        _ = try laptopDB.sync(now: TestTime.seoul.at("2026-11-23T12:01"))
        #expect(try laptopDB.otherCalendarCarriers(now: TestTime.seoul.at("2026-11-23T12:01")) == ["desktop"])
        try run(h, uninstall: true, calendar: false)
        let left = filesBelow(h.folder).filter { $0.hasPrefix("planner-") }
        let setting = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:03").calendarFolder
        if otherCarries {
            #expect(left.count == items.count, "the folder was emptied (and vdirsyncer would take that to the server)")
            #expect(h.process.lines.contains { $0.hasPrefix("left the planner's items in \(h.folder) and on the server: laptop still carries") })
            #expect(setting == nil, "this computer still writes the folder")
            // The laptop reads that the desktop no longer carries it: its own uninstall then takes them off.
            _ = try laptopDB.sync(now: TestTime.seoul.at("2026-11-23T12:04"))
            #expect(try laptopDB.devices().count == 2)
            #expect(
                try laptopDB.otherCalendarCarriers(now: TestTime.seoul.at("2026-11-23T12:04")).isEmpty,
                "the desktop's uninstall did not say in the folder that it no longer carries the calendar")
        } else {
            #expect(left.isEmpty)
            #expect(!h.process.lines.contains { $0.hasPrefix("left the planner's items") })
        }
    }

    @Test func withoutAUserManagerTheJobIsOneMoreLineInThePlannersCronBlock() throws {
        let facts = SetupFacts(
            home: "/home/u", binary: "/opt/p%/planner", database: "/home/u/p.db", shell: "/bin/bash",
            existingFiles: [], systemdUser: false, uid: 1000)
        let calendar = CalendarSyncFacts(folder: "/home/u/cal", vdirsyncer: "/usr/bin/vdirsyncer", vdirsyncerConfig: "/home/u/v.conf")
        let plain = SetupPlan.items(facts)
        let items = SetupPlan.withCalendarSync(plain, facts, calendar)
        #expect(items.count == plain.count)
        let cron = try #require(items.first { $0.kind == .crontab })
        let lines = cron.content.split(separator: "\n")
        #expect(lines.dropLast() == (try #require(plain.first { $0.kind == .crontab })).content.split(separator: "\n"))
        // cron reads % as a line break: escaped; vdirsyncer's configuration passed on; quiet unless it fails.
        #expect(
            lines.last
                == "*/15 * * * * VDIRSYNCER_CONFIG='/home/u/v.conf' '/opt/p\\%/planner' calendar-sync --quiet --db '/home/u/p.db' --vdirsyncer '/usr/bin/vdirsyncer'"
        )
        // The autostarted ticker carries the calendar itself, with the same configuration.
        let autostart = try #require(items.first { $0.path.hasSuffix("/autostart/planner-tick.desktop") })
        #expect(
            autostart.content.contains(
                "\nExec=/usr/bin/env \"VDIRSYNCER_CONFIG=/home/u/v.conf\" \"/opt/p%%/planner\" tick --unless-running --calendar-job /usr/bin/vdirsyncer --db /home/u/p.db\n"
            ), "\(autostart.content)")
    }
}
