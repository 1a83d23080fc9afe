import PlannerTestSupport
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
        for bad in [
            "Noti_AppOpenPromotion_2026_11_3_09_00", "Noti_AppOpenPromotion_2026_11_31_09_00",
            "Noti_AppOpenPromotion_2026_11_03_09_00_00", "Other_2026_11_03_09_00", "Noti_AppOpenPromotion_2026_11_03_24_00",
        ] {
            #expect(SlotIdentifier.parse(bad) == nil, "\(bad)")
        }
    }

    /// The byte-level format and parse (they run once per slot in every refill) agree with each other on
    /// random readings of every year 0-9999, and refuse anything but ASCII digits in the planner's layout.
    @Test func identifiersRoundTripAndRefuseLookalikes() {
        var random = SeededGenerator(seed: 31)
        for _ in 0..<5_000 {
            let date = LocalDate(year: Int(random.next() % 10_000), month: Int(random.next() % 12) + 1, day: Int(random.next() % 28) + 1)
            let reading = LocalDateTime(date: date, hour: Int(random.next() % 24), minute: Int(random.next() % 60))
            let identifier = SlotIdentifier.format(reading)
            #expect(identifier.utf8.count == 38)
            #expect(
                identifier
                    == "Noti_AppOpenPromotion_\(pad(date.year, 4))_\(pad(date.month, 2))_\(pad(date.day, 2))_\(pad(reading.hour, 2))_\(pad(reading.minute, 2))"
            )
            #expect(SlotIdentifier.parse(identifier) == reading)
        }
        for bad in [
            "Noti_AppOpenPromotion_2026_+1_03_09_00", "Noti_AppOpenPromotion_2026_-1_03_09_00",
            "Noti_AppOpenPromotion_2026_11_03_09_\u{0663}0", "Noti_AppOpenPromotion_2026_11_03 09_00",
            "Noti_AppOpenPromotion_2026_11_03_09_0", "noti_AppOpenPromotion_2026_11_03_09_00",
            "Noti_AppOpenPromotion_2026_00_03_09_00", "Noti_AppOpenPromotion_2026_11_03_09_60", "",
        ] {
            #expect(SlotIdentifier.parse(bad) == nil, "\(bad)")
        }
        // A year past 9999 is still written (wider), as before.
        #expect(
            SlotIdentifier.format(LocalDateTime(date: LocalDate(year: 12026, month: 1, day: 2), hour: 3, minute: 4))
                == "Noti_AppOpenPromotion_12026_01_02_03_04")
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

/// Dates and RFC 3339 times are written as bytes on the hot paths; the interpolated text (kept for years
/// past 9999 and offsets with seconds) is the reference, over random readings, offsets and milliseconds.
@Suite struct ByteTextTests {
    @Test func datesAndRFC3339TimesMatchTheInterpolatedText() {
        var random = SeededGenerator(seed: 3339)
        for _ in 0..<5_000 {
            let date = LocalDate(year: Int(random.next() % 10_000), month: Int(random.next() % 12) + 1, day: Int(random.next() % 28) + 1)
            #expect(date.description == "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))")
            let offset = (Int(random.next() % 1_681) - 840) * 60  // -14:00 to +14:00, whole minutes
            let zone = Zone.fixed(name: "Test", offsetSeconds: offset)
            let reading = LocalDateTime(
                date: date, hour: Int(random.next() % 24), minute: Int(random.next() % 60),
                second: Int(random.next() % 60), millisecond: random.next() % 3 == 0 ? 0 : Int(random.next() % 1000))
            guard let instant = zone.instant(for: reading) else { continue }
            #expect(zone.rfc3339(instant) == Zone.rfc3339Text(reading, offsetSeconds: offset))
        }
        // An offset with seconds takes the other path, with its seconds written.
        let monrovia = Zone.fixed(name: "Africa/Monrovia", offsetSeconds: -(44 * 60 + 30))
        #expect(monrovia.rfc3339(Instant(milliseconds: 0)) == "1969-12-31T23:15:30-00:44:30")
    }
}
