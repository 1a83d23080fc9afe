/// A time zone as a value: a name and the rule giving its UTC offset at any instant.
///
/// The core never reads the tz database itself; the shell hands it a `Zone` whose offset function
/// it built (from the C library in the binary, fixed offsets or hand-made DST rules in tests).
public struct Zone: Sendable {
    public let name: String
    /// The offset functions, in one object: a copy of a zone (they are copied everywhere) retains one
    /// reference, as when it held a single closure.
    private let rule: Rule

    private final class Rule: Sendable {
        let offsetSeconds: @Sendable (Int64) -> Int
        let probeSeconds: @Sendable (Int64) -> Int
        init(_ offsetSeconds: @escaping @Sendable (Int64) -> Int, _ probeSeconds: @escaping @Sendable (Int64) -> Int) {
            self.offsetSeconds = offsetSeconds
            self.probeSeconds = probeSeconds
        }
    }

    /// `offsetSeconds(t)` is the zone's UTC offset in seconds at Unix time `t` (east positive). `probe`, when
    /// given, answers the same for one instant without the work `offsetSeconds` does to answer its
    /// neighbours cheaply (the system zone remembers whole days, and reads both ends of a day to do so).
    public init(name: String, offsetSeconds: @escaping @Sendable (Int64) -> Int, probe: (@Sendable (Int64) -> Int)? = nil) {
        self.name = name
        rule = Rule(offsetSeconds, probe ?? offsetSeconds)
    }

    public static func fixed(name: String, offsetSeconds: Int) -> Zone {
        Zone(name: name) { _ in offsetSeconds }
    }

    public static let utc = Zone.fixed(name: "UTC", offsetSeconds: 0)

    /// UTC offset in seconds at `instant`.
    public func offset(at instant: Instant) -> Int { rule.offsetSeconds(instant.seconds) }

    /// The same for a scan that asks each instant once, days apart (`ZoneDefinition.changes`).
    public func probedOffset(at instant: Instant) -> Int { rule.probeSeconds(instant.seconds) }

    /// The wall-clock reading at `instant`.
    public func local(_ instant: Instant) -> LocalDateTime {
        LocalDateTime(epochMillisecondsAsIfUTC: saturatingAdd(instant.milliseconds, Int64(offset(at: instant)) * 1000))
    }

    /// The instant at which the wall clock shows `local`, or nil when that reading does not exist
    /// (skipped by a DST change). When it exists twice (clocks set back), the earlier instant.
    public func instant(for local: LocalDateTime) -> Instant? {
        let wall = local.epochMillisecondsAsIfUTC
        // Any offset valid near this reading is the offset a day before or a day after it:
        // real zones change offset at most once within a couple of days.
        let before = offset(at: Instant(milliseconds: wall - 86_400_000))
        let after = offset(at: Instant(milliseconds: wall + 86_400_000))
        // Try the earlier instant (the larger offset) first: a repeated reading means its first occurrence.
        for candidateOffset in before == after ? [before] : [max(before, after), min(before, after)] {
            let candidate = Instant(milliseconds: wall - Int64(candidateOffset) * 1000)
            if offset(at: candidate) == candidateOffset { return candidate }
        }
        return nil
    }

    /// RFC 3339 with this zone's offset: `2026-11-23T09:30:00+09:00` (milliseconds only when non-zero;
    /// an offset with seconds is written with them, as Python's `isoformat` does).
    public func rfc3339(_ instant: Instant) -> String {
        let l = local(instant)
        let seconds = offset(at: instant)
        // The common case as bytes (every request inserted has one): a year of 0-9999, an offset of whole
        // minutes within a day.
        if (0...9999).contains(l.date.year), seconds % 60 == 0, abs(seconds) < 86_400 {
            return String(unsafeUninitializedCapacity: 29) { b in
                var i = l.date.writeISO(into: b, at: 0)
                b[i] = UInt8(ascii: "T")
                i = writeDigits(b, i + 1, l.hour, 2)
                b[i] = UInt8(ascii: ":")
                i = writeDigits(b, i + 1, l.minute, 2)
                b[i] = UInt8(ascii: ":")
                i = writeDigits(b, i + 1, l.second, 2)
                if l.millisecond != 0 {
                    b[i] = UInt8(ascii: ".")
                    i = writeDigits(b, i + 1, l.millisecond, 3)
                }
                b[i] = UInt8(ascii: seconds < 0 ? "-" : "+")
                i = writeDigits(b, i + 1, abs(seconds) / 3600, 2)
                b[i] = UInt8(ascii: ":")
                return writeDigits(b, i + 1, abs(seconds) / 60 % 60, 2)
            }
        }
        return Self.rfc3339Text(l, offsetSeconds: seconds)
    }

    /// The same text by interpolation: any year and offset (and the check of the bytes above, in tests).
    static func rfc3339Text(_ l: LocalDateTime, offsetSeconds: Int) -> String {
        let fraction = l.millisecond == 0 ? "" : "." + pad(l.millisecond, 3)
        return
            "\(pad(l.date.year, 4))-\(pad(l.date.month, 2))-\(pad(l.date.day, 2))T\(pad(l.hour, 2)):\(pad(l.minute, 2)):\(pad(l.second, 2))\(fraction)"
            + Zone.formatOffset(offsetSeconds)
    }

    /// `+09:00`, `-04:00`, `+12:45`; `-00:44:30` for an offset with seconds (Africa/Monrovia until 1972),
    /// which RFC 3339 cannot write: a timestamp cut to `-00:44` would name an instant 30 s off.
    public static func formatOffset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        let text = "\(sign)\(pad(magnitude / 3600, 2)):\(pad(magnitude / 60 % 60, 2))"
        return magnitude % 60 == 0 ? text : text + ":" + pad(magnitude % 60, 2)
    }
}
