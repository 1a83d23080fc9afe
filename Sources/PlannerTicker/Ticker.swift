import CLinux
import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

/// The ticker: one poll loop. It claims what is due, starts each delivery and goes back to waiting; a
/// program in flight is a pidfd in the loop, a retry is a time on its timer, an outcome the database could
/// not take yet (busy, full disk) is kept and recorded later. So a slow, failing or waiting delivery never
/// delays another, and a stop signal is answered within half a second.
///
/// Delivery is at most once: the claim (`pending` -> `delivering`) commits before the sink starts, so a
/// crash after the claim loses that reminder rather than repeating it; a later run marks it failed.
/// Nothing is delivered past its grace period: every attempt checks the clock when it starts.
public final class Ticker {
    public enum Mode: Equatable, Sendable {
        /// Follows the clock until stopped.
        case live
        /// `tick --once`: delivers what is due, retries for at most a few seconds, then exits.
        case once
    }

    /// A claimed request being delivered: a program running, or waiting for its next attempt.
    struct InFlight {
        let claimed: ClaimedRequest
        var attempt = 1
        var startedAt: Instant
        var child: Spawn.Child?
        var program = ""
        var killAt: Instant?
        var retryAt: Instant?
        var lastError: String?
        /// What its notify-send printed so far (the id line ends the delivery).
        var output: [UInt8] = []
        /// The sink of the current attempt: without --sink it is chosen per delivery (the desktop may have
        /// come or gone since the ticker started).
        var sink: DeliverySink?
    }

    /// A study reminder on screen with its actions: notify-send stays to report the one chosen.
    struct Answering {
        let claimed: ClaimedRequest
        let child: Spawn.Child
        var output: [UInt8]
        /// The server's id for the bubble (notify-send's first line).
        let notificationID: UInt32?
        /// The sink that showed it (to close it on the same bus).
        let notifier: NotifySink?
    }

    /// An answer waiting to be recorded (the database may be busy).
    struct PendingAnswer {
        let claimed: ClaimedRequest
        let action: AnswerAction
        let at: Instant
    }

    /// What happened to a claim, waiting to be written.
    struct Outcome {
        let claimed: ClaimedRequest
        let at: Instant
        var deliveredAt: Instant?
        let attempts: Int
        var error: String?
        /// Not delivered and not a failure: the app was opened, or the grace period ended first.
        var missedReason: String?
        /// Through which sink (recorded with a delivery or a failure).
        var sinkName = ""
    }

    let db: TickerDatabase
    /// `--grace` when given; else each request's grace comes from the settings when it is claimed.
    let policy: PlanPolicy?
    let sink: DeliverySink
    let verbose: Bool
    let mode: Mode
    let wakeups: any TickerWakeups
    /// The clock, environment, output and log it runs with.
    let context: TickerContext
    var now: Instant { context.now() }

    private var inFlight: [InFlight] = []
    private var unrecorded: [Outcome] = []
    private var answering: [Answering] = []
    private var answers: [PendingAnswer] = []
    /// Study programs started by "Start studying": reaped when they end, never waited for or stopped.
    private var launched: [Spawn.Child] = []
    /// When the database may be tried again after it was busy or the disk full.
    private var databaseRetryAt: Instant?
    /// The last pass read the sync folder only in part (a huge peer file, `TickerDatabase.syncReadBudgetBytes`):
    /// the next pass comes at once, after what is due now has been claimed and started. Or another process held
    /// this device's file's lock past the wait: the next pass tries again after `publishRetryMilliseconds`,
    /// since that process letting go may be the last thing that happens for hours (its append does not wake
    /// the ticker: `Wakeups.watchSyncFolder`). A child of the ticker's own left behind wakes it when it ends.
    private var folderBacklogAt: Instant?
    /// Since when the passes have left part of a source unread (its budget), while they have: late reminders
    /// wait for the rest only this long (a backlog that never ends must not hold them until they are missed).
    private var unreadSince: Instant?
    static let holdLateMilliseconds: Int64 = 10_000
    static let publishRetryMilliseconds: Int64 = 5_000
    private var nextDue: Instant?
    /// When the next pass reads Anki's collection: a little after its files changed, so the writes of one
    /// answered card are read once (nil: nothing new). The first pass always reads it.
    private var ankiReadAt: Instant?
    private var ankiReadOnce = false
    static let ankiSettleMilliseconds: Int64 = 100
    /// The calendar job, when this ticker carries the calendar folder (`tick --calendar-job`).
    private let calendar: CalendarCarrier?
    private var stopDeadline: Instant?
    /// Called as the ticker begins to stop or is suspended (a live ticker withdraws its `TickerLock.advertise`).
    public var stopping: () -> Void = {}
    /// Called as a suspended ticker goes on (a live ticker advertises again).
    public var resumed: () -> Void = {}
    private let onceEnds: Instant
    /// Failures seen by a `--once` run, for its exit status.
    public private(set) var failures: [String] = []

