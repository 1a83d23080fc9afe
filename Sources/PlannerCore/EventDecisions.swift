/// The plan as events find it, read inside the transaction that applies them.
public struct PlanFacts: Sendable {
    /// The stored settings (`key → value` text, as `PlanSettings.reading` takes them).
    public var settingValues: [String: String]
    /// Each key's `default_value` row, where it differs from the declared default (the `zone` a plan was
    /// made in); keys without a row take their declared default.
    public var settingDefaults: [String: String]
    public var state: PlanState
    /// The stamp of the last change each register took (absent: none recorded yet).
    public var stamps: [Register: Stamp]
    /// Each open's study day by event id, as the settings in force at its stamp give it (the store folds
    /// the history: `DayRuleHistory`); an open without one takes the day the settings after the batch give.
    public var openDays: [String: (date: LocalDate, zone: Zone)] = [:]
    /// The id of the event whose `experiment` value won so far (`register`): measurement mode's seed.
    public var experimentSeed: String?
    /// The record the `usual-time` schedule decides from (`UsualTime.plan`): each study day's first open and
    /// the skipped days before today. Read only when the settings (before or after the batch) may ask for it.
    public var usualTimeOpens: [LocalDate: Instant] = [:]
    public var usualTimeSkipped: Set<LocalDate> = []

    public init(
        settingValues: [String: String], settingDefaults: [String: String] = [:], state: PlanState,
        stamps: [Register: Stamp] = [:]
    ) {
        self.settingValues = settingValues
        self.settingDefaults = settingDefaults
        self.state = state
        self.stamps = stamps
    }
}

/// A skip or its removal of one date, at the instant of the event that made it.
public struct SkipChange: Equatable, Sendable {
    public var date: LocalDate
    /// nil: the skip is removed.
    public var skipped: Bool
    public var reason: String?
    public var at: Instant
}

/// At `at`, the pause in force (or to come) ends, and `starts` (if any) begins.
public struct PauseChange: Equatable, Sendable {
    public var at: Instant
    public var starts: Pause?
}

/// An open applied: its event, its day, and that day's study slots it cancels.
public struct AppliedOpen: Equatable, Sendable {
    public var event: PlanEvent
    public var date: LocalDate
    public var cancelled: [PendingRequest]
}

/// What applying events changes, as values the store writes in the same transaction.
public struct EventEffect: Sendable {
    /// Settings rows to write (only values that change), each with the instant of the change that won.
    public var settings: [SettingChange] = []
    public var settingTimes: [SettingKey: Instant] = [:]
    public var skips: [SkipChange] = []
    public var pauses: [PauseChange] = []
    public var opens: [AppliedOpen] = []
    /// Snoozes to add as one-offs (the store leaves out one of a day opened by then).
    public var snoozes: [PlanEvent] = []
    /// One-offs to add (`PlanChange.add`), each the latest of its identifier so far, in the batch's order.
    public var adds: [PlanEvent] = []
    /// Registers a change won, with the stamp and event that won it.
    public var stamped: [Register: (stamp: Stamp, event: String)] = [:]
    /// Changes left out because the register already holds a later one (another device's).
    public var superseded = 0
    /// The plan made again with the changes: what `refill` would do at the decision's instant; nothing when
    /// the events change no rule of the plan (`refills` false).
    public var refill: RefillDecision
    /// Whether the events change a rule of the plan (`changeThePlan`), so that `refill` is to be applied.
    public var refills = true
    /// The settings after the changes.
    public var plan: PlanSettings

    /// The one open, as `planner open` reports it.
    public var open: OpenDecision? {
        opens.first.map { OpenDecision(date: $0.date, cancelled: $0.cancelled, refill: refill) }
    }
    public var skipped: [LocalDate] { skips.filter(\.skipped).map(\.date) }
    public var unskipped: [LocalDate] { skips.filter { !$0.skipped }.map(\.date) }
    /// A pause (or the one to come) ended.
    public var endsPause = false
    public var startsPause: Pause? { pauses.last?.starts }
}

/// Whether `events` change a rule of the plan (settings, skips, pauses, opens, snoozes). One-offs alone do
/// not: the slots stay as they are, as `add` always left them, and each one-off takes its place among the 64
/// by itself (`decideAdd`). The store reads no plan state for such a batch.
public func changeThePlan(_ events: [PlanEvent]) -> Bool {
    events.isEmpty || events.contains { if case .add = $0.change { false } else { true } }
}

/// Applies one event to the plan at its own instant: the one place every change a person or program makes
/// goes through. `zone` turns a `zone` setting into the zone (the tz database is the caller's).
public func decideEvent(_ event: PlanEvent, facts: PlanFacts, zone resolve: (String) -> Zone) -> EventEffect {
    decideEvents([event], facts: facts, now: event.at, zone: resolve)
}

