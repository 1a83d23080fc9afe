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
        guard (0...9999).contains(d.year) else {
            return prefix + "\(pad(d.year, 4))_\(pad(d.month, 2))_\(pad(d.day, 2))_\(pad(local.hour, 2))_\(pad(local.minute, 2))"
        }
        // Written byte by byte into one allocation: a refill formats one per candidate slot, and string
        // interpolation cost a tenth of `open` (bench/COMMANDS_RESULTS.md).
        return String(unsafeUninitializedCapacity: length) { buffer in
            for (i, byte) in prefixBytes.enumerated() { buffer[i] = byte }
            var at = prefixBytes.count
            for (value, width) in [(d.year, 4), (d.month, 2), (d.day, 2), (local.hour, 2), (local.minute, 2)] {
                if at > prefixBytes.count {
                    buffer[at] = underscore
                    at += 1
                }
                var rest = value
                for i in stride(from: at + width - 1, through: at, by: -1) {
                    buffer[i] = zero + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
                at += width
            }
            return at
        }
    }

    private static let prefixBytes = Array(prefix.utf8)
    /// `Noti_AppOpenPromotion_YYYY_MM_DD_HH_MM`.
    private static let length = prefix.utf8.count + 16
    private static let zero = UInt8(ascii: "0"), underscore = UInt8(ascii: "_")

    /// The wall-clock reading an identifier names; nil unless it is exactly the planner's format.
    public static func parse(_ identifier: String) -> LocalDateTime? {
        var identifier = identifier
        return identifier.withUTF8 { bytes -> LocalDateTime? in
            guard bytes.count == length, bytes.starts(with: prefixBytes) else { return nil }
            var at = prefixBytes.count
            var n: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)
            func field(_ width: Int) -> Int? {
                if at > prefixBytes.count {
                    guard bytes[at] == underscore else { return nil }
                    at += 1
                }
                var value = 0
                for byte in bytes[at..<at + width] {
                    guard byte >= zero, byte <= zero + 9 else { return nil }
                    value = value * 10 + Int(byte - zero)
                }
                at += width
                return value
            }
            guard let year = field(4), let month = field(2), let day = field(2), let hour = field(2),
                let minute = field(2)
            else { return nil }
            n = (year, month, day, hour, minute)
            let date = LocalDate(year: n.0, month: n.1, day: n.2)
            guard date.isValid, n.3 <= 23, n.4 <= 59 else { return nil }
            return LocalDateTime(date: date, hour: n.3, minute: n.4)
        }
    }

    /// The schedule's slots strictly after `now`, soonest first, not excluded, whose identifiers are
    /// not in `skippingIdentifiers`; at most `limit`.
    /// A reading skipped by a DST change has no instant and is left out.
    public static func upcoming(
        after now: Instant, in zone: Zone, schedule: Schedule = .standard, excluding exclusions: Exclusions = Exclusions(),
        skippingIdentifiers: Set<String> = [], limit: Int
    ) -> [Slot] {
        let skipping = Taken(skippingIdentifiers)
        return upcoming(after: now, in: zone, schedule: schedule, excluding: exclusions, skipping: skipping) { count, _ in count >= limit }
    }

    /// The same, until `enough(count, last)` says the slots so far suffice (asked after each, and once
    /// before the first with none): a refill stops once the sooner of what it keeps and these fill the cap.
    static func upcoming(
        after now: Instant, in zone: Zone, schedule: Schedule, excluding exclusions: Exclusions,
        skipping: Taken, enough: (Int, Instant) -> Bool
    ) -> [Slot] {
        var slots: [Slot] = []
        guard !enough(0, now) else { return slots }
        // From the study day `now` is in: with a window crossing midnight, its slots after midnight are ahead.
        var date = schedule.studyDay(at: now, in: zone)
        // Two years of days is far more than 64 slots can need, even with many dates excluded.
        for _ in 0..<732 {
            for reading in schedule.readings(on: date) {
                // Taken readings are skipped before an identifier is made for them: most of a refill's are.
                guard let fireAt = zone.instant(for: reading), fireAt > now,
                    exclusions.reason(date: date, at: fireAt) == nil, !skipping.contains(reading)
                else { continue }
                slots.append(Slot(local: reading, fireAt: fireAt, day: date))
                if enough(slots.count, fireAt) { return slots }
            }
            date = date.adding(days: 1)
        }
        return slots
    }

    /// Identifiers already used, looked up by the reading they name: a number per minute instead of a
    /// 38-byte string to make and hash for every candidate slot. Identifiers not in the planner's format
    /// (a one-off's own, or a year past 9999) are kept as text and compared with the identifier itself.
    ///
    /// The minutes are a sorted array searched by halves: a `Set<Int>`'s first use in a process costs more
    /// run-time type lookups than a refill's searches.
    struct Taken {
        private var minutes: [Int] = []
        private var others: Set<String> = []

        init<S: Sequence>(_ identifiers: S) where S.Element == String {
            for identifier in identifiers { insert(identifier) }
        }

        mutating func insert(_ identifier: String) {
            guard let reading = SlotIdentifier.parse(identifier) else {
                others.insert(identifier)
                return
            }
            let minute = Self.minute(reading)
            let at = firstIndex(notBelow: minute)
            if at == minutes.count || minutes[at] != minute { minutes.insert(minute, at: at) }
        }

        func contains(_ reading: LocalDateTime) -> Bool {
            let minute = Self.minute(reading)
            let at = firstIndex(notBelow: minute)
            return (at < minutes.count && minutes[at] == minute) || (!others.isEmpty && others.contains(SlotIdentifier.format(reading)))
        }

        private func firstIndex(notBelow minute: Int) -> Int {
            var low = 0
            var high = minutes.count
            while low < high {
                let mid = (low + high) / 2
                if minutes[mid] < minute { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// One number per wall-clock minute (identifiers name whole minutes).
        static func minute(_ r: LocalDateTime) -> Int {
            ((r.date.year * 16 + r.date.month) * 32 + r.date.day) * 1440 + r.hour * 60 + r.minute
        }
    }
}
