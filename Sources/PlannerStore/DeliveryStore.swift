import CSQLite
import PlannerCore

/// A request a ticker has claimed (state `delivering`) and must now deliver.
public struct ClaimedRequest: Sendable, Equatable {
    public var rowID: Int64
    public var identifier: String
    public var fireAt: Instant
    public var title: String
    public var body: String
    public var kind: RequestKind = .slot
    /// From the settings in force when it was claimed: how late it may still be shown, and how.
    public var graceMilliseconds: Int64 = PlanPolicy.defaultGraceMilliseconds
    public var icon: String = ""
    public var urgency: String = "normal"
    /// How long "Snooze" puts it off (the setting when it was claimed).
    public var snoozeMilliseconds: Int64 = 15 * 60_000
    /// The sound setting when it was claimed (empty: none).
    public var sound = ""
    /// Its time as RFC 3339 in the plan's zone when it was claimed (`PLANNER_FIRE_AT`, the stdout line):
    /// a ticker running across `config set zone` shows the zone in force at delivery, not at its start.
    public var localFireAt = ""

    /// A study reminder, which can be answered: a slot, or a snoozed one.
    public var isStudyReminder: Bool { PlannerCore.isStudyReminder(identifier: identifier, kind: kind) }

    /// The grace period it is delivered under, as a policy.
    public var policy: PlanPolicy { PlanPolicy(graceMilliseconds: graceMilliseconds) }
}

/// An action taken on a shown reminder (the freedesktop action keys the ticker offers).
public enum AnswerAction: String, Sendable {
    case `default`, start, snooze
}

/// What an answer did.
public struct Answer: Sendable, Equatable {
    public var outcome: String
    /// For start: what to launch (the study-command setting; empty for nothing).
    public var studyCommand: [String]
    public var snoozedAs: String?
}

/// One line of `planner history`.
public struct HistoryEntry: Sendable {
    /// A request's identifier; for an open, what made it (`open`, `study`, `answer` …).
    public var identifier: String
    public var kind: RequestKind
    public var fireAt: Instant
    public var state: String
    public var changedAt: Instant
    public var deliveredAt: Instant?
    public var reason: String?
    public var error: String?
    /// An app-open (state `opened`), not a request: `fireAt` is when it happened.
    public var isOpen = false
    /// The other device an answer or an open came from (through the sync folder): its name, else its id;
    /// nil when it happened on this one.
    public var device: String?
    /// A pause or a resume (`pause`, `resume`), not a request: `fireAt` is when it was made.
    public var change: String? = nil
    /// A pause's end (nil: until `planner resume`).
    public var until: Instant? = nil

    /// What happened to the user (a request shown, missed or failed: `RequestState.happenedToTheUser`; an
    /// answer; studying started), as opposed to the plan's bookkeeping (retired, displaced, cancelled, …).
    public var happenedToTheUser: Bool {
        if change != nil { return true }
        return RequestState(rawValue: state)?.happenedToTheUser ?? Self.entryStates.contains(state)
    }
    /// The entries that are not requests: an answer to a reminder, an open.
    public static let entryStates = ["answered", "opened"]
}

extension PlannerDatabase {
    /// A claim older than the grace period plus this cannot still be in progress (retries stop at the
    /// grace period; a last attempt may run 60 s, its outcome wait 10 s for the lock), so its ticker died
    /// mid-delivery: the request is recorded as failed, not delivered again (at most once).
    package static let orphanAfterGrace: Int64 = 5 * 60_000

    /// `planner add`: an event (`PlanChange.add`), so the one-off is added on every device that shares the
    /// plan; the same identifier replaces, and the soonest 64 win. One transaction. With `makeUnique` (no
    /// identifier given by the user) an identifier waiting here gets a suffix instead, decided once, here:
    /// the event carries the final one.
    @discardableResult
    public func add(
        _ request: NewRequest, makeUnique: Bool = false, now: Instant, zone: Zone
    ) throws(PlannerError) -> (identifier: String, decision: AddDecision) {
        try change(at: now, from: .all) { t throws -> (identifier: String, decision: AddDecision) in
            let identifier = makeUnique ? try t.freeIdentifier(request.identifier) : request.identifier
            let event = PlanEvent(
                id: Self.newEventID(), at: now, origin: "add",
                change: .add(identifier: identifier, fireAt: request.fireAt, title: request.title, body: request.body))
            guard let added = try t.applyEvent(event, zone: zone)?.added.first else {
                throw PlannerError.usage("the one-off \(identifier) for \(zone.rfc3339(request.fireAt)) is already past its grace period")
            }
            return added
        }.0
    }

