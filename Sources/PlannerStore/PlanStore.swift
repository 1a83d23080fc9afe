import CSQLite
import Glibc
import PlannerCore
import PlannerSystem

/// A request as stored, for listing.
public struct StoredRequest: Sendable, Equatable {
    public var identifier: String
    public var kind: RequestKind
    public var fireAt: Instant
    public var title: String
    public var body: String
    public var state: String
}

package enum Reason {
    package static let displaced = "pushed out of the 64 by a sooner request"
}

/// What `planner status` shows.
public struct PlanStatus: Sendable {
    public var next: StoredRequest?
    public var pendingCount: Int
    public var firstOpenToday: Instant?
    public var opensToday: Int
    /// Today's study day (`Schedule.studyDay`): what "today" means in this status.
    public var today: LocalDate
    public var lastRefill: Instant?
    /// The pause in force or to come.
    public var pause: Pause?
}

extension PlannerDatabase {
    /// `planner refill`: one transaction that reads the settings and the state, lets the core decide,
    /// applies it. `zone` and `policy` override the settings' (tests; `--grace`).
    @discardableResult
    public func refill(now: Instant, zone: Zone? = nil, policy: PlanPolicy? = nil) throws(PlannerError) -> RefillDecision {
        try change(at: now, from: .all) { t in try t.replan(now: now, zone: zone, policy: policy) }.0
    }

    /// What a login's `open` does to the folders after its commit (publishes this device's events, rewrites
    /// today's calendar files), for an open that left them to a live ticker which then began to stop
    /// before its next pass (`LoginOpen`).
    public func bringFoldersInLine(now: Instant) throws(PlannerError) {
        _ = try change(at: now, from: .login) { _ in () }
    }

    /// `planner open`: records the open as an event, cancels today's remaining slots and refills, in one
    /// transaction. `origin`: what made it (`open`, `study`, `answer`); `id`: a saved open's own, so it is
    /// recorded once whichever process applies it. `leavingFolders`: a live ticker watches the database and
    /// brings the sync and calendar folders in line after this commit (`EventSources.loginLeavingFolders`).
    @discardableResult
    public func recordAppOpen(
        now: Instant, zone: Zone? = nil, policy: PlanPolicy? = nil, origin: String = "open",
        id: String? = nil, takenIn: Zone? = nil, unlessRecorded: [String] = [], leavingFolders: Bool = false
    ) throws(PlannerError) -> OpenDecision {
        try recordAppOpen(
            Self.openEvent(now: now, takenIn: takenIn ?? zone, policy: policy, origin: origin, id: id), zone: zone,
            unlessRecorded: unlessRecorded, leavingFolders: leavingFolders)
    }

    /// The same for an open event made by the caller (`openEvent`): a login's `open` makes it once, and either
    /// records it here or saves that very event in the inbox.
    public func recordAppOpen(
        _ event: PlanEvent, zone: Zone? = nil, unlessRecorded: [String] = [], leavingFolders: Bool = false
    ) throws(PlannerError) -> OpenDecision {
        try recordAppOpen(event, zone: zone, unlessRecorded: unlessRecorded, leavingFolders: leavingFolders, reporting: false).decision
    }

    /// What an open decided, and the plan it was decided in when asked for (`reporting`: `open --verbose`'s
    /// report, read in the open's own transaction).
    public struct RecordedOpen {
        public var decision: OpenDecision
        public var plan: (settings: PlanSettings, zone: Zone)?
    }

    /// The same, with the plan read in the open's transaction when `reporting`.
    public func recordAppOpen(
        _ event: PlanEvent, zone: Zone? = nil, unlessRecorded: [String] = [], leavingFolders: Bool = false, reporting: Bool
    ) throws(PlannerError) -> RecordedOpen {
        let now = event.at
        return try change(at: now, from: leavingFolders ? .loginLeavingFolders : .login) { t throws -> RecordedOpen in
            // budget-guard: bench/budget_guard_check.sh puts a needless query through `t` after this line, to see the guard fail.
            // A login inside one already recorded (`LoginSession`), or an open recorded before (a saved open
            // applied by another process first: what it decided then is gone): nothing new.
            func nothingNew() throws -> RecordedOpen {
                let (plan, planZone) = try t.readPlan()
                let decision = OpenDecision(date: plan.schedule.studyDay(at: now, in: zone ?? planZone), cancelled: [], refill: RefillDecision())
                return RecordedOpen(decision: decision, plan: reporting ? (plan, planZone) : nil)
            }
            let recorded = unlessRecorded.isEmpty ? nil : try t.connection.prepare("SELECT 1 FROM event WHERE id = ?")
            for known in unlessRecorded {
                try recorded!.bind([.text(known)])
                if try recorded!.step() { return try nothingNew() }
            }
            guard let outcome = try t.applyEvent(event, zone: zone) else { return try nothingNew() }
            return RecordedOpen(decision: outcome.effect.open!, plan: reporting ? try t.readPlan() : nil)
        }.0
    }

