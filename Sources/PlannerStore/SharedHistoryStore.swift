import PlannerCore
import PlannerSystem

/// The shared state as a function of the shared history (`SharedHistory.swift` holds the pure folds): what
/// an event that arrives out of stamp order changes is derived again here, inside the transaction that
/// applies it, and only that: the opens stamped after a settings change of the day rule, the pause history
/// when a pause or resume arrives, every open when the plan's shared zone is settled.
extension PlannerDatabase {
    /// An event as the `event` table holds it (columns id, at_ms, origin, kind, payload, stamp_ms,
    /// stamp_counter, device from `first`); nil for a row no planner could have written.
    package static func storedEvent(_ stmt: Statement, from first: Int32 = 0) -> PlanEvent? {
        let payload = stmt.text(first + 4)
        let line =
            PlanEventText.header + " "
            + PlanEventText.fields([
                ("id", stmt.text(first)), ("at", String(stmt.int64(first + 1))),
                ("origin", stmt.text(first + 2)), ("kind", stmt.text(first + 3)),
            ])
            + (payload.isEmpty ? "" : " " + payload) + "\n"
        guard var event = PlanEvent(line: line) else { return nil }
        event.stamp = Stamp(milliseconds: stmt.int64(first + 5), counter: stmt.int64(first + 6), device: stmt.text(first + 7))
        return event
    }

    package static let eventColumns = "id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device"

    // MARK: The study day of an open

    // MARK: The pause history

    // MARK: The plan's shared zone

    // MARK: One id, two payloads

}

extension Transaction {
    /// The settings changes of the day rule, oldest stamp first, with what each key was before them.
    package func dayRuleHistory(values: [String: String], defaults: [String: String]) throws -> DayRuleHistory {
        // Only the changes that touch the day rule are read and parsed (a year of title changes is not).
        let stmt = try connection.prepare(
            """
            SELECT payload, coalesce(stamp_ms, at_ms), stamp_counter, device FROM event INDEXED BY event_day_rule
            WHERE kind = 'settings' AND (instr(payload, 'set.zone=') OR instr(payload, 'set.window=') OR instr(payload, 'set.interval=')
                             OR instr(payload, 'reset='))
              AND origin <> 'plan-zone'
            ORDER BY stamp_ms, stamp_counter
            """)
        var steps: [SettingsStep] = []
        var touched: Set<SettingKey> = []
        while try stmt.step() {
            // The payload alone (`set.window=… reset=zone`): a year of history is read without making events.
            guard let fields = PlanEventText.fields(of: Array(stmt.text(0).utf8)[...]) else { continue }
            var values: [SettingKey: String?] = [:]
            for (name, value) in fields {
                if name == "reset" {
                    for word in value.split(separator: ",") {
                        if let key = SettingKey(rawValue: String(word)), DayRuleHistory.keys.contains(key) { values[key] = .some(nil) }
                    }
                } else if name.hasPrefix("set."), let key = SettingKey(rawValue: String(name.dropFirst(4))), DayRuleHistory.keys.contains(key) {
                    values[key] = .some(value)
                }
            }
            guard !values.isEmpty else { continue }
            touched.formUnion(values.keys)
            steps.append(SettingsStep(stamp: Stamp(milliseconds: stmt.int64(1), counter: stmt.int64(2), device: stmt.text(3)), values: values))
        }
        var base: [SettingKey: String] = [:]
        var resets: [SettingKey: String] = [:]
        for key in DayRuleHistory.keys {
            let reset = defaults[key.rawValue] ?? key.defaultValue
            resets[key] = reset
            // A key no event ever changed holds what it was set to before events existed (or its default).
            base[key] = touched.contains(key) ? reset : values[key.rawValue] ?? reset
        }
        return DayRuleHistory(steps: steps, base: base, defaults: resets)
    }