    /// A live ticker wakes this long before a reminder is due and claims (nothing is due yet: it reads the
    /// outside sources, marks what was missed, and prepares and reads what the claim needs), so the claim at
    /// the reminder's time is a few statements already prepared on pages already read: with busy programs
    /// on every core, a claim that prepares its statements outlives the ticker's share of the CPU and waits
    /// for the scheduler's next tick (bench/TICK_RESULTS.md: lateness p90 4-5 ms, p99 6-8 ms).
    static let warmLead: Int64 = 100
    /// The due reminder `warmLead` woke the ticker for (it wakes once per reminder).
    private var warmedFor: Instant?
    /// Going idle for longer than this gives back prepared statements, cached pages and the freed heap.
    static let keepWarmFor: Int64 = 1_000

    /// How long `--once` keeps retrying a failing sink: a cron job must finish in seconds.
    static let onceRetryBudget: Int64 = 5_000
    /// How long a program may run in a `--once` run.
    static let onceProgramLimit: Int64 = 10_000

    public init(
        db: TickerDatabase, policy: PlanPolicy?, sink: DeliverySink, verbose: Bool, mode: Mode,
        wakeups: any TickerWakeups, context: TickerContext
    ) {
        self.db = db
        self.policy = policy
        self.sink = sink
        self.verbose = verbose
        self.mode = mode
        self.wakeups = wakeups
        self.context = context
        calendar = mode == .live ? context.calendarJob.map(CalendarCarrier.init) : nil
        onceEnds = context.now() + Self.onceRetryBudget
    }