/// Applies events (this device's one, or a batch from other devices, in any order) and plans again at `now`.
/// Settings, skips and the pause are last-writer-wins by `stamp` (a change older than the one a register
/// holds is left out), opens a union: so every arrival order ends in the same settings, skipped dates, pause
/// and opened days. An event's stamp nil: this device's, newer than anything (the store stamps it so).
public func decideEvents(_ events: [PlanEvent], facts: PlanFacts, now: Instant, zone resolve: (String) -> Zone) -> EventEffect {
    var values = facts.settingValues
    var state = facts.state
    var stamps = facts.stamps
    var effect = EventEffect(refill: RefillDecision(), plan: .standard)
    var grace: Int64?
    var changedSettings: [SettingKey: String] = [:]
    var opens: [PlanEvent] = []
    var experimentSeed = facts.experimentSeed

    /// Whether `event` wins `register`; if so it is recorded as its latest change.
    func wins(_ register: Register, _ event: PlanEvent) -> Bool {
        guard let stamp = event.stamp else { return true }
        if let held = stamps[register], held >= stamp {
            effect.superseded += 1
            return false
        }
        stamps[register] = stamp
        effect.stamped[register] = (stamp, event.id)
        return true
    }

    for event in events {
        switch event.change {
        case .open(_, _, let graceMilliseconds):
            if events.count == 1 { grace = graceMilliseconds }
            opens.append(event)
        case .skip(let dates, let reason):
            for date in dates where wins(.skip(date), event) {
                effect.skips.append(SkipChange(date: date, skipped: true, reason: reason, at: event.at))
                state.exclusions.skippedDates.insert(date)
            }
        case .unskip(let dates):
            for date in dates where wins(.skip(date), event) {
                effect.skips.append(SkipChange(date: date, skipped: false, at: event.at))
                state.exclusions.skippedDates.remove(date)
            }
        case .pause(let until):
            guard wins(.pause, event) else { continue }
            let pause = Pause(since: event.at, until: until)
            if state.exclusions.pause != nil { effect.endsPause = true }
            effect.pauses.append(PauseChange(at: event.at, starts: pause))
            state.exclusions.pause = pause
        case .snooze:
            effect.snoozes.append(event)
        case .add(let identifier, _, _, _):
            if wins(.oneOff(identifier), event) { effect.adds.append(event) }
        case .resume:
            guard wins(.pause, event) else { continue }
            if state.exclusions.pause != nil { effect.endsPause = true }
            effect.pauses.append(PauseChange(at: event.at, starts: nil))
            state.exclusions.pause = nil
        case .settings(let set, let reset):
            // The plan's shared zone is settled by the store before the batch is decided (`SharedZone`).
            if event.isPlanZoneClaim { continue }
            let changes =
                set.map { ($0.key, $0.value) }
                + reset.map { ($0, facts.settingDefaults[$0.rawValue] ?? $0.defaultValue) }
            for (key, value) in changes where wins(.setting(key), event) {
                if key == .experiment { experimentSeed = event.id }
                values[key.rawValue] = value
                changedSettings[key] = value
                effect.settingTimes[key] = event.at
            }
        }
    }
    effect.settings = SettingKey.allCases.compactMap { key in
        guard let value = changedSettings[key], value != facts.settingValues[key.rawValue] else { return nil }
        return SettingChange(key, value)
    }
    var plan = PlanSettings.reading(values).settings
    plan.experimentSeed = plan.experiment ? experimentSeed : nil
    effect.plan = plan
    let zone = resolve(plan.zone)
    if plan.usualTime {
        var skipped = facts.usualTimeSkipped
        for change in effect.skips { if change.skipped { skipped.insert(change.date) } else { skipped.remove(change.date) } }
        plan.schedule.usual = UsualTime.plan(settings: plan, zone: zone, now: now, firstOpens: facts.usualTimeOpens, skipped: skipped)
        effect.plan = plan
    }
    let policy = PlanPolicy(graceMilliseconds: grace ?? plan.graceMilliseconds)
    // An open closes its study day (`closeStudyDay`), the plan's day: the same on every device that shares
    // the plan's zone. The days with a slot waiting are found once: years of Anki's past days in one
    // batch find none, and each need not walk the waiting requests to find so.
    let waitingDays = Set(state.pending.lazy.filter { $0.kind == .slot }.map(\.localDate))
    for event in opens {
        let date = facts.openDays[event.id]?.date ?? plan.schedule.studyDay(at: event.at, in: zone)
        let cancelled = closeStudyDay(date, in: &state, waitingDays: waitingDays)
        effect.opens.append(AppliedOpen(event: event, date: date, cancelled: cancelled))
    }
    effect.refills = changeThePlan(events)
    if effect.refills { effect.refill = decideRefill(now: now, zone: zone, policy: policy, state: state, plan: plan) }
    return effect
}
