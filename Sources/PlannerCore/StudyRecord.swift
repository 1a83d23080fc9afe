/// How a person studied, day by day: the pure part of `planner stats`. The store hands over what the
/// database holds (opens, per-day delivery counts, skips, pauses) and the plan's settings; everything
/// here is a function of those values and `today`.

/// What the database recorded for one local date.
public struct RecordedDay: Equatable, Sendable {
    /// The first app-open that day (login `open` or any other).
    public var firstOpen: Instant?
    /// What made that first open (`open`, `study`, `answer`, `calendar`, `anki`…; nil: recorded before origins).
    public var firstOpenOrigin: String?
    /// Study reminders shown that day before the first open (all of them when there was none).
    public var remindersBeforeOpen: Int
    /// Study slots of that day recorded `missed` (never shown in time).
    public var missed: Int
    /// Reminders snoozed that day.
    public var snoozed: Int

    public init(firstOpen: Instant? = nil, firstOpenOrigin: String? = nil, remindersBeforeOpen: Int = 0, missed: Int = 0, snoozed: Int = 0) {
        self.firstOpen = firstOpen
        self.firstOpenOrigin = firstOpenOrigin
        self.remindersBeforeOpen = remindersBeforeOpen
        self.missed = missed
        self.snoozed = snoozed
    }
}

/// The inputs of a study record: the plan in force and what happened.
public struct RecordInput: Sendable {
    public var schedule: Schedule
    public var zone: Zone
    /// The first date the planner planned or saw an open; earlier dates are not study days.
    public var firstDate: LocalDate?
    public var skippedDates: Set<LocalDate>
    /// Every pause as it really ran: `until` is the earlier of its planned end and `resume`.
    public var pauses: [Pause]
    public var days: [LocalDate: RecordedDay]

    public init(
        schedule: Schedule, zone: Zone, firstDate: LocalDate?, skippedDates: Set<LocalDate> = [],
        pauses: [Pause] = [], days: [LocalDate: RecordedDay] = [:]
    ) {
        self.schedule = schedule
        self.zone = zone
        self.firstDate = firstDate
        self.skippedDates = skippedDates
        self.pauses = pauses
        self.days = days
    }

    /// Whether `date` was a day to study by the plan: in the record, one of the schedule's days, not
    /// skipped, and not paused through all of its slots. (A pause over part of a day leaves it a study day.)
    public func isStudyDay(_ date: LocalDate) -> Bool {
        guard let firstDate, date >= firstDate, !skippedDates.contains(date) else { return false }
        let readings = schedule.readings(on: date)
        // Without pauses one existing slot time is enough (cheap over ten years of days).
        if pauses.isEmpty { return readings.contains { zone.instant(for: $0) != nil } }
        let instants = readings.compactMap { zone.instant(for: $0) }
        guard !instants.isEmpty else { return false }
        return !instants.allSatisfy { instant in pauses.contains { $0.covers(instant) } }
    }
}

/// How soon a day was opened: the heatmap's cell.
public enum DayMark: String, Sendable, CaseIterable {
    case openedBeforeAnyReminder, openedAfterOneOrTwo, openedAfterThreeOrMore, notOpened, notAStudyDay, notOverYet, ahead
}

public struct StudyDay: Equatable, Sendable {
    public var date: LocalDate
    public var isStudyDay: Bool
    public var recorded: RecordedDay
    public var mark: DayMark
}

public struct StudyRecord: Equatable, Sendable {
    public var days: [StudyDay]
    public var currentStreak: Int
    public var longestStreak: Int
}

/// The record from `from` through `through` (dates after `today` are marked `ahead`), and the streaks
/// over everything from the first date of the record to `today`.
///
/// A streak counts consecutive study days each with an open. Days that are not study days neither break
/// nor extend it; today, not yet opened, does not break it (the day is not over).
public func studyRecord(from: LocalDate, through: LocalDate, today: LocalDate, input: RecordInput) -> StudyRecord {
    func mark(_ date: LocalDate, studyDay: Bool, _ day: RecordedDay) -> DayMark {
        if date > today { return .ahead }
        guard studyDay else { return .notAStudyDay }
        guard day.firstOpen != nil else { return date == today ? .notOverYet : .notOpened }
        switch day.remindersBeforeOpen {
        case 0: return .openedBeforeAnyReminder
        case 1...2: return .openedAfterOneOrTwo
        default: return .openedAfterThreeOrMore
        }
    }
    // Whether each date up to today is a study day, decided once (it asks the zone for slot instants).
    let earliest = min(from, input.firstDate ?? from)
    var studyDays: [Bool] = []
    if earliest <= today {
        studyDays.reserveCapacity(Int(today.dayNumber - earliest.dayNumber) + 1)
        var d = earliest
        while d <= today {
            studyDays.append(input.isStudyDay(d))
            d = d.adding(days: 1)
        }
    }
    func isStudyDay(_ date: LocalDate) -> Bool {
        date >= earliest && date <= today && studyDays[Int(date.dayNumber - earliest.dayNumber)]
    }

    var days: [StudyDay] = []
    var date = from
    while date <= through {
        let recorded = input.days[date] ?? RecordedDay()
        let study = isStudyDay(date)
        days.append(StudyDay(date: date, isStudyDay: study, recorded: recorded, mark: mark(date, studyDay: study, recorded)))
        date = date.adding(days: 1)
    }

    var current = 0, longest = 0, run = 0
    if let first = input.firstDate, first <= today {
        var d = first
        while d <= today {
            if isStudyDay(d) {
                if input.days[d]?.firstOpen != nil {
                    run += 1
                } else if d != today {
                    run = 0
                }
                longest = max(longest, run)
            }
            d = d.adding(days: 1)
        }
        current = run
    }
    return StudyRecord(days: days, currentStreak: current, longestStreak: longest)
}
