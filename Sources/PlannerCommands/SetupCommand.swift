import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem
import PlannerTicker

/// `planner setup`: prints what it would do, or (--install) does it, or (--uninstall) reverts it. The
/// files' contents are `SetupPlan`'s (PlannerCore); the facts come from the context; the completion
/// scripts and the manual, which the command line parser makes, come in as `SetupExtras`.
public enum SetupCommand {
    public enum Scheduler: String { case auto, systemd, cron }

    public struct Options {
        public var db: String?
        public var now: String?
        public var install = false
        public var uninstall = false
        public var scheduler = Scheduler.auto
        /// --login-hook: a login counts as starting to study (an account or machine used only for study).
        public var loginHook = false
        /// For scripts/deb: the units, completions and manual as a package installs them, under this folder.
        public var packageFiles: String?
        /// Also the calendar folder's sync job (vdirsyncer, then planner sync): `setup --calendar`.
        public var calendar = false

        public init(
            db: String? = nil, now: String? = nil, install: Bool = false, uninstall: Bool = false,
            scheduler: Scheduler = .auto, packageFiles: String? = nil, loginHook: Bool = false
        ) {
            (self.db, self.now, self.install, self.uninstall) = (db, now, install, uninstall)
            (self.scheduler, self.packageFiles, self.loginHook) = (scheduler, packageFiles, loginHook)
        }
    }

    public static func run(_ ctx: RunContext, _ options: Options, extras: SetupExtras) throws(PlannerError) {
        if let packageFiles = options.packageFiles { return try writePackageFiles(under: packageFiles, extras: extras) }
        var facts = try facts(ctx, db: options.db)
        if options.scheduler != .auto { facts.systemdUser = options.scheduler == .systemd }
        facts.loginHook = options.loginHook
        let state = stateFolder(home: facts.home, environment: ctx.environment)
        var manifest = SetupManifest.load(from: state)
        // A run killed between writing a file aside and renaming it in left `*.planner-setup.tmp` beside
        // the user's file (in a dotfiles folder, maybe under version control): every run removes them first.
        var every = facts
        every.loginHook = true
        var items = extras.items(facts, path: ctx.environment("PATH"), packaged: [])
        for systemd in [true, false] {
            every.systemdUser = systemd
            items += SetupPlan.items(every)
        }
        let paths =
            manifest.entries.map(\.path) + items.filter { $0.kind != .crontab }.map(\.path)
            + [SetupPlan.calendarService, SetupPlan.calendarTimer, SetupPlan.calendarPath].map { facts.configHome + "/systemd/user/" + $0 }
        for removed in SetupFiles.removeTemporaries(besides: paths) {
            ctx.output.line("removed \(removed), left by an interrupted planner setup")
        }
        if options.uninstall {
            try uninstall(&manifest, ctx, facts: facts)
            return
        }
        for (path, cron) in [(facts.home, false), (facts.binary, !facts.systemdUser), (facts.database, !facts.systemdUser)] {
            if let problem = SetupPlan.pathProblem(path, cron: cron) { throw PlannerError.usage(problem) }
        }
        let calendar = options.calendar ? try calendarFacts(ctx, facts) : nil
        let changes = try plan(facts, extras: extras, ctx, calendar: calendar)
        if !options.install {
            printPlan(changes, facts: facts, to: ctx.output)
            let current =
                access(facts.database, F_OK) == 0
                ? try? ConfigCommand.get(ctx, db: facts.database, now: options.now, key: SettingKey.ankiCollection.rawValue) : nil
            if let anki = SetupAnki.line(facts, current: current, install: false) { ctx.output.line(anki) }
            SetupReport.explain(facts, ctx)
            return
        }
        // A database path that is not a usable planner database (a text file, someone else's) is refused
        // before any file is written: the refill at the end would fail after the install (all or nothing).
        if access(facts.database, F_OK) == 0 {
            _ = try PlannerDatabase(path: facts.database, zoneForNewPlan: nil, warnings: ctx.warnings, folderTiming: ctx.folderTiming)
        }
        // A running ticker whose unit this install changes (`--calendar` makes it carry the calendar) must run
        // as the unit now says at once, not from the next login.
        let tickerChanged = changes.contains {
            $0.item.path.hasSuffix("/planner-tick.service") && $0.current != nil && $0.current != $0.next
        }
        let autostartChanged = changes.contains {
            $0.item.path.hasSuffix("/autostart/planner-tick.desktop") && $0.current != nil && $0.current != $0.next
        }
        try install(changes, manifest: &manifest, facts: facts, output: ctx.output)
        let systemd = manifest.entries.contains(where: { $0.path.hasSuffix("/planner-refill.timer") })
        if systemd { enableUnits(ctx) }
        if calendar != nil, manifest.entries.contains(where: { $0.path.hasSuffix("/" + SetupPlan.calendarPath) }) {
            enableCalendarUnits(ctx)
        }
        // The database is made now, in this shell's zone: cron and systemd may have another TZ. The ticker
        // starts after it (started first, it could make the database in the unit's zone).
        _ = try RefillCommand.run(ctx, PlanCommandOptions(db: facts.database, now: options.now))
        if systemd {
            startTicker(ctx, restart: tickerChanged)
        } else if manifest.entries.contains(where: { $0.path.hasSuffix("/autostart/planner-tick.desktop") }) {
            let job = calendar.map { SetupPlan.tickerCalendarJob(facts, $0) }
            let command = SetupPlan.autostartCommand(
                binary: facts.binary, database: facts.database, calendarJob: job?.job, environment: job?.environment ?? [])
            startTickerNow(ctx, database: facts.database, command: command, restart: autostartChanged)
        }
        // The phone gets the plan now, not at the first timer or cron round (up to 15 minutes of an empty calendar).
        if let calendar { firstCalendarSync(ctx, facts: facts, calendar: calendar, now: options.now) }
        if let anki = try SetupAnki.adopt(ctx, facts, now: options.now) { ctx.output.line(anki) }
        ctx.output.line("backups of what was changed: \(state)")
        ctx.output.line("database: \(facts.database)")
        SetupReport.explain(facts, ctx)
    }

