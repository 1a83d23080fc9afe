import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem
import PlannerTestSupport

@testable import PlannerTicker

/// A sink that keeps what it was asked to deliver, and when (the test clock's time); it fails its first
/// `failing` attempts.
final class CapturingSink: DeliverySink {
    let name = "capture"
    let clock: FixedClock
    var failing: Int
    private(set) var attempts: [(identifier: String, at: Instant)] = []

    init(clock: FixedClock, failing: Int = 0) {
        self.clock = clock
        self.failing = failing
    }

    var identifiers: [String] { attempts.map(\.identifier) }

    func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart {
        attempts.append((request.identifier, clock.now))
        guard failing == 0 else {
            failing -= 1
            return .finished(error: "the test sink refused it")
        }
        return .finished(error: nil)
    }
}

/// The loop's wake-ups on a clock the test owns: waiting jumps the clock to the armed time at once, and
/// the ticker is told to stop once nothing is armed before `stopAt`.
final class VirtualWakeups: TickerWakeups {
    let clock: FixedClock
    let stopAt: Instant
    private var armed: Instant?
    private(set) var waits = 0

    init(clock: FixedClock, stopAt: Instant) {
        self.clock = clock
        self.stopAt = stopAt
    }

    func arm(at instant: Instant?, now: Instant) { armed = instant }

    func wait(children: [Int32], pollEvery: Int32) -> Result<Wakeups.Events, PlannerError> {
        waits += 1
        guard let armed, armed <= stopAt else {
            clock.now = max(clock.now, stopAt)
            return .success(Wakeups.Events(stop: SIGTERM))
        }
        clock.now = max(clock.now, armed)
        return .success(Wakeups.Events(timer: true))
    }
}

/// A context whose clocks are `clock`, whose environment is empty and whose lines are kept.
final class CapturedContext {
    let context: TickerContext

    /// Both clocks `clock`: for a loop whose timer is the test's (`VirtualWakeups`).
    convenience init(clock: FixedClock, databasePath: String, outputFails: Bool = false) {
        self.init(now: clock.reading, timerNow: clock.reading, databasePath: databasePath, outputFails: outputFails)
    }

    /// `--once --now TIME`: the loop's clock starts at `now` and runs with the real one, its timer on the real one.
    convenience init(onceAt now: Instant, databasePath: String, outputFails: Bool = false) {
        let started = SystemClock.now()
        self.init(
            now: { now + (SystemClock.now() - started) }, timerNow: SystemClock.now, databasePath: databasePath,
            outputFails: outputFails)
    }

    init(now: @escaping () -> Instant, timerNow: @escaping () -> Instant, databasePath: String, outputFails: Bool) {
        let box = Lines()
        context = TickerContext(
            now: now, timerNow: timerNow, environment: { _ in nil },
            output: { line in
                if outputFails { return "the test output is closed" }
                box.output.append(line)
                return nil
            },
            log: { box.log.append($0) }, databasePath: databasePath)
        lines = box
    }

    private let lines: Lines
    var outputLines: [String] { lines.output }
    var logLines: [String] { lines.log }

    final class Lines {
        var output: [String] = []
        var log: [String] = []
    }
}

/// A live ticker on `database` with the test's clock, sink and wake-ups, run until `until`.
func runLive(
    _ database: PlannerDatabase, sink: DeliverySink, clock: FixedClock, until: Instant,
    policy: PlanPolicy? = nil
) throws -> CapturedContext {
    let captured = CapturedContext(clock: clock, databasePath: database.resolvedPath)
    let ticker = Ticker(
        db: TickerDatabase(database, log: captured.context.log), policy: policy, sink: sink, verbose: true,
        mode: .live, wakeups: VirtualWakeups(clock: clock, stopAt: until), context: captured.context)
    try ticker.run()
    return captured
}
