import PlannerCore
import PlannerSystem

/// What applying an event did, beyond its decision: rows the database held that the pure decision cannot
/// see (skips older than it reads).
public struct EventOutcome: Sendable {
    public var effect: EventEffect
    /// How many skips an `unskip` removed.
    public var removedSkips = 0
    /// The events applied (those not recorded before).
    public var fresh: [PlanEvent] = []
    /// The one-offs snoozes added (a snooze of a day opened by then adds none).
    public var snoozed: [(identifier: String, decision: AddDecision)] = []
    /// The one-offs adds added (one over before it arrived adds none).
    public var added: [(identifier: String, decision: AddDecision)] = []
}

/// The one place a change to the plan is applied: every command that changes what the user owns (open,
/// study, an answer, skip, pause, resume, config) and every inbox makes a `PlanEvent` and comes here.
extension PlannerDatabase {
    /// Applies `event` in one IMMEDIATE transaction; nil when it was applied before (its id is recorded).
    @discardableResult
    public func apply(_ event: PlanEvent) throws(PlannerError) -> EventOutcome? {
        try change(at: event.at, from: .all) { t in try t.applyEvent(event) }.0
    }

    /// The registers `events` may change.
    /// The earliest stamp of the events that change the day rule (`SettingsStep`), if any.
    package static func earliestDayRuleStamp(_ events: [PlanEvent]) -> Stamp? {
        var earliest: Stamp?
        for event in events {
            guard let stamp = event.stamp, earliest.map({ stamp < $0 }) ?? true,
                SettingsStep(stamp: stamp, change: event.change) != nil
            else { continue }
            earliest = stamp
        }
        return earliest
    }

    package static func registers(of events: [PlanEvent]) -> Set<Register> {
        var registers: Set<Register> = []
        for event in events {
            switch event.change {
            case .open, .snooze: break
            case .add(let identifier, _, _, _): registers.insert(.oneOff(identifier))
            case .skip(let dates, _), .unskip(let dates): for date in dates { registers.insert(.skip(date)) }
            case .pause, .resume: registers.insert(.pause)
            case .settings where event.isPlanZoneClaim: registers.insert(.planZone)
            case .settings(let set, let reset):
                for change in set { registers.insert(.setting(change.key)) }
                for key in reset { registers.insert(.setting(key)) }
            }
        }
        return registers
    }

    /// A new event id from the system's randomness.
    public static func newEventID() -> String {
        var generator = SystemRandomNumberGenerator()
        return PlanEvent.newID(using: &generator)
    }
}

extension Transaction {
    /// Inside the caller's transaction: records the event (stamped as this device's latest change), lets
    /// `decideEvent` decide from the plan as it is, writes what it decided, at the event's own instant.
    /// A change that would change nothing (a resume with nothing paused, removing a skip that is not there,
    /// a setting set to the value it has) is not recorded and travels nowhere: the plan is refilled and the
    /// outcome has no fresh event. `zone` overrides the plan's (tests).
    /// `decidedAt`: the change's own instant, when the event's is later (an Anki review a few minutes ahead of
    /// the clock is recorded at its own instant, and the plan is decided at the change's).
    package func applyEvent(_ event: PlanEvent, zone override: Zone? = nil, decidedAt: Instant? = nil) throws -> EventOutcome? {
        let at = decidedAt.map { min($0, event.at) } ?? event.at
        var event = event
        if event.stamp == nil {
            // The clock never adopts a stamp further ahead than the bound (one `--now` in the future, an
            // inbox file dated 2030 or a peer a day fast would otherwise lead every later change).
            let clock = Stamp.clock(at: event.at, real: SystemClock.now())
            let (latest, selfID) = try latestStampAndSelf(notAfter: clock + Stamp.maximumLeadMilliseconds)
            event.stamp = Stamp.next(after: latest, clock: clock, device: selfID ?? "")
        }
        // An open is never a no-op (its record is the point); anything else recorded before (an inbox file
        // read twice) must not be judged a no-op against the state it made itself.
        if case .open = event.change {
            return try applyEvents([event], now: at, receivedAt: nil, zone: override)
        }
        if try connection.integer("SELECT count(*) FROM event WHERE id = ?", .text(event.id)) == 1 { return nil }
        guard let change = try withoutNoOps(event.change, now: at) else {
            return try applyNothing(now: at, zone: override)
        }
        event.change = change
        return try applyEvents([event], now: at, receivedAt: nil, zone: override)
    }