    /// Runs until stopped (live) or until everything due is delivered and recorded (once).
    public func run() throws(PlannerError) {
        var claimedOnce = false
        while true {
            recordOutcomes()
            recordAnswers()
            startDueRetries()
            if stopDeadline == nil, mode == .live || !claimedOnce {
                try claimDue()
                claimedOnce = claimedOnce || databaseRetryAt == nil
            }
            if stopDeadline == nil { calendar?.step(now: now, log: log) }
            if inFlight.isEmpty && unrecorded.isEmpty && (answers.isEmpty || stopDeadline != nil) {
                if stopDeadline != nil || (mode == .once && claimedOnce) { return }
            }
            if stopDeadline != nil, inFlight.isEmpty, !unrecorded.isEmpty {
                // One last attempt before exiting, whatever the retry timer says: space may have come
                // back (or the lock been released) since the last try.
                databaseRetryAt = nil
                recordOutcomes()
            }
            if stopDeadline != nil, inFlight.isEmpty, let left = unrecorded.first {
                // Stopping while the database refuses the record: the claim stays `delivering` and a later
                // run records it as failed — never delivered twice.
                log(
                    "stopped before \(left.claimed.identifier)'s outcome could be recorded (\(unrecorded.count) left); a later run records it as failed"
                )
                return
            }

            // The timer runs on the real clock; `--once` may simulate another time (--now).
            let real = context.timerNow()
            wakeups.arm(at: nextWake().map { real + ($0 - now) }, now: real)
            // Every fd an event can come from: programs ending, and what notify-send prints (shown, answered).
            let children =
                (inFlight.compactMap(\.child) + answering.map(\.child) + launched)
                .flatMap { [$0.pidfd, $0.output] }.filter { $0 >= 0 } + (calendar?.fds ?? []) + FolderChild.abandonedExits
            let oldKernel = inFlight.contains { ($0.child?.pidfd ?? 0) < 0 }
            // Going idle for days: give back the heap that start-up and the last wake freed (glibc keeps
            // up to 128 KiB of it, dirty, at the top), so the sleeping ticker holds only what it uses.
            // Not when a reminder is due in a moment: its claim reuses what the claim just before it
            // prepared and read (`warmLead`).
            if inFlight.isEmpty, nextWake().map({ $0 - now > Self.keepWarmFor }) ?? true {
                db.database.keepStatements(false)
                db.database.releaseCachedPages()
                malloc_trim(0)
            }
            let events: Wakeups.Events
            switch wakeups.wait(children: children, pollEvery: oldKernel ? 20 : -1) {
            case .success(let e): events = e
            case .failure(let error): throw error
            }
            for signo in events.ignoredSignals { log("ignoring signal \(signo)") }
            if events.stop != nil, stopDeadline == nil { beginStop() }
            if events.suspend, stopDeadline == nil {
                // Suspended (Ctrl-Z): `open` brings its folders in line itself until this ticker goes on; once
                // continued, the loop's next pass catches up with what changed meanwhile.
                stopping()
                kill(getpid(), SIGSTOP)
                resumed()
            }
            if events.calendarChanged { calendar?.folderChanged(now: now) }
            if events.ankiChanged, ankiReadAt == nil { ankiReadAt = now + Self.ankiSettleMilliseconds }
            readOutputs()
            reapChildren()
            FolderChild.reapAbandoned()
            reapAnswering()
        }
    }

    // MARK: Answers

    /// notify-send's id line (a positive id) means the reminder is on screen: delivered. Its later lines are answers.
    private func readOutputs() {
        for i in inFlight.indices.reversed() {
            guard let child = inFlight[i].child, child.output >= 0 else { continue }
            if let bytes = Spawn.readAvailable(child.output) { inFlight[i].output += bytes }
            guard let idLine = Self.takeLine(&inFlight[i].output) else { continue }
            // Ids start at 1: notify-send prints 0 when no server took the notification, then fails;
            // its exit status is then the delivery's outcome.
            guard let shownID = UInt32(idLine), shownID > 0 else { continue }
            let rest = inFlight[i].output
            inFlight[i].child = nil
            answering.append(
                Answering(
                    claimed: inFlight[i].claimed, child: child, output: rest, notificationID: shownID,
                    notifier: inFlight[i].sink as? NotifySink))
            attemptEnded(i, error: nil)
        }
        for j in answering.indices {
            if let bytes = Spawn.readAvailable(answering[j].child.output) { answering[j].output += bytes }
            while let line = Self.takeLine(&answering[j].output) { answered(answering[j].claimed, line) }
        }
    }

    /// Study reminders still on screen for a day since opened (a login, `planner study`, "Start studying")
    /// are taken off the screen: the day's nudging is over. So is one snoozed on another device: it was
    /// answered there, and comes back here too when the snooze ends.
    private func closeOpenedDays() {
        for j in answering.indices.reversed() where answering[j].claimed.isStudyReminder {
            let why: String
            if (try? db.database.dayOpened(answering[j].claimed)) == true {
                why = "its day was opened"
            } else if (try? db.database.snoozedElsewhere(answering[j].claimed)) == true {
                why = "snoozed on another device"
            } else {
                continue
            }
            Spawn.kill(answering[j].child)
            if let id = answering[j].notificationID, let child = answering[j].notifier?.close(id) { launched.append(child) }
            log("\(answering[j].claimed.identifier): closed on screen (\(why))")
            answering.remove(at: j)
        }
    }

