import PlannerCore

enum Formatting {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `Mon 2026-11-23 09:30 +09:00`: readable, with the offset so DST weeks are unambiguous.
    static func wallTime(_ instant: Instant, in zone: Zone) -> String {
        let l = zone.local(instant)
        var text = "\(weekdays[l.date.isoWeekday - 1]) \(l.date) \(pad(l.hour, 2)):\(pad(l.minute, 2))"
        if l.second != 0 || l.millisecond != 0 { text += ":\(pad(l.second, 2))" }
        // Shown to the millisecond stored: a printed time never names another instant.
        if l.millisecond != 0 { text += "." + pad(l.millisecond, 3) }
        return text + " " + Zone.formatOffset(zone.offset(at: instant))
    }

    /// A JSON string literal.
    static func json(_ s: String) -> String {
        // Printable ASCII without quote or backslash (dates, times, identifiers) needs no escaping.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return "\"" + s + "\"" }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Controls as \u escapes, also DEL, C1 and U+2028/U+2029 (valid raw in JSON, but they
            // drive a terminal or break a line): the decoded value is exact, the text stays one line.
            case _ where TerminalText.isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Left-aligned columns separated by two spaces. Cells hold titles, identifiers, errors and paths
    /// from users and files: their control characters become spaces, so a row stays one line and
    /// nothing reaches the terminal as a command.
    /// Aligned by display width (`DisplayWidth`): Korean or Japanese text takes two columns a character.
    static func table(_ rawRows: [[String]]) -> String {
        let rows = rawRows.map { $0.map(TerminalText.flattened) }
        guard let width = rows.first?.count else { return "" }
        let widths = (0..<width).map { c in rows.map { DisplayWidth.of($0[c]) }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == width - 1 ? cell : DisplayWidth.padded(cell, to: widths[c])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
