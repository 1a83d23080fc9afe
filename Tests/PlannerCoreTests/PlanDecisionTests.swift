import PlannerTestSupport
import Testing

@testable import PlannerCore

/// Drives the pure decisions like the store does: apply each decision to an in-memory state.
struct Simulation {
    let zone: Zone
    var policy = PlanPolicy()
    var pending: [PendingRequest] = []
    var finished: Set<String> = []
    var opened: Set<LocalDate> = []
    var nextRowID: Int64 = 1

    init(zone: Zone) { self.zone = zone }

    var state: PlanState { PlanState(pending: pending, finishedSlotIdentifiers: finished, openedDates: opened) }

    mutating func apply(_ d: RefillDecision) {
        let gone = Set((d.missed + d.displaced).map(\.rowID))
        finished.formUnion(d.missed.filter { $0.kind == .slot }.map(\.identifier))
        pending.removeAll { gone.contains($0.rowID) }
        for slot in d.added {
            pending.append(
                PendingRequest(rowID: nextRowID, identifier: slot.identifier, kind: .slot, fireAt: slot.fireAt, localDate: slot.local.date))
            nextRowID += 1
        }
        pending.sort { $0.fireAt < $1.fireAt }
    }

    @discardableResult mutating func refill(_ now: Instant) -> RefillDecision {
        let d = decideRefill(now: now, zone: zone, policy: policy, state: state)
        apply(d)
        return d
    }

    @discardableResult mutating func open(_ now: Instant) -> OpenDecision {
        let d = decideOpen(now: now, zone: zone, policy: policy, state: state)
        let cancelled = Set(d.cancelled.map(\.rowID))
        finished.formUnion(d.cancelled.map(\.identifier))
        pending.removeAll { cancelled.contains($0.rowID) }
        opened.insert(d.date)
        apply(d.refill)
        return d
    }
}

