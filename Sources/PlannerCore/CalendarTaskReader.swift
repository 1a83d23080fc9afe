/// Reads a calendar-folder file back, leniently: a CalDAV client rewrites the whole object (properties
/// reordered, folded elsewhere, parameters such as VALUE=DATE-TIME added, lowercase names, a stale DTSTAMP),
/// and only what the planner acts on is taken from it: the UID, and for a VTODO whether and when it was
/// completed.
public enum CalendarFileReading: Equatable, Sendable {
    /// A planner day's task: completed or not, and when (nil: completed without a time).
    case task(uid: String, date: LocalDate, completed: Bool, completedAt: Instant?)
    /// A planner event (VEVENT) or task of another kind: nothing to act on.
    case plannerItem(uid: String)
    /// Someone else's item (its UID is not one the planner makes): never touched.
    case foreign(uid: String)
    /// Not a calendar object the planner can use: why, for one warning line.
    case unusable(String)
}

extension CalendarFolderText {
    /// `resolve` turns a TZID into a zone (nil: unknown, read in `zone`, the plan's); floating times are the
    /// plan's zone too.
    public static func read(_ bytes: [UInt8], zone: Zone, resolve: (String) -> Zone? = { _ in nil }) -> CalendarFileReading {
        // A UTF-8 byte order mark is not part of the text (RFC 5545 has none, but some clients write one).
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: bom) ? bytes[3...] : bytes[...]
        guard let text = String(validating: body, as: UTF8.self) else { return .unusable("not UTF-8 text (ignored)") }
        var stack: [String] = []
        var uids: Set<String> = []
        var sawCalendar = false
        var todo: (uid: String?, status: String?, completed: (value: String, tzid: String?)?)?
        var todos = 0
        for line in unfold(text) {
            guard let property = ContentLine(line) else {
                if line.isEmpty { continue }
                return .unusable("a line that is not an iCalendar property (ignored)")
            }
            switch property.name {
            case "BEGIN":
                let component = property.value.uppercased()
                if component == "VCALENDAR" { sawCalendar = true }
                if component == "VTODO", stack.last == "VCALENDAR" {
                    todos += 1
                    todo = (nil, nil, nil)
                }
                stack.append(component)
                guard stack.count <= 8 else { return .unusable("components nested too deep (ignored)") }
            case "END":
                guard stack.last == property.value.uppercased() else { return .unusable("an END that does not close its BEGIN (ignored)") }
                stack.removeLast()
            case "UID" where stack.count == 2 && stack[0] == "VCALENDAR":
                uids.insert(property.value)
                if stack[1] == "VTODO" { todo?.uid = property.value }
            case "STATUS" where stack == ["VCALENDAR", "VTODO"]:
                todo?.status = property.value.uppercased()
            case "COMPLETED" where stack == ["VCALENDAR", "VTODO"]:
                todo?.completed = (property.value, property.parameters["TZID"])
            default:
                break
            }
        }
        guard sawCalendar, stack.isEmpty else { return .unusable("not a complete VCALENDAR (ignored)") }
        guard uids.count == 1, let uid = uids.first else {
            return .unusable(uids.isEmpty ? "no UID (ignored)" : "more than one UID in one file (ignored)")
        }
        guard let kind = kind(ofUID: uid) else { return .foreign(uid: uid) }
        guard case .day(let date) = kind else { return .plannerItem(uid: uid) }
        guard todos == 1, let todo else { return .unusable("a planner day without its one VTODO (ignored)") }
        let completedAt = todo.completed.flatMap { dateTime($0.value, tzid: $0.tzid, zone: zone, resolve: resolve) }
        // A client that records a completion time but no status still means done.
        let completed = todo.status.map { $0 == "COMPLETED" } ?? (todo.completed != nil)
        return .task(uid: uid, date: date, completed: completed, completedAt: completed ? completedAt : nil)
    }

    /// Content lines, unfolded: a line break (CRLF or a bare LF) followed by a space or tab continues the line.
    static func unfold(_ text: String) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 13 || b == 10 {
                var next = i + 1
                if b == 13, next < bytes.count, bytes[next] == 10 { next += 1 }
                if next < bytes.count, bytes[next] == 32 || bytes[next] == 9 {
                    i = next + 1
                    continue
                }
                lines.append(String(decoding: current, as: UTF8.self))
                current = []
                i = next
                continue
            }
            current.append(b)
            i += 1
        }
        if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
        return lines
    }

    /// `name *(;param=value) : value`, name and parameter names uppercased; quoted parameter values may hold `:`.
    struct ContentLine {
        var name: String
        var parameters: [String: String] = [:]
        var value: String

        init?(_ line: String) {
            let scalars = Array(line.unicodeScalars)
            var i = 0
            func isNameScalar(_ s: Unicode.Scalar) -> Bool {
                (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A) || (s.value >= 0x30 && s.value <= 0x39) || s == "-"
            }
            while i < scalars.count, isNameScalar(scalars[i]) { i += 1 }
            guard i > 0, i < scalars.count else { return nil }
            name = String(String.UnicodeScalarView(scalars[..<i])).uppercased()
            while scalars[i] == ";" {
                i += 1
                let start = i
                while i < scalars.count, isNameScalar(scalars[i]) { i += 1 }
                guard i > start, i < scalars.count, scalars[i] == "=" else { return nil }
                let key = String(String.UnicodeScalarView(scalars[start..<i])).uppercased()
                i += 1
                var value = String.UnicodeScalarView()
                var quoted = false
                while i < scalars.count {
                    let s = scalars[i]
                    if s == "\"" { quoted.toggle() } else if !quoted && (s == ";" || s == ":") { break } else { value.append(s) }
                    i += 1
                }
                guard i < scalars.count, !quoted else { return nil }
                parameters[key] = String(value)
            }
            guard scalars[i] == ":" else { return nil }
            value = String(String.UnicodeScalarView(scalars[(i + 1)...]))
        }
    }

    /// `YYYYMMDDTHHMMSS` with `Z` (UTC), a TZID, or neither (floating: the plan's zone). nil when it is not one.
    static func dateTime(_ text: String, tzid: String?, zone: Zone, resolve: (String) -> Zone?) -> Instant? {
        let digits = Array(text.utf8)
        let utc = digits.last == UInt8(ascii: "Z") || digits.last == UInt8(ascii: "z")
        let body = utc ? Array(digits.dropLast()) : digits
        guard body.count == 15, body[8] | 0x20 == UInt8(ascii: "t") else { return nil }
        let fields = [0..<4, 4..<6, 6..<8, 9..<11, 11..<13, 13..<15].map { range -> Int? in
            let part = body[range]
            guard part.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return part.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard fields.allSatisfy({ $0 != nil }) else { return nil }
        let f = fields.map { $0! }
        let date = LocalDate(year: f[0], month: f[1], day: f[2])
        guard date.isValid, f[3] < 24, f[4] < 60, f[5] < 61 else { return nil }
        let local = LocalDateTime(date: date, hour: f[3], minute: f[4], second: min(f[5], 59))
        if utc { return Instant(milliseconds: local.epochMillisecondsAsIfUTC) }
        let named = tzid.flatMap(resolve) ?? zone
        // A wall time a DST gap skips: read with the offset before the gap.
        return named.instant(for: local)
            ?? Instant(
                milliseconds: local.epochMillisecondsAsIfUTC - Int64(named.offset(at: Instant(milliseconds: local.epochMillisecondsAsIfUTC))) * 1000)
    }
}