    /// An open taken now in `takenIn` (the environment's zone, a record: the day closed is the plan's).
    public static func openEvent(now: Instant, takenIn: Zone?, policy: PlanPolicy?, origin: String, id: String? = nil) -> PlanEvent {
        let zone = takenIn ?? SystemZone.systemDefault()
        return PlanEvent(
            id: id ?? newEventID(), at: now, origin: origin,
            change: .open(zoneName: zone.name, offsetSeconds: zone.offset(at: now), graceMilliseconds: policy?.graceMilliseconds))
    }

    /// Pending requests, soonest first.
    public func pendingRequests() throws(PlannerError) -> [StoredRequest] {
        try read { t in
            let stmt = try t.connection.prepare(
                """
                SELECT identifier, kind, fire_at_ms, title, body, state FROM request
                WHERE state = 'pending' ORDER BY fire_at_ms, identifier
                """)
            var rows: [StoredRequest] = []
            while try stmt.step() { rows.append(PlannerDatabase.storedRequest(stmt)) }
            return rows
        }
    }

    /// `plan`: the settings when the caller has them already (read just before: reading them again cost 0.16 M
    /// of `status`'s instructions), else read here.
    public func status(now: Instant, zone: Zone, plan given: PlanSettings? = nil) throws(PlannerError) -> PlanStatus {
        try read { t in
            // "next" is what the ticker will really show, by its own decisions (`nextShown`).
            let plan = try given ?? t.readPlan().0
            let today = plan.schedule.studyDay(at: now, in: zone)
            // Without their text (64 rows of title and body to copy): only the one shown needs it, read below.
            var pending: [PendingRequest] = []
            let rows = try t.connection.prepare(HotQueries.pendingWithoutText)
            while try rows.step() { pending.append(PlannerDatabase.pendingRequest(rows)) }
            var opened: Set<LocalDate> = []
            let openedRows = try t.connection.prepare(HotQueries.openedDates)
            try openedRows.bind([.text(today.adding(days: -2).description)])
            while try openedRows.step() { if let date = LocalDate(iso: openedRows.text(0)) { opened.insert(date) } }
            // Their number is the pending count (same statement, same snapshot).
            var nextRequest: StoredRequest?
            if let shown = nextShown(
                now: now, policy: PlanPolicy(graceMilliseconds: plan.graceMilliseconds), pending: pending, openedDays: opened,
                withholding: plan.experiment ? plan : nil)
            {
                let text = try t.connection.prepare("SELECT title, body FROM request WHERE id = ?")
                try text.bind([.integer(shown.rowID)])
                _ = try text.step()
                nextRequest = StoredRequest(
                    identifier: shown.identifier, kind: shown.kind, fireAt: shown.fireAt,
                    title: text.text(0), body: text.text(1), state: RequestState.pending.rawValue)
            }
            let count = pending.count
            // Today's opens, the last refill and the pause in force (HotQueries.pause), in one statement.
            let rest = try t.connection.prepare(
                """
                SELECT (SELECT count(*) FROM app_open WHERE local_date = ?1), (SELECT min(opened_at_ms) FROM app_open WHERE local_date = ?1),
                       (SELECT last_refill_at_ms FROM plan WHERE id = 1), p.since_ms, p.until_ms, p.since_ms IS NOT NULL
                FROM (SELECT 1) LEFT JOIN (
                    SELECT since_ms, until_ms FROM pause
                    WHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?2)
                    ORDER BY since_ms DESC LIMIT 1) p
                """)
            try rest.bind([.text(today.description), .integer(now.milliseconds)])
            _ = try rest.step()
            let lastRefill = rest.isNull(2) ? nil : Instant(milliseconds: rest.int64(2))
            let paused =
                rest.int64(5) == 1
                ? Pause(since: Instant(milliseconds: rest.int64(3)), until: rest.isNull(4) ? nil : Instant(milliseconds: rest.int64(4)))
                : nil
            return PlanStatus(
                next: nextRequest, pendingCount: count,
                firstOpenToday: rest.isNull(1) ? nil : Instant(milliseconds: rest.int64(1)),
                opensToday: Int(rest.int64(0)), today: today, lastRefill: lastRefill, pause: paused)
        }
    }

