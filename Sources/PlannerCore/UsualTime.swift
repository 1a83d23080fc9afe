/// The opt-in `usual-time` schedule (`config set schedule usual-time`): the simulator's policy B3 with the
/// guards its map asks for (B3g, docs/nudging.md). With at least 10 studied days among the last 20 study
/// days, three reminders: 15 minutes before your usual start (the median of your last 14 first opens), an
/// hour after that, and a last call 15 minutes before the window's end; otherwise, or when those 14 starts
/// spread more than 90 minutes (standard deviation), or the usual time is outside the window, the grid.
/// Only times inside the window are kept.
///
/// Pure: a study day's decision is a function of the shared record before it (each study day's first open,
/// the skipped days) and the settings, so every device and the phone's calendar plan the same slots. The
/// decision made for today holds for the days planned ahead too (their own record is not written yet);
/// each is decided again when it comes. `bench/nudges/sim.py`'s `usual_time_minutes` is the reference it is
/// replayed against (`UsualTimeTests`).
public enum UsualTime {
    public static let studiedDaysNeeded = 10
    public static let lookBack = 20
    public static let startsUsed = 14
    public static let maximumSpreadMinutes = 90.0

    /// A study day's decision: its reminders' minutes (from the study day's midnight), or nil for the grid,
    /// and why, in words `plan` and `status` print. Stored inline, without an array or a string: it rides in
    /// every `Schedule`, which every planning loop copies.
    public struct Decision: Equatable, Sendable {
        public enum Reason: Equatable, Sendable {
            case usual(starts: Int)
            case fewStudied(Int)
            case spread(starts: Int, minutes: Int)
            case outside
        }
        public var reason: Reason
        public var usual: Int?
        private var count = 0
        private var first = 0, second = 0, third = 0
        private var lastCall = false

        init(reason: Reason, usual: Int?, minutes: [Int] = [], lastCall: Bool = false) {
            self.reason = reason
            self.usual = usual
            count = minutes.count
            if count > 0 { first = minutes[0] }
            if count > 1 { second = minutes[1] }
            if count > 2 { third = minutes[2] }
            self.lastCall = lastCall
        }

        /// The reminders' minutes; nil: the grid.
        public var minutes: [Int]? {
            guard case .usual = reason else { return nil }
            return Array([first, second, third].prefix(count))
        }

        public var why: String {
            switch reason {
            case .fewStudied(let studied):
                return "the grid: \(studied) studied day\(studied == 1 ? "" : "s") in the last \(lookBack), fewer than \(studiedDaysNeeded)"
            case .spread(let starts, let minutes):
                return "the grid: your last \(starts) starts spread \(minutes) minutes, more than \(Int(maximumSpreadMinutes))"
            case .outside:
                return "the grid: your usual start \(clock(usual ?? 0)) is outside the window"
            case .usual(let starts):
                let all = minutes ?? []
                let names = all.enumerated().map { i, m in lastCall && i == all.count - 1 ? "last call \(clock(m))" : clock(m) }
                return "usual start \(clock(usual ?? 0)) from your last \(starts) starts: \(names.joined(separator: ", "))"
            }
        }
    }

    /// The decision for the study day `day`: `firstOpens` holds each study day's first open as minutes from
    /// that study day's midnight (a day without one was not studied), `skipped` the skipped days (not study
    /// days: they neither count for nor against).
    public static func decide(day: LocalDate, firstOpens: [LocalDate: Int], skipped: Set<LocalDate>, schedule: Schedule) -> Decision {
        var studied = 0
        var seen = 0
        var starts: [Int] = []
        var date = day
        // Back over study days; the starts can reach further back than the 20 (the last 14 studied days).
        for _ in 0..<732 where seen < lookBack || starts.count < startsUsed {
            date = date.adding(days: -1)
            guard schedule.days.contains(isoWeekday: date.isoWeekday), !skipped.contains(date) else { continue }
            let start = firstOpens[date]
            if seen < lookBack {
                seen += 1
                if start != nil { studied += 1 }
            }
            if let start, starts.count < startsUsed { starts.append(start) }
        }
        return decide(studied: studied, starts: starts, schedule: schedule)
    }

