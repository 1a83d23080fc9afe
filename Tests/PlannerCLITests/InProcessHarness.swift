import Glibc
import PlannerCommands
import PlannerHarness
import PlannerStore
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
/// `Main.run` (umask, bytes that are not UTF-8), programs
/// the command runs (setup's and study's are not started here: they would get this process's environment;
/// `study`'s program is named on stderr instead; `tick --exec` and `calendar-sync` would still start theirs:
/// leave them end-to-end), signals, and the live ticker. Also not the binary's: `TZDIR` is read from this
/// process's environment; a relative path resolves against this process's folder, not the harness's; the
/// folder child is a thread across the same socket pair, with no deadline (`FolderChild` forks only in a
/// process of one thread); an
/// in-process `tick` ignores SIGPIPE for the whole test process.
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
            runProgram: ProgramRunner(start: { _, _, _ in .failure(.init(errno: ENOENT)) }),
            // exec would replace the test runner: say what would run, as a test can see it.
            becomeProgram: { launch in captured.err += "in-process: would run \(launch.program) \(launch.words)\n" })
        // The store's warnings reach `notice` through `ctx.warnings`, once per command as in the binary.
        let status = Main.run(args, ctx)
        return Harness.Result(status: status, out: captured.out, err: captured.err)
    }

    final class Captured: @unchecked Sendable {
        var out = ""
        var err = ""
    }
}