    /// Each open's study day, by the settings in force at its stamp. The common case (no settings change
    /// stamped at or after the open: a login's `open`) reads one index entry and uses the plan as it is.
    package func openDays(
        _ opens: [PlanEvent], values: [String: String], defaults: [String: String],
        zone override: Zone?, rule: inout DayRuleHistory.StudyDays?
    ) throws -> [String: (date: LocalDate, zone: Zone)] {
        let stamped = opens.filter { $0.stamp != nil }
        guard let earliest = stamped.compactMap(\.stamp).min() else { return [:] }
        let later =
            try connection.integer(
                """
                SELECT EXISTS (SELECT 1 FROM event WHERE kind = 'settings' AND stamp_ms >= ? AND origin <> 'plan-zone')
                """, .integer(earliest.milliseconds)) == 1
        guard later, override == nil else { return [:] }
        var days: [String: (date: LocalDate, zone: Zone)] = [:]
        var loaded =
            try rule ?? DayRuleHistory.StudyDays(dayRuleHistory(values: values, defaults: defaults), resolve: PlannerDatabase.usableZone(named:))
        for open in stamped { days[open.id] = loaded.of(at: open.at, stamp: RecordOpens.decidingStamp(open.stamp!, origin: open.origin)) }
        rule = loaded
        return days
    }

    /// Derives again the study day of every open stamped after `stamp` (nil: every open), from the history
    /// as it is now. An open that moves closes its new day (cancels its pending slots) and no longer closes
    /// the old one, whose future slots it cancelled are planned again when no other open holds that day.
    /// True when an open moved.
    /// `rule`: the history as this transaction already loaded it, if it did (it is loaded once).
    /// `decided`: opens of this same batch, whose day was just derived from the same history.
    package func rederiveOpens(
        after stamp: Stamp?, now: Instant, rule known: DayRuleHistory.StudyDays? = nil,
        decided: Set<String> = []
    ) throws -> Bool {
        // A change in order (the common case) has no open after it: one index entry, nothing loaded.
        if let stamp,
            try connection.integer(
                "SELECT EXISTS (SELECT 1 FROM event WHERE kind = 'open' AND stamp_ms >= ?)",
                .integer(stamp.milliseconds)) == 0
        {
            return false
        }
        var rule =
            try known
            ?? {
                let rows = try readSettingRows()
                return DayRuleHistory.StudyDays(
                    try dayRuleHistory(values: rows.values, defaults: rows.defaults), resolve: PlannerDatabase.usableZone(named:))
            }()
        let stmt = try connection.prepare(
            """
            SELECT e.id, e.at_ms, coalesce(e.stamp_ms, e.at_ms), e.stamp_counter, e.device, o.local_date, o.zone, e.origin
            FROM event e JOIN app_open o ON o.event_id = e.id
            WHERE e.kind = 'open' AND e.stamp_ms >= ?1
            UNION ALL
            SELECT e.id, e.at_ms, e.at_ms, e.stamp_counter, e.device, o.local_date, o.zone, e.origin
            FROM event e JOIN app_open o ON o.event_id = e.id
            WHERE ?2 AND e.kind = 'open' AND e.stamp_ms IS NULL
            """)
        // Every open (the plan's zone settled), else those stamped from `stamp` on: one index range.
        try stmt.bind([.integer(stamp?.milliseconds ?? Int64.min), .integer(stamp == nil ? 1 : 0)])
        var moves: [(id: String, at: Instant, from: LocalDate, to: LocalDate, zone: Zone)] = []
        // Opens that keep their day but were recorded in another zone than the one in force at their stamp
        // (made before the plan's zone settled): shown in that zone (`app_open_events.zone`, `opened_at_local`).
        var relabels: [(id: String, at: Instant, date: LocalDate, zone: Zone)] = []
        while try stmt.step() {
            let eventStamp = RecordOpens.decidingStamp(
                Stamp(milliseconds: stmt.int64(2), counter: stmt.int64(3), device: stmt.text(4)), origin: stmt.text(7))
            guard let from = LocalDate(iso: stmt.text(5)) else { continue }
            if let stamp, eventStamp <= stamp { continue }
            if decided.contains(stmt.text(0)) { continue }
            let at = Instant(milliseconds: stmt.int64(1))
            let day = rule.of(at: at, stamp: eventStamp)
            if day.date != from {
                moves.append((stmt.text(0), at, from, day.date, day.zone))
            } else if stmt.text(6) != day.zone.name {
                relabels.append((stmt.text(0), at, from, day.zone))
            }
        }
        let move = try connection.prepare("UPDATE app_open SET local_date = ?, local_time = ?, zone = ? WHERE event_id = ?")
        for relabel in relabels {
            try move.run(.text(relabel.date.description), .text(relabel.zone.rfc3339(relabel.at)), .text(relabel.zone.name), .text(relabel.id))
        }
        guard !moves.isEmpty else { return false }
        let cancel = try connection.prepare(
            """
            UPDATE request SET state = 'cancelled', reason = 'app opened', changed_at_ms = ?
            WHERE kind = 'slot' AND local_date = ? AND state IN \(RequestState.waitingSQL)
            """)
        for moved in moves {
            try move.run(.text(moved.to.description), .text(moved.zone.rfc3339(moved.at)), .text(moved.zone.name), .text(moved.id))
        }
        for moved in moves {
            try cancel.run(.integer(now.milliseconds), .text(moved.to.description))
            try release(
                moved.from, now: now, reason: "the open of this day belongs to \(moved.to) by the settings in force when it was made")
        }
        return true
    }

