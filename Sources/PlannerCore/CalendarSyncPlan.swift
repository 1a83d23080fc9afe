/// What `planner setup --calendar` adds to setup's plan: the job that carries the calendar folder to the
/// CalDAV server and back (`vdirsyncer sync`, `planner sync` to apply what the phone ticked, `vdirsyncer sync`
/// to carry out what that changed). Never
/// part of the login's `open`: that stays fast and offline.

public struct CalendarSyncFacts: Sendable, Equatable {
    /// The `calendar-folder` setting (absolute).
    public var folder: String
    /// vdirsyncer's absolute path, as found on PATH.
    public var vdirsyncer: String
    /// `$VDIRSYNCER_CONFIG` when setup ran with it: the job must read the same configuration.
    public var vdirsyncerConfig: String?

    public init(folder: String, vdirsyncer: String, vdirsyncerConfig: String? = nil) {
        (self.folder, self.vdirsyncer, self.vdirsyncerConfig) = (folder, vdirsyncer, vdirsyncerConfig)
    }
}

extension SetupPlan {
    public static let calendarService = "planner-calendar.service"
    public static let calendarTimer = "planner-calendar.timer"
    public static let calendarPath = "planner-calendar.path"

    /// Setup's items with the calendar job. Whatever delivers reminders carries the calendar too: the ticker
    /// asks the server for the phone's changes once a minute while the study day is not yet opened
    /// (`CalendarCarry`). With a user manager it starts the calendar unit (which has the network its own
    /// sandbox has not), a path unit sends the planner's changes out and a timer runs it every 15 minutes;
    /// without one the ticker runs `planner calendar-sync` itself, on changes too, and a cron line every 15
    /// minutes is what remains when no desktop session runs.
    /// The ticker's `--calendar-job` and the environment its autostart entry sets, when it carries the calendar.
    public static func tickerCalendarJob(_ f: SetupFacts, _ c: CalendarSyncFacts) -> (job: String, environment: [String]) {
        (f.systemdUser ? "systemd" : c.vdirsyncer, c.vdirsyncerConfig.map { ["VDIRSYNCER_CONFIG=\($0)"] } ?? [])
    }

    public static func withCalendarSync(_ items: [SetupItem], _ f: SetupFacts, _ c: CalendarSyncFacts) -> [SetupItem] {
        let (tickJob, environment) = tickerCalendarJob(f, c)
        var items = items.map { item -> SetupItem in
            var item = item
            if item.path.hasSuffix("/autostart/planner-tick.desktop") {
                item.content = autostartEntry(binary: f.binary, database: f.database, calendarJob: tickJob, environment: environment)
                item.why += ", and carries the calendar folder (planner calendar-sync)"
            } else if item.path.hasSuffix("/systemd/user/planner-tick.service"),
                let unit = units(binary: f.binary, database: f.database, calendarJob: tickJob).first(where: { $0.name == "planner-tick.service" })
            {
                item.content = unit.content
                item.why += ", and carries the calendar folder (starts \(calendarService))"
            }
            return item
        }
        if f.systemdUser {
            let folder = f.configHome + "/systemd/user"
            return items
                + calendarUnits(binary: f.binary, database: f.database, calendar: c).map {
                    SetupItem(kind: .file, path: folder + "/" + $0.name, content: $0.content, why: $0.why)
                }
        }
        // --quiet: cron mails whatever a job prints; calendar-sync prints only a failure then.
        let env = c.vdirsyncerConfig.map { "VDIRSYNCER_CONFIG=\(cronQuoted($0)) " } ?? ""
        let line =
            "*/15 * * * * \(env)\(cronQuoted(f.binary)) calendar-sync --quiet --db \(cronQuoted(f.database)) --vdirsyncer \(cronQuoted(c.vdirsyncer))"
        items = items.map { item in
            guard item.kind == .crontab else { return item }
            var item = item
            item.content += "\n" + line
            item.why += "; carry the calendar folder to the CalDAV server and back every 15 minutes (planner calendar-sync), when no ticker does"
            return item
        }
        return items
    }

    /// The calendar job as systemd user units: the service, a timer (what the phone changed comes in when
    /// no ticker asks), and a path unit on the folder (what the planner changed goes out within seconds).
    public static func calendarUnits(
        binary: String, database: String, calendar c: CalendarSyncFacts
    )
        -> [(name: String, content: String, why: String)]
    {
        let env = c.vdirsyncerConfig.map { "Environment=VDIRSYNCER_CONFIG=\(systemdQuoted($0))\n" } ?? ""
        return [
            (
                calendarService,
                """
                # Installed by 'planner setup --calendar': the calendar folder to the CalDAV server and back.
                [Unit]
                Description=planner: sync the calendar folder with the CalDAV server (vdirsyncer)

                [Service]
                Type=oneshot
                \(env)# vdirsyncer sync, the phone's ticks applied, and vdirsyncer sync again when either changed
                # something: the path unit does not fire again for writes made while this runs
                # (scripts/calendar-systemd-check measured it), so the last sync is what carries them.
                # calendar-sync bounds itself (2 min for the lock, 5 for each vdirsyncer run); this bounds the rest.
                TimeoutStartSec=15min
                ExecStart=\(systemdQuoted(binary)) calendar-sync --db \(systemdQuoted(database)) --vdirsyncer \(systemdQuoted(c.vdirsyncer))
                \(calendarHardening.joined(separator: "\n"))

                """, "planner calendar-sync: vdirsyncer sync, planner sync, vdirsyncer sync (run by the ticker, the timer and the path unit)"
            ),
            (
                calendarTimer,
                """
                # Installed by 'planner setup --calendar': fetch what the phone changed every 15 minutes (the
                # ticker asks every minute while a study day is not yet opened).
                [Unit]
                Description=planner: sync the calendar folder every 15 minutes

                [Timer]
                OnCalendar=*:7/15
                Persistent=true

                [Install]
                WantedBy=timers.target

                """, "the calendar sync schedule (systemd user timer)"
            ),
            (
                calendarPath,
                """
                # Installed by 'planner setup --calendar': what the planner writes to the folder goes out at once.
                [Unit]
                Description=planner: sync the calendar folder when it changes

                [Path]
                PathChanged=\(c.folder.replacing("%", with: "%%"))
                Unit=\(calendarService)

                [Install]
                WantedBy=default.target

                """, "sync when the calendar folder changes (systemd path unit)"
            ),
        ]
    }

    /// The ticker's hardening minus what a network client needs: vdirsyncer reaches the server over IP.
    static let calendarHardening = hardening.map {
        $0 == "RestrictAddressFamilies=AF_UNIX" ? "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" : $0
    }

    /// Why the folder cannot go into a unit or the crontab, or nil.
    public static func calendarFolderProblem(_ folder: String) -> String? {
        if folder.contains(where: { $0.isNewline || $0 == "\0" }) {
            return "a calendar-folder with a line break cannot go into a unit or crontab: \(folder)"
        }
        return nil
    }
}
