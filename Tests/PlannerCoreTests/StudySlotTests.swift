import Testing
@testable import PlannerCore

@Suite struct StudySlotTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
    func at(_ text: String, _ zone: Zone? = nil) -> Instant { try! parseTime(text, in: zone ?? seoul) }

    @Test func twentyFiveSlotsEachWeekdayNoneOnWeekends() {
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let times = Schedule.standard.readings(on: monday).map { "\(pad($0.hour, 2)):\(pad($0.minute, 2))" }
        #expect(times.count == 25)
        #expect(times.first == "09:30")
        #expect(times.last == "21:30")
        #expect(Set(times).count == 25)
        for offset in 0..<7 {
            let date = monday.adding(days: offset)
            #expect(Schedule.standard.readings(on: date).count == (offset < 5 ? 25 : 0))
        }
    }

    @Test func identifierFormatAndParse() throws {
        let reading = LocalDateTime(date: LocalDate(year: 2026, month: 11, day: 3), hour: 9, minute: 0)
        #expect(SlotIdentifier.format(reading) == "Noti_AppOpenPromotion_2026_11_03_09_00")
        #expect(SlotIdentifier.parse("Noti_AppOpenPromotion_2026_11_03_09_00") == reading)
        for bad in ["Noti_AppOpenPromotion_2026_11_3_09_00", "Noti_AppOpenPromotion_2026_11_31_09_00",
                    "Noti_AppOpenPromotion_2026_11_03_09_00_00", "Other_2026_11_03_09_00", "Noti_AppOpenPromotion_2026_11_03_24_00"] {
            #expect(SlotIdentifier.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func saturdayStartBeginsMondayMorning() {
        let slots = SlotIdentifier.upcoming(after: at("2026-11-21T10:00"), in: seoul, limit: 64)
        #expect(slots.count == 64)
        #expect(slots.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_09_30")
        // 25 Monday + 25 Tuesday + 14 Wednesday (09:30 … 16:00).
        #expect(slots.last?.identifier == "Noti_AppOpenPromotion_2026_11_25_16_00")
        #expect(zip(slots, slots.dropFirst()).allSatisfy { $0.fireAt < $1.fireAt })
    }

    @Test func strictlyAfterNow() {
        let exactly = SlotIdentifier.upcoming(after: at("2026-11-23T12:00"), in: seoul, limit: 1)
        #expect(exactly.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_30")
        let justBefore = SlotIdentifier.upcoming(after: at("2026-11-23T11:59:59.999"), in: seoul, limit: 1)
        #expect(justBefore.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_00")
        let afterLast = SlotIdentifier.upcoming(after: at("2026-11-27T21:30"), in: seoul, limit: 1)
        #expect(afterLast.first?.identifier == "Noti_AppOpenPromotion_2026_11_30_09_30")
    }

    @Test func slotsStayAtWallClockTimesAcrossDST() {
        // Friday before the (hand-made) March change, through the following Tuesday.
        let slots = SlotIdentifier.upcoming(after: at("2026-03-27T12:00", berlinLike), in: berlinLike, limit: 64)
        for slot in slots {
            #expect(berlinLike.local(slot.fireAt) == slot.local)
        }
        let friday = slots.first { $0.identifier.hasSuffix("2026_03_27_21_30") }!
        let monday = slots.first { $0.identifier.hasSuffix("2026_03_30_09_30") }!
        #expect(berlinLike.rfc3339(friday.fireAt) == "2026-03-27T21:30:00+01:00")
        #expect(berlinLike.rfc3339(monday.fireAt) == "2026-03-30T09:30:00+02:00")
    }

    @Test func skipsGivenDatesAndIdentifiers() {
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let slots = SlotIdentifier.upcoming(
            after: at("2026-11-23T08:00"), in: seoul, excluding: Exclusions(skippedDates: [monday]),
            skippingIdentifiers: ["Noti_AppOpenPromotion_2026_11_24_09_30"], limit: 2)
        #expect(slots.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_24_10_00", "Noti_AppOpenPromotion_2026_11_24_10_30"])
    }
}