    /// A day an open no longer holds (it moved, or the version of it every device keeps is another): when no
    /// other open holds it, the future reminders its open cancelled are retired, so the plan made next puts
    /// them back. Past ones stay cancelled (nobody was reminded then).
    package func release(_ day: LocalDate, now: Instant, reason: String) throws {
        try connection.prepare(
            """
            UPDATE request SET state = 'retired', reason = ?, changed_at_ms = ?
            WHERE kind = 'slot' AND local_date = ? AND state = 'cancelled' AND reason LIKE 'app opened%' AND fire_at_ms > ?
              AND NOT EXISTS (SELECT 1 FROM app_open WHERE local_date = ?)
            """
        ).run(.text(reason), .integer(now.milliseconds), .text(day.description), .integer(now.milliseconds), .text(day.description))
    }

    /// Rebuilds the pause rows events made from every pause and resume event, in stamp order
    /// (`pauseHistory`). Rows made before events existed stay; one still running ends at the first event.
    package func rebuildPauses() throws {
        let stmt = try connection.prepare(
            """
            SELECT id, at_ms, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device FROM event
            WHERE kind IN ('pause', 'resume') ORDER BY stamp_ms, stamp_counter
            """)
        var steps: [PauseStep] = []
        while try stmt.step() {
            let at = Instant(milliseconds: stmt.int64(1))
            let stamp = Stamp(milliseconds: stmt.int64(4), counter: stmt.int64(5), device: stmt.text(6))
            guard stmt.text(2) == "pause" else {
                steps.append(PauseStep(eventID: stmt.text(0), stamp: stamp, at: at, pause: nil))
                continue
            }
            // The payload is `until=<ms>` or empty (until a resume).
            let payload = stmt.text(3)
            let until = payload.hasPrefix("until=") ? Int64(payload.dropFirst(6)).map { Instant(milliseconds: $0) } : nil
            steps.append(PauseStep(eventID: stmt.text(0), stamp: stamp, at: at, pause: Pause(since: at, until: until)))
        }
        try connection.execute("DELETE FROM pause WHERE event_id IS NOT NULL")
        if let first = steps.min(by: { $0.stamp < $1.stamp }) {
            try connection.prepare(
                """
                UPDATE pause SET ended_at_ms = max(?1, since_ms) WHERE event_id IS NULL AND ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?1)
                """
            ).run(.integer(first.at.milliseconds))
        }
        let insert = try connection.prepare("INSERT INTO pause (since_ms, until_ms, ended_at_ms, event_id) VALUES (?, ?, ?, ?)")
        for row in pauseHistory(steps) {
            try insert.run(
                .integer(row.since.milliseconds), row.until.map { .integer($0.milliseconds) } ?? .null,
                row.endedAt.map { .integer($0.milliseconds) } ?? .null, .text(row.eventID))
        }
    }

