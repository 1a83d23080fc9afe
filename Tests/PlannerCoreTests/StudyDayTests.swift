import Testing

@testable import PlannerCore

/// `Schedule.studyDay`: which study day a wall-clock reading belongs to, and a window crossing midnight.
@Suite struct StudyDayTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
    let evening = Schedule(startMinute: 20 * 60, endMinute: 90, intervalMinutes: 30, days: .weekdays)
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }

    @Test(arguments: [
        ("2026-11-24T00:45", "2026-11-23"), ("2026-11-24T01:30", "2026-11-23"), ("2026-11-24T01:59:59.999", "2026-11-23"),
        ("2026-11-24T02:00", "2026-11-24"), ("2026-11-24T10:00", "2026-11-24"), ("2026-11-23T23:59", "2026-11-23"),
        ("2026-11-23T20:00", "2026-11-23"), ("2026-11-24T00:00", "2026-11-23"),
    ])
    func aCrossingWindowsDayEndsOneIntervalAfterItsEnd(time: String, day: String) {
        #expect(evening.studyDay(at: at(time), in: seoul) == date(day))
    }

    @Test func aWindowWithinOneDateKeepsMidnight() {
        #expect(Schedule.standard.studyDay(at: at("2026-11-24T00:45"), in: seoul) == date("2026-11-24"))
        #expect(Schedule.standard.studyDay(at: at("2026-11-23T23:59:59.999"), in: seoul) == date("2026-11-23"))
    }

    /// The next study day begins at its window's start at the latest, whatever the interval.
    @Test func theDayEndsAtTheNextStartAtTheLatest() {
        let long = Schedule(startMinute: 20 * 60, endMinute: 90, intervalMinutes: 12 * 60, days: .daily)
        #expect(long.studyDay(at: at("2026-11-24T13:29"), in: seoul) == date("2026-11-23"))
        #expect(long.studyDay(at: at("2026-11-24T13:30"), in: seoul) == date("2026-11-24"))
        let nearlyAllDay = Schedule(startMinute: 20 * 60, endMinute: 10 * 60, intervalMinutes: 12 * 60, days: .daily)
        #expect(nearlyAllDay.studyDay(at: at("2026-11-24T19:59"), in: seoul) == date("2026-11-23"))
        #expect(nearlyAllDay.studyDay(at: at("2026-11-24T20:00"), in: seoul) == date("2026-11-24"))
    }

    @Test func fridaysWindowRunsIntoSaturdayAndSundaysEveningHasNone() {
        let friday = evening.readings(on: date("2026-11-27"))
        #expect(friday.count == 12)
        #expect(friday.first.map(SlotIdentifier.format) == "Noti_AppOpenPromotion_2026_11_27_20_00")
        #expect(friday.last.map(SlotIdentifier.format) == "Noti_AppOpenPromotion_2026_11_28_01_30")
        #expect(evening.readings(on: date("2026-11-29")).isEmpty)
        #expect(evening.contains(LocalDateTime(date: date("2026-11-28"), hour: 1, minute: 30)))
        #expect(!evening.contains(LocalDateTime(date: date("2026-11-28"), hour: 20, minute: 0)))
        // Monday 00:00 is Sunday's study day: no slot.
        #expect(!evening.contains(LocalDateTime(date: date("2026-11-30"), hour: 0, minute: 0)))
        #expect(evening.contains(LocalDateTime(date: date("2026-12-01"), hour: 0, minute: 0)))
        #expect(!evening.contains(LocalDateTime(date: date("2026-12-01"), hour: 2, minute: 0)))
    }

    /// An open at 00:45 Tuesday cancels Monday's slots after midnight and keeps Tuesday's evening.
    @Test func anOpenAfterMidnightCancelsTheEveningBefore() {
        let plan = PlanSettings(schedule: evening)
        let added = decideRefill(now: at("2026-11-23T19:00"), zone: seoul, state: PlanState(pending: []), plan: plan).added
        #expect(added.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_20_00")
        // By 00:45 the evening's slots up to 00:30 were shown: 01:00 and 01:30 are still pending.
        let pending = added.enumerated().filter { $0.element.fireAt > at("2026-11-24T00:45") }.map { index, slot in
            PendingRequest(rowID: Int64(index), identifier: slot.identifier, kind: .slot, fireAt: slot.fireAt, localDate: slot.day)
        }
        #expect(pending.first { $0.identifier == "Noti_AppOpenPromotion_2026_11_24_01_00" }?.localDate == date("2026-11-23"))
        let open = decideOpen(now: at("2026-11-24T00:45"), zone: seoul, state: PlanState(pending: pending), plan: plan)
        #expect(open.date == date("2026-11-23"))
        #expect(open.cancelled.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_24_01_00", "Noti_AppOpenPromotion_2026_11_24_01_30"])
        #expect(!open.refill.added.contains { $0.day == date("2026-11-23") })
        // Refill after the open does not bring Monday's back, and keeps Tuesday's evening.
        var after = PlanState(pending: pending.filter { !open.cancelled.contains($0) })
        after.openedDates.insert(open.date)
        let refill = decideRefill(now: at("2026-11-24T00:46"), zone: seoul, state: after, plan: plan)
        #expect(refill.retired.isEmpty)
        #expect(!refill.added.contains { $0.day == date("2026-11-23") })
    }
}
