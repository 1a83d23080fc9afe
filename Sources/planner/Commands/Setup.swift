import ArgumentParser
import PlannerCommands

struct Setup: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Set up the ticker, refill schedule, launcher, completions and manual in one step.",
        discussion: """
            Without an option, prints what it would do. --install does it, idempotently: the live ticker started \
            with your desktop session (an autostart entry, and where a systemd user manager runs, a service bound \
            to the graphical session: whichever starts second exits at once), a systemd user timer for refill (or, \
            without a systemd user manager, crontab entries merged into yours), the Start studying launcher, shell \
            completions and the manual page (not again when the planner package put them in place) — every path \
            absolute, so the ticker, cron and the launcher share one database.

            The day closes when you start studying: "Start studying" on a reminder, the launcher, or planner \
            study. Logging in does not, unless --login-hook adds planner open --login to the file your login \
            shell really reads (for an account or machine used only for study): then each login session counts \
            once, and tmux panes, su - and nested login shells inside it do not.

            Each file it edits is backed up first (in $XDG_STATE_HOME/planner/setup); --uninstall stops the \
            ticker and puts back exactly what was there. The database itself is never removed.
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Make the changes (else only print them).") var install = false
    @Flag(name: .long, help: "Revert what --install changed.") var uninstall = false
    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Also sync the calendar folder with your CalDAV server (vdirsyncer sync, planner sync, vdirsyncer sync) every 15 minutes and when the folder changes; never at login.",
            discussion: "Needs calendar-folder set and vdirsyncer installed and configured (contrib/vdirsyncer.config)."))
    var calendar = false
    @Flag(name: .customLong("login-hook"), help: "Also count each login as starting to study (for an account or machine used only for study).")
    var loginHook = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "What runs refill and the ticker: systemd (user units), cron, or auto (systemd when a user manager runs).",
            valueName: "auto|systemd|cron"))
    var scheduler = "auto"
    /// For scripts/deb: the units, completions and manual as a package installs them, under DIR.
    @Option(name: .customLong("package-files"), help: .hidden) var packageFiles: String?

    func validate() throws {
        if install && uninstall { throw ValidationError("choose one of --install and --uninstall") }
        if SetupCommand.Scheduler(rawValue: scheduler) == nil {
            throw ValidationError("--scheduler must be auto, systemd or cron")
        }
    }

    func run(_ ctx: RunContext) throws {
        var options = SetupCommand.Options(
            db: common.db, now: common.now, install: install, uninstall: uninstall,
            scheduler: SetupCommand.Scheduler(rawValue: scheduler) ?? .auto,
            packageFiles: packageFiles, loginHook: loginHook)
        options.calendar = calendar
        try SetupCommand.run(ctx, options, extras: Self.extras)
    }

    /// The completion scripts ArgumentParser writes and the manual page this binary carries.
    static var extras: SetupExtras {
        SetupExtras(
            bashCompletion: PlannerCommand.completionScript(for: .bash),
            zshCompletion: PlannerCommand.completionScript(for: .zsh),
            fishCompletion: PlannerCommand.completionScript(for: .fish), manual: Manual.page)
    }
}
