import ArgumentParser
import Glibc
import PlannerCommands
import PlannerCore

struct Export: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the plan ahead as iCalendar, for a calendar app.",
        discussion: """
            One event per study slot (the same as planner plan shows) with an alarm at its time, in the plan's \
            zone with its VTIMEZONE; skipped, paused and opened days are absent. Each slot keeps its UID \
            (its identifier) from one export to the next, so importing again updates rather than duplicates. \
            Example: planner export --ics > study.ics
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "iCalendar (RFC 5545) on stdout: the only format.") var ics = false
    @Option(name: .long, parsing: .unconditional, help: "How many days to export, from today (1-366).")
    var days: Int = 14

    func validate() throws {
        if !ics { throw ValidationError("choose the format: planner export --ics") }
        if !(1...366).contains(days) { throw ValidationError("--days must be from 1 to 366") }
    }

    func run(_ ctx: RunContext) throws {
        let calendar = try ReadingCommands.calendar(
            ctx, db: common.db, now: common.now, days: days,
            version: PlannerCommand.version)
        // The whole text at once: CRLF line ends as RFC 5545 wants, no newline added.
        if let why = ctx.output.immediate(calendar) { throw PlannerError.io("cannot write to stdout: \(why)") }
    }
}
