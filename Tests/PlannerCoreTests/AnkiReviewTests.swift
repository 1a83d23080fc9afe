import Glibc
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerCore

/// `AnkiReviews`: a study day's first review, found with one lookup per day, is what grouping every review
/// by the planner's study day finds — across DST changes (one at midnight, one of 30 minutes), windows that
/// cross midnight, clocks ahead of `now` and walks that start mid-log.
@Suite struct AnkiReviewTests {
    /// The plain rule: every review's study day, the smallest per day.
    static func plain(_ reviews: [Int64], from start: Int64, through end: Int64, schedule: Schedule, zone: Zone) -> [(LocalDate, Int64, Instant)] {
        var firsts: [LocalDate: (Int64, Instant)] = [:]
        for review in reviews where review >= start && review <= end {
            let at = Instant(milliseconds: review)
            let day = schedule.studyDay(at: at, in: zone)
            if firsts[day] == nil || firsts[day]!.0 > review { firsts[day] = (review, at) }
        }
        return firsts.keys.sorted().map { ($0, firsts[$0]!.0, firsts[$0]!.1) }
    }

    /// Fixed seeds in CI; `ANKI_REVIEW_SEEDS=5000 swift test --filter AnkiReviewTests` runs more.
    @Test func theWalkFindsWhatGroupingEveryReviewFinds() throws {
        let zones = try ["America/Santiago", "Australia/Lord_Howe", "Europe/Berlin", "Asia/Seoul", "America/St_Johns", "Pacific/Chatham"].map(
            SystemZone.named)
        let seeds = getenv("ANKI_REVIEW_SEEDS").flatMap { Int(String(cString: $0)) } ?? 300
        for seed in 0..<seeds {
            var random = SeededGenerator(seed: UInt64(32_000 + seed))
            let zone = zones[Int(random.next() % UInt64(zones.count))]
            let start = Int(random.next() % 1440)
            let end = Int(random.next() % 1440)
            let schedule = Schedule(startMinute: start, endMinute: end, intervalMinutes: 5 + Int(random.next() % 240), days: .daily)
            // Around DST changes in both hemispheres: September–October and March–April 2026.
            let base: Int64 = random.next() % 2 == 0 ? 1_756_684_800_000 : 1_772_323_200_000
            let span: Int64 = 60 * 86_400_000
            let count = Int(random.next() % 400)
            // Clustered like real study sessions: a few minutes of reviews, hours apart; some exactly on
            // a day's boundary.
            var reviews: Set<Int64> = []
            while reviews.count < count {
                let session = base + Int64(random.next() % UInt64(span))
                for k in 0..<Int64(1 + random.next() % 20) { reviews.insert(session + k * Int64(1 + random.next() % 40_000)) }
                if random.next() % 10 == 0 {
                    let day = schedule.studyDay(at: Instant(milliseconds: session), in: zone)
                    let boundary = AnkiReviews.nextDayStart(after: day, schedule: schedule, zone: zone).milliseconds
                    reviews.formUnion([boundary - 1, boundary, boundary + 1])
                }
            }
            let sorted = reviews.sorted()
            let through = random.next() % 3 == 0 ? Int64.max : base + Int64(random.next() % UInt64(span + 86_400_000))
            let from = random.next() % 3 == 0 ? Int64.min : sorted.isEmpty ? 0 : sorted[Int(random.next() % UInt64(sorted.count))]
            let walked = AnkiReviews.firstReviews(from: from, through: through, schedule: schedule, zone: zone) { (at: Int64) -> Int64? in
                var low = 0
                var high = sorted.count
                while low < high {
                    let mid = (low + high) / 2
                    if sorted[mid] < at { low = mid + 1 } else { high = mid }
                }
                return low < sorted.count ? sorted[low] : nil
            }
            let expected = Self.plain(sorted, from: from, through: through, schedule: schedule, zone: zone)
            #expect(
                walked.map { "\($0.day) \($0.review) \($0.at.milliseconds)" } == expected.map { "\($0.0) \($0.1) \($0.2.milliseconds)" },
                "seed \(32_000 + seed), \(zone.name), window \(start)-\(end)")
        }
    }

    /// One lookup per study day with reviews (and one to find there are no more), however many reviews.
    @Test func theWalkCostsOneLookupPerDay() {
        let zone = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
        let monday: Int64 = 1_795_392_000_000  // 2026-11-23T00:00+09:00
        var reviews: [Int64] = []
        for day in Int64(0)..<10 {
            for k in Int64(0)..<100 { reviews.append(monday + day * 86_400_000 + 36_000_000 + k * 10_000) }
        }
        var lookups = 0
        let walked = AnkiReviews.firstReviews(from: .min, through: monday + 20 * 86_400_000, schedule: .standard, zone: zone) {
            (at: Int64) -> Int64? in
            lookups += 1
            return reviews.first { $0 >= at }
        }
        #expect(walked.count == 10 && lookups == 11)
    }

    /// The boundary: the last millisecond of a day is that day's, the next the next day's.
    @Test func theNextDayStartsWhereTheStudyDayRuleSays() throws {
        let zone = try SystemZone.named("America/Santiago")  // DST starts at 00:00 on 2026-09-06: midnight does not exist
        for schedule in [Schedule.standard, Schedule(startMinute: 20 * 60, endMinute: 90, intervalMinutes: 30, days: .daily)] {
            var day = LocalDate(iso: "2026-09-01")!
            while day < LocalDate(iso: "2026-09-10")! {
                let next = AnkiReviews.nextDayStart(after: day, schedule: schedule, zone: zone)
                #expect(schedule.studyDay(at: next, in: zone) > day, "\(day)")
                #expect(schedule.studyDay(at: Instant(milliseconds: next.milliseconds - 1), in: zone) == day, "\(day)")
                day = day.adding(days: 1)
            }
        }
    }

    /// A slice: today's and later days first, then the past from the latest back, up to the limit; days
    /// with an earlier open from Anki recorded, and opens recorded already (under another day), are passed
    /// over, so that a slice never stops on them; `more` only when a day is left over.
    @Test func aSliceTakesTodayFirstThenThePastBackAndPassesOverWhatIsRecorded() {
        let today = LocalDate(iso: "2026-11-23")!
        let firsts = (-6...1).map { offset -> (day: LocalDate, review: Int64, at: Instant) in
            let ms = 1_795_400_100_000 + Int64(offset) * 86_400_000
            return (today.adding(days: offset), ms, Instant(milliseconds: ms))
        }
        let days = { (opens: [(day: LocalDate, event: PlanEvent)]) in opens.map { $0.day.description }.joined(separator: " ") }
        var all = AnkiReviews.slice(firsts, recorded: [:], today: today, limit: nil) { _ in false }
        #expect(days(all.opens) == firsts.map(\.day.description).joined(separator: " ") && !all.more)
        all = AnkiReviews.slice(firsts, recorded: [:], today: today, limit: 8) { _ in false }
        #expect(all.opens.count == 8 && !all.more)
        var slice = AnkiReviews.slice(firsts, recorded: [:], today: today, limit: 3) { _ in false }
        #expect(days(slice.opens) == "2026-11-22 2026-11-23 2026-11-24" && slice.more)
        // Yesterday recorded at its review, the day before known under another day: passed over.
        let known = AnkiReviews.eventID(review: firsts[4].review)
        slice = AnkiReviews.slice(firsts, recorded: [firsts[5].day: firsts[5].at], today: today, limit: 3) { $0 == known }
        #expect(days(slice.opens) == "2026-11-20 2026-11-23 2026-11-24" && slice.more)
        slice = AnkiReviews.slice(Array(firsts[3...]), recorded: [firsts[5].day: firsts[5].at], today: today, limit: 3) { $0 == known }
        #expect(days(slice.opens) == "2026-11-20 2026-11-23 2026-11-24" && !slice.more)
    }

    @Test func anOpensIDComesFromItsReviewSoTwoComputersRecordOne() {
        let first = (day: LocalDate(iso: "2026-11-23")!, review: Int64(1_795_400_100_000), at: Instant(milliseconds: 1_795_400_100_000))
        let a = AnkiReviews.opens(for: [first], recorded: [:])
        #expect(a.count == 1 && a[0].event.origin == "anki" && a[0].event.id == AnkiReviews.eventID(review: first.review))
        #expect(AnkiReviews.opens(for: [first], recorded: [first.day: first.at]).isEmpty)
        // An earlier review than the one recorded: recorded too.
        #expect(AnkiReviews.opens(for: [first], recorded: [first.day: Instant(milliseconds: first.at.milliseconds + 1)]).count == 1)
        // Nothing in it is the reader's: the stamp is the review's, the place UTC, the device Anki.
        #expect(a[0].event.stamp == Stamp(milliseconds: first.review, counter: 0, device: "anki"))
        #expect(a[0].event.change == .open(zoneName: "UTC", offsetSeconds: 0, graceMilliseconds: nil))
        // Whichever computer's line brought it, a database records it as Anki's.
        var line = a[0].event
        line.stamp?.device = String(repeating: "b", count: 32)
        #expect(RecordOpens.recordedDevice(line) == "anki")
        #expect(RecordOpens.decidingStamp(line.stamp!, origin: "anki") == Stamp(milliseconds: first.review, counter: 0, device: ""))
    }
}