    private static func storedRequest(_ stmt: Statement) -> StoredRequest {
        StoredRequest(
            identifier: stmt.text(0), kind: RequestKind(rawValue: stmt.text(1)) ?? .oneoff,
            fireAt: Instant(milliseconds: stmt.int64(2)), title: stmt.text(3), body: stmt.text(4), state: stmt.text(5))
    }

    /// The zone a plan's `zone` setting makes, never failing (as `Transaction.plan(from:)` reads it).
    /// A zone this process could not read again (out of descriptors) is the one it read before.
    package static func usableZone(named name: String) -> Zone {
        do { return try zone(named: name) } catch {
            if error.kind == .io, let known = ZonesRead.shared.zone(named: name) { return known }
            return SystemZone.systemDefault()
        }
    }

    /// The zone a `zone` setting names: `system` follows /etc/localtime at every run.
    public static func zone(named name: String) throws(PlannerError) -> Zone {
        if name == "system" { return SystemZone.systemDefault() }
        do {
            let zone = try SystemZone.named(name)
            ZonesRead.shared.remember(zone, named: name)
            return zone
        } catch  where error.kind == .io {
            throw error
        } catch {
            throw .data(
                "the zone setting \(TerminalText.quoted(name)) is not in this system's tz database: planner config set zone NAME (e.g. Europe/Berlin), or system"
            )
        }
    }

    /// The settings and their zone, for commands that show them.
    public func planSettings() throws(PlannerError) -> (settings: PlanSettings, zone: Zone) {
        try read { t in try t.readPlan() }
    }

    /// The settings with the `usual-time` schedule's decision for the study day `now` is in, when they ask for it.
    public func planSettings(at now: Instant) throws(PlannerError) -> (settings: PlanSettings, zone: Zone) {
        try read { t in try t.readPlan(at: now) }
    }

    /// How far back slots that ran their course are read. A candidate slot is after now; the same
    /// identifier in another zone fell at an instant earlier by the difference of the two zones' UTC
    /// offsets, which can exceed a day (Kiritimati +14 to Pago Pago -11 is 25 h) but never two days.
    package static let finishedLookBack: Int64 = 2 * 86_400_000

    /// Reads `id, identifier, kind, fire_at_ms, local_date, zone[, title, body]`.
    package static func pendingRequest(_ row: Statement) -> PendingRequest {
        let withText = sqlite3_column_count(row.handle) >= 8
        return PendingRequest(
            rowID: row.int64(0), identifier: row.text(1), kind: RequestKind(rawValue: row.text(2)) ?? .oneoff,
            fireAt: Instant(milliseconds: row.int64(3)),
            localDate: LocalDate(iso: row.text(4)) ?? LocalDate(year: 1970, month: 1, day: 1), zone: row.text(5),
            title: withText ? row.text(6) : nil, body: withText ? row.text(7) : nil)
    }

}

extension Transaction {
    /// Refill inside the caller's transaction, with the settings as they are now in it.
    package func replan(now: Instant, zone: Zone? = nil, policy: PlanPolicy? = nil) throws -> RefillDecision {
        let (plan, planZone) = try readPlan(at: now)
        let zone = zone ?? planZone
        let policy = policy ?? PlanPolicy(graceMilliseconds: plan.graceMilliseconds)
        let state = try readPlanState(now: now, zone: zone)
        let decision = decideRefill(now: now, zone: zone, policy: policy, state: state, plan: plan)
        try apply(decision, now: now, zone: zone, plan: plan)
        return decision
    }

    /// The settings and the zone they name, read inside the caller's transaction. A stored value the
    /// planner cannot use (edited by hand, a zone this machine's tz database lacks) runs as its default
    /// with a warning, never a dead end: `config set`/`config reset` repair it, and `open` still records.
    package func readPlan() throws -> (PlanSettings, Zone) {
        try plan(from: try readSettingRows(withDefaults: false).values)
    }

    /// The stored settings and each row's default, as text.
    /// `withDefaults: false` leaves `defaults` empty: reading the settings only (every command does) skips them.
    package func readSettingRows(withDefaults: Bool = true) throws -> (values: [String: String], defaults: [String: String]) {
        let stmt = try connection.prepare(HotQueries.settings)
        // Made at their final size, never grown: the specialization that grows a [String: String] is the one
        // swift-argument-parser's objects bring (the linker keeps the first of equal copies), which finds its
        // type by mangled name, a scan of every conformance in the binary (once per process, dear).
        let count = SettingKey.allCases.count
        var values = [String: String](minimumCapacity: count)
        var defaults = [String: String](minimumCapacity: withDefaults ? count : 0)
        while try stmt.step() {
            let key = stmt.text(0)
            values[key] = stmt.text(1)
            if withDefaults { defaults[key] = stmt.text(2) }
        }
        return (values, defaults)
    }