    /// Settles claims of the plan's zone (`PlanEvent.planZoneOrigin`): the earliest stamp wins, so the
    /// first device's zone is every device's until someone sets one. The winner becomes the zone's default
    /// (what `config reset zone` returns to) and the zone itself when nobody set it or its last change was
    /// a reset. True when the plan's zone default changed (every open's day is then derived again).
    package func settleZoneClaims(_ claims: [PlanEvent]) throws -> Bool {
        guard !claims.isEmpty else { return false }
        let held = try readStamps([.planZone])[.planZone]
        guard let winner = claims.filter({ $0.stamp != nil }).min(by: { $0.stamp! < $1.stamp! }),
            held.map({ winner.stamp! < $0 }) ?? true,
            case .settings(let set, _) = winner.change, let zone = set.first?.value
        else { return false }
        let stamp = winner.stamp!
        try connection.prepare(
            """
            INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device, event_id) VALUES ('plan-zone', ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter,
                stamp_device = excluded.stamp_device, event_id = excluded.event_id
            """
        ).run(.integer(stamp.milliseconds), .integer(stamp.counter), .text(stamp.device), .text(winner.id))
        try connection.prepare("UPDATE setting SET default_value = ? WHERE key = 'zone'").run(.text(zone))
        if try !zoneWasSet() {
            try connection.prepare("UPDATE setting SET value = ? WHERE key = 'zone'").run(.text(zone))
        }
        return true
    }

    /// Whether the zone holds a value someone set (not a default, nor a reset to it).
    private func zoneWasSet() throws -> Bool {
        let stmt = try connection.prepare(
            """
            SELECT r.event_id, e.id, e.at_ms, e.origin, e.kind, e.payload, coalesce(e.stamp_ms, e.at_ms), e.stamp_counter, e.device
            FROM register r LEFT JOIN event e ON e.id = r.event_id WHERE r.name = 'setting:zone'
            """)
        guard try stmt.step() else { return false }
        // A change made before events had stamps: set by hand, kept.
        guard !stmt.isNull(0), !stmt.isNull(1), let event = PlannerDatabase.storedEvent(stmt, from: 1) else { return true }
        if case .settings(_, let reset) = event.change, reset.contains(.zone) { return false }
        return true
    }

    /// This device's claim of the plan's zone, made at its first change that reads the sync folder once it
    /// shares (`config set sync-folder` makes one at once): the zone its plan was made in, stamped when the
    /// plan was made (its first change or refill), so the oldest plan's zone wins wherever the claims meet.
    /// None when the folder already held another device's claim: a device that joins later takes the plan's
    /// zone as it is, whatever its clock says (a clock hours behind made its plan look the oldest). `system`
    /// is claimed as the zone it names here (on another device `system` would be that device's own).
    /// Published with this device's other events.
    package func claimPlanZone(device: String, now: Instant) throws {
        guard try connection.integer("SELECT EXISTS (SELECT 1 FROM event WHERE origin = 'plan-zone')") == 0,
            var zone = try connection.text("SELECT default_value FROM setting WHERE key = 'zone'")
        else { return }
        if zone == "system" { zone = SystemZone.systemDefault().name }
        guard (try? SettingKey.zone.canonical(zone)) == zone, zone != "system" else { return }
        let made =
            [
                // Not an open read from a record (Anki, the phone's tick): its stamp is when the review or the tick
                // was made (years ago, for Anki's first read), not when this device made its plan.
                try connection.integer("SELECT min(stamp_ms) FROM event WHERE received_ms IS NULL AND origin NOT IN ('anki', 'calendar')"),
                try connection.integer("SELECT created_at_ms FROM request ORDER BY id LIMIT 1"), now.milliseconds,
            ]
            .compactMap { $0 }.min() ?? now.milliseconds
        let claim = PlanEvent(
            id: PlannerDatabase.newEventID(), at: Instant(milliseconds: made), origin: PlanEvent.planZoneOrigin,
            change: .settings(set: [SettingChange(.zone, zone)], reset: []),
            stamp: Stamp(milliseconds: made, counter: 0, device: device))
        _ = try applyEvents([claim], now: now, receivedAt: nil)
    }

