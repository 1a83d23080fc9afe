import ArgumentParser
import Foundation
import Testing

@testable import planner

/// `open` and `refill` skip ArgumentParser for their plain forms (`QuickPath`, as the commands below). Whatever the fast path accepts,
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
        ["open", "--login", "--db", "/tmp/x.db"],  // the login hook's line: as fast as a plain open
    ]

    static let refused: [[String]] = [
        [], ["list"], ["status", "--json"], ["open", "--help"], ["open", "-h"], ["refill", "--version"],
        ["open", "--db"], ["open", "--db", "a", "--db", "b"], ["open", "--verbose", "--verbose"],
        ["open", "--now", "-05:00"], ["open", "--frobnicate"], ["open", "extra"], ["help", "open"],
        ["open", "--db=/tmp/x.db"], ["Open"], ["refill", "--login"], ["open", "--login", "--login"],
    ]

    @Test(arguments: accepted)
    func agreesWithArgumentParser(_ args: [String]) throws {
        let fast = try #require(QuickPath.parse(args))
        let parsed = try PlannerCommand.parseAsRoot(args)
        switch parsed {
        case let command as Open: #expect(fast == .open(command.options))
        case let command as Refill: #expect(fast == .refill(command.options))
        default: Issue.record("ArgumentParser chose \(type(of: parsed))")
        }
    }

    @Test(arguments: refused)
    func leavesEverythingElseToArgumentParser(_ args: [String]) {
        if let parsed = QuickPath.parse(args) {
            // Another quick command may take it (`list`, `status --json`); never open or refill.
            switch parsed {
            case .open, .refill: Issue.record("the quick path took \(args)")
            default: break
            }
        }
    }
}

/// `status`, `list`, `add` and `--version` skip ArgumentParser the same way.
@Suite struct QuickPathTests {
    static let accepted: [[String]] = [
        ["status"], ["list"], ["status", "--json"], ["list", "--json", "--db", "/tmp/x.db"],
        ["status", "--now", "2026-11-23T12:00", "--db", "a b.db", "--json"], ["list", "--db", ""],
        ["add", "--in", "2h", "--title", "t"], ["add", "--title", "Tea", "--at", "2026-11-23T18:00", "--body", "green", "--id", "tea"],
        ["add", "--db", "/tmp/x.db", "--now", "2026-11-23T12:00Z", "--in", "nonsense", "--title", "x"],
        ["--version"],
        ["study"], ["study", "--db", "/tmp/x.db", "--now", "2026-11-23T12:00"], ["study", "--", "anki"],
        ["study", "--db", "a b.db", "--", "xdg-open", "--new-window", "https://example.org/lesson"],
        ["study", "--", "prog", "--", "-x"], ["study", "--"],
        ["tick", "--once"], ["tick", "--once", "--sink", "notify", "--db", "/tmp/x.db"],  // cron's line
        ["tick", "--verbose", "--once", "--sink", "stdout", "--now", "2026-11-23T12:00"],
        ["tick"], ["tick", "--verbose"], ["tick", "--unless-running", "--db", "/tmp/x.db"],  // the live ticker, as setup installs it
        ["tick", "--unless-running", "--calendar-job", "systemd", "--db", "/tmp/x.db"],
        ["tick", "--calendar-job", "/usr/bin/vdirsyncer", "--sink", "notify", "--unless-running"],
    ]

