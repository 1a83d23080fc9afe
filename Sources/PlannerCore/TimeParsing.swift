/// The years a time may fall in. The plan looks two years ahead and stores 4-digit years; before 1970
/// zones used odd local-mean-time offsets.
public let supportedYears = 1970...9990

/// Parses a `--now` / `--at` value: ISO 8601 `YYYY-MM-DDTHH:MM[:SS[.fff]]` (a fraction of 1–9 digits, cut
/// to the millisecond), either local wall time in `zone` or an instant with `Z` / `±HH:MM[:SS]`. Throws a
/// usage error naming what is wrong.
public func parseTime(_ text: String, in zone: Zone) throws(PlannerError) -> Instant {
    // Made only when refused (every --now and PLANNER_NOW is parsed; the message is dear).
    func bad() -> PlannerError {
        .usage(
            "invalid time \(TerminalText.quoted(text)): expected YYYY-MM-DDTHH:MM[:SS[.fff]], optionally followed by Z or ±HH:MM[:SS] "
                + "(e.g. 2026-11-23T09:30 or 2026-11-23T00:30:00Z)")
    }
    var chars = Array(text.utf8)
    guard chars.count >= 16 else { throw bad() }

    // Split off the zone designator.
    var offsetSeconds: Int?
    if chars.last == UInt8(ascii: "Z") {
        offsetSeconds = 0
        chars.removeLast()
    } else if chars.count >= 25, chars[chars.count - 9] == UInt8(ascii: "+") || chars[chars.count - 9] == UInt8(ascii: "-") {
        // ±HH:MM:SS: what the planner prints for an offset with seconds (Monrovia until 1972) reads back.
        let tail = Array(chars[(chars.count - 8)...])
        guard tail[2] == UInt8(ascii: ":"), tail[5] == UInt8(ascii: ":"), let h = number(tail[0..<2]), let m = number(tail[3..<5]),
            let sec = number(tail[6..<8]), h <= 23, m <= 59, sec <= 59
        else { throw bad() }
        offsetSeconds = (h * 3600 + m * 60 + sec) * (chars[chars.count - 9] == UInt8(ascii: "-") ? -1 : 1)
        chars.removeLast(9)
    } else if chars.count >= 22, chars[chars.count - 6] == UInt8(ascii: "+") || chars[chars.count - 6] == UInt8(ascii: "-") {
        let tail = Array(chars[(chars.count - 5)...])
        guard tail[2] == UInt8(ascii: ":"), let h = number(tail[0..<2]), let m = number(tail[3..<5]), h <= 23, m <= 59
        else { throw bad() }
        offsetSeconds = (h * 3600 + m * 60) * (chars[chars.count - 6] == UInt8(ascii: "-") ? -1 : 1)
        chars.removeLast(6)
    }

    // YYYY-MM-DDTHH:MM
    guard chars.count >= 16, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
        chars[10] == UInt8(ascii: "T"), chars[13] == UInt8(ascii: ":"),
        let year = number(chars[0..<4]), let month = number(chars[5..<7]), let day = number(chars[8..<10]),
        let hour = number(chars[11..<13]), let minute = number(chars[14..<16])
    else { throw bad() }
    var second = 0
    var millisecond = 0
    var rest = chars[16...]
    if !rest.isEmpty {
        guard rest.count >= 3, rest.first == UInt8(ascii: ":"), let s = number(rest.dropFirst().prefix(2)) else { throw bad() }
        second = s
        rest = rest.dropFirst(3)
        if !rest.isEmpty {
            let digits = rest.dropFirst()
            guard rest.first == UInt8(ascii: "."), (1...9).contains(digits.count), number(digits) != nil else { throw bad() }
            // Keep milliseconds; finer digits are truncated.
            let padded = Array(digits.prefix(3)) + Array(repeating: UInt8(ascii: "0"), count: max(0, 3 - digits.count))
            millisecond = number(padded[...])!
        }
    }
    let date = LocalDate(year: year, month: month, day: day)
    guard date.isValid, hour <= 23, minute <= 59, second <= 59 else {
        throw .usage("invalid time \(TerminalText.quoted(text)): no such date or time of day")
    }
    // The plan looks two years ahead and stores 4-digit years; before 1970 zones used odd
    // local-mean-time offsets. Refuse what the planner cannot represent instead of failing later.
    guard supportedYears.contains(year) else {
        throw .usage("invalid time \(TerminalText.quoted(text)): the year must be between 1970 and 9990")
    }
    let reading = LocalDateTime(date: date, hour: hour, minute: minute, second: second, millisecond: millisecond)
    if let offsetSeconds {
        return Instant(milliseconds: reading.epochMillisecondsAsIfUTC - Int64(offsetSeconds) * 1000)
    }
    guard let instant = zone.instant(for: reading) else {
        throw .usage(
            "invalid time \(TerminalText.quoted(text)): that wall-clock time does not exist in \(zone.name) (skipped by a daylight-saving change); give an offset such as Z or +01:00"
        )
    }
    return instant
}

private func number<C: Collection>(_ digits: C) -> Int? where C.Element == UInt8 {
    guard !digits.isEmpty else { return nil }
    var value = 0
    for c in digits {
        guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(c - UInt8(ascii: "0"))
    }
    return value
}
