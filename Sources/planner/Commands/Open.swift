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
        let policy = try options.policy()
        let inputs = try resolveInputs(db: options.db, now: options.now)
        let outcome = try LoginOpen.run(now: inputs.now, zone: inputs.zone, path: inputs.path, policy: policy, origin: "open")
        guard case .applied(let decision, let database) = outcome else {
            if case .saved(let folder) = outcome {
                LoginOpen.notice("the database \(inputs.path) is locked by another program; this open (\(inputs.zone.rfc3339(inputs.now))) was saved in \(folder)/ and will be applied at its time by the next planner command that writes once the database is free", from: "open")
            }
            return
        }
        guard options.verbose else { return }
        let ctx = CommandContext(now: inputs.now, zone: try database.planSettings().zone, database: database)
        let day = Formatting.weekdays[decision.date.isoWeekday - 1]
        print("open: app opened on \(day) \(decision.date); cancelled \(decision.cancelled.count) of today's slots")
        print(Summary.refill(decision.refill, ctx: ctx))
    }
}