    /// True when the app was opened on the local date of `claimed` (a snoozed reminder is not shown then).
    public func dayOpened(_ claimed: ClaimedRequest) throws(PlannerError) -> Bool {
        try read { t in
            try t.connection.integer(
                """
                SELECT count(*) FROM request r JOIN app_open a ON a.local_date = r.local_date WHERE r.id = ?
                """, .integer(claimed.rowID)) ?? 0 > 0
        }
    }

    /// An answer to a shown reminder, in one transaction with what it does: "start" (or clicking it) records
    /// an open exactly like `planner open`; "snooze" adds a one-off `<identifier>_snoozed` with the same text
    /// after the `snooze` setting, unless the day was opened meanwhile. Returns what it did and the
    /// study command to launch (for start).
    public func recordAnswer(
        to request: ClaimedRequest, action: AnswerAction, now: Instant, limits: SourceLimits = .whole
    ) throws(PlannerError) -> Answer {
        try change(at: now, from: .limited(limits)) { t throws -> Answer in
            let (plan, zone) = try t.readPlan()
            var answer = Answer(outcome: "", studyCommand: [])
            switch action {
            case .default, .start:
                let event = Self.openEvent(now: now, takenIn: zone, policy: nil, origin: "answer")
                let decision = try t.applyEvent(event)!.effect.open!
                answer.outcome = "opened \(decision.date): cancelled \(decision.cancelled.count) of its reminders"
                answer.studyCommand = plan.studyCommand
            case .snooze:
                // Its study day stays the reminder's: a 23:50 reminder snoozed past midnight is still that
                // evening's, closed by that day's open.
                let day = try t.connection.prepare("SELECT local_date FROM request WHERE id = ?")
                try day.bind([.integer(request.rowID)])
                let studyDay = try day.step() ? LocalDate(iso: day.text(0)) : nil
                let fireAt = now + plan.snoozeMilliseconds
                // An event like any change: the other devices showing the same reminder close it and snooze it too.
                let event = PlanEvent(
                    id: Self.newEventID(), at: now, origin: "answer",
                    change: .snooze(identifier: request.identifier, day: studyDay ?? zone.local(now).date, until: fireAt))
                if let (identifier, decision) = try t.applyEvent(event)?.snoozed.first {
                    answer.outcome =
                        "snoozed as \(identifier) for \(zone.rfc3339(fireAt))" + (decision.pending ? "" : " (waits: 64 sooner are pending)")
                    answer.snoozedAs = identifier
                } else {
                    answer.outcome = "ignored: that day was already opened"
                }
            }
            try t.connection.prepare(
                """
                INSERT INTO notification_action (request_id, identifier, action, at_ms, outcome) VALUES (?, ?, ?, ?, ?)
                """
            ).run(
                .integer(request.rowID), .text(request.identifier), .text(action.rawValue),
                .integer(now.milliseconds), .text(answer.outcome))
            return answer
        }.0
    }

    public static let snoozedSuffix = PlannerCore.snoozedSuffix

    /// Whether `claimed` (shown here) was snoozed on another device since it was due: its bubble is closed.
    public func snoozedElsewhere(_ claimed: ClaimedRequest) throws(PlannerError) -> Bool {
        try read { t in
            try t.connection.integer(
                """
                SELECT EXISTS (SELECT 1 FROM event WHERE kind = 'snooze' AND received_ms IS NOT NULL AND at_ms >= ?1
                                                   AND substr(payload, 1, length(?2)) = ?2)
                """, .integer(claimed.fireAt.milliseconds), .text("identifier=\(claimed.identifier) ")) == 1
        }
    }

    /// A reminder claimed this long after its time is late (a pass on time claims within milliseconds).
    package static let lateAfterMilliseconds: Int64 = 2_000