    /// `event` arrived with an id already recorded: when its content differs (a conflict copy edited, a
    /// forged line), the version whose published line has the greater SHA-256 is kept, the same choice on
    /// every device whatever the order. Said once, and counted in `event_conflict` for `status`. Returns the
    /// version held before when `event` replaced it (the caller derives again what it changed).
    package func settleTwoPayloads(_ event: PlanEvent) throws -> PlanEvent? {
        let stmt = try connection.prepare(
            """
            SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device FROM event WHERE id = ?
            """)
        try stmt.bind([.text(event.id)])
        guard try stmt.step(), var stored = PlannerDatabase.storedEvent(stmt) else { return nil }
        // Compared as published (a device's own settings never travel), each version with the device a
        // database records for it, so the choice is a function of the two versions, whatever their order:
        // one event read from the same outside record by two computers (an Anki review, the phone's tick) is
        // one line, and so is a row recorded with the computer that read it (before calendar ticks were records).
        var arrivedEvent = event
        arrivedEvent.stamp?.device = RecordOpens.recordedDevice(event)
        let storedDevice = RecordOpens.recordedDevice(stored)
        stored.stamp?.device = storedDevice
        if stored.stamp?.device == "" { stored.stamp?.device = arrivedEvent.stamp?.device ?? "" }
        let held = SyncFileText.publishedLine(stored) ?? ""
        let arrived = SyncFileText.publishedLine(arrivedEvent) ?? ""
        guard held != arrived else { return nil }
        let wins = SHA256.digest(Array(arrived.utf8)).lexicographicallyPrecedes(SHA256.digest(Array(held.utf8))) == false
        let known = try connection.integer("SELECT count(*) FROM event_conflict WHERE id = ?", .text(event.id)) ?? 0
        if known == 0 {
            try connection.prepare("INSERT INTO event_conflict (id, first_seen_ms) VALUES (?, ?)")
                .run(.text(event.id), .integer(SystemClock.now().milliseconds))
            warnOnce(
                "the event \(event.id) of device \(event.stamp?.device ?? "?") arrived with two different contents: every device keeps the same one (the greater hash); see planner status"
            )
        }
        guard wins else { return nil }
        let stamp = event.stamp ?? Stamp(milliseconds: event.at.milliseconds)
        try connection.prepare(
            """
            UPDATE event SET at_ms = ?, origin = ?, kind = ?, payload = ?, stamp_ms = ?, stamp_counter = ?, device = ? WHERE id = ?
            """
        ).run(
            .integer(event.at.milliseconds), .text(event.origin), .text(event.change.kind.rawValue),
            .text(PlanEventText.payloadText(event.change)), .integer(stamp.milliseconds),
            .integer(stamp.counter), .text(RecordOpens.recordedDevice(event)), .text(event.id))
        return stored
    }

    /// Derives again, from every event, the registers the replaced versions touched. True when any.
    package func refold(_ replaced: [(old: PlanEvent, new: PlanEvent)]) throws -> Bool {
        guard !replaced.isEmpty else { return false }
        var registers: Set<Register> = []
        for pair in replaced { registers.formUnion(PlannerDatabase.registers(of: [pair.old, pair.new])) }
        for register in registers {
            switch register {
            case .setting(let key): try refoldSetting(key)
            case .skip(let date): try refoldSkip(date)
            case .pause:
                try rebuildPauses()
                try refoldRegister(.pause, kinds: ["pause", "resume"]) { _ in true }
            case .planZone: break
            case .oneOff(let identifier):
                // The register only: the one-off applied stays as it was added (a waiting request is this
                // device's own delivery state, not the shared plan).
                try refoldRegister(register, kinds: ["add"]) { event in
                    if case .add(identifier, _, _, _) = event.change { true } else { false }
                }
            }
        }
        return true
    }

