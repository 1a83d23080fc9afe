import PlannerCommands
import PlannerCore

/// `open`, `refill`, `status`, `list`, `add`, `study`, `tick` and `--version` in their plain forms, parsed
/// without ArgumentParser: its `parseAsRoot` reflects every command, which cost as much CPU as `open`'s whole
/// database work (bench/RESULTS.md). `open` runs at every login, `refill` and `tick --once` from cron. Anything
/// else (help, a typo, `--x=y`, a repeated option, a value starting with '-', a value `validate()` would
/// refuse) falls back to ArgumentParser, and FastPathTests checks both parsers read every accepted form alike.
/// One loop (`options`) reads them all.
enum QuickPath {
    struct Reading: Equatable {
        var db: String?
        var now: String?
        var json = false
    }

    typealias AddOptions = AddCommand.Options

    /// `study [--db PATH] [--now TIME] [-- PROGRAM ARGS...]`: a launcher's line, which a student waits on.
    struct StudyOptions: Equatable {
        var db: String?
        var now: String?
        var command: [String] = []
    }

    /// `tick --once [--sink notify|stdout] [--verbose] [--db PATH] [--now TIME]`: cron's line, every minute; and
    /// `tick [--unless-running] [--calendar-job JOB] [--sink notify|stdout] [--verbose] [--db PATH]`: the live
    /// ticker's, as setup installs it. ArgumentParser's reflection leaves its metadata caches in pages that stay
    /// dirty for as long as the ticker lives (its private memory, bench/TICK_MEMORY.md).
    struct Tick: Equatable {
        var once = false
        var db: String?
        var now: String?
        var sink: String?
        var verbose = false
        var unlessRunning = false
        var calendarJob: String?
    }

    enum Parsed: Equatable {
        case open(PlanCommandOptions)
        case refill(PlanCommandOptions)
        case status(Reading)
        case list(Reading)
        case add(AddOptions)
        case study(StudyOptions)
        case tick(Tick)
        case version
    }

    static func parse(_ args: [String]) -> Parsed? {
        guard let command = args.first else { return nil }
        if command == "open" || command == "refill" {
            // --login: once per login session, for the login hook's line (`open` only).
            guard
                let values = options(
                    args.dropFirst(), flags: command == "open" ? ["--verbose", "--login"] : ["--verbose"],
                    valued: ["--db", "--now", "--grace"])
            else { return nil }
            let options = PlanCommandOptions(
                db: values["--db"], now: values["--now"], grace: values["--grace"],
                verbose: values["--verbose"] != nil, login: values["--login"] != nil)
            return command == "open" ? .open(options) : .refill(options)
        }
        if args == ["--version"] { return .version }
        if command == "study" {
            // Everything after the first `--` is the program, as ArgumentParser's `.postTerminator` reads it.
            let terminator = args.firstIndex(of: "--") ?? args.endIndex
            guard let values = options(args[1..<terminator], flags: [], valued: ["--db", "--now"]) else { return nil }
            return .study(StudyOptions(db: values["--db"], now: values["--now"], command: Array(args[min(terminator + 1, args.endIndex)...])))
        }
        if command == "tick" {
            guard
                let values = options(
                    args.dropFirst(), flags: ["--once", "--verbose", "--unless-running"],
                    valued: ["--db", "--now", "--sink", "--calendar-job"]),
                values["--sink"].map({ $0 == "notify" || $0 == "stdout" }) ?? true
            else { return nil }
            let tick = Tick(
                once: values["--once"] != nil, db: values["--db"], now: values["--now"], sink: values["--sink"],
                verbose: values["--verbose"] != nil, unlessRunning: values["--unless-running"] != nil,
                calendarJob: values["--calendar-job"])
            // What `Tick.validate()` refuses is ArgumentParser's to say.
            if tick.once ? (tick.unlessRunning || tick.calendarJob != nil) : tick.now != nil { return nil }
            return .tick(tick)
        }
        let flags = command == "add" ? [] : ["--json"]
        let valued = command == "add" ? ["--db", "--now", "--at", "--in", "--title", "--body", "--id"] : ["--db", "--now"]
        guard command == "status" || command == "list" || command == "add",
            let values = options(args.dropFirst(), flags: flags, valued: valued)
        else {
            return nil
        }
        switch command {
        case "status": return .status(Reading(db: values["--db"], now: values["--now"], json: values["--json"] != nil))
        case "list": return .list(Reading(db: values["--db"], now: values["--now"], json: values["--json"] != nil))
        default:
            guard let title = values["--title"], (values["--at"] == nil) != (values["--in"] == nil),
                RequestText.titleProblem(title) == nil, values["--id"].map({ RequestText.identifierProblem($0) == nil }) ?? true,
                values["--body"].map({ RequestText.bodyProblem($0) == nil }) ?? true
            else { return nil }
            return .add(
                AddOptions(
                    db: values["--db"], now: values["--now"], at: values["--at"], delay: values["--in"],
                    title: title, body: values["--body"] ?? "", id: values["--id"]))
        }
    }

    /// The options given, by name: a handful, so a list (a first `Set` or `Dictionary` of strings in a process
    /// costs run-time type lookups, more than this whole parse).
    struct Values {
        var pairs: [(name: String, value: String)] = []
        subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }
    }

    /// `--name value` pairs and bare flags, each at most once; nil for anything else.
    static func options(_ args: ArraySlice<String>, flags: [String], valued: [String]) -> Values? {
        var values = Values()
        var i = args.startIndex
        while i < args.endIndex {
            let name = args[i]
            guard values[name] == nil else { return nil }
            if flags.contains(name) {
                values.pairs.append((name, ""))
                i += 1
                continue
            }
            guard valued.contains(name), i + 1 < args.endIndex, !args[i + 1].hasPrefix("-") else { return nil }
            values.pairs.append((name, args[i + 1]))
            i += 2
        }
        return values
    }

    static func run(_ parsed: Parsed, _ ctx: RunContext) throws {
        switch parsed {
        case .open(let options): try Open.execute(ctx, options)
        case .refill(let options): try Refill.execute(ctx, options)
        case .status(let options): try Status.execute(ctx, options)
        case .list(let options): try List.execute(ctx, options)
        case .add(let options): try Add.execute(ctx, options)
        case .study(let options): try Study.execute(ctx, db: options.db, now: options.now, command: options.command)
        case .tick(let t):
            var options = TickCommand.Options(
                db: t.db, now: t.now, sink: t.sink.map { $0 == "notify" ? .notify : .stdout },
                once: t.once, verbose: t.verbose)
            options.unlessRunning = t.unlessRunning
            options.calendarJob = t.calendarJob
            try TickCommand.run(ctx, options)
        case .version: ctx.output.line(PlannerCommand.version)
        }
    }
}