    /// In one transaction: fail orphaned claims, mark due requests that will not be delivered as
    /// missed, let waiting one-offs into the places that freed, and claim every request to deliver now.
    /// A claim is `UPDATE … WHERE state = 'pending'`, so a request cancelled by `open` a moment earlier
    /// is never claimed.
    /// `sources`: what the outside sources found meanwhile (the ticker logs it and watches their folders).
    /// `holdLate`: a live ticker whose next pass comes at once when a source left something unread, and
    /// that has not been holding for long (`Ticker`); never `tick --once`, whose next pass is a minute away.
    public func claimDue(
        now: Instant, policy: PlanPolicy? = nil, holdLate: Bool = false, limits: SourceLimits = .whole
    ) throws(PlannerError)
        -> (decision: DueDecision, claimed: [ClaimedRequest], zone: Zone, sources: SourcesReport)
    {
        // Two steps in one transaction: what the sources hold is applied (`change`), then what is due is claimed,
        // so that a reminder is never shown for a day another device or the phone already opened.
        let (claim, sources) = try change(at: now, from: .limited(limits)) {
            (t: Transaction, leftUnread: Bool) throws -> (DueDecision, [ClaimedRequest], Zone) in
            try t.claimDueRequests(now: now, policy: policy, holdLate: holdLate, leftUnread: leftUnread)
        }
        return (claim.0, claim.1, claim.2, sources)
    }

    /// Records the outcome of a claimed delivery; `error` nil means delivered. False when the claim was
    /// no longer ours to finish (another process had already recorded it as orphaned).
    @discardableResult
    /// `deliveredAt` is when the successful attempt started (the moment the reminder went out);
    /// `at` is when the outcome was known.
    public func finishDelivery(
        _ claimed: ClaimedRequest, at: Instant, deliveredAt: Instant? = nil, attempts: Int, sink: String, error: String?
    ) throws(PlannerError) -> Bool {
        try write { t in
            if let error {
                try t.connection.prepare(
                    """
                    UPDATE request SET state = 'failed', changed_at_ms = ?, attempts = ?, error = ?, reason = ?
                    WHERE id = ? AND state = 'delivering'
                    """
                ).run(
                    .integer(at.milliseconds), .integer(Int64(attempts)), .text(error),
                    .text("every attempt through \(sink) failed"), .integer(claimed.rowID))
            } else {
                try t.connection.prepare(
                    """
                    UPDATE request SET state = 'delivered', changed_at_ms = ?, delivered_at_ms = ?, attempts = ?, reason = ?
                    WHERE id = ? AND state = 'delivering'
                    """
                ).run(
                    .integer(at.milliseconds), .integer((deliveredAt ?? at).milliseconds), .integer(Int64(attempts)),
                    .text("delivered through \(sink)"), .integer(claimed.rowID))
            }
            return sqlite3_changes(t.connection.handle) == 1
        }
    }

    /// Whether the app was opened on a claimed study slot's date after the claim: `open` cancels only
    /// pending requests, so a slot in retry backoff must check before each new attempt.
    public func appOpenedSinceClaim(_ claimed: ClaimedRequest) throws(PlannerError) -> Bool {
        try read { t in
            try t.connection.integer(
                """
                SELECT count(*) FROM request r JOIN app_open a ON a.local_date = r.local_date
                WHERE r.id = ? AND r.kind = 'slot' AND a.opened_at_ms >= r.claimed_at_ms
                """, .integer(claimed.rowID)) ?? 0 > 0
        }
    }

    /// A claimed slot that must not be shown any more (the app was opened during its retries).
    public func abandonDelivery(_ claimed: ClaimedRequest, at: Instant, reason: String) throws(PlannerError) {
        try write { t in
            try t.connection.prepare(
                """
                UPDATE request SET state = 'missed', changed_at_ms = ?, reason = ?
                WHERE id = ? AND state = 'delivering'
                """
            ).run(.integer(at.milliseconds), .text(reason), .integer(claimed.rowID))
        }
    }

