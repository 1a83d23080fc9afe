/// The plan ahead, day by day: what `planner plan` shows and `planner export --ics` writes. Beyond the 64
/// pending requests, this is what refill will go on producing if nothing changes.

public struct PlannedDay: Equatable, Sendable {
    public enum NoSlots: Equatable, Sendable {
        /// Not one of the schedule's days (`weekend` when it is a Saturday or Sunday).
        case notInDays(weekend: Bool)
        case skipped
        case paused
        case opened
        /// Today, and its last slot time has passed.
        case over
    }
    public var date: LocalDate
    /// The slots still to come that day, soonest first.
    public var slots: [Slot]
    /// Those of its slots still to come that measurement mode withholds (`MeasurementMode`): requests like
    /// the others, never shown, and no calendar item.
    public var withheld: [Slot] = []
    /// Why there are none (nil when there are some).
    public var noSlots: NoSlots?
}

/// `days` study days from today's (in `zone`, `Schedule.studyDay`), with each one's slots after `now` that no exclusion removes.
/// `withholding`: the settings whose measurement mode sets withheld slots apart (nil: none are).
public func planAhead(
    now: Instant, zone: Zone, schedule: Schedule, exclusions: Exclusions, days: Int, withholding: PlanSettings? = nil
) -> [PlannedDay] {
    let today = schedule.studyDay(at: now, in: zone)
    return (0..<max(days, 0)).map { offset in
        plannedDay(today.adding(days: offset), now: now, zone: zone, schedule: schedule, exclusions: exclusions, withholding: withholding)
    }
}

/// One study day of `planAhead`: its slots after `now` that no exclusion removes, or why it has none.
public func plannedDay(
    _ date: LocalDate, now: Instant, zone: Zone, schedule: Schedule, exclusions: Exclusions, withholding: PlanSettings? = nil
) -> PlannedDay {
    var slots: [Slot] = []
    var withheld: [Slot] = []
    var anyAhead = false
    for reading in schedule.readings(on: date) {
        // A reading skipped by a DST change has no instant: no slot, as in refill.
        guard let fireAt = zone.instant(for: reading), fireAt > now else { continue }
        anyAhead = true
        guard exclusions.reason(date: date, at: fireAt) == nil else { continue }
        let slot = Slot(local: reading, fireAt: fireAt, day: date)
        if let plan = withholding, MeasurementMode.withholds(identifier: slot.identifier, kind: .slot, plan: plan) {
            withheld.append(slot)
        } else {
            slots.append(slot)
        }
    }
    var noSlots: PlannedDay.NoSlots?
    if slots.isEmpty && withheld.isEmpty {
        if !schedule.days.contains(isoWeekday: date.isoWeekday) {
            noSlots = .notInDays(weekend: date.isoWeekday >= 6)
        } else if exclusions.openedDates.contains(date) {
            noSlots = .opened
        } else if exclusions.skippedDates.contains(date) {
            noSlots = .skipped
        } else if !anyAhead {
            noSlots = .over
        } else {
            noSlots = .paused
        }
    }
    return PlannedDay(date: date, slots: slots, withheld: withheld, noSlots: noSlots)
}