    /// A notify-send whose bubble closed (answered, dismissed or expired) has exited.
    private func reapAnswering() {
        for j in answering.indices.reversed() {
            if let bytes = Spawn.readAvailable(answering[j].child.output) { answering[j].output += bytes }
            while let line = Self.takeLine(&answering[j].output) { answered(answering[j].claimed, line) }
            if Spawn.reap(answering[j].child) != nil { answering.remove(at: j) }
        }
        launched.removeAll { Spawn.reap($0) != nil }
    }

    private func answered(_ claimed: ClaimedRequest, _ key: String) {
        guard let action = NotifySink.answer(forKey: key) else {
            log("\(claimed.identifier): ignoring an unknown answer \(TerminalText.quoted(key))")
            return
        }
        answers.append(PendingAnswer(claimed: claimed, action: action, at: now))
        recordAnswers()
    }

    /// Records each answer with what it does, in one transaction; then starts the study program.
    private func recordAnswers() {
        if let retry = databaseRetryAt, retry > now { return }
        while let next = answers.first {
            do {
                try db.check()
                // Only a claim reads Anki's collection; an answer reads the folders within a pass's limits.
                let answer = try db.database.recordAnswer(
                    to: next.claimed, action: next.action, now: next.at, limits: TickerDatabase.limits(readingAnki: false))
                answers.removeFirst()
                databaseRetryAt = nil
                log("\(next.claimed.identifier): \(next.action.rawValue): \(answer.outcome)")
                if !answer.studyCommand.isEmpty { launch(answer.studyCommand) }
            } catch {
                do { try waitForDatabase(after: error, doing: "recording an answer to \(next.claimed.identifier)") } catch {
                    log("cannot record the answer to \(next.claimed.identifier): \(error.message)")
                    answers.removeFirst()
                }
                return
            }
        }
        db.settle()
    }

    /// Starts the study program without waiting for it. Under systemd it runs as its own transient unit
    /// (systemd-run): the ticker's sandbox (no network, no W+X memory) is not for a browser or Anki.
    private func launch(_ words: [String]) {
        let viaSystemd = context.environment("INVOCATION_ID") != nil && ExecutableFile.isExecutable("/usr/bin/systemd-run")
        let command = viaSystemd ? ["/usr/bin/systemd-run", "--user", "--collect", "--quiet", "--"] + words : words
        switch Spawn.start(command, extraEnvironment: [:]) {
        case .success(let child): launched.append(child)
        case .failure(let failure): log("cannot start the study program: \(failure.why)")
        }
    }

    /// The first complete line of `buffer`, removed from it.
    static func takeLine(_ buffer: inout [UInt8]) -> String? {
        guard let end = buffer.firstIndex(of: 10) else { return nil }
        let line = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeSubrange(...end)
        return line
    }

    // MARK: The loop's steps