    /// When the next pending request falls due, if any.
    public func nextFireAt() throws(PlannerError) -> Instant? {
        try read { t in
            let stmt = try t.connection.prepare(HotQueries.nextFireAt)
            return try stmt.step() && !stmt.isNull(0) ? Instant(milliseconds: stmt.int64(0)) : nil
        }
    }

    /// The most recent changes to requests that are no longer pending, the answers and the opens, newest
    /// first; without `all`, only what happened to the user (`HistoryEntry.happenedToTheUser`). Also how many
    /// bookkeeping rows that leaves out.
    public func history(limit: Int, all: Bool = false) throws(PlannerError) -> (entries: [HistoryEntry], bookkeeping: Int) {
        try read { t in
            // Answers to reminders are entries too (state `answered`, the action and what it did as reason),
            // after the delivery they answer when both have the same time; an open after the answer it came from.
            // An answer or an open made on another device names it (as the events and app_open_events views do):
            // its opens are app_open rows of its events; its snoozes are only events here (notification_action
            // holds this device's answers), shown at the time of the same reminder here if it was due within
            // the day before (a snooze answers a reminder on screen), else at the answer's.
            let stmt = try t.connection.prepare(
                """
                SELECT identifier, kind, fire_at_ms, state, changed_at_ms, delivered_at_ms, reason, error, id, 0, NULL
                FROM request WHERE state <> 'pending' AND (?2 OR state IN \(RequestState.happenedSQL))
                UNION ALL
                SELECT a.identifier, r.kind, r.fire_at_ms, 'answered', a.at_ms, NULL, a.action || ': ' || a.outcome, NULL, a.id, 1, NULL
                FROM notification_action a JOIN request r ON r.id = a.request_id
                UNION ALL
                SELECT s.identifier, coalesce(r.kind, CASE WHEN s.identifier LIKE '%\\_snoozed' ESCAPE '\\' THEN 'oneoff' ELSE 'slot' END),
                       coalesce(r.fire_at_ms, s.at_ms), 'answered', s.at_ms, NULL,
                       'snooze', NULL, 0, 1, s.device
                FROM (SELECT substr(e.payload, 12, instr(e.payload, ' ') - 12) AS identifier, e.at_ms,
                             coalesce(nullif(d.name, ''), e.device) AS device
                      FROM event e LEFT JOIN device d ON d.id = e.device
                      WHERE e.kind = 'snooze' AND e.payload LIKE 'identifier=% %' AND e.device <> ''
                        AND coalesce(d.is_self, 0) = 0) s
                LEFT JOIN request r ON r.id = (SELECT id FROM request WHERE identifier = s.identifier
                                               AND fire_at_ms BETWEEN s.at_ms - 86400000 AND s.at_ms
                                               ORDER BY fire_at_ms DESC LIMIT 1)
                UNION ALL
                SELECT o.origin, 'open', o.opened_at_ms, 'opened', o.opened_at_ms, NULL,
                       'study day ' || o.local_date || ': cancelled ' || o.cancelled || ' of its reminders', NULL, o.id, 2,
                       CASE WHEN e.device IS NULL OR e.device IN ('', 'anki', 'calendar') OR d.is_self = 1 THEN NULL
                            ELSE coalesce(nullif(d.name, ''), e.device) END
                FROM app_open o LEFT JOIN event e ON e.id = o.event_id LEFT JOIN device d ON d.id = e.device
                WHERE o.origin <> 'anki' OR NOT EXISTS (
                    SELECT 1 FROM app_open f WHERE f.local_date = o.local_date AND f.origin = 'anki' AND f.opened_at_ms < o.opened_at_ms)
                UNION ALL
                SELECT e.kind, 'slot', e.at_ms, CASE e.kind WHEN 'pause' THEN 'paused' ELSE 'resumed' END, e.at_ms, NULL,
                       e.payload, NULL, 0, 3,
                       CASE WHEN e.device = '' OR d.is_self = 1 THEN NULL ELSE coalesce(nullif(d.name, ''), e.device) END
                FROM event e LEFT JOIN device d ON d.id = e.device
                WHERE e.kind IN ('pause', 'resume')
                ORDER BY 5 DESC, 10 DESC, 9 DESC LIMIT ?1
                """)
            try stmt.bind([.integer(Int64(limit)), .integer(all ? 1 : 0)])
            var entries: [HistoryEntry] = []
            while try stmt.step() {
                var entry = HistoryEntry(
                    identifier: stmt.text(0), kind: RequestKind(rawValue: stmt.text(1)) ?? .oneoff,
                    fireAt: Instant(milliseconds: stmt.int64(2)), state: stmt.text(3),
                    changedAt: Instant(milliseconds: stmt.int64(4)),
                    deliveredAt: stmt.isNull(5) ? nil : Instant(milliseconds: stmt.int64(5)),
                    reason: stmt.isNull(6) ? nil : stmt.text(6), error: stmt.isNull(7) ? nil : stmt.text(7),
                    isOpen: stmt.int64(9) == 2, device: stmt.isNull(10) ? nil : stmt.text(10))
                if stmt.int64(9) == 3 {
                    // A pause or a resume: its fields are the event's (`until=<ms>`, or none).
                    entry.change = entry.identifier
                    entry.until = PlanEventText.fields(of: Array((entry.reason ?? "").utf8)[...])?
                        .first { $0.0 == "until" }.flatMap { Int64($0.1) }.map(Instant.init(milliseconds:))
                    entry.reason = entry.change == "pause" ? entry.until.map { "until " + Self.utcText($0) } ?? "until planner resume" : nil
                }
                entries.append(entry)
            }
            let bookkeeping =
                all
                ? 0
                : try t.connection.integer(
                    "SELECT count(*) FROM request WHERE state <> 'pending' AND state NOT IN \(RequestState.happenedSQL)") ?? 0
            return (entries, Int(bookkeeping))
        }
    }
}