    /// The settings stored `values` make, and their zone; an unusable value runs as its default (warned once).
    package func plan(from values: [String: String]) throws -> (PlanSettings, Zone) {
        var (plan, unusable) = PlanSettings.reading(values)
        let zone: Zone
        do {
            zone = try PlannerDatabase.zone(named: plan.zone)
        } catch  where error.kind == .io {
            throw error
        } catch {
            unusable.append(UnusableSetting(key: .zone, value: plan.zone, why: "not in this system's tz database"))
            plan.zone = SettingKey.zone.defaultValue
            zone = SystemZone.systemDefault()
        }
        // A key this binary declares that the database does not hold yet (a setting newer than the file's
        // schema needs no migration): read as its default here, added as a row by the next write.
        database.missingSettingKeys = SettingKey.allCases.filter { values[$0.rawValue] == nil }
        for problem in unusable { warnOnce(problem.warning) }
        if plan.experiment { plan.experimentSeed = try experimentSeed() }
        return (plan, zone)
    }

    /// The settings as `readPlan` reads them, with the `usual-time` schedule's decision for the study day
    /// `now` is in (`UsualTime`) when they ask for it: every path that plans, shows or writes slots reads
    /// them so, or the slots of one would be retired by another.
    package func readPlan(at now: Instant) throws -> (PlanSettings, Zone) {
        var (plan, zone) = try readPlan()
        if plan.usualTime {
            let (opens, skipped) = try usualTimeRecord(now: now, zone: zone, schedule: plan.schedule)
            plan.schedule.usual = UsualTime.plan(settings: plan, zone: zone, now: now, firstOpens: opens, skipped: skipped)
        }
        return (plan, zone)
    }

    /// What the usual-time decision reads: each study day's first open and the skipped days, of the
    /// `UsualTime.recordDays` before today.
    /// `daysAhead`: read that many days past today too (a batch that moves the zone or the window may move
    /// today), from the same first day.
    package func usualTimeRecord(
        now: Instant, zone: Zone, schedule: Schedule, daysAhead: Int = 0
    ) throws -> (opens: [LocalDate: Instant], skipped: Set<LocalDate>) {
        let today = schedule.studyDay(at: now, in: zone)
        let from = today.adding(days: -UsualTime.recordDays).description
        var opens: [LocalDate: Instant] = [:]
        let opened = try connection.prepare(
            "SELECT local_date, min(opened_at_ms) FROM app_open WHERE local_date >= ? AND local_date < ? GROUP BY local_date")
        try opened.bind([.text(from), .text(today.adding(days: daysAhead).description)])
        while try opened.step() {
            if let date = LocalDate(iso: opened.text(0)) { opens[date] = Instant(milliseconds: opened.int64(1)) }
        }
        var skipped: Set<LocalDate> = []
        let skips = try connection.prepare(
            "SELECT local_date FROM skipped_date WHERE removed_at_ms IS NULL AND local_date >= ? AND local_date < ?")
        try skips.bind([.text(from), .text(today.adding(days: daysAhead).description)])
        while try skips.step() { if let date = LocalDate(iso: skips.text(0)) { skipped.insert(date) } }
        return (opens, skipped)
    }

    /// Measurement mode's seed: the id of the event whose `experiment` value won (`MeasurementMode`). Read
    /// only while the mode is on: nothing else pays for it.
    package func experimentSeed() throws -> String? {
        let stmt = try connection.prepare("SELECT event_id FROM register WHERE name = ?")
        try stmt.bind([.text(Register.setting(.experiment).name)])
        return try stmt.step() && !stmt.isNull(0) ? stmt.text(0) : nil
    }

