/// A study slot placed on the time line.
public struct Slot: Hashable, Sendable {
    public var identifier: String
    public var local: LocalDateTime
    public var fireAt: Instant
    /// The study day it belongs to (`Schedule.studyDay`): its local date, or the day before for a slot after
    /// midnight of a window that crosses it. The identifier keeps the slot's own date and time.
    public var day: LocalDate

    public init(local: LocalDateTime, fireAt: Instant, day: LocalDate? = nil) {
        self.identifier = SlotIdentifier.format(local)
        self.local = local
        self.fireAt = fireAt
        self.day = day ?? local.date
    }
}

/// `Noti_AppOpenPromotion_YYYY_MM_DD_HH_MM`, zero-padded local date and time.
public enum SlotIdentifier {
    public static let prefix = "Noti_AppOpenPromotion_"

    public static func format(_ local: LocalDateTime) -> String {
        let d = local.date
        return prefix + "\(pad(d.year, 4))_\(pad(d.month, 2))_\(pad(d.day, 2))_\(pad(local.hour, 2))_\(pad(local.minute, 2))"
    }

    /// The wall-clock reading an identifier names; nil unless it is exactly the planner's format.
    public static func parse(_ identifier: String) -> LocalDateTime? {
        guard identifier.hasPrefix(prefix) else { return nil }
        let fields = identifier.dropFirst(prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        let widths = [4, 2, 2, 2, 2]
        guard fields.count == 5, zip(fields, widths).allSatisfy({ $0.count == $1 && $0.allSatisfy(\.isASCII) }) else {
            return nil
        }
        let n = fields.compactMap { Int($0) }
        guard n.count == 5 else { return nil }
        let date = LocalDate(year: n[0], month: n[1], day: n[2])
        guard date.isValid, n[3] <= 23, n[4] <= 59 else { return nil }
        return LocalDateTime(date: date, hour: n[3], minute: n[4])
    }

    /// The schedule's slots strictly after `now`, soonest first, not excluded, whose identifiers are
    /// not in `skippingIdentifiers`; at most `limit`.
    /// A reading skipped by a DST change has no instant and is left out.
    public static func upcoming(
        after now: Instant, in zone: Zone, schedule: Schedule = .standard, excluding exclusions: Exclusions = Exclusions(),
        skippingIdentifiers: Set<String> = [], limit: Int
    ) -> [Slot] {
        var slots: [Slot] = []
        // From the study day `now` is in: with a window crossing midnight, its slots after midnight are ahead.
        var date = schedule.studyDay(at: now, in: zone)
        // Two years of days is far more than 64 slots can need, even with many dates excluded.
        for _ in 0..<732 where slots.count < limit {
            for reading in schedule.readings(on: date) where slots.count < limit {
                guard let fireAt = zone.instant(for: reading), fireAt > now,
                      exclusions.reason(date: date, at: fireAt) == nil else { continue }
                let slot = Slot(local: reading, fireAt: fireAt, day: date)
                if !skippingIdentifiers.contains(slot.identifier) { slots.append(slot) }
            }
            date = date.adding(days: 1)
        }
        return slots
    }
}
