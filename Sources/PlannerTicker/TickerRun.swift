import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore

/// The two ways a ticker runs, put together from the loop and its edges; `planner tick` parses its
/// options, picks the sink and context, and calls one of these.
public enum TickerRun {
    /// `tick --once`: delivers what is due at the context's `now`, retries for a few seconds at most, and
    /// returns the failures (for the exit status a cron job reports).
    public static func once(
        database: PlannerDatabase, policy: PlanPolicy?, sink: DeliverySink, verbose: Bool,
        context: TickerContext
    ) throws(PlannerError) -> [String] {
        let wakeups = try Wakeups(databasePath: nil)
        let ticker = Ticker(
            db: TickerDatabase(database, log: { _ in }), policy: policy, sink: sink,
            verbose: verbose, mode: .once, wakeups: wakeups, context: context)
        try ticker.run()
        return ticker.failures
    }

    /// A live ticker, until a stop signal: one per database (its lock), woken by the clock, by other
    /// processes' writes and by files saved in the inbox.
    /// `unlessRunning`: when another ticker holds the database, return at once, silently (autostart and the
    /// unit may both start one: one runs).
    public static func live(
        database: PlannerDatabase, policy: PlanPolicy?, sink: DeliverySink, verbose: Bool,
        context: TickerContext, unlessRunning: Bool = false
    ) throws(PlannerError) {
        let log = context.log
        let lock: TickerLock
        do {
            lock = try TickerLock.acquire(databasePath: context.databasePath)
        } catch  where unlessRunning && error.kind == .busy {
            return
        }
        defer { close(lock.fd) }
        // An inbox that cannot be made or is not ours (a link planted there) is not watched: its events
        // still wait for the next claim or refill, which refuses it with a warning.
        let inbox: String?
        do { inbox = try database.inboxFolder() } catch {
            log("warning: \(error.message): saved opens are applied at the next delivery, not at once")
            inbox = nil
        }
        let wakeups = try Wakeups(
            databasePath: context.databasePath, inbox: inbox, folderDeadlineMilliseconds: database.folderTiming.deadlineMilliseconds)
        let db = TickerDatabase(database, log: log)
        // Short lock waits: the loop, not SQLite's busy handler, is where the ticker waits (it keeps
        // watching its deliveries and signals meanwhile).
        db.busyTimeout = 250
        let ticker = Ticker(
            db: db, policy: policy, sink: sink, verbose: verbose, mode: .live,
            wakeups: wakeups, context: context)
        // From here every change another process commits wakes this ticker, whose pass reads and writes the
        // sync and calendar folders: `planner open` can leave them to it (`TickerLock.liveTickerWatches`).
        lock.advertise()
        ticker.stopping = { lock.withdraw() }
        ticker.resumed = { lock.advertise() }
        let through = sink is AutoSink ? "notify when a session bus is reachable, else stdout" : sink.name
        log("delivering from \(database.path) through \(through) (pid \(getpid()))")
        try ticker.run()
        log("stopped")
    }
}
