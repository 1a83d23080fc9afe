import ArgumentParser
import PlannerCommands
import PlannerCore

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Record that the app was opened: cancel the rest of today's reminders, then refill.",
        discussion: """
            Run it from your login script. One transaction: the event is recorded, every still-pending study \
            slot of today's study day is cancelled (past ones not yet delivered too), and the plan is refilled \
            without it. Idempotent; on a weekend it cancels nothing. One-off requests are kept. A study day is \
            its date, unless the window crosses midnight (window 20:00-01:30): then it lasts until one \
            interval after the window's end, so an open at 00:45 closes the evening before, slots after \
            midnight included.

            It waits at most about a second for the database. If another program holds it longer, the open \
            is saved in a private folder beside the database (<database>.opens/), a notice goes to stderr, \
            and it exits 0: the next planner command that writes (refill, add, open, the ticker) applies it \
            at the time it was taken. Exit 75 only when it could not even be saved.

            In ~/.profile:  planner open
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var change: PlanChangeOptions

    var options: PlanCommandOptions { PlanCommandOptions(common, change) }

    func run() throws { try Self.execute(options) }

    static func execute(_ options: PlanCommandOptions) throws {
        // A report only with --verbose (the context comes back then); a saved open's notice is on stderr already.
        guard case .applied(let decision, let ctx?) = try OpenCommand.run(.process, options) else { return }
        let day = Formatting.weekdays[decision.date.isoWeekday - 1]
        print("open: app opened on \(day) \(decision.date); cancelled \(decision.cancelled.count) of today's slots")
        print(Summary.refill(decision.refill, ctx: ctx))
    }
}
