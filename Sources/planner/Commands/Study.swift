import ArgumentParser
import PlannerCommands

/// `planner study`: "the app opened" made true — record the open (today's reminders stop), then become the
/// study program (exec), so a launcher or an alias starts the lessons and silences the day in one step.
struct Study: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Record that you started studying, then run your study program in this process's place.",
        discussion: """
            Records an open exactly like 'planner open' (the rest of today's study reminders are cancelled, \
            in one transaction; a database held by another program never holds it up: the open is saved and \
            applied later), then replaces itself with the study program: the one after --, else the \
            study-command setting. The program is run directly, never through a shell, found on PATH like a \
            shell would. It is looked up before anything is recorded: a program that is not found or not \
            executable (exit 127), or a file that is neither an executable nor a #! script (exit 126), changes \
            nothing. With no program at all, the open is recorded and a note says how to set one.

              planner config set study-command 'xdg-open https://example.org/lesson'
              planner study
              planner study -- anki
            """)

    @OptionGroup var common: CommonOptions
    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp(
            "The program to run and its arguments (after --).",
            valueName: "command"))
    var command: [String] = []

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, db: common.db, now: common.now, command: command) }

    static func execute(_ ctx: RunContext, db: String?, now: String?, command: [String]) throws {
        guard let launch = try StudyCommand.run(ctx, db: db, now: now, command: command) else { return }
        try ctx.becomeProgram(launch)
    }
}
