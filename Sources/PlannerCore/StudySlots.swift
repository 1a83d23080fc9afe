/// The study plan of seed 002: Monday to Friday, 09:30 through 21:30 every 30 minutes (25 a day),
/// as wall-clock times in the planner's zone.
public enum StudySlots {
    public static let firstMinuteOfDay = 9 * 60 + 30
    public static let lastMinuteOfDay = 21 * 60 + 30
    public static let stepMinutes = 30

    public static let title = "Time to study?"
    public static let body = "Open the app and start today's lesson."

    public static func isStudyDay(_ date: LocalDate) -> Bool { date.isoWeekday <= 5 }

    /// The wall-clock readings of the slots on `date` (empty on weekends).
    public static func readings(on date: LocalDate) -> [LocalDateTime] {
        guard isStudyDay(date) else { return [] }
        return stride(from: firstMinuteOfDay, through: lastMinuteOfDay, by: stepMinutes).map {
            LocalDateTime(date: date, hour: $0 / 60, minute: $0 % 60)
        }
    }
}

/// A study slot placed on the time line.
public struct Slot: Hashable, Sendable {
    public var identifier: String
    public var local: LocalDateTime
    public var fireAt: Instant

    public init(local: LocalDateTime, fireAt: Instant) {
        self.identifier = SlotIdentifier.format(local)
        self.local = local
        self.fireAt = fireAt
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

    /// The slots strictly after `now`, soonest first, on study days not in `skippingDates`, whose
    /// identifiers are not in `skippingIdentifiers`; at most `limit`.
    /// A reading skipped by a DST change has no instant and is left out.
    public static func upcoming(
        after now: Instant, in zone: Zone, skippingDates: Set<LocalDate> = [],
        skippingIdentifiers: Set<String> = [], limit: Int
    ) -> [Slot] {
        var slots: [Slot] = []
        var date = zone.local(now).date
        // Two years of days is far more than 64 slots can need, even with many opened dates skipped.
        for _ in 0..<732 where slots.count < limit {
            if !skippingDates.contains(date) {
                for reading in StudySlots.readings(on: date) where slots.count < limit {
                    guard let fireAt = zone.instant(for: reading), fireAt > now else { continue }
                    let slot = Slot(local: reading, fireAt: fireAt)
                    if !skippingIdentifiers.contains(slot.identifier) { slots.append(slot) }
                }
            }
            date = date.adding(days: 1)
        }
        return slots
    }
}
