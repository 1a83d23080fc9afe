import ArgumentParser
import PlannerCore

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Record that the app was opened: cancel the rest of today's reminders, then refill.",
        discussion: """
            Run it from your login script. One transaction: the event is recorded, every still-pending study \
            slot of today's date is cancelled (past ones not yet delivered too), and the plan is refilled \
            without today's date. Idempotent; on a weekend it cancels nothing. One-off requests are kept.

            In ~/.profile:  planner open
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var change: PlanChangeOptions

    var options: PlanCommandOptions { PlanCommandOptions(common, change) }

    func run() throws { try Self.execute(options) }

    static func execute(_ options: PlanCommandOptions) throws {
        let policy = try options.policy()
        let ctx = try makeContext(db: options.db, now: options.now)
        let decision = try ctx.database.recordAppOpen(now: ctx.now, zone: ctx.zone, policy: policy)
        guard options.verbose else { return }
        let day = Formatting.weekdays[decision.date.isoWeekday - 1]
        print("open: app opened on \(day) \(decision.date); cancelled \(decision.cancelled.count) of today's slots")
        print(Summary.refill(decision.refill, ctx: ctx))
    }
}
