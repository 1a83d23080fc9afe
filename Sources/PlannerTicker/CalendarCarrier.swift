import Glibc
import PlannerCore

/// The calendar job as the live ticker runs it (`CalendarCarry` says when): a separate program (`planner
/// calendar-sync`, or `systemctl --user start planner-calendar.service` where the unit has the network the
/// ticker's sandbox lacks), started and reaped in the ticker's poll loop like a delivery — never waited for.
public struct CalendarJob: Sendable, Equatable {
    /// The program and its arguments.
    public var command: [String]
    /// Whether the ticker also carries the planner's own changes out (no path unit does it).
    public var pushes: Bool

    public init(command: [String], pushes: Bool) {
        self.command = command
        self.pushes = pushes
    }
}

final class CalendarCarrier {
    let job: CalendarJob
    private var child: Spawn.Child?
    private var output: [UInt8] = []
    private var killAt: Instant?
    private var lastEnd: Instant?
    private var failed = false
    /// A change in the folder waiting to go out, and when (settled).
    private var pushAt: Instant?
    /// A change seen while a run was under way: one more run after it.
    private var changedDuringRun = false
    private var pollAt: Instant?
    private var firstReminder: Instant?

    init(job: CalendarJob) { self.job = job }

    var fds: [Int32] { child.map { [$0.pidfd, $0.output].filter { $0 >= 0 } } ?? [] }

    /// A planner item in the folder was written, renamed in or removed.
    func folderChanged(now: Instant) {
        guard job.pushes else { return }
        if child != nil { changedDuringRun = true } else { pushAt = now + CalendarCarry.settleMilliseconds }
    }

    /// The study day's state, after each claim.
    func update(firstReminder: Instant?, now: Instant) {
        self.firstReminder = firstReminder
        pollAt = CalendarCarry.nextPoll(firstReminder: firstReminder, lastEnd: lastEnd, failed: failed, now: now)
    }

    var nextWake: Instant? {
        if child != nil { return killAt }
        return [pushAt, pollAt].compactMap { $0 }.min()
    }

    /// Starts the job when it is time; reaps it when it ended. Returns a line for the log, if any.
    func step(now: Instant, log: (String) -> Void) {
        if var running = child {
            if running.output >= 0 {
                // At its end of file the pipe stays readable: closed, or every wait would return at once.
                if let bytes = Spawn.readAvailable(running.output) {
                    keep(bytes)
                } else {
                    close(running.output)
                    running.output = -1
                    child = running
                }
            }
            if let outcome = Spawn.reap(running) {
                finished(outcome, now: now, log: log)
            } else if let killAt, now >= killAt {
                Spawn.kill(running)
                finished(.timedOut, now: now, log: log)
            }
            return
        }
        guard let due = [pushAt, pollAt].compactMap({ $0 }).min(), due <= now else { return }
        switch Spawn.start(job.command, extraEnvironment: [:], captureOutput: true, captureErrors: true) {
        case .success(let started):
            child = started
            output = []
            killAt = now + CalendarCarry.runLimitMilliseconds
            pushAt = nil
            changedDuringRun = false
            pollAt = nil
        case .failure(let failure):
            log("cannot run the calendar job: \(failure.why)")
            lastEnd = now
            failed = true
            pushAt = nil
            pollAt = CalendarCarry.nextPoll(firstReminder: firstReminder, lastEnd: lastEnd, failed: true, now: now)
        }
    }

    private func keep(_ bytes: [UInt8]) {
        output += bytes
        if output.count > 8192 { output.removeFirst(output.count - 8192) }
    }

    private func finished(_ outcome: Spawn.Outcome, now: Instant, log: (String) -> Void) {
        child = nil
        killAt = nil
        lastEnd = now
        failed = outcome != .exited(0)
        let said = String(decoding: output, as: UTF8.self).split(separator: "\n").suffix(2).joined(separator: " / ")
        if failed {
            log(
                "the calendar job (\(job.command.prefix(2).joined(separator: " "))) failed (\(outcome)): \(said); asked again in \(CalendarCarry.afterFailureMilliseconds / 60_000) min"
            )
        } else if !said.isEmpty {
            log(said)
        }
        // What changed while it ran (the ticker applying the phone's tick, vdirsyncer's own downloads) goes
        // out with one more run; that one changes nothing, so nothing follows it.
        if changedDuringRun, job.pushes {
            pushAt = now + (failed ? CalendarCarry.afterFailureMilliseconds : CalendarCarry.settleMilliseconds)
        }
        changedDuringRun = false
        pollAt = CalendarCarry.nextPoll(firstReminder: firstReminder, lastEnd: lastEnd, failed: failed, now: now)
    }

    /// The ticker stops: a run under way is left to finish on its own (it is a whole sync, not a delivery).
    func abandon() {
        child = nil
    }
}
