/// Anki's review log as opens: the rules, as pure functions of the reviews, the plan and `now`.
///
/// Anki records every answered card as a `revlog` row whose id is the review's instant in epoch
/// milliseconds. A study day with a review was started: the planner records one open at that day's first
/// review, origin `anki`, through the same event path as every open. Which day a review belongs to is the
/// planner's own rule (`Schedule.studyDay`), not Anki's "next day starts at": one rule for every open,
/// whatever made it, on every device and in the phone's calendar.
public enum AnkiReviews {
    /// The origin of an open read from Anki's review log.
    public static let origin = "anki"

    /// The schema versions of Anki's collection (`col.ver`) whose `revlog` the planner knows: 11 (Anki
    /// 2.1.0) to 18 (Anki 2.1.50 and later, 26.9 included). A newer one is refused with one line.
    public static let knownSchemaVersions: ClosedRange<Int64> = 11...18

    /// The `revlog` rows that are answers, the only ones that say you studied. Anki's `RevlogReviewKind`
    /// (rslib/src/revlog/mod.rs; `stats_pb2.RevlogEntry.ReviewKind` in its Python package): 0 Learning,
    /// 1 Review, 2 Relearning, 3 Filtered (a filtered deck without rescheduling, still an answer), 4 Manual
    /// ("Set due date", "Reset", "Forget": no card was shown) and 5 Rescheduled (FSRS moving every card
    /// when its parameters change). `ease` is the button pressed, 1–4; Anki writes 0 for a change made by
    /// hand. So a row counts when both say a card was answered.
    public static let answerKinds: ClosedRange<Int64> = 0...3
    public static let answerButtons: ClosedRange<Int64> = 1...4

    /// The reviews that can be real: from Anki's first year (2006) to a little ahead of the clock (a phone
    /// whose clock runs ahead; such a review counts as made now). Others wait (a review dated next year is
    /// read once its time comes) or are never read (an id of 0, or of the year 2600).
    public static func plausible(now: Instant) -> ClosedRange<Int64> {
        earliest...max(earliest, now.milliseconds + aheadMilliseconds)
    }
    public static let earliest: Int64 = 1_136_073_600_000  // 2006-01-01T00:00Z
    public static let aheadMilliseconds: Int64 = 600_000

    /// The opens one change records when it may record at most `limit` (nil: all): of the days without an
    /// open from Anki at or before their first review (`unrecorded`), today's and later first (they cancel
    /// reminders), then past days from the latest back, leaving out each open `known` says is recorded
    /// already (another computer's line for the same review, which its day rule put on another day: chosen
    /// again by every slice, it would stop the history there). `more`: some were left for later. An open's
    /// id is a hash: it is made only for the days looked at, not for years of them at every slice.
    public static func slice<E: Error>(
        _ firsts: [(day: LocalDate, review: Int64, at: Instant)], recorded: [LocalDate: Instant], today: LocalDate,
        limit: Int?, known: (String) throws(E) -> Bool
    ) throws(E) -> (opens: [(day: LocalDate, event: PlanEvent)], more: Bool) {
        let candidates = unrecorded(firsts, recorded: recorded)
        var picked: [(day: LocalDate, event: PlanEvent)] = []
        for first in candidates.filter({ $0.day >= today }) + candidates.filter({ $0.day < today }).reversed() {
            let open = opens(for: [first], recorded: [:])[0]
            if try known(open.event.id) { continue }
            if let limit, picked.count == limit { return (picked.sorted { $0.event.at < $1.event.at }, true) }
            picked.append(open)
        }
        return (picked.sorted { $0.event.at < $1.event.at }, false)
    }

    /// The open recording `review`: its id is made from the review's own id, so two computers reading the
    /// same collection (Anki syncs review ids unchanged) record one open, not two.
    public static func eventID(review: Int64) -> String {
        String(SHA256.hex("anki review \(review)".utf8).prefix(32))
    }

