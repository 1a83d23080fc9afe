import Testing
@testable import planner

/// `open` and `refill` skip ArgumentParser for their plain forms. Whatever the fast path accepts,
/// ArgumentParser must read identically; whatever it refuses falls back to ArgumentParser.
@Suite struct FastPathTests {
    static let accepted: [[String]] = [
        ["open"], ["refill"],
        ["open", "--verbose"],
        ["refill", "--db", "/tmp/x.db"],
        ["open", "--db", "a b.db", "--now", "2026-11-23T12:00", "--grace", "90s", "--verbose"],
        ["refill", "--verbose", "--grace", "2h", "--now", "2026-11-23T00:30:00Z"],
        ["open", "--now", "2026-11-23T12:00+09:00"],
        ["refill", "--grace", "nonsense"],  // accepted by both parsers; rejected later by the same code
        ["open", "--db", ""],
    ]

    static let refused: [[String]] = [
        [], ["list"], ["status", "--json"], ["open", "--help"], ["open", "-h"], ["refill", "--version"],
        ["open", "--db"], ["open", "--db", "a", "--db", "b"], ["open", "--verbose", "--verbose"],
        ["open", "--now", "-05:00"], ["open", "--frobnicate"], ["open", "extra"], ["help", "open"],
        ["open", "--db=/tmp/x.db"], ["Open"],
    ]

    @Test(arguments: accepted)
    func agreesWithArgumentParser(_ args: [String]) throws {
        let fast = try #require(FastPath.parse(args))
        let parsed = try PlannerCommand.parseAsRoot(args)
        let slow: PlanCommandOptions
        switch parsed {
        case let command as Open: slow = command.options; #expect(fast.command == "open")
        case let command as Refill: slow = command.options; #expect(fast.command == "refill")
        default: Issue.record("ArgumentParser chose \(type(of: parsed))"); return
        }
        #expect(fast.options == slow)
    }

    @Test(arguments: refused)
    func leavesEverythingElseToArgumentParser(_ args: [String]) {
        #expect(FastPath.parse(args) == nil)
    }
}
