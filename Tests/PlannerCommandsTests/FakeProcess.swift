import PlannerCommands
import PlannerCore
import PlannerTestSupport

/// A process for a command to run in, made up by the test: its environment, its clock, what it printed,
/// its folder and the programs it ran (answered by the test; none really runs).
final class FakeProcess {
    var environment: [String: String]
    let clock: FixedClock
    private(set) var lines: [String] = []
    private(set) var notices: [String] = []
    /// Every program the command ran, with its arguments.
    private(set) var ran: [[String]] = []
    /// Every program the command started to outlive it (setup's live ticker), with its arguments.
    private(set) var started: [[String]] = []
    /// Whether such a start succeeds.
    var starts = true
    var currentFolder: String? = "/nonexistent-test-folder"
    var programPath: String? = "/opt/test/bin/planner"
    var account: Account? = Account(uid: 4242, shell: "/bin/bash")
    /// How a program answers (its exit status and stdout); nil: it cannot be started.
    var answer: ([String]) -> (status: Int32, output: String)? = { _ in nil }

    init(environment: [String: String] = [:], now: Instant = TestTime.seoul.at("2026-11-23T12:00")) {
        self.environment = environment
        clock = FixedClock(now)
    }

    var context: RunContext {
        RunContext(
            environment: { [unowned self] in self.environment[$0] }, clock: clock.reading,
            output: CommandOutput(
                line: { [unowned self] in self.lines.append($0) },
                notice: { [unowned self] in self.notices.append($0) }),
            currentFolder: { [unowned self] in self.currentFolder },
            programPath: { [unowned self] in self.programPath },
            account: { [unowned self] in self.account },
            runProgram: ProgramRunner { [unowned self] arguments, _, _ in
                self.ran.append(arguments)
                return self.answer(arguments)
            },
            startDetached: { [unowned self] arguments in
                self.started.append(arguments)
                return self.starts
            })
    }
}
