import Foundation
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerStore

@Suite struct DeliveryStoreTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func aSlotCancelledByOpenIsNeverClaimed() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        try db.recordAppOpen(now: at("2026-11-23T12:29:59"), zone: seoul)
        let (decision, claimed, _, _) = try db.claimDue(now: at("2026-11-23T12:30"))
        #expect(claimed.isEmpty)
        #expect(decision.deliver.isEmpty)
    }

    @Test func aRequestIsClaimedOnceEvenByTwoConnections() throws {
        let path = temporaryDatabasePath()
        let a = try PlannerDatabase(path: path)
        let b = try PlannerDatabase(path: path)
        try a.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let first = try a.claimDue(now: at("2026-11-23T12:30")).claimed.first
        let second = try b.claimDue(now: at("2026-11-23T12:30")).claimed.first
        #expect(first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_30")
        #expect(second == nil)
        try a.finishDelivery(first!, at: at("2026-11-23T12:30:00.004"), attempts: 1, sink: "test", error: nil)
        #expect(try a.inspection.text("SELECT lateness_ms FROM delivered_notifications") == "4")
    }

    @Test func anOrphanedClaimBecomesFailedNotDeliveredTwice() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        _ = try db.claimDue(now: at("2026-11-23T12:30"))  // the ticker "dies" here
        // While the claim could still be in progress it is left alone …
        _ = try db.claimDue(now: at("2026-11-23T12:50"))
        #expect(try db.inspection.text("SELECT state FROM request WHERE identifier LIKE '%12_30'") == "delivering")
        // … once it cannot be, it is recorded as failed, and never claimed again.
        let later = try db.claimDue(now: at("2026-11-23T12:50:00.001"))
        #expect(later.claimed.first?.identifier != "Noti_AppOpenPromotion_2026_11_23_12_30")
        #expect(
            try db.inspection.text("SELECT state || ': ' || error FROM request WHERE identifier LIKE '%12_30'")
                == "failed: the ticker stopped during delivery; not retried (deliveries are at most once)")
        #expect(try db.inspection.integer("SELECT count(*) FROM delivered_notifications") == 0)
    }

    @Test func addReplacesDisplacesAndWaitsThenRefillReadmits() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let now = at("2026-11-23T12:00")
        let first = try db.add(NewRequest(identifier: "snooze", fireAt: at("2026-11-23T12:15"), title: "a", body: ""), now: now, zone: seoul)
        #expect(first.decision.displaced.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_25_19_00"])  // 19 Monday + 25 Tuesday + 20 Wednesday
        let second = try db.add(NewRequest(identifier: "snooze", fireAt: at("2026-11-23T12:20"), title: "b", body: ""), now: now, zone: seoul)
        #expect(second.decision.replaced != nil)
        #expect(
            try db.inspection.text("SELECT group_concat(state) FROM (SELECT state FROM request WHERE identifier = 'snooze' ORDER BY id)")
                == "replaced,pending")
        let waiting = try db.add(NewRequest(identifier: "xmas", fireAt: at("2026-12-25T09:00"), title: "c", body: ""), now: now, zone: seoul)
        #expect(!waiting.decision.pending)
        #expect(try db.inspection.integer("SELECT count(*) FROM pending_requests") == 64)
        // Default identifiers are made unique instead of replacing.
        let unique = try db.add(
            NewRequest(identifier: "snooze", fireAt: at("2026-11-23T13:20"), title: "d", body: ""), makeUnique: true, now: now, zone: seoul)
        #expect(unique.identifier == "snooze_2")
        // On Christmas Eve evening the one-off is among the soonest 64 again.
        try db.refill(now: at("2026-12-24T20:00"), zone: seoul)
        #expect(try db.inspection.text("SELECT state FROM request WHERE identifier = 'xmas'") == "pending")
        #expect(try db.inspection.integer("SELECT count(*) FROM pending_requests") == 64)
    }
}