extension Transaction {
    /// `base`, or `base_2`, `base_3`… : the first that no waiting request has.
    fileprivate func freeIdentifier(_ base: String) throws -> String {
        var identifier = base
        var n = 1
        while try connection.integer(
            "SELECT count(*) FROM request WHERE identifier = ? AND state IN \(RequestState.waitingSQL)", .text(identifier)) ?? 0 > 0
        {
            n += 1
            identifier = "\(base)_\(n)"
        }
        return identifier
    }

    /// The work of `add` inside the caller's transaction (a snooze adds its one-off with its action's row).
    /// `day`: the study day it belongs to (a snooze keeps its reminder's); nil: its local date.
    package func insertOneOff(
        _ request: NewRequest, now: Instant, zone: Zone, policy: PlanPolicy, day: LocalDate? = nil
    ) throws -> (identifier: String, decision: AddDecision) {
        do {
            var pending: [PendingRequest] = []
            let rows = try connection.prepare(HotQueries.pending)
            while try rows.step() { pending.append(PlannerDatabase.pendingRequest(rows)) }
            let decision = decideAdd(now: now, policy: policy, request: request, pending: pending)
            // A waiting request with the same identifier is replaced too: an identifier names one request.
            try connection.prepare(
                """
                UPDATE request SET state = 'replaced', reason = 'replaced by a request with the same identifier',
                                   changed_at_ms = ?
                WHERE identifier = ? AND state IN \(RequestState.waitingSQL)
                """
            ).run(.integer(now.milliseconds), .text(request.identifier))
            try transition(decision.missed, to: .missed, reason: MissReason.pastGrace, now: now)
            try transition(decision.displaced, to: .displaced, reason: Reason.displaced, now: now)
            let local = zone.local(request.fireAt)
            try connection.prepare(
                """
                INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body,
                                     state, reason, created_at_ms, changed_at_ms)
                VALUES (?, 'oneoff', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).run(
                .text(request.identifier), .integer(request.fireAt.milliseconds), .text((day ?? local.date).description),
                .text(zone.rfc3339(request.fireAt)), .text(zone.name), .text(request.title), .text(request.body),
                .text(decision.pending ? "pending" : "displaced"),
                decision.pending ? .null : .text("64 sooner requests are pending; waits for a refill"),
                .integer(now.milliseconds), .integer(now.milliseconds))
            return (request.identifier, decision)
        }
    }

    /// A snooze, made here or on another device, inside the caller's transaction: unless its study day is
    /// opened, `<identifier>_snoozed` at `until` with the reminder's text. The same reminder still waiting
    /// here when another device snoozed it is cancelled (it was answered). nil: the day is opened.
    package func applySnooze(
        _ identifier: String, day: LocalDate, until: Instant, now: Instant, zone: Zone, plan: PlanSettings,
        elsewhere: Bool
    ) throws -> (identifier: String, decision: AddDecision)? {
        if try connection.integer("SELECT EXISTS (SELECT 1 FROM app_open WHERE local_date = ?)", .text(day.description)) == 1 { return nil }
        if elsewhere {
            try connection.prepare(
                """
                UPDATE request SET state = 'cancelled', reason = 'snoozed on another device', changed_at_ms = ?
                WHERE identifier = ? AND state IN \(RequestState.waitingSQL)
                """
            ).run(.integer(now.milliseconds), .text(identifier))
        }
        // Over before it arrived (a snooze read late, a new device reading the whole history): the reminder
        // was answered, and nothing comes back.
        if until.milliseconds + plan.graceMilliseconds <= now.milliseconds { return nil }
        let text = try connection.prepare("SELECT title, body FROM request WHERE identifier = ? ORDER BY id DESC LIMIT 1")
        try text.bind([.text(identifier)])
        let (title, body) = try text.step() ? (text.text(0), text.text(1)) : (plan.title, plan.body)
        let base = identifier.hasSuffix(PlannerDatabase.snoozedSuffix) ? identifier : identifier + PlannerDatabase.snoozedSuffix
        return try insertOneOff(
            NewRequest(identifier: base, fireAt: until, title: title, body: body),
            now: now, zone: zone, policy: PlanPolicy(graceMilliseconds: plan.graceMilliseconds), day: day)
    }

    /// Inside the change's transaction, after its sources: orphaned deliveries failed, withheld slots recorded,
    /// missed ones retired, and the due ones claimed (`delivering`).
    fileprivate func claimDueRequests(
        now: Instant, policy: PlanPolicy?, holdLate: Bool, leftUnread: Bool
    ) throws -> (DueDecision, [ClaimedRequest], Zone) {
        let (plan, zone) = try readPlan(at: now)
        let policy = policy ?? PlanPolicy(graceMilliseconds: plan.graceMilliseconds)
        try connection.prepare(
            """
            UPDATE request SET state = 'failed', changed_at_ms = ?,
                   error = 'the ticker stopped during delivery; not retried (deliveries are at most once)'
            WHERE state = 'delivering' AND claimed_at_ms < ?
            """
        ).run(.integer(now.milliseconds), .integer(now.milliseconds - policy.graceMilliseconds - PlannerDatabase.orphanAfterGrace))

        // Measurement mode: a slot the draw withholds is recorded at its time instead of shown, before what
        // to show is chosen (`decideDue` shows the latest of several due slots: a withheld one must not be
        // that latest and leave the others superseded, the day without a reminder).
        if plan.experiment { try withholdDue(now: now, policy: policy, plan: plan) }
        var decision = try decideDue(now: now, policy: policy)
        for (request, reason) in decision.missed {
            try transition([request], to: .missed, reason: reason, now: now)
        }
        // Places freed by retired requests go to waiting one-offs; one may be due right now.
        if !decision.missed.isEmpty, try readmitWaitingOneOffs(now: now, policy: policy) {
            let missed = decision.missed
            decision = try decideDue(now: now, policy: policy)
            decision.missed = missed + decision.missed
        }
        let claim = try connection.prepare(
            """
            UPDATE request SET state = 'delivering', claimed_at_ms = ?, changed_at_ms = ?, attempts = 0
            WHERE id = ? AND state = 'pending'
            RETURNING id, identifier, fire_at_ms, title, body, kind
            """)
        var claimed: [ClaimedRequest] = []
        // A reminder already late is shown only once what the folders hold has been read: a ticker
        // starting at login after days away reads another computer's file in slices, and that day may
        // have been studied there. It waits for the next pass (at once: more is waiting), within its grace.
        if holdLate, leftUnread { decision.deliver.removeAll { now.milliseconds - $0.fireAt.milliseconds > PlannerDatabase.lateAfterMilliseconds } }
        // Every slot shown in measurement mode keeps the chance it had of being withheld (`MeasurementMode`).
        if plan.experiment {
            let chance = try connection.prepare("UPDATE request SET withhold_probability = ? WHERE id = ? AND state = 'pending'")
            for chosen in decision.deliver {
                guard let p = MeasurementMode.withholdProbability(identifier: chosen.identifier, kind: chosen.kind, plan: plan) else { continue }
                try chance.run(.double(p), .integer(chosen.rowID))
            }
        }
        for chosen in decision.deliver {
            try claim.bind([.integer(now.milliseconds), .integer(now.milliseconds), .integer(chosen.rowID)])
            guard try claim.step() else { continue }
            claimed.append(
                ClaimedRequest(
                    rowID: claim.int64(0), identifier: claim.text(1), fireAt: Instant(milliseconds: claim.int64(2)),
                    title: claim.text(3), body: claim.text(4), kind: RequestKind(rawValue: claim.text(5)) ?? .oneoff,
                    graceMilliseconds: policy.graceMilliseconds, icon: plan.icon, urgency: plan.urgency,
                    snoozeMilliseconds: plan.snoozeMilliseconds, sound: plan.sound,
                    localFireAt: zone.rfc3339(Instant(milliseconds: claim.int64(2)))))
            while try claim.step() {}
        }
        return (decision, claimed, zone)
    }

    /// The pending requests due at `now` (`HotQueries.due`), and what the pure rule decides of them
    /// (`PlannerCore.decideDue`: which to show, which are missed or superseded).
    private func decideDue(now: Instant, policy: PlanPolicy) throws -> DueDecision {
        var due: [PendingRequest] = []
        let rows = try connection.prepare(HotQueries.due)
        try rows.bind([.integer(now.milliseconds)])
        while try rows.step() { due.append(PlannerDatabase.pendingRequest(rows)) }
        return PlannerCore.decideDue(now: now, policy: policy, due: due)
    }

    /// Measurement mode: the due slots within their grace period that the draw withholds become `withheld`,
    /// with their chance (those past it are missed, as any: a reminder nobody was there to show is no decision).
    private func withholdDue(now: Instant, policy: PlanPolicy, plan: PlanSettings) throws {
        let rows = try connection.prepare(HotQueries.due)
        try rows.bind([.integer(now.milliseconds)])
        var withheld: [PendingRequest] = []
        while try rows.step() {
            let request = PlannerDatabase.pendingRequest(rows)
            if request.fireAt >= now - policy.graceMilliseconds,
                MeasurementMode.withholds(identifier: request.identifier, kind: request.kind, plan: plan)
            {
                withheld.append(request)
            }
        }
        guard !withheld.isEmpty else { return }
        let record = try connection.prepare(
            """
            UPDATE request SET state = 'withheld', withhold_probability = ?, changed_at_ms = ?, reason = ?
            WHERE id = ? AND state = 'pending'
            """)
        for request in withheld {
            try record.run(
                .double(MeasurementMode.withholdProbability), .integer(now.milliseconds),
                .text("withheld at random (measurement mode, chance \(Int(MeasurementMode.withholdProbability * 100)) %)"),
                .integer(request.rowID))
        }
    }

    /// Waiting one-offs (pushed out of the 64 earlier) that are still ahead come back, soonest first,
    /// into the places that retired requests freed: a ticker running alone (no refill for days)
    /// still delivers a one-off added while the plan was full of stale slots. True when one came back.
    private func readmitWaitingOneOffs(now: Instant, policy: PlanPolicy) throws -> Bool {
        let free = policy.cap - Int(try connection.integer(HotQueries.pendingCount) ?? 0)
        guard free > 0 else { return false }
        let waiting = try connection.prepare(HotQueries.waitingOneOffs + " ORDER BY fire_at_ms, identifier LIMIT ?")
        try waiting.bind([.integer(now.milliseconds - policy.graceMilliseconds), .integer(Int64(free))])
        var back: [PendingRequest] = []
        while try waiting.step() { back.append(PlannerDatabase.pendingRequest(waiting)) }
        try transition(back, to: .pending, reason: "back among the soonest 64", now: now)
        return !back.isEmpty
    }
}