    /// `change` without the parts that would change nothing here now; nil when nothing is left.
    package func withoutNoOps(_ change: PlanChange, now: Instant) throws -> PlanChange? {
        switch change {
        case .open, .pause, .snooze, .add:
            return change
        case .resume:
            let stmt = try connection.prepare(HotQueries.pause)
            try stmt.bind([.integer(now.milliseconds)])
            return try stmt.step() ? change : nil
        case .skip(let dates, let reason):
            let stmt = try connection.prepare("SELECT 1 FROM skipped_date WHERE local_date = ? AND removed_at_ms IS NULL AND reason IS ?")
            var left: [LocalDate] = []
            for date in dates {
                try stmt.bind([.text(date.description), reason.map { .text($0) } ?? .null])
                if try !stmt.step() { left.append(date) }
            }
            return left.isEmpty ? nil : change
        case .unskip(let dates):
            let stmt = try connection.prepare("SELECT 1 FROM skipped_date WHERE local_date = ? AND removed_at_ms IS NULL")
            var left: [LocalDate] = []
            for date in dates {
                try stmt.bind([.text(date.description)])
                if try stmt.step() { left.append(date) }
            }
            return left.isEmpty ? nil : .unskip(dates: left)
        case .settings(let set, let reset):
            let rows = try readSettingRows()
            // The zone is never a no-op: the value here may only be this device's claim of it, not yet the
            // plan's (a set makes it the user's choice, whatever the other devices claim).
            let changed = set.filter { $0.key == .zone || rows.values[$0.key.rawValue] ?? $0.key.defaultValue != $0.value }
            let resets = reset.filter { key in
                let value = rows.values[key.rawValue] ?? key.defaultValue
                return key == .zone || value != rows.defaults[key.rawValue] ?? key.defaultValue
            }
            return changed.isEmpty && resets.isEmpty ? nil : .settings(set: changed, reset: resets)
        }
    }

    /// The usual-time schedule's record into `facts`, when the settings ask for it now or a settings change
    /// in the batch may (read with the schedule as it is; `UsualTime.plan` decides with the batch's).
    private func readUsualTimeRecord(into facts: inout PlanFacts, values: [String: String], deciding: [PlanEvent], now: Instant, zone: Zone) throws {
        let settingsChange = deciding.contains { if case .settings = $0.change { true } else { false } }
        guard values[SettingKey.schedule.rawValue] == "usual-time" || settingsChange else { return }
        let schedule = PlanSettings.reading(values).settings.schedule
        // A day further: a batch that moves the zone or the window may move today by a day.
        let (opens, skipped) = try usualTimeRecord(now: now, zone: zone, schedule: schedule, daysAhead: 1)
        facts.usualTimeOpens = opens
        facts.usualTimeSkipped = skipped
    }

    /// A command whose change was a no-op still plans again (as `refill` would).
    private func applyNothing(now: Instant, zone override: Zone?) throws -> EventOutcome {
        let rows = try readSettingRows()
        let (_, planZone) = try plan(from: rows.values)
        try addMissingSettingRows()
        var facts = PlanFacts(
            settingValues: rows.values, settingDefaults: rows.defaults,
            state: try readPlanState(now: now, zone: override ?? planZone))
        facts.experimentSeed = rows.values[SettingKey.experiment.rawValue] == "on" ? try experimentSeed() : nil
        try readUsualTimeRecord(into: &facts, values: rows.values, deciding: [], now: now, zone: override ?? planZone)
        let effect = decideEvents([], facts: facts, now: now) { name in override ?? PlannerDatabase.usableZone(named: name) }
        try apply(effect.refill, now: now, zone: override ?? planZone, plan: effect.plan)
        return EventOutcome(effect: effect, fresh: [])
    }

