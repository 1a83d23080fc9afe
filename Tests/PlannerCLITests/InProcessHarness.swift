import Glibc
import PlannerCommands
import PlannerHarness
import PlannerSystem

@testable import planner

extension Harness {
    /// A harness whose `planner` runs in this process (`InProcess`): the same command lines as the
    /// end-to-end tests, for what needs no process of its own.
    init() throws {
        try self.init(planner: { args, env, dir in InProcess.run(args, env: env, in: dir) })
    }
}

/// One `planner` command line run in this process through the binary's own parsers, commands and error path
/// (`Main.run`), with the test's environment, the real clock, and its report and error lines captured as
/// the binary writes them. What only a process shows stays end-to-end: what `Main.main` does before
/// `Main.run` (umask, bytes that are not UTF-8), warnings (`PlannerDatabase.warn` is process-wide), programs
/// the command runs (none is started here: they would get this process's environment), signals, and `tick`
/// (the live ticker) and `study` (exec).
enum InProcess {
    static func run(_ args: [String], env: [String: String], in dir: String) -> Harness.Result {
        let captured = Captured()
        let ctx = RunContext(
            environment: { env[$0] }, clock: SystemClock.now,
            output: CommandOutput(
                line: { captured.out += $0 + "\n" }, notice: { captured.err += $0 + "\n" },
                immediate: { text in
                    captured.out += text
                    return nil
                }),
            currentFolder: { dir }, programPath: { nil }, account: { nil },
            runProgram: ProgramRunner(start: { _, _, _ in .failure(.init(errno: ENOENT)) }))
        let status = Main.run(args, ctx)
        return Harness.Result(status: status, out: captured.out, err: captured.err)
    }

    private final class Captured {
        var out = ""
        var err = ""
    }
}
