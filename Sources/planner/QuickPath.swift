import PlannerCommands
import PlannerCore

/// `open`, `refill`, `status`, `list`, `add`, `study`, `tick` and `--version` in their plain forms, parsed
/// without ArgumentParser: its `parseAsRoot` reflects every command, which cost as much CPU as `open`'s whole
/// database work (bench/RESULTS.md). `open` runs at every login, `refill` and `tick --once` from cron. Anything
/// else (help, a typo, `--x=y`, a repeated option, a value starting with '-', a value `validate()` would
/// refuse) falls back to ArgumentParser, and FastPathTests checks both parsers read every accepted form alike.
/// The options themselves are declared once, in ArgumentParser's commands: `declared` is generated from them
/// (scripts/quick-path-options; QuickPathOptionsTests fails when it is stale), and an option this file does not
/// read falls back too. One loop (`options`) reads them all.
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
        if args == ["--version"] { return .version }
        // Everything after study's first `--` is the program, as ArgumentParser's `.postTerminator` reads it.
        let end = command == "study" ? (args.firstIndex(of: "--") ?? args.endIndex) : args.endIndex
        guard var values = options(args[1..<end], of: command) else { return nil }
        let parsed: Parsed
        switch command {
        case "open", "refill":
            let options = PlanCommandOptions(
                db: values.take("--db"), now: values.take("--now"), grace: values.take("--grace"),
                verbose: values.take("--verbose") != nil, login: values.take("--login") != nil)
            parsed = command == "open" ? .open(options) : .refill(options)
        case "status", "list":
            let reading = Reading(db: values.take("--db"), now: values.take("--now"), json: values.take("--json") != nil)
            parsed = command == "status" ? .status(reading) : .list(reading)
        case "study":
            parsed = .study(StudyOptions(db: values.take("--db"), now: values.take("--now"), command: Array(args[min(end + 1, args.endIndex)...])))
        case "tick":
            let tick = Tick(
                once: values.take("--once") != nil, db: values.take("--db"), now: values.take("--now"), sink: values.take("--sink"),
                verbose: values.take("--verbose") != nil, unlessRunning: values.take("--unless-running") != nil,
                calendarJob: values.take("--calendar-job"))
            // What `Tick.validate()` refuses is ArgumentParser's to say.
            guard tick.sink.map({ $0 == "notify" || $0 == "stdout" }) ?? true,
                tick.once ? !tick.unlessRunning && tick.calendarJob == nil : tick.now == nil
            else { return nil }
            parsed = .tick(tick)
        default:
            let (at, delay, title, body, id) = (
                values.take("--at"), values.take("--in"), values.take("--title"), values.take("--body"), values.take("--id")
            )
            // What `Add.validate()` refuses is ArgumentParser's to say.
            guard let title, (at == nil) != (delay == nil), RequestText.titleProblem(title) == nil,
                id.map({ RequestText.identifierProblem($0) == nil }) ?? true, body.map({ RequestText.bodyProblem($0) == nil }) ?? true
            else { return nil }
            parsed = .add(
                AddOptions(db: values.take("--db"), now: values.take("--now"), at: at, delay: delay, title: title, body: body ?? "", id: id))
        }
        // An option declared but not handled here (tick's --exec, --grace…) is ArgumentParser's to read.
        return values.allTaken ? parsed : nil
    }

    /// The options given, by name: a handful, so a list (a first `Set` or `Dictionary` of strings in a process
    /// costs run-time type lookups, more than this whole parse). Each is taken once by the command that reads it.
    struct Values {
        var pairs: [(name: String, value: String, taken: Bool)] = []
        subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

        mutating func take(_ name: String) -> String? {
            guard let i = pairs.firstIndex(where: { $0.name == name }) else { return nil }
            pairs[i].taken = true
            return pairs[i].value
        }

        var allTaken: Bool { pairs.allSatisfy(\.taken) }
    }

    /// `--name value` pairs and bare flags of `command`'s declared options (`declared`, generated from
    /// ArgumentParser's), each at most once; nil for anything else, or a command not quick.
    static func options(_ args: ArraySlice<String>, of command: String) -> Values? {
        guard let (_, flags, valued) = declared.first(where: { $0.command == command }) else { return nil }
        var values = Values()
        var i = args.startIndex
        while i < args.endIndex {
            let name = args[i]
            guard values[name] == nil else { return nil }
            if flags.contains(name) {
                values.pairs.append((name, "", false))
                i += 1
                continue
            }
            guard valued.contains(name), i + 1 < args.endIndex, !args[i + 1].hasPrefix("-") else { return nil }
            values.pairs.append((name, args[i + 1], false))
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
