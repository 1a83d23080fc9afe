import ArgumentParser
import PlannerCommands

/// A subcommand run with its process's facts passed in (`RunContext`, swiftly's `run(_ ctx:)`): the binary
/// runs it with `.process`; an in-process test (Tests/PlannerCLITests) runs it with its own environment, clock
/// and captured output, through the same parsers and the same error path (`Main.run`).
protocol ContextCommand: ParsableCommand {
    func run(_ ctx: RunContext) throws
}

extension ContextCommand {
    func run() throws { try run(.process) }
}