    private func claimDue() throws(PlannerError) {
        if let retry = databaseRetryAt, retry > now { return }
        let t = now
        do {
            try db.check()
            // Only this claim reads Anki's collection; the ticker's other writes (an outcome, an answer) never do.
            let readsAnki = !ankiReadOnce || ankiReadAt.map { $0 <= t } == true
            // The plan's zone as it is now (a `config set zone` since the ticker started counts).
            // A live ticker keeps its prepared statements while it is awake (given back when it goes idle).
            if mode == .live { db.database.keepStatements(true) }
            let hold = mode == .live && unreadSince.map { t - $0 < Self.holdLateMilliseconds } ?? true
            let (decision, claimed, zone, sources) = try db.database.claimDue(
                now: t, policy: policy, holdLate: hold, limits: TickerDatabase.limits(readingAnki: readsAnki))
            unreadSince = sources.sync?.more == true || sources.anki?.more == true ? unreadSince ?? t : nil
            for (request, reason) in decision.missed {
                log("missed \(request.identifier) (due \(zone.rfc3339(request.fireAt))): \(reason)")
            }
            for request in claimed {
                inFlight.append(InFlight(claimed: request, startedAt: t))
                startAttempt(inFlight.count - 1)
            }
            if readsAnki {
                (ankiReadOnce, ankiReadAt) = (true, nil)
                // Days left for the next pass come at once; a stall or a busy Anki is tried again soon.
                if sources.anki?.more == true { ankiReadAt = t + 10 } else if sources.anki?.retry == true { ankiReadAt = t + 2_000 }
            }
            nextDue = mode == .live ? try db.database.nextFireAt() : nil
            if let nextDue, t >= nextDue - Self.warmLead { warmedFor = nextDue }
            folderBacklogAt =
                mode != .live
                ? nil
                : sources.sync?.more == true ? t + 10 : sources.sync?.lockBusy == true ? t + Self.publishRetryMilliseconds : nil
            if mode == .live {
                calendar?.update(firstReminder: try db.database.studyDayStillOpen(now: t), now: t)
                wakeups.watchSyncFolder(sources.sync?.folder, ownDevice: sources.sync?.selfDevice)
                wakeups.watchCalendarFolder(sources.calendar?.folder)
                // A watch set only now missed what Anki wrote during this pass's read (or since the
                // setting changed): read once more, after the watch.
                if wakeups.watchAnkiCollection(sources.anki?.collection), ankiReadAt == nil { ankiReadAt = t + Self.ankiSettleMilliseconds }
                if let anki = sources.anki, !anki.opened.isEmpty {
                    // A slice of a long history is a thousand days: said as its count and span, not one by one.
                    let days = Set(anki.opened).map(\.description).sorted()
                    log(
                        "studied in Anki, opened: "
                            + (days.count <= 10 ? days.joined(separator: ", ") : "\(days.count) days, \(days[0]) to \(days[days.count - 1])"))
                }
                if let calendar = sources.calendar, !calendar.ticks.isEmpty {
                    log("ticked off in the calendar folder, opened: " + Set(calendar.ticks).map(\.description).sorted().joined(separator: ", "))
                }
                if let sync = sources.sync, sync.applied > 0 {
                    log(
                        "applied \(sync.applied) change\(sync.applied == 1 ? "" : "s") from other devices"
                            + (sync.openedElsewhere.isEmpty
                                ? "" : "; opened there: " + Set(sync.openedElsewhere).map(\.description).sorted().joined(separator: ", ")))
                }
            }
            closeOpenedDays()
            db.settle()
            databaseRetryAt = nil
        } catch {
            try waitForDatabase(after: error, doing: "claiming due requests")
        }
    }

    /// Busy or full: keep running and try again (a live ticker must survive a `sqlite3` shell left open
    /// or a full disk). Anything else stops the ticker with its one-line error.
    private func waitForDatabase(after error: PlannerError, doing what: String) throws(PlannerError) {
        let full = error.kind == .io && db.database.diskIsFull
        guard mode == .live, error.kind == .busy || full else { throw error }
        if databaseRetryAt == nil {
            log(
                full
                    ? "the disk is full; \(what) again every 5 seconds until there is space"
                    : "the database is busy; \(what) again shortly")
        }
        databaseRetryAt = now + (full ? 5_000 : 250)
    }

