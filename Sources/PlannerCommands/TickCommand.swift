import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem
import PlannerTicker

/// `planner tick`: the ticker (PlannerTicker) put together from the options and the context.
public enum TickCommand {
    public enum SinkName: Equatable { case notify, stdout }

    public struct Options {
        public var db: String?
        public var now: String?
        /// --sink; nil: for each delivery, notify when a session bus is reachable then, else stdout.
        public var sink: SinkName?
        public var grace: String?
        public var once = false
        public var verbose = false
        public var urgency: String?
        public var icon: String?
        public var appName = "planner"
        /// --exec PROGRAM [ARG...]; empty when not given.
        public var exec: [String] = []
        /// --unless-running: exit 0 quietly when another ticker holds the database.
        public var unlessRunning = false
        /// --calendar-job: `systemd` (start the calendar unit) or vdirsyncer's path (run calendar-sync).
        public var calendarJob: String?

        public init(
            db: String? = nil, now: String? = nil, sink: SinkName? = nil, grace: String? = nil, once: Bool = false,
            verbose: Bool = false, urgency: String? = nil, icon: String? = nil, appName: String = "planner",
            exec: [String] = []
        ) {
            (self.db, self.now, self.sink, self.grace, self.once, self.verbose) = (db, now, sink, grace, once, verbose)
            (self.urgency, self.icon, self.appName, self.exec) = (urgency, icon, appName, exec)
        }
    }

    /// Runs the ticker: `--once` delivers what is due and returns; else it runs until a stop signal.
    public static func run(_ ctx: RunContext, _ options: Options) throws(PlannerError) {
        let policy = try PlanCommandOptions(grace: options.grace).policy()
        // The ticker's log lines are notices: stderr for the binary, captured by an in-process test.
        let log = { (message: String) in ctx.output.notice("planner tick: \(TerminalText.escaped(message))") }
        // A live ticker's warnings (a stored setting it cannot use, a spooled open set aside) are log lines.
        var ctx = ctx
        if !options.once { ctx.warnings = Warnings { log("warning: " + $0) } }
        let context = try ctx.commandContext(db: options.db, now: options.now)
        let deliver = { (line: String) in ctx.output.immediate(line).map(TickerContext.failedDelivery) }
        let chosen = sink(options, environment: ctx.environment, output: deliver)
        if options.once {
            // --now plus the time elapsed since: retries within the grace period see time pass.
            let started = ctx.clock()
            let tickerContext = TickerContext(
                now: { context.now + (ctx.clock() - started) }, environment: ctx.environment,
                output: deliver, log: log, databasePath: context.database.resolvedPath)
            let failures = try TickerRun.once(
                database: context.database, policy: policy, sink: chosen,
                verbose: options.verbose, context: tickerContext)
            // A cron job says why with its exit status (and cron mails the line).
            if let first = failures.first {
                let more = failures.count > 1 ? " (and \(failures.count - 1) more; see planner history)" : ""
                throw PlannerError.failure("delivery failed: \(first)\(more)")
            }
            return
        }
        var tickerContext = TickerContext(
            now: ctx.clock, environment: ctx.environment, output: deliver, log: log,
            databasePath: context.database.resolvedPath)
        tickerContext.calendarJob = try calendarJob(options.calendarJob, ctx: ctx, database: context.database.resolvedPath)
        try TickerRun.live(
            database: context.database, policy: policy, sink: chosen, verbose: options.verbose,
            context: tickerContext, unlessRunning: options.unlessRunning)
    }

    /// What `--calendar-job` names: the unit setup installed (it has the network the ticker's sandbox has
    /// not, and the path unit carries the planner's changes out), or vdirsyncer's path for `planner
    /// calendar-sync`, which the ticker then also runs when the folder changes (the cron path).
    static func calendarJob(_ value: String?, ctx: RunContext, database: String) throws(PlannerError) -> CalendarJob? {
        guard let value, !value.isEmpty else { return nil }
        if value == "systemd" {
            return CalendarJob(command: ["systemctl", "--user", "start", SetupPlan.calendarService], pushes: false)
        }
        guard value.hasPrefix("/") else {
            throw .usage("--calendar-job: expected systemd or vdirsyncer's absolute path, got \(TerminalText.quoted(value))")
        }
        guard let me = ctx.programPath() else { throw .failure("--calendar-job: cannot find this program's own path to run calendar-sync") }
        return CalendarJob(command: [me, "calendar-sync", "--quiet", "--db", database, "--vdirsyncer", value], pushes: true)
    }

    /// The sink the options name: --exec, --sink, else the automatic one. The session bus is looked up
    /// in `environment` once, for --sink notify; the automatic sink looks at each delivery.
    public static func sink(
        _ options: Options, environment: @escaping (String) -> String?,
        output: @escaping (String) -> String? = TickerContext.writeStandardOutput
    ) -> DeliverySink {
        func notify(busAddress: String?) -> NotifySink {
            NotifySink(
                appName: options.appName, urgency: options.urgency, icon: options.icon, busAddress: busAddress,
                answerable: !options.once, environment: environment)
        }
        if !options.exec.isEmpty { return ExecSink(command: options.exec) }
        switch options.sink {
        case .notify: return notify(busAddress: SessionBus.reachableAddress(environment: environment))
        case .stdout: return StdoutSink(output: output)
        case nil: return AutoSink(notify: notify(busAddress: nil), output: output)
        }
    }
}
