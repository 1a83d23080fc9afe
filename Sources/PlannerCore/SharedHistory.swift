/// What devices share is a function of the shared history: the set of events, ordered by stamp. An open's
/// study day is the one the settings in force *at its stamp* give (not those the device applying it held
/// then), and the pause history is the pause and resume events in stamp order. These are the pure folds;
/// the store feeds them the events and writes what they derive.

/// One settings event, as far as the study day is concerned: the keys it set (a value) or reset (nil).
public struct SettingsStep: Sendable, Equatable {
    public var stamp: Stamp
    public var values: [SettingKey: String?]

    public init(stamp: Stamp, values: [SettingKey: String?]) {
        self.stamp = stamp
        self.values = values
    }

    /// The day-rule part of a settings change (nil when it touches none of those keys).
    public init?(stamp: Stamp, change: PlanChange) {
        guard case .settings(let set, let reset) = change else { return nil }
        var values: [SettingKey: String?] = [:]
        for key in reset where DayRuleHistory.keys.contains(key) { values[key] = .some(nil) }
        for change in set where DayRuleHistory.keys.contains(change.key) { values[change.key] = .some(change.value) }
        guard !values.isEmpty else { return nil }
        self.init(stamp: stamp, values: values)
    }
}

/// The settings that decide which study day an instant belongs to (`Schedule.studyDay`: the zone, the
/// window and the interval), as they stood at any stamp of the history.
public struct DayRuleHistory: Sendable {
    /// The keys `Schedule.studyDay` depends on.
    public static let keys: Set<SettingKey> = [.zone, .window, .interval]

    /// Settings changes touching those keys, in stamp order.
    public let steps: [SettingsStep]
    /// The values in force after each step (`states[0]`: before any), so a stamp's values are one binary
    /// search away: re-deriving a year of opens stays linear in the opens.
    let states: [[SettingKey: String]]

    /// `base`: each key's value before any change of it in `steps`; `defaults`: what a reset returns a key
    /// to (the zone: the plan's shared zone).
    public init(steps: [SettingsStep], base: [SettingKey: String], defaults: [SettingKey: String]) {
        self.steps = steps.sorted { $0.stamp < $1.stamp }
        var states = [base]
        states.reserveCapacity(self.steps.count + 1)
        var values = base
        for step in self.steps {
            for (key, value) in step.values { values[key] = value ?? defaults[key] ?? key.defaultValue }
            states.append(values)
        }
        self.states = states
    }

    /// Which state is in force just before `stamp`: the number of steps with a smaller stamp.
    func stateIndex(before stamp: Stamp) -> Int {
        var low = 0
        var high = steps.count
        while low < high {
            let middle = (low + high) / 2
            if steps[middle].stamp < stamp { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The day-rule values in force just before `stamp` (the last change of each key with a smaller stamp).
    public func values(before stamp: Stamp) -> [SettingKey: String] { states[stateIndex(before: stamp)] }

    /// Study days of many opens, each state's schedule and zone made once.
    public struct StudyDays {
        let history: DayRuleHistory
        let resolve: (String) -> Zone
        var rules: [Int: (Schedule, Zone)] = [:]
        /// By the rule's text: a history switching between a few windows and zones parses each once.
        var parsed: [String: (Schedule, Zone)] = [:]

        public init(_ history: DayRuleHistory, resolve: @escaping (String) -> Zone) {
            self.history = history
            self.resolve = resolve
        }

        public mutating func of(at: Instant, stamp: Stamp) -> (date: LocalDate, zone: Zone) {
            let (schedule, zone) = rule(history.stateIndex(before: stamp))
            return (schedule.studyDay(at: at, in: zone), zone)
        }

        /// The rule of each stretch of time, oldest first, for a reader that walks instants stamped
        /// `(ms, 0, "")` (Anki's review log): the stretch covers the milliseconds after `after` through
        /// `through`, in which such a stamp comes after the same changes. Empty stretches are left out.
        public mutating func periods() -> [(after: Int64, through: Int64, schedule: Schedule, zone: Zone)] {
            var periods: [(after: Int64, through: Int64, schedule: Schedule, zone: Zone)] = []
            let bounds = history.steps.map(\.stamp.milliseconds)
            for index in 0...bounds.count {
                let after = index == 0 ? Int64.min : bounds[index - 1]
                let through = index == bounds.count ? Int64.max : bounds[index]
                guard after < through else { continue }
                let (schedule, zone) = rule(index)
                periods.append((after, through, schedule, zone))
            }
            return periods
        }

        mutating func rule(_ index: Int) -> (Schedule, Zone) {
            let (schedule, zone): (Schedule, Zone)
            if let known = rules[index] {
                (schedule, zone) = known
            } else {
                let values = history.states[index]
                // Only the keys the rule needs are read: the rest of the settings do not move a day.
                var text: [String: String] = [:]
                for key in DayRuleHistory.keys { text[key.rawValue] = values[key] ?? key.defaultValue }
                let name = (text["zone"] ?? "") + " " + (text["window"] ?? "") + " " + (text["interval"] ?? "")
                if let known = parsed[name] {
                    (schedule, zone) = known
                } else {
                    let plan = PlanSettings.reading(text).settings
                    (schedule, zone) = (plan.schedule, resolve(plan.zone))
                    parsed[name] = (schedule, zone)
                }
                rules[index] = (schedule, zone)
            }
            return (schedule, zone)
        }
    }
}

/// One event of the pause register: a pause (until nil: until a resume) or a resume.
public struct PauseStep: Sendable, Equatable {
    public var eventID: String
    public var stamp: Stamp
    public var at: Instant
    /// nil: a resume.
    public var pause: Pause?

    public init(eventID: String, stamp: Stamp, at: Instant, pause: Pause?) {
        self.eventID = eventID
        self.stamp = stamp
        self.at = at
        self.pause = pause
    }
}

/// One row of the pause history as the events give it.
public struct PauseRow: Sendable, Equatable {
    public var eventID: String
    public var since: Instant
    public var until: Instant?
    /// When the next pause or resume (in stamp order) ended it early; nil: it ran (or runs) its course.
    public var endedAt: Instant?
}

/// The pause history: every pause event is a row, ended early by the next pause or resume in stamp order
/// when that came before its end. The same on every device that holds the same events, whatever order
/// they arrived in.
public func pauseHistory(_ steps: [PauseStep]) -> [PauseRow] {
    let ordered = steps.sorted { $0.stamp < $1.stamp }
    var rows: [PauseRow] = []
    for (index, step) in ordered.enumerated() {
        guard let pause = step.pause else { continue }
        var row = PauseRow(eventID: step.eventID, since: pause.since, until: pause.until, endedAt: nil)
        if index + 1 < ordered.count {
            let next = ordered[index + 1].at
            // As `resume` ends a pause: only one not over yet (a clock behind never ends it before it began).
            if pause.until.map({ $0 > next }) ?? true { row.endedAt = max(next, pause.since) }
        }
        rows.append(row)
    }
    return rows
}
