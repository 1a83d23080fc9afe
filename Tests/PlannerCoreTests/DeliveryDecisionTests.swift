import Testing

@testable import PlannerCore

@Suite struct DeliveryDecisionTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func request(_ id: String, _ time: String, kind: RequestKind = .oneoff, row: Int64 = 0) -> PendingRequest {
        PendingRequest(rowID: row, identifier: id, kind: kind, fireAt: at(time), localDate: LocalDate(year: 2026, month: 11, day: 23))
    }

    @Test func nothingDueNothingToDo() {
        let d = decideDue(now: at("2026-11-23T12:00"), due: [])
        #expect(d.deliver.isEmpty && d.missed.isEmpty)
    }

    @Test func oneDueWithinGraceIsDelivered() {
        let r = request("a", "2026-11-23T11:50")
        let d = decideDue(now: at("2026-11-23T12:00"), due: [r])
        #expect(d.deliver == [r])
        #expect(d.missed.isEmpty)
    }

    @Test func afterASleepOnlyTheLatestStudySlotWithinGraceIsDeliveredNeverABurst() {
        let old = request("old", "2026-11-23T10:00", kind: .slot)  // hours ago: past grace
        let a = request("a", "2026-11-23T11:46", kind: .slot)
        let b = request("b", "2026-11-23T11:55", kind: .slot)
        let c = request("c", "2026-11-23T12:00", kind: .slot)
        let d = decideDue(now: at("2026-11-23T12:00"), due: [c, old, b, a])
        #expect(d.deliver == [c])
        #expect(d.missed.map(\.request) == [old, a, b])
        #expect(d.missed.map(\.reason) == [MissReason.pastGrace, MissReason.superseded, MissReason.superseded])
    }

    @Test func graceBoundary() {
        let r = request("a", "2026-11-23T11:45")
        #expect(decideDue(now: at("2026-11-23T12:00"), due: [r]).deliver == [r])  // exactly 15 min: still in
        #expect(decideDue(now: at("2026-11-23T12:00:00.001"), due: [r]).deliver.isEmpty)
        let short = PlanPolicy(graceMilliseconds: 60_000)
        #expect(decideDue(now: at("2026-11-23T11:47"), policy: short, due: [r]).missed.count == 1)
    }

    /// Each one-off is a reminder someone asked for: one due at the same moment as another, or within the
    /// same misfire window, is delivered too; only study slots coalesce.
    @Test func oneOffsDueTogetherAreEachDeliveredAndASlotBesideThem() {
        let x = request("x", "2026-11-23T12:00")
        let y = request("y", "2026-11-23T12:00")
        let z = request("z", "2026-11-23T11:50")
        let s1 = request("s1", "2026-11-23T11:48", kind: .slot)
        let s2 = request("s2", "2026-11-23T11:58", kind: .slot)
        let d = decideDue(now: at("2026-11-23T12:00"), due: [y, s1, x, z, s2])
        #expect(d.deliver == [z, s2, x, y])
        #expect(d.missed.map(\.request) == [s1])
        #expect(d.missed.map(\.reason) == [MissReason.superseded])
    }

    /// Stale requests (no refill for days) are retired before the cap is counted, so they cannot push a
    /// new one-off out of the 64.
    @Test func aOneOffAfterDaysWithoutRefillIsNotDisplacedByStaleRequests() {
        let stale = fullPlan()  // 64 slots from 2026-11-23 12:00 on
        let now = at("2026-11-30T12:00")
        let new = NewRequest(identifier: "later", fireAt: at("2026-11-30T13:00"), title: "t", body: "")
        let d = decideAdd(now: now, request: new, pending: stale)
        #expect(d.pending)
        #expect(d.displaced.isEmpty)
        #expect(Set(d.missed) == Set(stale))
    }

    func fullPlan() -> [PendingRequest] {
        SlotIdentifier.upcoming(after: at("2026-11-23T12:00"), in: seoul, limit: 64).enumerated().map {
            PendingRequest(
                rowID: Int64($0.offset), identifier: $0.element.identifier, kind: .slot,
                fireAt: $0.element.fireAt, localDate: $0.element.local.date)
        }
    }

    @Test func aSoonerOneOffPushesTheLastSlotOut() {
        let plan = fullPlan()
        let d = decideAdd(
            now: at("2026-11-23T12:00"), request: NewRequest(identifier: "snooze", fireAt: at("2026-11-23T12:15"), title: "t", body: ""),
            pending: plan)
        #expect(d.pending)
        #expect(d.replaced == nil)
        #expect(d.displaced == [plan.last!])
    }

    @Test func aOneOffLaterThanSixtyFourSoonerOnesWaits() {
        let plan = fullPlan()
        let d = decideAdd(
            now: at("2026-11-23T12:00"), request: NewRequest(identifier: "later", fireAt: at("2026-12-25T09:00"), title: "t", body: ""), pending: plan
        )
        #expect(!d.pending)
        #expect(d.displaced.isEmpty)
    }

    @Test func theSameIdentifierReplacesWithoutDisplacingAnything() {
        var plan = Array(fullPlan().dropLast())
        plan.append(request("snooze", "2026-11-23T12:20", row: 99))
        let d = decideAdd(
            now: at("2026-11-23T12:00"), request: NewRequest(identifier: "snooze", fireAt: at("2026-11-23T12:40"), title: "t", body: ""),
            pending: plan)
        #expect(d.replaced?.rowID == 99)
        #expect(d.displaced.isEmpty)
        #expect(d.pending)
    }

    @Test func refillBringsAWaitingOneOffBackWhenItIsAmongTheSoonest() {
        let waiting = request("later", "2026-11-25T10:05", row: 500)
        // Monday 20:00: the 64 soonest slots reach into Thursday, so Wednesday 10:05 is among them.
        let state = PlanState(pending: [], waitingOneOffs: [waiting])
        let d = decideRefill(now: at("2026-11-23T20:00"), zone: seoul, state: state)
        #expect(d.readmitted == [waiting])
        #expect(d.added.count == 63)
        // Far in the future it keeps waiting.
        let far = request("far", "2027-03-01T10:00", row: 501)
        #expect(decideRefill(now: at("2026-11-23T20:00"), zone: seoul, state: PlanState(pending: [], waitingOneOffs: [far])).readmitted.isEmpty)
    }

    @Test func retriesBackOffWithinTheGracePeriodOnly() {
        let fire = at("2026-11-23T12:00")
        #expect(nextRetry(after: 1, fireAt: fire, now: fire) == fire + 1000)
        #expect(nextRetry(after: 2, fireAt: fire, now: fire + 1000) == fire + 3000)
        #expect(nextRetry(after: 3, fireAt: fire, now: fire + 3000) == fire + 7000)
        #expect(nextRetry(after: 10, fireAt: fire, now: fire + 60_000) == fire + 120_000)  // capped at a minute
        #expect(nextRetry(after: 5, fireAt: fire, now: fire + 14 * 60_000 + 50_000) == nil)  // would pass 15 min
    }
}
