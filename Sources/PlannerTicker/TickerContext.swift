import Glibc
import PlannerCore
import PlannerSystem

/// What the ticker takes from the process it runs in, passed in rather than read from globals: a test
/// runs the same loop with a fixed clock, its own environment and captured lines.
public struct TickerContext {
    /// The clock the loop decides by: the real one for a live ticker; `--now` plus elapsed time for `--once`.
    public var now: () -> Instant
    /// The clock the wake-up timer runs on (CLOCK_REALTIME): a time of `now` is armed as this clock's
    /// now plus the time left until it.
    public var timerNow: () -> Instant
    /// An environment variable's value (the session bus, the data folders, `INVOCATION_ID`).
    public var environment: (String) -> String?
    /// Writes one delivery line for the stdout sink; nil once written, else why it could not be.
    public var output: (String) -> String?
    /// One log line (a problem, or every delivery with --verbose), without the `planner tick:` prefix.
    public var log: (String) -> Void
    /// The database's path with links resolved: the lock, the watched folder and the inbox are beside it.
    public var databasePath: String
    /// The calendar job a live ticker runs (`tick --calendar-job`), nil: none.
    public var calendarJob: CalendarJob?

    public init(
        now: @escaping () -> Instant, timerNow: @escaping () -> Instant = SystemClock.now,
        environment: @escaping (String) -> String? = Environment.get,
        output: @escaping (String) -> String? = TickerContext.writeStandardOutput,
        log: @escaping (String) -> Void = TickerContext.logToStandardError, databasePath: String
    ) {
        self.now = now
        self.timerNow = timerNow
        self.environment = environment
        self.output = output
        self.log = log
        self.databasePath = databasePath
    }

    /// The whole line on fd 1, at once (no buffering): a closed stdout is a failed delivery.
    public static func writeStandardOutput(_ line: String) -> String? { StandardOutput.write(line).map(failedDelivery) }

    /// Why a delivery line did not reach standard output, from the system's words.
    public static func failedDelivery(_ why: String) -> String { "cannot write to standard output: \(why)" }

    /// One line on stderr. Identifiers come from the database, which anyone with the file can edit: a
    /// control character in them is shown escaped, never sent to the terminal or journal raw.
    public static func logToStandardError(_ message: String) {
        var line = "planner tick: \(TerminalText.escaped(message))\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