    /// The first instant of the study day after `day`: when the clock skips its first reading (Santiago
    /// moves from 24:00 to 01:00), the instant of the change itself, found by bisection.
    /// `offsetHint`: the zone's offset during `day` (one look at the zone instead of three on a day
    /// without a change; the zone's rule decides on any other).
    public static func nextDayStart(after day: LocalDate, schedule: Schedule, zone: Zone, offsetHint: Int? = nil) -> Instant {
        let minute = schedule.dayStartMinute
        let reading = LocalDateTime(date: day.adding(days: 1), hour: minute / 60, minute: minute % 60)
        let wall = reading.epochMillisecondsAsIfUTC
        if let offsetHint {
            // With the day's offset still in force at the candidate, the clock reads `reading` there, and no
            // earlier instant does (an offset that fell back later repeats it after, not before).
            let candidate = Instant(milliseconds: wall - Int64(offsetHint) * 1000)
            if zone.offset(at: candidate) == offsetHint { return candidate }
        }
        if let exact = zone.instant(for: reading) { return exact }
        // Real zones change offset by at most a day: a day before, the clock reads earlier; a day after, later.
        var (low, high) = (wall - 26 * 3_600_000, wall + 26 * 3_600_000)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if zone.local(Instant(milliseconds: middle)) >= reading { high = middle } else { low = middle }
        }
        return Instant(milliseconds: high)
    }

    /// The first review of each study day with reviews from `start` through `end`, oldest first.
    /// `firstAtOrAfter` answers "the smallest review id ≥ this" (one indexed lookup in the review log), so
    /// the walk costs one lookup per study day, not one per review. A review counts at its own instant, even
    /// a little ahead of the clock (the caller bounds `end` by `plausible`): what every computer reading it
    /// records must be the same, whatever its clock.
    public static func firstReviews<E: Error>(
        from start: Int64, through end: Int64 = .max, schedule: Schedule, zone: Zone,
        firstAtOrAfter: (Int64) throws(E) -> Int64?
    ) throws(E) -> [(day: LocalDate, review: Int64, at: Instant)] {
        var result: [(day: LocalDate, review: Int64, at: Instant)] = []
        var cursor = start
        while cursor <= end, let review = try firstAtOrAfter(cursor), review <= end {
            let at = Instant(milliseconds: review)
            let offset = zone.offset(at: at)
            let day = schedule.studyDay(of: LocalDateTime(epochMillisecondsAsIfUTC: at.milliseconds + Int64(offset) * 1000))
            if let last = result.last, day <= last.day {
                // Still a day already seen (a clock set back past the day's start): step on.
                cursor = review + 1
                continue
            }
            result.append((day, review, at))
            cursor = max(review + 1, nextDayStart(after: day, schedule: schedule, zone: zone, offsetHint: offset).milliseconds)
        }
        return result
    }

    /// The opens to record: a day's first review, unless an open from Anki at or before it is recorded
    /// already (`recorded`: the earliest per study day). A review that arrives later with an earlier time (made on the
    /// phone, synced since) is recorded too: the day's first open moves earlier.
    ///
    /// Every computer reading the review makes the same line but for its `device=`: the id, the instant and
    /// the stamp are the review's own (the stamp decides which settings were in force: those when the review
    /// was made, not when it was read), and the place is UTC, since where the review was made is not known.
    public static func opens(
        for firsts: [(day: LocalDate, review: Int64, at: Instant)], recorded: [LocalDate: Instant]
    ) -> [(day: LocalDate, event: PlanEvent)] {
        unrecorded(firsts, recorded: recorded).map { first in
            let event = PlanEvent(
                id: eventID(review: first.review), at: first.at, origin: origin,
                change: .open(zoneName: "UTC", offsetSeconds: 0, graceMilliseconds: nil),
                stamp: stamp(review: first.review))
            return (first.day, event)
        }
    }

    /// The firsts `opens` makes an open of: those of days without an open from Anki at or before them.
    public static func unrecorded(
        _ firsts: [(day: LocalDate, review: Int64, at: Instant)], recorded: [LocalDate: Instant]
    ) -> [(day: LocalDate, review: Int64, at: Instant)] {
        firsts.filter { first in recorded[first.day].map { $0 > first.at } ?? true }
    }

    /// The stamp of the open recording `review`: the review's instant, counter 0, made by Anki.
    public static func stamp(review: Int64) -> Stamp { Stamp(milliseconds: review, counter: 0, device: device) }

    /// The device every database records for an open read from Anki (`RecordOpens`).
    public static let device = "anki"
}
