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
    /// The forgiving study score, 0...1 (`StudyScore`): today counts once opened.
    public var score: Double
}

/// A score that forgives: Loop Habit Tracker's (iSoron/uhabits, `Score.kt`, `ScoreList.kt`). Every day from
/// the first, `S = S' * m + v * (1 - m)`, where `v` is the share opened: the days with an open among the last
/// 14 over twice the plan's study days a week, at most 1 (Loop's rolling sum for a habit of k days a week) —
/// so a Saturday off on a Monday-to-Friday plan costs nothing, and a day missed lowers `v` for two weeks. A
/// day skipped or paused all day is as if it had not been: neither the score nor the window sees it. Today
/// counts once it is opened (it is not over). Where a streak falls to 0 after one missed day, the score loses
/// a few points, and a long habit keeps most of its score.
public enum StudyScore {
    /// `m = 0.5^(sqrt(f) / 13)` with `f` the study days a week over 7: half of the score goes after 15.4
    /// days of no study on a Monday-to-Friday plan, 13 with every day. Indexed by the study days a week (1-7),
    /// the values to the last digit (PlannerCore imports no math library; StudyScoreTests compares with `pow`).
    static let multipliers: [Double] = [
        0.980049015270599, 0.971902088356382, 0.9656966817138625, 0.9604960723328706, 0.9559374552530502,
        0.951834775158834, 0.9480775143391714,
    ]

    /// The multiplier for `studyDaysPerWeek` (1-7; none: 1, the score never moves).
    public static func multiplier(studyDaysPerWeek: Int) -> Double {
        (1...7).contains(studyDaysPerWeek) ? multipliers[studyDaysPerWeek - 1] : 1
    }

    /// The score after one more day whose week's share opened is `share` (0...1).
    public static func next(_ score: Double, share: Double, multiplier m: Double) -> Double {
        score * m + min(max(share, 0), 1) * (1 - m)
    }
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

    var current = 0
    var longest = 0
    var run = 0
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
    let score = studyScore(through: today, input: input)
    return StudyRecord(days: days, currentStreak: current, longestStreak: longest, score: score)
}

/// The forgiving score (`StudyScore`) from the record's first date through `today`.
func studyScore(through today: LocalDate, input: RecordInput) -> Double {
    guard let first = input.firstDate, first <= today else { return 0 }
    let perWeek = (1...7).filter { input.schedule.days.contains(isoWeekday: $0) }.count
    guard perWeek > 0 else { return 0 }
    let m = StudyScore.multiplier(studyDaysPerWeek: perWeek)
    func opened(_ date: LocalDate) -> Bool { date >= first && input.days[date]?.firstOpen != nil }
    /// Skipped, or a pause over the whole of it (its slots on a plan day; midnight to midnight on another).
    func frozen(_ date: LocalDate) -> Bool {
        if input.skippedDates.contains(date) { return true }
        guard !input.pauses.isEmpty else { return false }
        if !input.schedule.readings(on: date).isEmpty { return !input.isStudyDay(date) }
        // Where midnight does not exist (a change of offset at 00:00), the day starts at 01:00.
        func dayStart(_ day: LocalDate) -> Instant? {
            input.zone.instant(for: LocalDateTime(date: day, hour: 0, minute: 0))
                ?? input.zone.instant(for: LocalDateTime(date: day, hour: 1, minute: 0))
        }
        guard let start = dayStart(date), let end = dayStart(date.adding(days: 1)) else { return false }
        let last = Instant(milliseconds: end.milliseconds - 1)
        return input.pauses.contains { $0.covers(start) && $0.covers(last) }
    }
    // Loop for a habit of k days a week: the share is the opens among the last 14 days counted over 2k (two
    // weeks, so one missed day weighs half as much for twice as long), at most 1. A frozen day is left out
    // of the window as well as the score: it is as if it had not been.
    var score = 0.0
    var window: [Bool] = []
    var d = first
    while d <= today {
        if d == today && !opened(d) { break }
        if !frozen(d) {
            window.append(opened(d))
            if window.count > 14 { window.removeFirst() }
            let opens = window.reduce(0) { $0 + ($1 ? 1 : 0) }
            score = StudyScore.next(score, share: Double(opens) / Double(2 * perWeek), multiplier: m)
        }
        d = d.adding(days: 1)
    }
    return score
}
