/// The plan as an event finds it, read inside the transaction that applies it.
public struct PlanFacts: Sendable {
    /// The stored settings (`key → value` text, as `PlanSettings.reading` takes them).
    public var settingValues: [String: String]
    /// Each key's `default_value` row, where it differs from the declared default (the `zone` a plan was
    /// made in); keys without a row take their declared default.
    public var settingDefaults: [String: String]
    public var state: PlanState

    public init(settingValues: [String: String], settingDefaults: [String: String] = [:], state: PlanState) {
        self.settingValues = settingValues
        self.settingDefaults = settingDefaults
        self.state = state
    }
}

/// What applying an event changes, as values the store writes in the same transaction.
public struct EventEffect: Sendable {
    /// Settings rows to write (only values that change).
    public var settings: [SettingChange] = []
    public var skipped: [LocalDate] = []
    public var skipReason: String?
    public var unskipped: [LocalDate] = []
    /// A pause in force (or to come) ends at the event's instant.
    public var endsPause = false
    public var startsPause: Pause?
    /// An open: its day and the study slots it cancels.
    public var open: OpenDecision?
    /// The plan made again with the change: what `refill` would do now.
    public var refill: RefillDecision
    /// The settings after the change, and what they said the zone is.
    public var plan: PlanSettings
}

/// Applies one event to the plan: the one place every change a person or program makes goes through.
/// `zone` turns a `zone` setting into the zone (the tz database is the caller's); `policy` is the plan's
/// unless the event says otherwise (an open's `--grace`).
public func decideEvent(_ event: PlanEvent, facts: PlanFacts, zone resolve: (String) -> Zone) -> EventEffect {
    let now = event.at
    var values = facts.settingValues
    var state = facts.state
    var effect = EventEffect(refill: RefillDecision(), plan: .standard)
    var grace: Int64?
    switch event.change {
    case .open(_, _, let graceMilliseconds):
        grace = graceMilliseconds
    case .skip(let dates, let reason):
        effect.skipped = dates
        effect.skipReason = reason
        state.exclusions.skippedDates.formUnion(dates)
    case .unskip(let dates):
        effect.unskipped = dates
        state.exclusions.skippedDates.subtract(dates)
    case .pause(let until):
        effect.endsPause = state.exclusions.pause != nil
        let pause = Pause(since: now, until: until)
        effect.startsPause = pause
        state.exclusions.pause = pause
    case .resume:
        effect.endsPause = state.exclusions.pause != nil
        state.exclusions.pause = nil
    case .settings(let set, let reset):
        for change in set where values[change.key.rawValue] != change.value {
            effect.settings.append(change)
            values[change.key.rawValue] = change.value
        }
        for key in reset {
            let standard = facts.settingDefaults[key.rawValue] ?? key.defaultValue
            guard values[key.rawValue] != standard else { continue }
            effect.settings.append(SettingChange(key, standard))
            values[key.rawValue] = standard
        }
    }
    let plan = PlanSettings.reading(values).settings
    effect.plan = plan
    let zone = resolve(plan.zone)
    let policy = PlanPolicy(graceMilliseconds: grace ?? plan.graceMilliseconds)
    if case .open = event.change {
        let open = decideOpen(now: now, zone: zone, policy: policy, state: state, plan: plan)
        effect.open = open
        effect.refill = open.refill
    } else {
        effect.refill = decideRefill(now: now, zone: zone, policy: policy, state: state, plan: plan)
    }
    return effect
}
