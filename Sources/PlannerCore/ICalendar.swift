/// The plan ahead as iCalendar (RFC 5545), for a calendar app: one event per study slot with an alarm at
/// its time, in the plan's zone, described by a VTIMEZONE built from the same offsets the planner uses.
public enum ICalendar {
    public struct Content: Sendable {
        public var calendarName: String
        public var title: String
        public var body: String
        public var productVersion: String
        public init(calendarName: String, title: String, body: String, productVersion: String) {
            self.calendarName = calendarName
            self.title = title
            self.body = body
            self.productVersion = productVersion
        }
    }

    /// The whole calendar, lines ending in CRLF and folded at 75 octets.
    public static func render(_ days: [PlannedDay], zone: Zone, now: Instant, content: Content) -> String {
        var lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//planner//planner \(text(content.productVersion))//EN",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
            "X-WR-CALNAME:\(text(content.calendarName))",
            "X-WR-TIMEZONE:\(text(zone.name))",
        ]
        let slots = days.flatMap(\.slots)
        if let first = slots.first, let last = slots.last {
            lines += timeZone(zone, from: first.fireAt, through: last.fireAt)
        }
        // What every event shares, escaped and folded once.
        let shared = [
            "DTSTAMP:\(utcStamp(now))", "DURATION:PT5M", "SUMMARY:\(text(content.title))",
            "DESCRIPTION:\(text(content.body))", "CATEGORIES:study", "TRANSP:TRANSPARENT", "BEGIN:VALARM",
            "ACTION:DISPLAY", "TRIGGER;RELATED=START:PT0S", "DESCRIPTION:\(text(content.title))", "END:VALARM", "END:VEVENT",
        ].map(fold).joined()
        let startPrefix = "DTSTART;TZID=\(parameter(zone.name)):"
        var out = lines.map(fold).joined()
        for slot in slots {
            // The identifier names the local date and time: the same slot keeps its UID across exports.
            out += "BEGIN:VEVENT\r\n"
            out += fold("UID:\(slot.identifier)@planner")
            out += fold(startPrefix + localStamp(slot.local))
            out += shared
        }
        return out + "END:VCALENDAR\r\n"
    }

    /// A VTIMEZONE for `zone` valid from a day before `from` to a day after `through`: the offset in force
    /// at the start, then each change in between as its own observance (no recurrence rules to get wrong).
    static func timeZone(_ zone: Zone, from: Instant, through: Instant) -> [String] {
        let start = Instant(milliseconds: from.milliseconds - 86_400_000)
        let end = Instant(milliseconds: through.milliseconds + 86_400_000)
        let changes = offsetChanges(zone, from: start, through: end)
        var lines = ["BEGIN:VTIMEZONE", "TZID:\(parameter(zone.name))"]
        func observance(at instant: Instant, from old: Int, to new: Int, daylight: Bool) {
            let kind = daylight ? "DAYLIGHT" : "STANDARD"
            // DTSTART of an observance is the wall time just before the change, read with the old offset.
            let wall = LocalDateTime(epochMillisecondsAsIfUTC: instant.milliseconds + Int64(old) * 1000)
            lines += [
                "BEGIN:\(kind)", "DTSTART:\(localStamp(wall))",
                "TZOFFSETFROM:\(offsetText(old))", "TZOFFSETTO:\(offsetText(new))", "END:\(kind)",
            ]
        }
        let initial = zone.offset(at: start)
        // The first observance is daylight time when the next change sets the clocks back.
        observance(at: start, from: initial, to: initial, daylight: changes.first.map { $0.to < initial } ?? false)
        for change in changes {
            observance(at: change.at, from: change.from, to: change.to, daylight: change.to > change.from)
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    /// Every change of UTC offset in `[from, through]`, found hour by hour and narrowed to the second.
    static func offsetChanges(_ zone: Zone, from: Instant, through: Instant) -> [(at: Instant, from: Int, to: Int)] {
        var changes: [(at: Instant, from: Int, to: Int)] = []
        var t = from.seconds
        var offset = zone.offset(at: from)
        while t < through.seconds {
            let next = min(t + 3600, through.seconds)
            let nextOffset = zone.offset(at: Instant(milliseconds: next * 1000))
            if nextOffset != offset {
                var low = t
                var high = next  // offset at low is `offset`, at high is `nextOffset`
                while high - low > 1 {
                    let mid = low + (high - low) / 2
                    if zone.offset(at: Instant(milliseconds: mid * 1000)) == offset { low = mid } else { high = mid }
                }
                changes.append((Instant(milliseconds: high * 1000), offset, nextOffset))
                offset = nextOffset
            }
            t = next
        }
        return changes
    }

    static func localStamp(_ l: LocalDateTime) -> String {
        "\(pad(l.date.year, 4))\(pad(l.date.month, 2))\(pad(l.date.day, 2))T\(pad(l.hour, 2))\(pad(l.minute, 2))\(pad(l.second, 2))"
    }

    static func utcStamp(_ instant: Instant) -> String {
        localStamp(LocalDateTime(epochMillisecondsAsIfUTC: instant.milliseconds)) + "Z"
    }

    /// `+0900`, `-0430`, `-004430` (RFC 5545's utc-offset has optional seconds: Monrovia until 1972).
    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        let text = "\(sign)\(pad(magnitude / 3600, 2))\(pad(magnitude / 60 % 60, 2))"
        return magnitude % 60 == 0 ? text : text + pad(magnitude % 60, 2)
    }

    /// A TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma and line breaks escaped; other control
    /// characters, which a TEXT value may not hold, become spaces.
    static func text(_ value: String) -> String {
        // Most values need nothing escaped or replaced: returned as they are (an item has four).
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C && $0 != 0x3B && $0 != 0x2C }) { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            case "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A parameter value (the TZID): quoted when it holds `:`, `;` or `,`, which it may not hold bare.
    static func parameter(_ value: String) -> String {
        let clean = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\"" && $0.value != 0x7F }))
        return clean.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"\(clean)\"" : clean
    }

    /// One content line folded at 75 octets (never inside a UTF-8 sequence), ending in CRLF.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line + "\r\n" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 37 + 2)
        var width = 0
        var i = 0
        while i < bytes.count {
            // The whole UTF-8 sequence starting here (continuation bytes are 10xxxxxx).
            var end = i + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            if width + (end - i) > 75 {
                out += [13, 10, 32]
                width = 1
            }
            out += bytes[i..<end]
            width += end - i
            i = end
        }
        return String(decoding: out + [13, 10], as: UTF8.self)
    }
}