@Suite struct RetryAfterOpenTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func aSlotInRetriesNoticesTheAppWasOpened() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let claimed = try #require(try db.claimDue(now: at("2026-11-23T12:30")).claimed.first)
        #expect(try !db.appOpenedSinceClaim(claimed))
        try db.recordAppOpen(now: at("2026-11-23T12:31"), zone: seoul)  // while the sink is failing
        #expect(try db.appOpenedSinceClaim(claimed))
        try db.abandonDelivery(claimed, at: at("2026-11-23T12:31:02"), reason: "the app was opened before a retry succeeded")
        #expect(
            try db.inspection.text("SELECT state || '/' || reason FROM request WHERE id = \(claimed.rowID)")
                == "missed/the app was opened before a retry succeeded")
    }
}

/// Answers to a shown slot, at the store: what each action writes, in one transaction with its row.
@Suite struct AnswerStoreTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    func shownSlot() throws -> (PlannerDatabase, ClaimedRequest) {
        // The plan's zone is what a snooze's time is written in.
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let claimed = try #require(try db.claimDue(now: at("2026-11-23T12:30")).claimed.first)
        try db.finishDelivery(claimed, at: at("2026-11-23T12:30"), attempts: 1, sink: "test", error: nil)
        #expect(claimed.kind == .slot && claimed.isStudyReminder && claimed.snoozeMilliseconds == 900_000)
        return (db, claimed)
    }

    @Test func snoozeAddsAOneOffNamedAfterTheSlot() throws {
        let (db, slot) = try shownSlot()
        let answer = try db.recordAnswer(to: slot, action: .snooze, now: at("2026-11-23T12:31"))
        #expect(answer.snoozedAs == "Noti_AppOpenPromotion_2026_11_23_12_30_snoozed")
        #expect(answer.studyCommand.isEmpty)
        let row = try db.inspection.text(
            """
            SELECT kind || ' ' || local_time || ' ' || state FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_30_snoozed'
            """)
        #expect(row == "oneoff 2026-11-23T12:46:00+09:00 pending", "\(String(describing: row))")
        #expect(try db.inspection.integer("SELECT count(*) FROM pending_requests") == 64)
        // Snoozing the snoozed one again replaces it (one identifier, one waiting request).
        let snoozed = try #require(try db.claimDue(now: at("2026-11-23T12:46")).claimed.first)
        #expect(snoozed.isStudyReminder && snoozed.kind == .oneoff)
        let again = try db.recordAnswer(to: snoozed, action: .snooze, now: at("2026-11-23T12:47"))
        #expect(again.snoozedAs == "Noti_AppOpenPromotion_2026_11_23_12_30_snoozed")
        // The record counts both snoozes on the day of the reminders answered.
        let monday = try #require(LocalDate(iso: "2026-11-23"))
        #expect(try db.studyRecordInput(from: monday, through: monday).input.days[monday]?.snoozed == 2)
        let actions = try db.inspection.text("SELECT group_concat(action || ':' || outcome, ' / ') FROM notification_actions")
        #expect(
            actions
                == "snooze:snoozed as Noti_AppOpenPromotion_2026_11_23_12_30_snoozed for 2026-11-23T12:46:00+09:00 / snooze:snoozed as Noti_AppOpenPromotion_2026_11_23_12_30_snoozed for 2026-11-23T13:02:00+09:00",
            "\(String(describing: actions))")
    }

    @Test func startIsAnOpenAndHandsBackTheStudyCommand() throws {
        let (db, slot) = try shownSlot()
        try db.inspection.execute("UPDATE setting SET value = 'anki --profile ''Main deck''' WHERE key = 'study-command'")
        let answer = try db.recordAnswer(to: slot, action: .start, now: at("2026-11-23T12:31"))
        #expect(answer.studyCommand == ["anki", "--profile", "Main deck"])
        #expect(answer.outcome == "opened 2026-11-23: cancelled 18 of its reminders")
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open WHERE local_date = '2026-11-23'") == 1)
        #expect(try db.inspection.integer("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-23'") == 0)
        // A snooze after the day was opened would nag again: recorded, not obeyed.
        let late = try db.recordAnswer(to: slot, action: .snooze, now: at("2026-11-23T12:32"))
        #expect(late.snoozedAs == nil && late.outcome == "ignored: that day was already opened")
        let monday = try #require(LocalDate(iso: "2026-11-23"))
        #expect(try db.studyRecordInput(from: monday, through: monday).input.days[monday]?.snoozed ?? 0 == 0)
        #expect(try db.inspection.integer("SELECT count(*) FROM request WHERE identifier LIKE '%_snoozed'") == 0)
    }

    @Test func aFailedAnswerLeavesNothing() throws {
        let (db, slot) = try shownSlot()
        // The answer's row cannot be written (a trigger of the connection's own refuses it): the answer
        // fails whole, the open made before it in the same transaction included.
        try db.inspection.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON notification_action BEGIN SELECT RAISE(ABORT, 'refused'); END")
        #expect(throws: PlannerError.self) { try db.recordAnswer(to: slot, action: .start, now: at("2026-11-23T12:31")) }
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 0)
        #expect(try db.inspection.integer("SELECT count(*) FROM notification_action") == 0)
    }
}