    /// Events of `kinds`, the latest stamp first.
    private func latestFirst(_ kinds: [String]) throws -> [PlanEvent] {
        let stmt = try connection.prepare(
            """
            SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device FROM event
            WHERE kind IN (?, ?) AND origin <> 'plan-zone'
            """)
        try stmt.bind([.text(kinds[0]), .text(kinds.count > 1 ? kinds[1] : kinds[0])])
        var events: [PlanEvent] = []
        while try stmt.step() { if let event = PlannerDatabase.storedEvent(stmt) { events.append(event) } }
        return events.sorted { ($0.stamp ?? Stamp(milliseconds: 0)) > ($1.stamp ?? Stamp(milliseconds: 0)) }
    }

    /// The latest event of `kinds` that `touches` the register, now its winner; none left: the register row goes.
    @discardableResult
    private func refoldRegister(_ register: Register, kinds: [String], _ touches: (PlanEvent) -> Bool) throws -> PlanEvent? {
        guard let winner = try latestFirst(kinds).first(where: touches), let stamp = winner.stamp else {
            try connection.prepare("DELETE FROM register WHERE name = ?").run(.text(register.name))
            return nil
        }
        try connection.prepare(
            """
            INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device, event_id) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter,
                stamp_device = excluded.stamp_device, event_id = excluded.event_id
            """
        ).run(.text(register.name), .integer(stamp.milliseconds), .integer(stamp.counter), .text(stamp.device), .text(winner.id))
        return winner
    }

    private func refoldSetting(_ key: SettingKey) throws {
        let winner = try refoldRegister(.setting(key), kinds: ["settings"]) { event in
            guard case .settings(let set, let reset) = event.change else { return false }
            return reset.contains(key) || set.contains { $0.key == key }
        }
        guard let winner, case .settings(let set, _) = winner.change else {
            // No change of it left: back to its default (the zone: the plan's shared one).
            try connection.prepare("UPDATE setting SET value = default_value WHERE key = ?").run(.text(key.rawValue))
            return
        }
        var value = set.first(where: { $0.key == key })?.value
        if value == nil {
            let stmt = try connection.prepare("SELECT default_value FROM setting WHERE key = ?")
            try stmt.bind([.text(key.rawValue)])
            value = try stmt.step() ? stmt.text(0) : key.defaultValue
        }
        try connection.prepare("UPDATE setting SET value = ?, changed_at_ms = ? WHERE key = ?")
            .run(.text(value ?? key.defaultValue), .integer(winner.at.milliseconds), .text(key.rawValue))
    }

    private func refoldSkip(_ date: LocalDate) throws {
        let winner = try refoldRegister(.skip(date), kinds: ["skip", "unskip"]) { event in
            switch event.change {
            case .skip(let dates, _), .unskip(let dates): dates.contains(date)
            default: false
            }
        }
        switch winner?.change {
        case .skip(_, let reason):
            try connection.prepare(
                """
                INSERT INTO skipped_date (local_date, reason, skipped_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (local_date) DO UPDATE SET reason = excluded.reason, skipped_at_ms = excluded.skipped_at_ms, removed_at_ms = NULL
                """
            ).run(.text(date.description), reason.map { .text($0) } ?? .null, .integer(winner!.at.milliseconds))
        case .unskip:
            try connection.prepare("UPDATE skipped_date SET removed_at_ms = ? WHERE local_date = ? AND removed_at_ms IS NULL")
                .run(.integer(winner!.at.milliseconds), .text(date.description))
        default:
            // No skip or unskip of that date left: it was never skipped.
            try connection.prepare("DELETE FROM skipped_date WHERE local_date = ?").run(.text(date.description))
        }
    }
}
