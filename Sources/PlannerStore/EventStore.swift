import PlannerCore
import PlannerSystem

/// What applying an event did, beyond its decision: rows the database held that the pure decision cannot
/// see (skips older than it reads).
public struct EventOutcome: Sendable {
    public var effect: EventEffect
    /// How many skips an `unskip` removed.
    public var removedSkips = 0
}

/// The one place a change to the plan is applied: every command that changes what the user owns (open,
/// study, an answer, skip, pause, resume, config) and every inbox makes a `PlanEvent` and comes here.
extension PlannerDatabase {
    /// Applies `event` in one IMMEDIATE transaction; nil when it was applied before (its id is recorded).
    @discardableResult
    public func apply(_ event: PlanEvent) throws(PlannerError) -> EventOutcome? {
        try write { try applyEvent(event) }
    }

    /// Inside the caller's transaction: records the event, lets `decideEvent` decide from the plan as it is,
    /// writes what it decided, at the event's own instant. `zone` overrides the plan's (tests).
    func applyEvent(_ event: PlanEvent, zone override: Zone? = nil) throws -> EventOutcome? {
        // Recorded first: a row already there means it was applied before, and nothing else is done.
        try connection.prepare("INSERT INTO event (id, at_ms, origin, kind, payload) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
            .run(.text(event.id), .integer(event.at.milliseconds), .text(event.origin), .text(event.change.kind),
                 .text(PlanEventText.fields(PlanEventText.payload(event.change))))
        guard sqlite3Changes() == 1 else { return nil }
        let now = event.at
        let rows = try readSettingRows()
        let (_, planZone) = try plan(from: rows.values)
        // A declared key without a row gets one first, so a settings change has a row to change.
        try addMissingSettingRows()
        let facts = PlanFacts(settingValues: rows.values, settingDefaults: rows.defaults,
                              state: try readPlanState(now: now, zone: override ?? planZone))
        let effect = decideEvent(event, facts: facts) { name in override ?? Self.usableZone(named: name) }
        let zone = override ?? Self.usableZone(named: effect.plan.zone)

        var outcome = EventOutcome(effect: effect)
        let set = try connection.prepare("UPDATE setting SET value = ?, changed_at_ms = ? WHERE key = ?")
        for change in effect.settings {
            try set.run(.text(change.value), .integer(now.milliseconds), .text(change.key.rawValue))
        }
        if !effect.skipped.isEmpty {
            let insert = try connection.prepare("""
                INSERT INTO skipped_date (local_date, reason, skipped_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (local_date) DO UPDATE
                SET reason = excluded.reason, skipped_at_ms = excluded.skipped_at_ms, removed_at_ms = NULL
                """)
            for date in effect.skipped {
                try insert.run(.text(date.description), effect.skipReason.map { .text($0) } ?? .null, .integer(now.milliseconds))
            }
        }
        if !effect.unskipped.isEmpty {
            let update = try connection.prepare(
                "UPDATE skipped_date SET removed_at_ms = ? WHERE local_date = ? AND removed_at_ms IS NULL")
            for date in effect.unskipped {
                try update.run(.integer(now.milliseconds), .text(date.description))
                outcome.removedSkips += sqlite3Changes()
            }
        }
        if effect.endsPause {
            try connection.prepare("""
                UPDATE pause SET ended_at_ms = ?
                WHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?)
                """).run(.integer(now.milliseconds), .integer(now.milliseconds))
        }
        if let pause = effect.startsPause {
            try connection.prepare("INSERT INTO pause (since_ms, until_ms) VALUES (?, ?)")
                .run(.integer(pause.since.milliseconds), pause.until.map { .integer($0.milliseconds) } ?? .null)
        }
        if let open = effect.open {
            try connection.prepare("""
                INSERT INTO app_open (opened_at_ms, local_date, local_time, zone, cancelled, event_id, origin)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).run(.integer(now.milliseconds), .text(open.date.description), .text(zone.rfc3339(now)),
                         .text(zone.name), .integer(Int64(open.cancelled.count)), .text(event.id), .text(event.origin))
            try transition(open.cancelled, to: .cancelled, reason: "app opened", now: now)
        }
        try apply(effect.refill, now: now, zone: zone, plan: effect.plan)
        return outcome
    }

    /// A new event id from the system's randomness.
    public static func newEventID() -> String {
        var generator = SystemRandomNumberGenerator()
        return PlanEvent.newID(using: &generator)
    }
}