    private func startAttempt(_ i: Int) {
        let t = now
        var item = inFlight[i]
        item.retryAt = nil
        // Nothing is delivered past its grace period, measured when the attempt starts (a suspend during
        // a back-off, a slow claim on a busy disk).
        if t > item.claimed.fireAt + item.claimed.graceMilliseconds {
            finish(
                i,
                Outcome(
                    claimed: item.claimed, at: t, attempts: item.attempt - 1,
                    error: item.lastError.map { $0 + "; its grace period ended before the next attempt" },
                    missedReason: item.lastError == nil ? MissReason.pastGrace + " when its delivery could start" : nil))
            return
        }
        // A snoozed reminder of a day since opened is not shown (open cancels only the plan's slots).
        if item.claimed.kind == .oneoff,
            closedByOpen(identifier: item.claimed.identifier, kind: item.claimed.kind, dayOpened: (try? db.database.dayOpened(item.claimed)) == true)
        {
            finish(i, Outcome(claimed: item.claimed, at: t, attempts: item.attempt - 1, missedReason: "the app was opened that day"))
            return
        }
        item.startedAt = t
        inFlight[i] = item
        // A new study reminder replaces the one still on screen (its answer is no longer awaited).
        var replacing: UInt32?
        if item.claimed.isStudyReminder, let last = answering.lastIndex(where: { $0.claimed.isStudyReminder && $0.notificationID != nil }) {
            replacing = answering[last].notificationID
            Spawn.kill(answering[last].child)
            answering.remove(at: last)
        }
        let chosen = (sink as? AutoSink)?.current() ?? sink
        inFlight[i].sink = chosen
        switch chosen.start(item.claimed, fireAt: item.claimed.localFireAt, replacing: replacing) {
        case .finished(let error):
            attemptEnded(i, error: error)
        case .running(let child, let program, let timeout):
            inFlight[i].child = child
            inFlight[i].program = program
            inFlight[i].killAt = t + (mode == .once ? min(timeout, Self.onceProgramLimit) : timeout)
        }
    }

    private func startDueRetries() {
        let t = now
        for i in inFlight.indices.reversed() where inFlight[i].child == nil && (inFlight[i].retryAt ?? .max) <= t {
            if stopDeadline == nil, let reason = reasonNotToRetry(inFlight[i]) {
                finish(i, Outcome(claimed: inFlight[i].claimed, at: t, attempts: inFlight[i].attempt - 1, missedReason: reason))
                log("not retrying \(inFlight[i].claimed.identifier): \(reason)")
            } else {
                startAttempt(i)
            }
        }
    }

    /// `open` cancels only pending requests, so a slot in back-off checks before each new attempt.
    private func reasonNotToRetry(_ item: InFlight) -> String? {
        guard (try? db.database.appOpenedSinceClaim(item.claimed)) == true else { return nil }
        return "the app was opened before a retry succeeded"
    }

    private func reapChildren() {
        let t = now
        for i in inFlight.indices.reversed() {
            guard let child = inFlight[i].child else { continue }
            if let outcome = Spawn.reap(child) {
                inFlight[i].child = nil
                attemptEnded(i, error: (inFlight[i].sink ?? sink).judge(outcome, program: inFlight[i].program))
            } else if t >= min(stopDeadline ?? .max, inFlight[i].killAt ?? .max) {
                Spawn.kill(child)
                inFlight[i].child = nil
                let outcome: Spawn.Outcome = t < (inFlight[i].killAt ?? .max) ? .interrupted : .timedOut
                attemptEnded(i, error: describe(outcome, inFlight[i].program))
            }
        }
    }

    private func attemptEnded(_ i: Int, error: String?) {
        let t = now
        let item = inFlight[i]
        guard let error else {
            finish(
                i,
                Outcome(
                    claimed: item.claimed, at: t, deliveredAt: item.startedAt, attempts: item.attempt,
                    sinkName: (item.sink ?? sink).name))
            if verbose { log("delivered \(item.claimed.identifier) \(item.startedAt - item.claimed.fireAt) ms after its time") }
            return
        }
        log("delivering \(item.claimed.identifier) through \((item.sink ?? sink).name) failed (attempt \(item.attempt)): \(error)")
        let limit = mode == .once ? onceEnds : Instant.max
        if stopDeadline == nil, let retryAt = nextRetry(after: item.attempt, fireAt: item.claimed.fireAt, now: t, policy: item.claimed.policy),
            retryAt <= limit
        {
            inFlight[i].retryAt = retryAt
            inFlight[i].attempt += 1
            inFlight[i].lastError = error
            return
        }
        let why =
            stopDeadline != nil
            ? "the ticker was stopped"
            : mode == .once && nextRetry(after: item.attempt, fireAt: item.claimed.fireAt, now: t, policy: item.claimed.policy) != nil
                ? "tick --once retries for \(Self.onceRetryBudget / 1000) s only" : "its grace period is over"
        log("gave up on \(item.claimed.identifier): \(why); recorded as failed")
        finish(i, Outcome(claimed: item.claimed, at: t, attempts: item.attempt, error: error, sinkName: (item.sink ?? sink).name))
    }