    /// Everything the core needs, read through indexes that stay small however long the history:
    /// the pending set, and only the requests and opens from yesterday on.
    package func readPlanState(now: Instant, zone: Zone) throws -> PlanState {
        var state = PlanState(pending: [])
        let pending = try connection.prepare(HotQueries.pending)
        while try pending.step() { state.pending.append(PlannerDatabase.pendingRequest(pending)) }
        let finished = try connection.prepare(HotQueries.finishedSlots)
        try finished.bind([.integer(now.milliseconds - PlannerDatabase.finishedLookBack)])
        while try finished.step() { state.finishedSlotIdentifiers.insert(finished.text(0)) }

        // One-offs waiting outside the cap; those stale for more than a day are left as they are.
        let waiting = try connection.prepare(HotQueries.waitingOneOffs)
        try waiting.bind([.integer(now.milliseconds - 86_400_000)])
        while try waiting.step() { state.waitingOneOffs.append(PlannerDatabase.pendingRequest(waiting)) }

        // From three days back: an event that moves the plan's zone is decided with what was read in the old
        // one, two zones' dates differ by at most a day, and a study day crossing midnight began the day before.
        let yesterday = zone.local(now).date.adding(days: -3).description
        let opened = try connection.prepare(HotQueries.openedDates)
        try opened.bind([.text(yesterday)])
        while try opened.step() {
            if let date = LocalDate(iso: opened.text(0)) { state.exclusions.openedDates.insert(date) }
        }
        let skipped = try connection.prepare(HotQueries.skippedDates)
        try skipped.bind([.text(yesterday)])
        while try skipped.step() {
            if let date = LocalDate(iso: skipped.text(0)) { state.exclusions.skippedDates.insert(date) }
        }
        let pause = try connection.prepare(HotQueries.pause)
        try pause.bind([.integer(now.milliseconds)])
        if try pause.step() {
            state.exclusions.pause = Pause(
                since: Instant(milliseconds: pause.int64(0)), until: pause.isNull(1) ? nil : Instant(milliseconds: pause.int64(1)))
        }
        return state
    }

    /// Applies a refill decision. Transitions come before inserts so the cap trigger sees room.
    package func apply(_ decision: RefillDecision, now: Instant, zone: Zone, plan: PlanSettings) throws {
        // Retirements with the same state and reason in one statement (a new title retires all 64 alike).
        var groups: [(state: RequestState, reason: String, requests: [PendingRequest])] = []
        for retirement in decision.retired {
            if let i = groups.firstIndex(where: { $0.state == retirement.state && $0.reason == retirement.reason }) {
                groups[i].requests.append(retirement.request)
            } else {
                groups.append((retirement.state, retirement.reason, [retirement.request]))
            }
        }
        for group in groups { try transition(group.requests, to: group.state, reason: group.reason, now: now) }
        try transition(decision.missed, to: .missed, reason: MissReason.pastGrace, now: now)
        try transition(decision.displaced, to: .displaced, reason: Reason.displaced, now: now)
        try transition(decision.readmitted, to: .pending, reason: "back among the soonest 64", now: now)
        let insert = try connection.prepare(
            """
            INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body,
                                 state, created_at_ms, changed_at_ms)
            VALUES (?, 'slot', ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
            """)
        for slot in decision.added {
            try insert.run(
                .text(slot.identifier), .integer(slot.fireAt.milliseconds), .text(slot.day.description),
                .text(zone.rfc3339(slot.fireAt)), .text(zone.name), .text(plan.title), .text(plan.body),
                .integer(now.milliseconds), .integer(now.milliseconds))
        }
        try connection.prepare("UPDATE plan SET last_refill_at_ms = ?, last_refill_added = ? WHERE id = 1")
            .run(.integer(now.milliseconds), .integer(Int64(decision.added.count)))
    }

    /// Moves pending (or waiting) requests to a new state; a row that finished meanwhile is left alone.
    package func transition(_ requests: [PendingRequest], to state: RequestState, reason: String, now: Instant) throws {
        guard !requests.isEmpty else { return }
        // One statement for all of them (an open cancels 20): the rows and their triggers are the same,
        // the statement's own start and bindings once.
        var ids = "["
        for (n, request) in requests.enumerated() { ids += (n == 0 ? "" : ",") + String(request.rowID) }
        ids += "]"
        try connection.prepare(
            """
            UPDATE request SET state = ?, reason = ?, changed_at_ms = ?
            WHERE id IN (SELECT value FROM json_each(?)) AND state IN \(RequestState.waitingSQL)
            """
        ).run(.text(state.rawValue), .text(reason), .integer(now.milliseconds), .text(ids))
    }
}

/// The zones this process has read, by setting value: what `usableZone` falls back on when the tz database
/// cannot be read again (no file descriptor left), instead of another zone. The rules ask for the zones of
/// the day rule's history, a few at most: a short list, not a dictionary.
package final class ZonesRead: @unchecked Sendable {
    package static let shared = ZonesRead()
    private var lock = pthread_mutex_t()
    private var zones: [(name: String, zone: Zone)] = []
    private init() { pthread_mutex_init(&lock, nil) }
    package func remember(_ zone: Zone, named name: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard !zones.contains(where: { $0.name == name }) else { return }
        if zones.count == 16 { zones.removeFirst() }
        zones.append((name, zone))
    }
    package func zone(named name: String) -> Zone? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return zones.first { $0.name == name }?.zone
    }
}