    /// Where each edit goes (a link's file) and what refuses it, settled before anything is written.
    static func plan(
        _ facts: SetupFacts, extras: SetupExtras, _ ctx: RunContext,
        calendar: CalendarSyncFacts? = nil
    ) throws(PlannerError) -> [SetupChange] {
        let crontab = Crontab(run: ctx.runProgram)
        var items = SetupPlan.items(facts) + extras.items(facts, path: ctx.environment("PATH"), packaged: packagedFiles(facts))
        if let calendar { items = SetupPlan.withCalendarSync(items, facts, calendar) }
        return try items.map { item throws(PlannerError) in try SetupChange(item, crontab: crontab) }
    }

    /// What --install would do, without --install.
    static func printPlan(_ changes: [SetupChange], facts: SetupFacts, to output: CommandOutput) {
        output.line("planner setup would (run with --install to do it; database \(facts.database)):")
        for change in changes {
            let verb = change.current == change.next ? "keep" : change.current == nil ? "create" : "change"
            output.line("  \(verb) \(change.shownPath): \(change.item.why)")
            if change.item.kind != .file, change.current != change.next {
                for line in change.item.content.split(separator: "\n") { output.line("      \(line)") }
            }
        }
        if facts.systemdUser { output.line("  run systemctl --user daemon-reload, enable --now planner-refill.timer, enable planner-tick.service") }
        if facts.systemdUser,
            changes.contains(where: { $0.item.path.hasSuffix("/planner-tick.service") && $0.current != nil && $0.current != $0.next })
        {
            output.line("  restart planner-tick.service if it is running (its unit changes)")
        }
        if facts.systemdUser, changes.contains(where: { $0.item.path.hasSuffix("/" + SetupPlan.calendarPath) }) {
            output.line("  run systemctl --user enable --now \(SetupPlan.calendarTimer) \(SetupPlan.calendarPath)")
        }
    }

    /// Without a running user manager (an ssh session, a container) enable still links the units; the
    /// timer then starts at the next graphical login.
    static func enableUnits(_ ctx: RunContext) {
        let run = ctx.runProgram
        _ = run(["systemctl", "--user", "daemon-reload"])
        let timer = run(["systemctl", "--user", "enable", "--now", "planner-refill.timer"])
        let tick = run(["systemctl", "--user", "enable", "planner-tick.service"])
        if timer?.status == 0 && tick?.status == 0 {
            ctx.output.line("enabled planner-refill.timer and planner-tick.service (systemctl --user)")
        } else {
            ctx.output.line(
                "could not enable the units (is a systemd user manager running?): run systemctl --user enable --now planner-refill.timer planner-tick.service after logging in"
            )
        }
    }

    /// The ticker, once the database is made: started now when a graphical session is there (else it starts
    /// with the next one); a running one whose unit changed is restarted, so it runs as the unit says at once.
    static func startTicker(_ ctx: RunContext, restart: Bool) {
        let run = ctx.runProgram
        if restart, run(["systemctl", "--user", "is-active", "--quiet", "planner-tick.service"])?.status == 0 {
            if run(["systemctl", "--user", "restart", "planner-tick.service"], errors: .shown)?.status == 0 {
                ctx.output.line("restarted the running ticker (planner-tick.service): it runs as its changed unit says from now on")
            }
            return
        }
        if run(["systemctl", "--user", "is-active", "--quiet", "graphical-session.target"])?.status == 0 {
            _ = run(["systemctl", "--user", "start", "planner-tick.service"], errors: .shown)
        }
    }

