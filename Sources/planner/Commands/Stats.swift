import ArgumentParser
import Glibc
import PlannerCommands
import PlannerCore

struct Stats: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how you studied: a heatmap of the last weeks, and your streaks.",
        discussion: """
            A study day is one of the plan's days (the days setting), from the first day the planner planned, not \
            skipped and not paused all day. Each day shows how soon it was opened: before any reminder, after 1-2, \
            after 3 or more, not opened. The current streak counts study days in a row each opened, up to today \
            (today, not yet opened, does not break it); other days neither break nor extend it. The score forgives \
            where a streak does not (Loop Habit Tracker's): every day it moves towards the share of study days opened \
            over the last two weeks, and a day skipped or paused all day is as if it had not been; half of it goes \
            after about 15 days without studying (Monday to Friday; 13 with every day a study day). Colour only on a terminal and never when NO_COLOR is set.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, parsing: .unconditional, help: "How many weeks to show, ending with this week (1-1000).")
    var weeks: Int = 8
    @Flag(
        name: .long,
        help: """
            What a reminder does for you, from measurement mode (config set experiment on): the share that started \
            within 60 minutes after a reminder shown and after one withheld, their difference with its 95 % interval, \
            by hour and by reminders already shown that day, and the worth of one more reminder (--weeks does not apply).
            """)
    var nudges = false
    @Flag(
        name: .long,
        help:
            "Print a JSON object: current_streak, longest_streak, score (0-1), days (oldest first); with --nudges: experiment, points, days, overall, by_hour, by_shown_before, decay."
    )
    var json = false

    func validate() throws {
        if !(1...1000).contains(weeks) { throw ValidationError("--weeks must be from 1 to 1000") }
    }

    func run(_ ctx: RunContext) throws {
        if nudges {
            return NudgesEstimateReport(report: try ReadingCommands.nudges(ctx, db: common.db, now: common.now)).print(json: json, to: ctx.output)
        }
        let report = try ReadingCommands.stats(ctx, db: common.db, now: common.now, weeks: weeks)
        let colour = Self.colourWanted(environment: ctx.environment, terminal: ctx.output.isTerminal)
        StudyRecordReport(report: report, weeks: weeks, colour: colour).print(json: json, to: ctx.output)
    }

    static func days(_ n: Int) -> String { "\(n) study day\(n == 1 ? "" : "s")" }

    /// Colour on a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb.
    static func colourWanted(environment: (String) -> String?, terminal: () -> Bool) -> Bool {
        if let noColour = environment("NO_COLOR"), !noColour.isEmpty { return false }
        if environment("TERM") == "dumb" { return false }
        return terminal()
    }
}

/// The study record of the last weeks: streaks, and each day (oldest first).
struct StudyRecordReport: Report {
    let report: StatsReport
    let weeks: Int
    let colour: Bool

    var json: JSON {
        .object([
            ("current_streak", .int(report.record.currentStreak)),
            ("longest_streak", .int(report.record.longestStreak)),
            ("score", .share(report.record.score)),
            (
                "days",
                .array(
                    report.shown.map { day in
                        .object([
                            ("date", .string(day.date.description)),
                            ("study_day", .bool(day.isStudyDay)),
                            ("opened_at", .time(day.recorded.firstOpen, in: report.zone)),
                            ("opened_by", .text(day.recorded.firstOpenOrigin)),
                            ("reminders_before_open", .int(day.recorded.remindersBeforeOpen)),
                            ("missed", .int(day.recorded.missed)),
                            ("snoozed", .int(day.recorded.snoozed)),
                        ])
                    })
            ),
        ])
    }

    var text: String {
        let (record, today, shown) = (report.record, report.today, report.shown)
        var lines = [
            "Study record, \(weeks) week\(weeks == 1 ? "" : "s") to \(Formatting.weekdays[today.isoWeekday - 1]) \(today) (\(report.zone.name))", "",
        ]
        lines += Heatmap.render(record.days, colour: colour)
        lines += [
            "", "Current streak: \(Stats.days(record.currentStreak))", "Longest streak: \(Stats.days(record.longestStreak))",
            "Score: \(Int((record.score * 100).rounded())) % (each day opened raises it, a day missed lowers it a little)",
        ]
        let studyDays = shown.filter { $0.isStudyDay && ($0.date < today || $0.recorded.firstOpen != nil) }
        let opened = studyDays.filter { $0.recorded.firstOpen != nil }
        var summary = "Opened on \(opened.count) of \(Stats.days(studyDays.count))"
        if !opened.isEmpty {
            let counts = opened.map(\.recorded.remindersBeforeOpen).sorted()
            let median = counts[(counts.count - 1) / 2]
            summary += "; usually after \(median) reminder\(median == 1 ? "" : "s")"
        }
        lines.append(summary + " in these weeks")
        return lines.joined(separator: "\n")
    }
}