    /// Inside the caller's transaction: records each event not recorded yet, decides them together
    /// (`decideEvents`) and plans again at `now`. `receivedAt`: another device's events, applied here then.
    /// nil when none of them was new. What depends on the order of the history is derived from the history
    /// (`SharedHistoryStore`): each open's study day from the settings in force at its stamp, the pause
    /// history, the plan's shared zone; an event arriving out of order re-derives what it changes.
    /// `carriers`: the sync folder file each of another device's events came in (`event.carrier`), in order.
    package func applyEvents(
        _ events: [PlanEvent], now: Instant, receivedAt: Instant?, zone override: Zone? = nil, carriers: [String?] = []
    ) throws -> EventOutcome? {
        // Recorded first: a row already there means it was applied before, and nothing else is done.
        let record = try connection.prepare(
            """
            INSERT INTO event (id, at_ms, origin, kind, payload, device, stamp_ms, stamp_counter, received_ms, carrier)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
            """)
        var fresh: [PlanEvent] = []
        var replaced: [(old: PlanEvent, new: PlanEvent)] = []
        for (index, event) in events.enumerated() {
            let stamp = event.stamp ?? Stamp(milliseconds: event.at.milliseconds)
            try record.run(
                .text(event.id), .integer(event.at.milliseconds), .text(event.origin), .text(event.change.kind.rawValue),
                .text(PlanEventText.payloadText(event.change)), .text(RecordOpens.recordedDevice(event)),
                .integer(stamp.milliseconds), .integer(stamp.counter), receivedAt.map { .integer($0.milliseconds) } ?? .null,
                (index < carriers.count ? carriers[index] : nil).map { .text($0) } ?? .null)
            if sqlite3Changes() == 1 {
                fresh.append(event)
            } else if receivedAt != nil, let old = try settleTwoPayloads(event) {
                replaced.append((old, event))
                if case .open = event.change { fresh.append(event) }
            }
        }
        guard !fresh.isEmpty || !replaced.isEmpty else { return nil }
        // Claims of the plan's zone first: what a reset of the zone returns to, and the day of every open.
        let claims = fresh.filter { $0.isPlanZoneClaim }
        let zoneSettled = try settleZoneClaims(claims)
        // Shared, not copied, when there is no claim (10,000 events in a first sync).
        let deciding = claims.isEmpty ? fresh : fresh.filter { !$0.isPlanZoneClaim }
        let rows = try readSettingRows()
        let (_, planZone) = try plan(from: rows.values)
        // A declared key without a row gets one first, so a settings change has a row to change.
        try addMissingSettingRows()
        // The plan's state only for a batch that changes it (one-offs alone take their places by themselves).
        var facts = PlanFacts(
            settingValues: rows.values, settingDefaults: rows.defaults,
            state: changeThePlan(deciding) ? try readPlanState(now: now, zone: override ?? planZone) : PlanState(pending: []),
            stamps: try readStamps(PlannerDatabase.registers(of: deciding)))
        facts.experimentSeed = rows.values[SettingKey.experiment.rawValue] == "on" ? try experimentSeed() : nil
        try readUsualTimeRecord(into: &facts, values: rows.values, deciding: deciding, now: now, zone: override ?? planZone)
        let opens = deciding.filter { if case .open = $0.change { true } else { false } }
        var rule: DayRuleHistory.StudyDays?
        facts.openDays = try openDays(opens, values: rows.values, defaults: rows.defaults, zone: override, rule: &rule)
        let effect = decideEvents(deciding, facts: facts, now: now) { name in override ?? PlannerDatabase.usableZone(named: name) }
        let zone = override ?? PlannerDatabase.usableZone(named: effect.plan.zone)

        var outcome = EventOutcome(effect: effect, fresh: fresh)
        // Each statement prepared only when there is something for it (an open has none of the next three).
        if !effect.settings.isEmpty {
            let set = try connection.prepare("UPDATE setting SET value = ?, changed_at_ms = ? WHERE key = ?")
            for change in effect.settings {
                try set.run(.text(change.value), .integer((effect.settingTimes[change.key] ?? now).milliseconds), .text(change.key.rawValue))
            }
        }
        if effect.settings.contains(where: { $0.key == .syncFolder }) { try forgetSyncFolder() }
        // Another calendar folder: what was written to the old one says nothing about the new.
        if effect.settings.contains(where: { $0.key == .calendarFolder }) {
            try connection.execute("DELETE FROM calendar_file")
            try forgetCalendarPass(nil)
        }
        if !effect.skips.isEmpty {
            let skip = try connection.prepare(
                """
                INSERT INTO skipped_date (local_date, reason, skipped_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (local_date) DO UPDATE
                SET reason = excluded.reason, skipped_at_ms = excluded.skipped_at_ms, removed_at_ms = NULL
                """)
            let unskip = try connection.prepare(
                "UPDATE skipped_date SET removed_at_ms = ? WHERE local_date = ? AND removed_at_ms IS NULL")
            for change in effect.skips {
                if change.skipped {
                    try skip.run(.text(change.date.description), change.reason.map { .text($0) } ?? .null, .integer(change.at.milliseconds))
                } else {
                    try unskip.run(.integer(change.at.milliseconds), .text(change.date.description))
                    outcome.removedSkips += sqlite3Changes()
                }
            }
        }
        // The pause history is the pause and resume events in stamp order, whatever order they came in.
        if deciding.contains(where: { if case .pause = $0.change { true } else if case .resume = $0.change { true } else { false } }) {
            try rebuildPauses()
        }
        if !effect.stamped.isEmpty {
            let stamp = try connection.prepare(
                """
                INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device, event_id) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter,
                    stamp_device = excluded.stamp_device, event_id = excluded.event_id
                """)
            for (register, won) in effect.stamped {
                try stamp.run(
                    .text(register.name), .integer(won.stamp.milliseconds), .integer(won.stamp.counter),
                    .text(won.stamp.device), .text(won.event))
            }
        }
        let recordOpen = try connection.prepare(
            """
            INSERT INTO app_open (opened_at_ms, local_date, local_time, zone, cancelled, event_id, origin)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        // Days a replaced open no longer holds: given their reminders back once every open is recorded.
        var left: [(day: LocalDate, to: LocalDate?)] = []
        for open in effect.opens {
            let at = open.event.at
            let openZone = facts.openDays[open.event.id]?.zone ?? zone
            if replaced.contains(where: { $0.new.id == open.event.id }) {
                if let day = try openDay(of: open.event.id), day != open.date { left.append((day, open.date)) }
                try connection.prepare("DELETE FROM app_open WHERE event_id = ?").run(.text(open.event.id))
            }
            try recordOpen.run(
                .integer(at.milliseconds), .text(open.date.description), .text(openZone.rfc3339(at)),
                .text(openZone.name), .integer(Int64(open.cancelled.count)), .text(open.event.id), .text(open.event.origin))
            try transition(open.cancelled, to: .cancelled, reason: receivedAt == nil ? "app opened" : "app opened on another device", now: now)
        }
        // What an event that arrived out of stamp order changes, derived again: the opens stamped after a
        // change of the day rule (every open when the plan's shared zone was settled), and what replaced
        // a payload held before.
        var moved = !left.isEmpty
        if zoneSettled {
            moved = try rederiveOpens(after: nil, now: now) || moved
        } else if let earliest = PlannerDatabase.earliestDayRuleStamp(deciding) {
            moved = try rederiveOpens(after: earliest, now: now, rule: rule, decided: Set(facts.openDays.keys)) || moved
        }
        if try refold(replaced) { moved = true }
        for pair in replaced {
            // An open whose winning version is not one (or a different one) no longer stands as it was.
            if case .open = pair.old.change, !fresh.contains(where: { $0.id == pair.new.id }) {
                if let day = try openDay(of: pair.new.id) { left.append((day, nil)) }
                try connection.prepare("DELETE FROM app_open WHERE event_id = ?").run(.text(pair.new.id))
                moved = true
            }
            // Either version touching the day rule: the opens after the earlier of the two are derived again.
            let touching = [pair.old, pair.new].filter { SettingsStep(stamp: $0.stamp ?? Stamp(milliseconds: 0), change: $0.change) != nil }
            if let earliest = touching.compactMap(\.stamp).min(), try rederiveOpens(after: Stamp(milliseconds: earliest.milliseconds - 1), now: now) {
                moved = true
            }
        }
        for day in left {
            try release(
                day.day, now: now,
                reason: day.to.map { "the version of this open every device keeps is of \($0)" }
                    ?? "the version of this event every device keeps is no open")
        }
        if moved {
            _ = try replan(now: now, zone: override)
        } else if effect.refills {
            try apply(effect.refill, now: now, zone: zone, plan: effect.plan)
        }
        // After the plan is made again: a snooze's one-off takes its place among the 64 as `add` does.
        for snooze in effect.snoozes.sorted(by: { ($0.stamp ?? Stamp(milliseconds: 0)) < ($1.stamp ?? Stamp(milliseconds: 0)) }) {
            guard case .snooze(let identifier, let day, let until) = snooze.change else { continue }
            if let added = try applySnooze(
                identifier, day: day, until: until, now: now, zone: zone, plan: effect.plan,
                elsewhere: receivedAt != nil)
            {
                outcome.snoozed.append(added)
            }
        }
        // And each one-off added, the latest of its identifier, unless it was over before it arrived (an add
        // read late, a new device reading the whole history).
        let policy = PlanPolicy(graceMilliseconds: effect.plan.graceMilliseconds)
        for add in effect.adds {
            guard case .add(let identifier, let fireAt, let title, let body) = add.change,
                fireAt.milliseconds + policy.graceMilliseconds > now.milliseconds
            else { continue }
            outcome.added.append(
                try insertOneOff(
                    NewRequest(identifier: identifier, fireAt: fireAt, title: title, body: body), now: now, zone: zone,
                    policy: policy))
        }
        return outcome
    }

    /// The study day the open `id` is recorded on, if it is.
    private func openDay(of id: String) throws -> LocalDate? {
        try connection.text("SELECT local_date FROM app_open WHERE event_id = ?", .text(id)).flatMap { LocalDate(iso: $0) }
    }

    package func readStamps(_ registers: Set<Register>) throws -> [Register: Stamp] {
        guard !registers.isEmpty else { return [:] }
        let stmt = try connection.prepare("SELECT stamp_ms, stamp_counter, stamp_device FROM register WHERE name = ?")
        var stamps: [Register: Stamp] = [:]
        for register in registers {
            try stmt.bind([.text(register.name)])
            if try stmt.step() {
                stamps[register] = Stamp(milliseconds: stmt.int64(0), counter: stmt.int64(1), device: stmt.text(2))
            }
        }
        return stamps
    }

    /// The greatest stamp this database has seen, from any device, not after `bound` (a stamp further ahead
    /// is never adopted by this device's clock), and this device's id: one statement, since every change
    /// made here (a login's `open` too) reads both; run once for each kind of event.
    package func latestStampAndSelf(notAfter bound: Int64 = Int64.max) throws -> (Stamp?, String?) {
        let stmt = try connection.prepare(HotQueries.latestStamp)
        var selfID: String?
        var latest: Stamp?
        // Every kind an event row can have is a `PlanChange.Kind`: a line of another kind is refused before
        // it is recorded.
        for kind in PlanChange.Kind.allCases {
            try stmt.bind([.integer(bound), .text(kind.rawValue)])
            _ = try stmt.step()
            if kind == PlanChange.Kind.allCases.first {
                selfID = stmt.isNull(0) ? nil : stmt.text(0)
                if !stmt.isNull(1) { latest = Stamp(milliseconds: stmt.int64(1), counter: 0, device: "") }
            }
            guard !stmt.isNull(2) else { continue }
            let found = Stamp(milliseconds: stmt.int64(2), counter: stmt.int64(3), device: stmt.text(4))
            // A register's stamp is its event's: an event's own stamp wins a tie (it carries its counter).
            if latest.map({ (found.milliseconds, found.counter) >= ($0.milliseconds, $0.counter) }) ?? true { latest = found }
        }
        return (latest, selfID)
    }

    /// This device's id, once it has synced.
    package func selfDeviceID() throws -> String? {
        try connection.text("SELECT id FROM device WHERE is_self = 1")
    }
}
