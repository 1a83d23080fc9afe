import ArgumentParser
import CLinux
import Glibc
import PlannerCommands
import PlannerCore
import PlannerStore
import PlannerSystem

struct PlannerCommand: ParsableCommand {
    static let version = "0.2.0-dev"

    static let configuration = CommandConfiguration(
        commandName: "planner",
        abstract: "Reminders to study, every 30 minutes on weekdays, quiet for the rest of the day once you start.",
        discussion: """
            Every 30 minutes, 09:30-21:30, Monday to Friday (by default; see `planner config`), a reminder is \
            planned, at most 64 pending at a time. Starting to study cancels the rest of today's: "Start \
            studying" on a reminder, the launcher, or `planner study` (`planner open` records it and runs \
            nothing). Logging in does not, unless `planner setup --login-hook` (for an account used only for \
            study). `planner refill` (from cron) keeps the plan topped up; `planner tick` delivers each reminder \
            at its time. Inspect it all with sqlite3.

            Every subcommand takes --db PATH (else $PLANNER_DB, else $XDG_DATA_HOME/planner/planner.db, else \
            ~/.local/share/planner/planner.db) and --now TIME (else $PLANNER_NOW, else the clock).

            A folder (sync, calendar, Anki) that makes no progress for 600 ms is left for the next command \
            (else $PLANNER_FOLDER_DEADLINE_MS milliseconds, 100 to 60000: for a slow disk).

            Exit codes: 0 ok, 1 other failure, 64 bad usage (options, TZ, PLANNER_NOW, \
            PLANNER_FOLDER_DEADLINE_MS), 65 the file is not a \
            usable planner database, 74 cannot read/write the file or folder, 75 database busy (try again) or, for \
            tick, another ticker running.
            """,
        version: version,
        subcommands: [
            Refill.self, Open.self, List.self, Status.self, Tick.self, Add.self, History.self, Config.self,
            Pause.self, Resume.self, Skip.self, Stats.self, PlanAheadCommand.self, Export.self, Study.self, Setup.self,
            Sync.self, Devices.self, CalendarSync.self,
        ]
    )
}

@main
enum Main {
    static func main() {
        // Everything the planner creates (folders, database, WAL files) is private to the user.
        umask(0o077)
        // The live ticker runs for hours: SQLite's memory from malloc, which it trims when idle, and none
        // of it held back in glibc's per-thread cache (started once more with it off).
        let raw = CommandLine.arguments
        TickerTunables.restartLiveTickerWithoutTCache(raw)
        SQLiteProcess.useOneThread(arena: !(raw.count > 1 && raw[1] == "tick" && !raw.contains("--once")))
        if let problem = ArgumentBytes.problem() ?? ArgumentBytes.environmentProblem() {
            fail(problem, code: PlannerError.Kind.usage.exitCode)
        }
        let code = run(Array(CommandLine.arguments.dropFirst()), .process)
        // Output that never arrived (a full disk, a closed pipe) is a failure, not a silent exit 0.
        if code == 0, clinux_stdout_failed() != 0 {
            fail("cannot write to stdout: \(String(cString: strerror(errno)))", code: PlannerError.Kind.io.exitCode)
        }
        exit(code)
    }

    /// Parses and runs one command line with `ctx`'s environment, clock and output, and gives its exit code:
    /// the binary's whole path after the process set-up above, which in-process tests (Tests/PlannerCLITests)
    /// run as it is. An error is one line on `ctx`'s notices, `error: ` first.
    static func run(_ arguments: [String], _ ctx: RunContext) -> Int32 {
        do {
            // The context's folder deadline (`RunContext.folderTiming`) is checked before anything else runs.
            if let problem = ctx.folderTimingProblem { throw problem }
            if let parsed = QuickPath.parse(arguments) {
                try QuickPath.run(parsed, ctx)
            } else {
                var command = try PlannerCommand.parseAsRoot(arguments)
                try CurrentRun.$context.withValue(CurrentRun.Box(ctx)) { try command.run() }
            }
            return 0
        } catch let error as PlannerError {
            return failure(error.message, code: error.exitCode, ctx)
        } catch {
            let code = PlannerCommand.exitCode(for: error)
            // --help and --version arrive as "errors" with exit code 0: ArgumentParser's text is the report.
            if code == .success {
                // ArgumentParser sizes help to COLUMNS, else the terminal on fd 1, else 80: the same from
                // the context, so help printed elsewhere than the process's stdout is not the test runner's.
                let columns = ctx.environment("COLUMNS").flatMap { Int($0) } ?? (ctx.output.isTerminal() ? nil : 80)
                let text = PlannerCommand.fullMessage(for: error, columns: columns)
                if !text.isEmpty { ctx.output.line(text) }
                return 0
            }
            // The message can echo a value with a line break in it ("the value '1\n2' is invalid"): keep it
            // whole; `failure` writes its line breaks as escapes.
            var message = PlannerCommand.message(for: error)
            while message.last?.isNewline == true { message.removeLast() }
            if message.isEmpty { message = "\(error)" }
            return failure(message.lowercasedFirstWord() + " (see 'planner --help')", code: code.rawValue, ctx)
        }
    }

    /// `fail`'s line through `ctx`'s notices; returns the code.
    static func failure(_ message: String, code: Int32, _ ctx: RunContext) -> Int32 {
        ctx.output.notice("error: \(TerminalText.shortened(TerminalText.escaped(message)))")
        return code
    }

    /// One line on stderr, `error: ` first, and a deliberate exit code. Messages echo what the user gave
    /// (a --now value, TZ, a path): control characters in it are written as escapes (`\n`, `\u{1B}`), so
    /// the line stays one line and nothing reaches the terminal as a command; and a line longer than
    /// `TerminalText.lineLimit` is cut in its middle (values the planner quotes are cut already).
    static func fail(_ message: String, code: Int32) -> Never {
        let line = "error: \(TerminalText.shortened(TerminalText.escaped(message)))\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(code)
    }
}

extension String {
    /// ArgumentParser says "Error: Missing …"; keep our one style, "error: missing …".
    func lowercasedFirstWord() -> String {
        if hasPrefix("Error: ") { return String(dropFirst(7)).lowercasedFirstWord() }
        guard let first, first.isUppercase, dropFirst().first?.isLowercase ?? false else { return self }
        return first.lowercased() + dropFirst()
    }
}