    /// Without a user manager (the cron path): the live ticker the autostart entry starts at the next login is
    /// started now when a desktop session is here (until then only cron would deliver: no buttons, up to a
    /// minute late), or restarted when its entry changed; else setup says exactly what to do.
    static func startTickerNow(_ ctx: RunContext, database: String, command: [String], restart: Bool) {
        let env = ctx.environment
        let desktop = [env("DISPLAY"), env("WAYLAND_DISPLAY")].contains { !($0 ?? "").isEmpty }
        guard desktop, SessionBus.reachableAddress(environment: env) != nil else {
            ctx.output.line(
                "no desktop session here: the live ticker starts at your next desktop login, and until then cron checks every minute (no buttons, up to a minute late); to start it now, run in a terminal of your desktop: \(command.map(SetupPlan.quoted).joined(separator: " "))"
            )
            return
        }
        let running = TickerLock.liveTickerWatches(databasePath: database)
        if running, !restart {
            ctx.output.line("the live ticker already runs")
            return
        }
        if running, !TickerStop.stopAndRemoveLock(database + ".tick.lock") {
            ctx.output.line("the live ticker runs as its old autostart entry said and did not stop: it runs as the new one from your next login")
            return
        }
        if ctx.startDetached(command) {
            ctx.output.line(
                running
                    ? "restarted the live ticker: it runs as its changed autostart entry says from now on"
                    : "started the live ticker now (from now on it starts with your desktop session)")
        } else {
            ctx.output.line("could not start the live ticker now: it starts at your next desktop login; until then cron checks every minute")
        }
    }

    /// The files of the Debian package: units that run /usr/bin/planner on the user's default database,
    /// completions where each shell looks for packaged ones, and the manual (gzipped by scripts/deb).
    static func writePackageFiles(under root: String, extras: SetupExtras) throws(PlannerError) {
        guard root.hasPrefix("/") else { throw PlannerError.usage("--package-files needs an absolute folder") }
        for unit in SetupPlan.units(binary: "/usr/bin/planner", database: nil) {
            try SetupFiles.write(root + "/usr/lib/systemd/user/" + unit.name, unit.content)
        }
        // bash-completion sources the file: a #! line there is noise (lintian: bash-completion-with-hashbang).
        let bash = extras.bashCompletion
        let sourced = bash.hasPrefix("#!") ? String(bash.drop { $0 != "\n" }.dropFirst()) : bash
        try SetupFiles.write(root + "/usr/share/bash-completion/completions/planner", sourced)
        try SetupFiles.write(root + "/usr/share/zsh/vendor-completions/_planner", extras.zshCompletion)
        try SetupFiles.write(root + "/usr/share/fish/vendor_completions.d/planner.fish", extras.fishCompletion)
        try SetupFiles.write(root + "/usr/share/man/man1/planner.1", extras.manual)
        try SetupFiles.write(
            root + "/usr/share/applications/planner-study.desktop",
            SetupPlan.desktopEntry(binary: "planner", database: nil))
        try SetupFiles.write(root + "/usr/share/" + PlannerIcon.relativePath, PlannerIcon.xpm)
    }

    /// Where systemd keeps a persistent timer's last trigger time.
    static func timerStamp(_ f: SetupFacts, timer: String = "planner-refill.timer") -> String { f.dataHome + "/systemd/timers/stamp-" + timer }

    /// The backups and the manifest: $XDG_STATE_HOME/planner/setup, else under the home's .local/state.
    static func stateFolder(home: String, environment: (String) -> String?) -> String {
        if let xdg = environment("XDG_STATE_HOME"), xdg.hasPrefix("/") { return xdg + "/planner/setup" }
        return home + "/.local/state/planner/setup"
    }

    /// Home, binary, database (absolute), login shell, login files, whether a systemd user manager runs,
    /// and the XDG folders: all from the context.
    public static func facts(_ ctx: RunContext, db: String?) throws(PlannerError) -> SetupFacts {
        guard let account = ctx.account() else { throw .failure("cannot read your account (getpwuid)") }
        // The same home the database's default path and every other command use.
        let home = try DatabaseLocation.home(environment: ctx.environment)
        guard let binary = ctx.programPath() else { throw .failure("cannot find this program's path (/proc/self/exe)") }
        var database = try DatabaseLocation.resolve(option: db, environment: ctx.environment)
        if !database.hasPrefix("/") {
            guard let folder = ctx.currentFolder() else { throw .io("cannot read the current folder") }
            database = folder + "/" + database
        }
        let existing = Set([".bash_profile", ".bash_login", ".profile"].filter { SetupFiles.exists(home + "/" + $0) })
        let state = ctx.runProgram(["systemctl", "--user", "is-system-running"])?.output ?? ""
        let systemd = state.hasPrefix("running") || state.hasPrefix("degraded")
        func xdg(_ name: String) -> String? { ctx.environment(name).flatMap { $0.hasPrefix("/") ? $0 : nil } }
        return SetupFacts(
            home: home, binary: binary, database: database, shell: account.shell, existingFiles: existing,
            systemdUser: systemd, uid: account.uid, configHome: xdg("XDG_CONFIG_HOME"), dataHome: xdg("XDG_DATA_HOME"))
    }
}
