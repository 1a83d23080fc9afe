/// Short human text for a span of time: `45s`, `29m`, `2h 05m`, `1d 18h`.
public func describeDuration(milliseconds: Int64) -> String {
    let s = milliseconds.magnitude / 1000  // not abs(): abs(Int64.min) traps
    if s < 60 { return "\(s)s" }
    if s < 3600 { return "\(s / 60)m" }
    if s < 86400 { return "\(s / 3600)h \(pad(Int(s % 3600 / 60), 2))m" }
    return "\(s / 86400)d \(pad(Int(s % 86400 / 3600), 2))h"
}

/// `in 29m` for the future, `3m ago` for the past.
public func describeRelative(_ instant: Instant, from now: Instant) -> String {
    let delta = instant - now
    if delta.magnitude < 1000 { return "just now" }
    return delta >= 0 ? "in \(describeDuration(milliseconds: delta))" : "\(describeDuration(milliseconds: delta)) ago"
}

/// Parses a duration such as `90s`, `15m`, `2h`, `1d` into milliseconds; nil when malformed.
public func parseDuration(_ text: String) -> Int64? {
    guard let unit = text.last, let value = Int64(text.dropLast()), value >= 0, value < 1_000_000_000 else { return nil }
    switch unit {
    case "s": return value * 1000
    case "m": return value * 60_000
    case "h": return value * 3_600_000
    case "d": return value * 86_400_000
    default: return nil
    }
}