    private func finish(_ i: Int, _ outcome: Outcome) {
        inFlight.remove(at: i)
        if let error = outcome.error { failures.append("\(outcome.claimed.identifier): \(error)") }
        unrecorded.append(outcome)
        recordOutcomes()
    }

    /// Writes every outcome it can, oldest first; on a busy database or a full disk keeps them for later
    /// (the reminder was shown: losing its record would later mark it failed).
    private func recordOutcomes() {
        if let retry = databaseRetryAt, retry > now { return }
        guard !unrecorded.isEmpty else { return }
        while let outcome = unrecorded.first {
            do {
                try db.check()
                let ours: Bool
                if let reason = outcome.missedReason {
                    try db.database.abandonDelivery(outcome.claimed, at: outcome.at, reason: reason)
                    ours = true
                } else {
                    ours = try db.database.finishDelivery(
                        outcome.claimed, at: outcome.at, deliveredAt: outcome.deliveredAt, attempts: outcome.attempts,
                        sink: outcome.sinkName.isEmpty ? sink.name : outcome.sinkName, error: outcome.error)
                }
                if !ours { log("\(outcome.claimed.identifier): its claim had already been recorded as failed (it took too long)") }
                unrecorded.removeFirst()
                databaseRetryAt = nil
            } catch {
                do { try waitForDatabase(after: error, doing: "recording \(outcome.claimed.identifier)") } catch {
                    log("cannot record \(outcome.claimed.identifier): \(error.message)")
                    failures.append("\(outcome.claimed.identifier): its outcome could not be recorded (\(error.message))")
                    unrecorded.removeFirst()
                }
                return
            }
        }
        db.settle()
    }

    private func beginStop() {
        stopDeadline = now + 500
        // No more passes from here: an `open` from now on brings its folders in line itself.
        stopping()
        // An `open` that committed before the sign was withdrawn left its folders to this ticker, which may
        // not have run a pass for it (the stop came first): one last bring-in-line, after the withdrawal, so
        // none is left waiting for the next command. Bounded by the folders' deadline.
        if mode == .live {
            do { try db.database.bringFoldersInLine(now: now) } catch { log("could not bring the folders in line before stopping: \(error.message)") }
        }
        calendar?.abandon()
        // Bubbles still on screen stay there, but nobody will hear their answer any more.
        for item in answering { Spawn.kill(item.child) }
        answering.removeAll()
        // A retry that has not started will not: record it now.
        let t = now
        for i in inFlight.indices.reversed() where inFlight[i].child == nil {
            let item = inFlight[i]
            finish(
                i,
                Outcome(
                    claimed: item.claimed, at: t, attempts: item.attempt - 1,
                    error: (item.lastError ?? "not delivered") + "; the ticker was stopped before the next attempt"))
        }
    }

    private func nextWake() -> Instant? {
        var times: [Instant] = []
        if stopDeadline == nil, mode == .live, let nextDue {
            times.append(nextDue)
            if warmedFor != nextDue, nextDue - Self.warmLead > now { times.append(nextDue - Self.warmLead) }
        }
        if let databaseRetryAt { times.append(databaseRetryAt) }
        if stopDeadline == nil, let folderBacklogAt { times.append(folderBacklogAt) }
        if stopDeadline == nil, mode == .live, let ankiReadAt { times.append(ankiReadAt) }
        if stopDeadline == nil, let calendarAt = calendar?.nextWake { times.append(calendarAt) }
        if let stopDeadline { times.append(stopDeadline) }
        for item in inFlight {
            if let r = item.retryAt { times.append(r) }
            if let k = item.killAt, item.child != nil { times.append(k) }
        }
        return times.min()
    }

    func log(_ message: String) { context.log(message) }
}

extension Instant {
    /// Later than any real time: "no deadline".
    static let max = Instant(milliseconds: .max)
}