    /// The rule on what it reads: studied days among the last 20 study days, the last 14 starts (any order).
    public static func decide(studied: Int, starts: [Int], schedule: Schedule) -> Decision {
        guard studied >= studiedDaysNeeded else { return Decision(reason: .fewStudied(studied), usual: nil) }
        let sorted = starts.sorted()
        let middle = sorted.count / 2
        // The median, rounded down to a minute (the reference does the same).
        let usual = sorted.count % 2 == 1 ? sorted[middle] : floorDivide(sorted[middle - 1] + sorted[middle], 2)
        let mean = Double(sorted.reduce(0, +)) / Double(sorted.count)
        let spread = (sorted.map { (Double($0) - mean) * (Double($0) - mean) }.reduce(0, +) / Double(sorted.count)).squareRoot()
        let first = schedule.startMinute
        let last = schedule.lastMinute
        guard spread <= maximumSpreadMinutes else {
            return Decision(reason: .spread(starts: sorted.count, minutes: Int(spread.rounded())), usual: usual)
        }
        guard usual >= first, usual <= last else { return Decision(reason: .outside, usual: usual) }
        let lastCall = last - 15
        // Ascending, and distinct: the first two are before the last call.
        let minutes = ([usual - 15, usual + 45].filter { $0 < lastCall } + [lastCall]).filter { $0 >= first && $0 <= last }
        return Decision(reason: .usual(starts: sorted.count), usual: usual, minutes: minutes, lastCall: minutes.last == lastCall)
    }

    static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// `19:40`; past midnight of a study day across it, the next date's time.
    static func clock(_ minute: Int) -> String {
        let m = ((minute % 1440) + 1440) % 1440
        return "\(m / 60 < 10 ? "0" : "")\(m / 60):\(m % 60 < 10 ? "0" : "")\(m % 60)"
    }

    /// The minute of an open at `local` in the study day `day`, from that day's midnight (past 1440 when it fell
    /// on the next date, below 0 on the date before: an open read in another zone than the one it was made in).
    public static func minute(of local: LocalDateTime, in day: LocalDate) -> Int {
        local.hour * 60 + local.minute + Int(local.date.dayNumber - day.dayNumber) * 1440
    }
}

/// The usual-time decision a schedule follows from a study day on (`Schedule.usual`): its minutes for that day
/// and every later one (nil minutes: the grid).
public struct UsualTimePlan: Equatable, Sendable {
    public var from: LocalDate
    public var decision: UsualTime.Decision

    public init(from: LocalDate, decision: UsualTime.Decision) {
        self.from = from
        self.decision = decision
    }
}

extension UsualTime {
    /// The plan `settings` make at `now` when they ask for `usual-time`: today's decision from the record
    /// (`firstOpens`: each study day's first open; `skipped`), for today and the days ahead. nil: the grid.
    public static func plan(
        settings: PlanSettings, zone: Zone, now: Instant, firstOpens: [LocalDate: Instant], skipped: Set<LocalDate>
    ) -> UsualTimePlan? {
        guard settings.usualTime else { return nil }
        let schedule = settings.schedule
        let today = schedule.studyDay(at: now, in: zone)
        var minutes: [LocalDate: Int] = [:]
        for (day, instant) in firstOpens where day < today { minutes[day] = minute(of: zone.local(instant), in: day) }
        return UsualTimePlan(from: today, decision: decide(day: today, firstOpens: minutes, skipped: skipped, schedule: schedule))
    }

    /// How far back the record is read: 20 study days, and the last 14 studied ones, on one study day a week
    /// with half of them studied (28 weeks) and more.
    public static let recordDays = 400
}
