import ArgumentParser
import PlannerCommands
import PlannerCore

struct Open: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Record that you started studying: the rest of today's reminders are cancelled.",
        discussion: """
            Records that you started studying, as "Start studying" on a reminder, the launcher and planner \
            study do (they also run your study program; open runs nothing). Logging in does not close the day \
            unless --login runs at login (below). One transaction: the event is recorded, every still-pending study \
            slot of today's study day is cancelled (past ones not yet delivered too), and the plan is refilled \
            without it. Idempotent; on a weekend it cancels nothing. One-off requests are kept. A study day is \
            its date, unless the window crosses midnight (window 20:00-01:30): then it lasts until one \
            interval after the window's end, so an open at 00:45 closes the evening before, slots after \
            midnight included.

            It waits at most about a second for the database. If another program holds it longer, the open \
            is saved in a private folder beside the database (<database>.opens/), a notice goes to stderr, \
            and it exits 0: the next planner command that writes (refill, add, open, the ticker) applies it \
            at the time it was taken. Exit 75 only when it could not even be saved.

            --login is for a login script, on an account or machine used only for study (planner setup \
            --login-hook installs it): it records one open per login session, and nothing for what runs inside \
            it (tmux panes, su - to the same user, nested login shells). A session is the kernel's audit \
            session, else logind's, else the outermost process of yours the login shell descends from \
            ($PLANNER_LOGIN, the first login shell's pid, carries it into tmux). Each new login is recorded \
            once; the first of the day closes the day.

            In ~/.profile:  [ -n "$PLANNER_LOGIN" ] || export PLANNER_LOGIN=$$; planner open --login
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var change: PlanChangeOptions
    @Flag(name: .long, help: "Once per login session (for the login hook of an account used only for study).") var login = false

    var options: PlanCommandOptions {
        var options = PlanCommandOptions(common, change)
        options.login = login
        return options
    }

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, options) }

    static func execute(_ ctx: RunContext, _ options: PlanCommandOptions) throws {
        // A report only with --verbose (the context comes back then); a saved open's notice is on stderr already.
        guard case .applied(let decision, let plan?) = try OpenCommand.run(ctx, options) else { return }
        let day = Formatting.weekdays[decision.date.isoWeekday - 1]
        ctx.output.line("open: app opened on \(day) \(decision.date); cancelled \(decision.cancelled.count) of today's slots")
        ctx.output.line(Summary.refill(decision.refill, ctx: plan))
    }
}
