import PlannerCore

extension PlannerDatabase {
    /// An instant as UTC text for messages: `2026-11-24T09:00:00Z`.
    package static func utcText(_ instant: Instant) -> String {
        let t = LocalDateTime(epochMillisecondsAsIfUTC: instant.milliseconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(t.date)T\(two(t.hour)):\(two(t.minute)):\(two(t.second))Z"
    }
}