/// A reminder snoozed past midnight of a window crossing it stays its evening's: an open after midnight,
/// which closes that evening, keeps it from being shown.
@Suite struct MidnightSnoozeTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func aSnoozePastMidnightBelongsToTheEveningItWasShownIn() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        _ = try db.configure(set: [(.window, "22:00-01:00")], reset: [], now: at("2026-11-23T12:01"))
        let slot = try #require(try db.claimDue(now: at("2026-11-23T23:30")).claimed.first)
        #expect(slot.identifier == "Noti_AppOpenPromotion_2026_11_23_23_30")
        try db.finishDelivery(slot, at: at("2026-11-23T23:30"), attempts: 1, sink: "test", error: nil)
        let answer = try db.recordAnswer(to: slot, action: .snooze, now: at("2026-11-23T23:55"))
        let snoozedAs = try #require(answer.snoozedAs)
        #expect(try db.inspection.text("SELECT local_date FROM request WHERE identifier = '\(snoozedAs)'") == "2026-11-23")
        try db.recordAppOpen(now: at("2026-11-24T00:05"), zone: seoul)
        let snoozed = try #require(try db.claimDue(now: at("2026-11-24T00:10")).claimed.first { $0.identifier == snoozedAs })
        #expect(try db.dayOpened(snoozed))
    }
}

/// `status`'s "next" is the next reminder the ticker will really show, by the delivery decisions.
@Suite struct NextShownTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    /// A reminder snoozed before the day was opened stays pending but is recorded missed when due: not next.
    @Test func aSnoozedReminderOfAnOpenedDayIsNotNext() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let slot = try #require(try db.claimDue(now: at("2026-11-23T12:30")).claimed.first)
        try db.finishDelivery(slot, at: at("2026-11-23T12:30"), attempts: 1, sink: "test", error: nil)
        _ = try db.recordAnswer(to: slot, action: .snooze, now: at("2026-11-23T12:31"))
        try db.recordAppOpen(now: at("2026-11-23T12:40"), zone: seoul)
        #expect(try db.inspection.integer("SELECT count(*) FROM request WHERE state = 'pending' AND identifier LIKE '%_snoozed'") == 1)
        let next = try db.status(now: at("2026-11-23T12:41"), zone: seoul).next
        #expect(next?.identifier == "Noti_AppOpenPromotion_2026_11_24_09_30")
        // And the ticker does not show it: recorded missed at its time.
        let snoozed = try #require(try db.claimDue(now: at("2026-11-23T12:46")).claimed.first)
        #expect(snoozed.identifier.hasSuffix("_snoozed"))
        #expect(try db.dayOpened(snoozed))
    }

    /// With no ticker for two hours, the slots past their grace will be recorded missed and of those due
    /// only the latest is shown: that one is next, not the oldest pending.
    @Test func aSlotPastItsGraceIsNotNext() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T12:00"), zone: seoul)
        let next = try db.status(now: at("2026-11-23T14:05"), zone: seoul).next
        #expect(next?.identifier == "Noti_AppOpenPromotion_2026_11_23_14_00")
        let (decision, _, _, _) = try db.claimDue(now: at("2026-11-23T14:05"))
        #expect(decision.deliver.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_23_14_00"])
    }
}
