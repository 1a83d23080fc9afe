import ArgumentParser
import PlannerCommands
import PlannerCore

struct Tick: ContextCommand {
    enum SinkName: String, ExpressibleByArgument, CaseIterable { case notify, stdout }

    static let configuration = CommandConfiguration(
        commandName: "tick",
        abstract: "Deliver each pending request at its time (long-running; or --once).",
        discussion: """
            Sleeps until the next request's time (a CLOCK_REALTIME timer that also wakes on clock changes and \
            resume) and delivers it; notices `open`, `refill` and `add` from other processes at once by watching \
            the database file and the opens saved in <database>.opens/ (inotify). Only a request within its grace period is delivered, checked when each \
            attempt starts. When several study slots are due at once (the machine slept) only the latest is, the \
            others are marked missed; every one-off is delivered. One ticker per database. SIGTERM, SIGINT, SIGHUP \
            or SIGQUIT: exits 0; SIGUSR1, SIGUSR2 and SIGALRM are ignored; SIGTSTP (Ctrl-Z) stops it until \
            continued. While it runs, `open` leaves the sync and calendar folders to it.

            Delivery is at most once: a request is claimed in the database before the sink runs, so a ticker \
            killed between claim and delivery loses that reminder (recorded as failed on the next run) and \
            never shows it twice. A delivery in progress never holds up another.

            Sinks: notify (notify-send), stdout (one line per delivery: identifier, fire_at, title), or, without \
            --sink, whichever fits at each delivery: notify when a session bus is reachable then \
            ($DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus, /run/user/UID/bus), else stdout. Or --exec PROGRAM [ARG...], run \
            directly (no shell) with PLANNER_ID, PLANNER_TITLE, PLANNER_BODY and PLANNER_FIRE_AT set. A failing \
            sink is retried with backoff (1 s, 2 s, 4 s ... up to 1 min) within the grace period, then recorded \
            as failed. --once retries for 5 s at most and exits 1 when a delivery failed.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, help: "notify or stdout (default: for each delivery, notify when a session bus is reachable then, else stdout).")
    var sink: SinkName?
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "A request is delivered only within this long after its time (e.g. 90s, 15m; default: the grace setting).", valueName: "duration"))
    var grace: String?
    @Flag(name: .long, help: "Deliver what is due at now (honours --now) and exit, for cron and tests.")
    var once = false
    @Flag(name: .long, help: "Log every delivery on stderr, not only problems.") var verbose = false
    @Option(name: .long, help: "notify: the urgency (low, normal, critical; default: the urgency setting).") var urgency: String?
    @Option(name: .long, help: "notify: an icon name or path (default: the icon setting).") var icon: String?
    @Option(name: .customLong("app-name"), help: "notify: the application name shown.") var appName: String = "planner"
    @Flag(
        name: .customLong("unless-running"),
        help: "Exit 0 quietly when another ticker already runs on this database (for autostart and the user unit: one of them runs).")
    var unlessRunning = false
    @Option(
        name: .customLong("calendar-job"),
        help: ArgumentHelp(
            "Also carry the calendar folder (planner setup --calendar sets it): systemd (start planner-calendar.service) or vdirsyncer's path (run planner calendar-sync, also when the folder changes). Asks the server once a minute while today's study day is not yet opened, inside its window.",
            valueName: "job"))
    var calendarJob: String?
    @Option(
        name: .long, parsing: .remaining,
        help: ArgumentHelp(
            "Deliver by running PROGRAM [ARG...] directly (must come last).", valueName: "program"))
    var exec: [String] = []

    func validate() throws {
        if !exec.isEmpty && sink != nil { throw ValidationError("--exec and --sink exclude each other: choose one") }
        if exec == [] && CommandLine.arguments.last == "--exec" { throw ValidationError("--exec needs a program to run") }
        if let urgency, !["low", "normal", "critical"].contains(urgency) {
            throw ValidationError("invalid --urgency \(TerminalText.quoted(urgency)): expected low, normal or critical")
        }
        if common.now != nil && !once { throw ValidationError("--now applies only with --once: a live ticker follows the clock") }
        if calendarJob != nil && once { throw ValidationError("--calendar-job applies to a live ticker, not --once") }
        if unlessRunning && once { throw ValidationError("--unless-running applies to a live ticker, not --once") }
    }

    func run(_ ctx: RunContext) throws {
        var options = TickCommand.Options(
            db: common.db, now: common.now, sink: sink.map { $0 == .notify ? .notify : .stdout }, grace: grace, once: once,
            verbose: verbose, urgency: urgency, icon: icon, appName: appName, exec: exec)
        options.unlessRunning = unlessRunning
        options.calendarJob = calendarJob
        try TickCommand.run(ctx, options)
    }
}
