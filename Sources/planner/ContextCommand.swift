import ArgumentParser
import PlannerCommands

/// A subcommand run with its process's facts passed in (`RunContext`, swiftly's `run(_ ctx:)`): the binary
/// runs it with `.process`; an in-process test (Tests/PlannerCLITests) runs it with its own environment, clock
/// and captured output, through the same parsers and the same error path (`Main.run`).
protocol ContextCommand: ParsableCommand {
    func run(_ ctx: RunContext) throws
}

extension ContextCommand {
    /// ArgumentParser's entry: the context `Main.run` is running with, else the process's.
    func run() throws { try run(CurrentRun.context?.value ?? .process) }
}

/// The context of the command line `Main.run` is running, for a command ArgumentParser parsed (its `run()`
/// takes nothing). Task-local, so in-process tests running at once each see their own; not a cast of the
/// parsed command to `ContextCommand`, which scanned every protocol conformance in the binary (+0.3 M
/// instructions for `config set` and `sync`, bench/budget_check.sh).
enum CurrentRun {
    @TaskLocal static var context: Box?

    final class Box: @unchecked Sendable {
        let value: RunContext
        init(_ value: RunContext) { self.value = value }
    }
}
