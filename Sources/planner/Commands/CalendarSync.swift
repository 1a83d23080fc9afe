import ArgumentParser
import PlannerCommands
import PlannerCore

/// `planner calendar-sync`: the calendar folder to the CalDAV server and back, once (vdirsyncer).
struct CalendarSync: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar-sync",
        abstract: "Carry the calendar folder to the CalDAV server and back now: vdirsyncer sync, the phone's ticks applied, vdirsyncer sync.",
        discussion: """
            What the calendar job installed by planner setup --calendar runs (the systemd unit, the cron line), \
            and what a live ticker runs while a study day is not yet started, once a minute inside the study \
            window. vdirsyncer must be configured (contrib/vdirsyncer.config, vdirsyncer discover). One run at a \
            time per database: a second waits for the first (up to 2 minutes). Prints one line when something \
            moved (nothing with --quiet), and vdirsyncer's own words with a non-zero exit when it failed.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, help: ArgumentHelp("vdirsyncer's path (default: found on PATH).", valueName: "path")) var vdirsyncer: String?
    @Flag(name: .long, help: "Print nothing unless it failed (for cron, which mails what a job prints).") var quiet = false

    func run(_ ctx: RunContext) throws {
        var options = CalendarSyncCommand.Options(db: common.db, now: common.now, vdirsyncer: vdirsyncer)
        options.forceDelete = false
        let report = try CalendarSyncCommand.run(ctx, options)
        if let failure = report.failure { throw PlannerError.failure(failure + " (run vdirsyncer sync to see it whole)") }
        if !quiet, report.changedAnything || report.raced > 0 { ctx.output.line(CalendarSync.summary(report)) }
    }

    static func summary(_ r: CalendarSyncCommand.Report) -> String {
        var parts = ["vdirsyncer copied \(r.copied), updated \(r.updated), deleted \(r.deleted) item\(r.deleted == 1 ? "" : "s")"]
        if !r.ticks.isEmpty { parts.append("ticked on the phone, opened: " + r.ticks.map(\.description).joined(separator: ", ")) }
        if r.raced > 0 { parts.append("lost \(r.raced) race\(r.raced == 1 ? "" : "s") with another computer writing the same items, tried again") }
        if let file = r.putBack {
            parts.append("the server's calendar had been emptied elsewhere: the planner's items went back up (removed vdirsyncer's status \(file))")
        }
        return "calendar-sync: " + parts.joined(separator: "; ")
    }
}
