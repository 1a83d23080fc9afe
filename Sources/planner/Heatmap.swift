import PlannerCore

/// The study record as a contribution graph: weeks as columns, Monday to Sunday as rows, one character
/// per day. The characters read without colour; colour only adds to them.
enum Heatmap {
    static func symbol(_ mark: DayMark) -> Character {
        switch mark {
        case .openedBeforeAnyReminder: return "#"
        case .openedAfterOneOrTwo: return "+"
        case .openedAfterThreeOrMore: return "-"
        case .notOpened: return "x"
        case .notAStudyDay: return "."
        case .notOverYet: return "?"
        case .ahead: return " "
        }
    }

    /// SGR colour of each mark (green for soon, yellow for late, red for not opened).
    static func colour(_ mark: DayMark) -> String? {
        switch mark {
        case .openedBeforeAnyReminder: return "1;32"
        case .openedAfterOneOrTwo: return "32"
        case .openedAfterThreeOrMore: return "33"
        case .notOpened: return "31"
        case .notAStudyDay: return "2"
        case .notOverYet: return "36"
        case .ahead: return nil
        }
    }

    static let legend: [(DayMark, String)] = [
        (.openedBeforeAnyReminder, "opened before any reminder"),
        (.openedAfterOneOrTwo, "after 1-2 reminders"),
        (.openedAfterThreeOrMore, "after 3 or more"),
        (.notOpened, "not opened"),
        (.notAStudyDay, "not a study day"),
        (.notOverYet, "today, not opened yet"),
    ]

    /// The legend in lines of at most `width` display columns (an 80-column terminal: no word cut by wrapping).
    static func legendLines(width: Int = 80, paint: (DayMark) -> String = { String(symbol($0)) }) -> [String] {
        var lines: [String] = []
        var line = ""
        var used = 0
        for (mark, text) in legend {
            let entry = "\(symbol(mark)) \(text)"
            let needed = (used == 0 ? 0 : 2) + DisplayWidth.of(entry)
            if used > 0, used + needed > width {
                lines.append(line)
                (line, used) = ("", 0)
            }
            line += (used == 0 ? "" : "  ") + "\(paint(mark)) \(text)"
            used += used == 0 ? DisplayWidth.of(entry) : needed
        }
        if used > 0 { lines.append(line) }
        return lines
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `days` start on a Monday and are whole weeks.
    static func render(_ days: [StudyDay], colour: Bool) -> [String] {
        let weeks = stride(from: 0, to: days.count, by: 7).map { Array(days[$0..<min($0 + 7, days.count)]) }
        func paint(_ mark: DayMark) -> String {
            let s = String(symbol(mark))
            guard colour, let code = Heatmap.colour(mark) else { return s }
            return "\u{1B}[\(code)m\(s)\u{1B}[0m"
        }
        // Month names over the week in which the month's first day falls, where there is room.
        var header = Array(repeating: Character(" "), count: 4 + 2 * weeks.count)
        var free = 0
        for (i, week) in weeks.enumerated() {
            guard let first = week.first else { continue }
            let startsMonth = i == 0 || week.contains { $0.date.day == 1 }
            let month = week.first { $0.date.day == 1 }?.date.month ?? first.date.month
            let at = 4 + 2 * i
            guard startsMonth, at >= free else { continue }
            while header.count < at + 3 { header.append(" ") }
            for (k, c) in monthNames[month - 1].enumerated() { header[at + k] = c }
            free = at + 4
        }
        var lines = [String(header).trailingSpacesTrimmed]
        for row in 0..<7 {
            var line = Formatting.weekdays[row] + " "
            for week in weeks {
                line += (row < week.count ? paint(week[row].mark) : " ") + " "
            }
            lines.append(line.trailingSpacesTrimmed)
        }
        lines.append("")
        lines += legendLines(paint: paint)
        return lines
    }
}

extension String {
    var trailingSpacesTrimmed: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