    static let refused: [[String]] = [
        [], ["status", "--help"], ["list", "-h"], ["status", "--json", "--json"], ["list", "--db"], ["list", "extra"],
        ["status", "--db=/tmp/x.db"], ["list", "--now", "-05:00"], ["status", "--verbose"], ["--version", "list"],
        ["add", "--in", "2h"], ["add", "--title", "t"], ["add", "--in", "2h", "--at", "2026-11-23T18:00", "--title", "t"],
        ["add", "--in", "2h", "--title", "-5 push-ups"], ["add", "--in", "2h", "--title", " "],
        ["add", "--in", "2h", "--title", "t", "--id", "a\tb"], ["add", "--in", "2h", "--title", "t", "--json"],
        ["history"], ["config"], ["Status"],
        ["study", "anki"], ["study", "--help"], ["study", "--db"], ["study", "--db", "a", "--db", "b"], ["study", "--verbose"],
        ["study", "--now", "-05:00"], ["study", "--db=/tmp/x.db"],
        ["tick", "--once", "--sink", "dbus"], ["tick", "--once", "--exec", "prog"],
        ["tick", "--once", "--grace", "1m"], ["tick", "--once", "--once"], ["tick", "--once", "--unless-running"],
        ["tick", "--once", "--calendar-job", "systemd"], ["tick", "--now", "2026-11-23T12:00"], ["tick", "--exec", "prog"],
        ["tick", "--calendar-job"], ["tick", "--calendar-job", "--db"], ["tick", "--sink", "dbus"], ["tick", "--unless-running", "--unless-running"],
    ]

    @Test(arguments: accepted)
    func agreesWithArgumentParser(_ args: [String]) throws {
        let quick = try #require(QuickPath.parse(args))
        if args == ["--version"] {
            #expect(quick == .version)
            // ArgumentParser answers --version by "throwing" the version text (exit 0): the one the source
            // declares (the quick path prints PlannerCommand.version; VersionTests runs both in the binary).
            let error = #expect(throws: (any Error).self) { try PlannerCommand.parseAsRoot(args) }
            #expect(PlannerCommand.exitCode(for: error!) == .success)
            #expect(PlannerCommand.message(for: error!) == (try declaredVersion()))
            #expect(PlannerCommand.version == (try declaredVersion()))
            return
        }
        let slow: QuickPath.Parsed
        switch try PlannerCommand.parseAsRoot(args) {
        case let c as Status: slow = .status(QuickPath.Reading(db: c.common.db, now: c.common.now, json: c.json))
        case let c as List: slow = .list(QuickPath.Reading(db: c.common.db, now: c.common.now, json: c.json))
        case let c as Add: slow = .add(c.options)
        case let c as Study: slow = .study(QuickPath.StudyOptions(db: c.common.db, now: c.common.now, command: c.command))
        case let c as Tick:
            // Only the fields the quick path sets; the rest must be ArgumentParser's defaults.
            #expect(c.grace == nil && c.urgency == nil && c.icon == nil && c.appName == "planner" && c.exec.isEmpty)
            slow = .tick(
                QuickPath.Tick(
                    once: c.once, db: c.common.db, now: c.common.now, sink: c.sink?.rawValue, verbose: c.verbose,
                    unlessRunning: c.unlessRunning, calendarJob: c.calendarJob))
        case let other:
            Issue.record("ArgumentParser chose \(type(of: other))")
            return
        }
        #expect(quick == slow)
    }

    @Test(arguments: refused)
    func leavesEverythingElseToArgumentParser(_ args: [String]) {
        #expect(QuickPath.parse(args) == nil)
    }
}

/// The version as written in Sources/planner/PlannerCommand.swift (`static let version = "…"`), read as text.
func declaredVersion() throws -> String {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/planner/PlannerCommand.swift").path
    let source = try String(contentsOfFile: path, encoding: .utf8)
    let marker = "static let version = \""
    let after = try #require(source.components(separatedBy: marker).dropFirst().first, "no \(marker) in \(path)")
    return String(after.prefix { $0 != "\"" })
}

/// `planner devices`' clock offset: under 2 s is the sync engine's carriage, not the clocks (issue 30).
@Suite struct DeviceOffsetTests {
    @Test(arguments: [
        (Int64(0), "in step"), (-1_005, "in step"), (-1_999, "in step"), (1_999, "in step"),
        (-2_000, "-2s (at most)"), (2_400, "+2s (at most)"), (-41_400, "-41s (at most)"),
        (-3_725_000, "-1h2m (at most)"),
    ])
    func offset(_ ms: Int64, _ text: String) {
        #expect(Devices.offset(ms) == text)
    }
}
