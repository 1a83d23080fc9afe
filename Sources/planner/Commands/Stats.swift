import ArgumentParser
import Glibc
import PlannerCommands
import PlannerCore

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how you studied: a heatmap of the last weeks, and your streaks.",
        discussion: """
            A study day is one of the plan's days (the days setting), from the first day the planner planned, not \
            skipped and not paused all day. Each day shows how soon it was opened: before any reminder, after 1-2, \
            after 3 or more, not opened. The current streak counts study days in a row each opened, up to today \
            (today, not yet opened, does not break it); other days neither break nor extend it. Colour only on a \
            terminal and never when NO_COLOR is set.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, parsing: .unconditional, help: "How many weeks to show, ending with this week (1-1000).")
    var weeks: Int = 8
    @Flag(name: .long, help: "Print a JSON object: current_streak, longest_streak, days (oldest first).")
    var json = false

    func validate() throws {
        if !(1...1000).contains(weeks) { throw ValidationError("--weeks must be from 1 to 1000") }
    }

    func run() throws {
        let context = RunContext.process
        let report = try ReadingCommands.stats(context, db: common.db, now: common.now, weeks: weeks)
        let (record, today, shown) = (report.record, report.today, report.shown)

        if json {
            // Dates and RFC 3339 times need no escaping: appended directly, ten years stay fast.
            var out = "{\"current_streak\": \(record.currentStreak), \"longest_streak\": \(record.longestStreak), \"days\": ["
            out.reserveCapacity(out.utf8.count + shown.count * 160)
            for (i, day) in shown.enumerated() {
                out += i == 0 ? "\n  {\"date\": \"" : ",\n  {\"date\": \""
                out += day.date.description
                out += day.isStudyDay ? "\", \"study_day\": true, \"opened_at\": " : "\", \"study_day\": false, \"opened_at\": "
                if let opened = day.recorded.firstOpen {
                    out += "\""
                    out += report.zone.rfc3339(opened)
                    out += "\""
                } else {
                    out += "null"
                }
                out += ", \"opened_by\": "
                out += day.recorded.firstOpenOrigin.map(Formatting.json) ?? "null"
                out += ", \"reminders_before_open\": "
                out += String(day.recorded.remindersBeforeOpen)
                out += ", \"missed\": "
                out += String(day.recorded.missed)
                out += ", \"snoozed\": "
                out += String(day.recorded.snoozed)
                out += "}"
            }
            print(out + "\n]}")
            return
        }

        print("Study record, \(weeks) week\(weeks == 1 ? "" : "s") to \(Formatting.weekdays[today.isoWeekday - 1]) \(today) (\(report.zone.name))")
        print("")
        Heatmap.render(record.days, colour: Self.colourWanted(environment: context.environment)).forEach { print($0) }
        print("")
        print("Current streak: \(Self.days(record.currentStreak))")
        print("Longest streak: \(Self.days(record.longestStreak))")
        let studyDays = shown.filter { $0.isStudyDay && ($0.date < today || $0.recorded.firstOpen != nil) }
        let opened = studyDays.filter { $0.recorded.firstOpen != nil }
        var summary = "Opened on \(opened.count) of \(Self.days(studyDays.count))"
        if !opened.isEmpty {
            let counts = opened.map(\.recorded.remindersBeforeOpen).sorted()
            let median = counts[(counts.count - 1) / 2]
            summary += "; usually after \(median) reminder\(median == 1 ? "" : "s")"
        }
        print(summary + " in these weeks")
    }

    static func days(_ n: Int) -> String { "\(n) study day\(n == 1 ? "" : "s")" }

    /// Colour on a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb.
    static func colourWanted(environment: (String) -> String?) -> Bool {
        if let noColour = environment("NO_COLOR"), !noColour.isEmpty { return false }
        if environment("TERM") == "dumb" { return false }
        return isatty(1) == 1
    }
}