@Suite struct PlanDecisionTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func firstRefillFillsTheCapWithTheSoonestSlotsIncludingToday() {
        var sim = Simulation(zone: seoul)
        let d = sim.refill(at("2026-11-23T12:00"))
        #expect(d.added.count == 64)
        #expect(d.added.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_30")
        #expect(sim.pending.count == 64)
    }

    @Test func refillIsIdempotent() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-23T12:00"))
        #expect(sim.refill(at("2026-11-23T12:00")).isEmpty)
        #expect(sim.refill(at("2026-11-23T12:10")).isEmpty)
    }

    @Test func staleRequestsBecomeMissedAfterTheGracePeriodAndFreeTheCap() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-23T12:00"))
        // 12:30 passed 14 minutes ago: still within grace, still pending.
        #expect(sim.refill(at("2026-11-23T12:44")).missed.isEmpty)
        // 12:30 passed 15 min ago exactly: not *more* than grace, still pending.
        #expect(sim.refill(at("2026-11-23T12:45")).missed.isEmpty)
        let d = sim.refill(at("2026-11-23T12:45:00.001"))
        #expect(d.missed.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_23_12_30"])
        #expect(d.added.count == 1)
        #expect(sim.pending.count == 64)
    }

    @Test func aMissedSlotIsNeverAddedAgain() {
        var sim = Simulation(zone: seoul)
        sim.policy.graceMilliseconds = 0
        sim.refill(at("2026-11-23T12:00"))
        sim.refill(at("2026-11-23T12:31"))
        // Clock set back: the missed 12:30 is in the future again, but must not return.
        let d = sim.refill(at("2026-11-23T12:10"))
        #expect(!d.added.map(\.identifier).contains("Noti_AppOpenPromotion_2026_11_23_12_30"))
    }

    @Test func midDayOpenCancelsTheRestOfTodayIncludingUndeliveredPastOnes() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-23T12:00"))
        let d = sim.open(at("2026-11-23T12:40"))  // 12:30 is past but within grace, not delivered
        #expect(d.date == LocalDate(year: 2026, month: 11, day: 23))
        #expect(d.cancelled.count == 19)  // 12:30 … 21:30
        #expect(d.cancelled.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_12_30")
        #expect(sim.pending.count == 64)
        #expect(sim.pending.allSatisfy { $0.localDate != d.date })
        #expect(sim.pending.first?.identifier == "Noti_AppOpenPromotion_2026_11_24_09_30")
    }

    @Test func openThenRefillTheSameDayNeverBringsTodayBack() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-23T08:00"))
        sim.open(at("2026-11-23T09:00"))
        for time in ["2026-11-23T09:05", "2026-11-23T13:00", "2026-11-23T21:29"] {
            let d = sim.refill(at(time))
            #expect(d.added.allSatisfy { $0.local.date != LocalDate(year: 2026, month: 11, day: 23) })
        }
        #expect(sim.pending.allSatisfy { $0.localDate != LocalDate(year: 2026, month: 11, day: 23) })
    }

    @Test func openIsIdempotent() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-23T12:00"))
        sim.open(at("2026-11-23T12:10"))
        let again = sim.open(at("2026-11-23T12:20"))
        #expect(again.cancelled.isEmpty)
        #expect(again.refill.isEmpty)
    }

    @Test func weekendOpenCancelsNothing() {
        var sim = Simulation(zone: seoul)
        sim.refill(at("2026-11-21T10:00"))  // Saturday
        let d = sim.open(at("2026-11-21T11:00"))
        #expect(d.cancelled.isEmpty)
        #expect(d.refill.isEmpty)
        #expect(sim.pending.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_09_30")
    }

    @Test func openKeepsOneOffRequests() {
        var sim = Simulation(zone: seoul)
        sim.pending = [
            PendingRequest(
                rowID: 999, identifier: "dentist", kind: .oneoff, fireAt: at("2026-11-23T15:00"),
                localDate: LocalDate(year: 2026, month: 11, day: 23))
        ]
        sim.refill(at("2026-11-23T12:00"))
        sim.open(at("2026-11-23T12:10"))
        #expect(sim.pending.contains { $0.identifier == "dentist" })
        #expect(sim.pending.count == 64)
    }

    @Test func theSoonestSixtyFourWinAndLaterOnesAreDisplaced() {
        var sim = Simulation(zone: seoul)
        // 64 requests pending far in the future; the slots of the coming days are sooner.
        sim.pending = (0..<64).map { i in
            PendingRequest(
                rowID: 1000 + Int64(i), identifier: "later-\(i)", kind: .oneoff,
                fireAt: at("2027-01-04T10:00") + Int64(i) * 60_000, localDate: LocalDate(year: 2027, month: 1, day: 4))
        }
        let d = sim.refill(at("2026-11-23T12:00"))
        #expect(d.added.count == 64)
        #expect(d.displaced.count == 64)
        #expect(sim.pending.count == 64)
    }

    @Test func capNeverExceededWithASmallerCap() {
        var sim = Simulation(zone: seoul)
        sim.policy.cap = 5
        sim.refill(at("2026-11-23T12:00"))
        #expect(sim.pending.map(\.identifier) == ["12_30", "13_00", "13_30", "14_00", "14_30"].map { "Noti_AppOpenPromotion_2026_11_23_" + $0 })
    }

    /// A refill stops making new slots once they can no longer be among the soonest `cap`, and looks taken
    /// identifiers up by reading: on random plans (kept slots, one-offs soon and far, waiting ones, finished
    /// identifiers, one-offs holding a slot's identifier, opened and skipped dates, caps 1-64) it decides
    /// exactly what the plain rule does — every slot after now not taken, merged with what is kept, the
    /// soonest `cap` (computed here from the schedule alone, by identifier strings).
    @Test func refillStopsEarlyYetDecidesAsThePlainRule() {
        var random = SeededGenerator(seed: 64)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        for round in 0..<400 {
            let now = at("2026-11-20T06:00") + Int64(pick(14 * 24 * 60)) * 60_000
            let cap = [1, 2, 5, 20, 63, 64][pick(6)]
            let policy = PlanPolicy(cap: cap)
            var exclusions = Exclusions()
            let today = seoul.local(now).date
            for _ in 0..<pick(4) { exclusions.openedDates.insert(today.adding(days: pick(6))) }
            for _ in 0..<pick(4) { exclusions.skippedDates.insert(today.adding(days: pick(20))) }
            // Every slot of the coming weeks, none excluded by skips (a kept slot there would be retired).
            let slots = SlotIdentifier.upcoming(after: now - 10 * 60_000, in: seoul, limit: 300)
                .filter { !exclusions.skippedDates.contains($0.day) }
            var row: Int64 = 0
            func request(_ id: String, _ kind: RequestKind, _ at: Instant) -> PendingRequest {
                row += 1
                return PendingRequest(rowID: row, identifier: id, kind: kind, fireAt: at, localDate: seoul.local(at).date)
            }
            var pending: [PendingRequest] = []
            var finished: Set<String> = []
            for slot in slots {
                switch pick(5) {
                case 0, 1: if pending.count < cap { pending.append(request(slot.identifier, .slot, slot.fireAt)) }
                case 2: finished.insert(slot.identifier)
                default: break
                }
            }
            var waiting: [PendingRequest] = []
            for n in 0..<pick(6) {
                let when = now + Int64(pick(60 * 24 * 40) - 60 * 24) * 60_000
                // Now and then a one-off with the identifier of a slot still ahead (`add --id`).
                let id = pick(3) == 0 ? slots[pick(slots.count)].identifier : "oneoff-\(round)-\(n)"
                if pick(2) == 0, pending.count < cap {
                    pending.append(request(id, .oneoff, when))
                } else {
                    waiting.append(request(id, .oneoff, when))
                }
            }
            let state = PlanState(pending: pending, finishedSlotIdentifiers: finished, waitingOneOffs: waiting, exclusions: exclusions)
            let decision = decideRefill(now: now, zone: seoul, policy: policy, state: state)

            // The plain rule.
            let staleBefore = now - policy.graceMilliseconds
            let live = pending.filter { $0.fireAt >= staleBefore }
            let waitingLive = waiting.filter { $0.fireAt >= staleBefore }
            let taken = finished.union(live.map(\.identifier)).union(waitingLive.map(\.identifier))
            let candidates = SlotIdentifier.upcoming(after: now, in: seoul, excluding: exclusions, limit: cap + taken.count)
                .filter { !taken.contains($0.identifier) }.prefix(cap)
            var entries = live.map { (at: $0.fireAt, id: $0.identifier, kind: 0) }
            entries += waitingLive.map { (at: $0.fireAt, id: $0.identifier, kind: 1) }
            entries += candidates.map { (at: $0.fireAt, id: $0.identifier, kind: 2) }
            entries.sort { ($0.at, $0.id) < ($1.at, $1.id) }
            let kept = entries.prefix(cap)
            #expect(decision.added.map(\.identifier) == kept.filter { $0.kind == 2 }.map(\.id), "round \(round)")
            #expect(Set(decision.readmitted.map(\.identifier)) == Set(kept.filter { $0.kind == 1 }.map(\.id)), "round \(round)")
            #expect(Set(decision.displaced.map(\.identifier)) == Set(entries.dropFirst(cap).filter { $0.kind == 0 }.map(\.id)), "round \(round)")
            #expect(Set(decision.missed.map(\.rowID)) == Set((pending + waiting).filter { $0.fireAt < staleBefore }.map(\.rowID)), "round \(round)")
        }
    }

    @Test func weekOfRefillsAndOpensKeepsEveryInvariant() {
        var sim = Simulation(zone: seoul)
        var now = at("2026-11-20T07:00")  // a Friday
        let end = at("2026-12-02T23:00")
        var step = 0
        while now < end {
            step += 1
            if step % 37 == 0 { sim.open(now) } else { sim.refill(now) }
            #expect(sim.pending.count <= 64)
            #expect(Set(sim.pending.map(\.identifier)).count == sim.pending.count)
            #expect(sim.pending.allSatisfy { !sim.opened.contains($0.localDate) })
            #expect(sim.pending.allSatisfy { $0.fireAt >= now - sim.policy.graceMilliseconds })
            now = now + 7 * 60_000 + 13_000
        }
    }
}
