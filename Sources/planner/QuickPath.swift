import PlannerCommands
import PlannerCore

/// `status`, `list`, `add`, `study` and `--version` in their plain forms, parsed without ArgumentParser: its
/// `parseAsRoot` reflects every command (most of these commands' instructions, bench/RESULTS.md). Like
/// `FastPath` for `open`/`refill`: anything else (help, a typo, `--x=y`, a repeated option, a value
/// starting with '-', a value `validate()` would refuse) falls back to ArgumentParser, and
/// FastPathTests checks both parsers read every accepted form alike.
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

    enum Parsed: Equatable {
        case status(Reading), list(Reading), add(AddOptions), study(StudyOptions), version
    }

    static func parse(_ args: [String]) -> Parsed? {
        guard let command = args.first else { return nil }
        if args == ["--version"] { return .version }
        if command == "study" {
            // Everything after the first `--` is the program, as ArgumentParser's `.postTerminator` reads it.
            let terminator = args.firstIndex(of: "--") ?? args.endIndex
            guard let values = options(args[1..<terminator], flags: [], valued: ["--db", "--now"]) else { return nil }
            return .study(StudyOptions(db: values["--db"], now: values["--now"], command: Array(args[min(terminator + 1, args.endIndex)...])))
        }
        let flags: Set<String> = command == "add" ? [] : ["--json"]
        let valued: Set<String> = command == "add" ? ["--db", "--now", "--at", "--in", "--title", "--body", "--id"] : ["--db", "--now"]
        guard ["status", "list", "add"].contains(command), var values = options(args.dropFirst(), flags: flags, valued: valued) else {
            return nil
        }
        switch command {
        case "status": return .status(Reading(db: values["--db"], now: values["--now"], json: values["--json"] != nil))
        case "list": return .list(Reading(db: values["--db"], now: values["--now"], json: values["--json"] != nil))
        default:
            guard let title = values.removeValue(forKey: "--title"), (values["--at"] == nil) != (values["--in"] == nil),
                  RequestText.titleProblem(title) == nil, values["--id"].map({ RequestText.identifierProblem($0) == nil }) ?? true,
                  values["--body"].map({ RequestText.bodyProblem($0) == nil }) ?? true
            else { return nil }
            return .add(AddOptions(db: values["--db"], now: values["--now"], at: values["--at"], delay: values["--in"],
                                   title: title, body: values["--body"] ?? "", id: values["--id"]))
        }
    }

    /// `--name value` pairs and bare flags, each at most once; nil for anything else.
    static func options(_ args: ArraySlice<String>, flags: Set<String>, valued: Set<String>) -> [String: String]? {
        var values: [String: String] = [:]
        var i = args.startIndex
        while i < args.endIndex {
            let name = args[i]
            guard values[name] == nil else { return nil }
            if flags.contains(name) {
                values[name] = ""
                i += 1
                continue
            }
            guard valued.contains(name), i + 1 < args.endIndex, !args[i + 1].hasPrefix("-") else { return nil }
            values[name] = args[i + 1]
            i += 2
        }
        return values
    }

    static func run(_ parsed: Parsed) throws {
        switch parsed {
        case .status(let options): try Status.execute(options)
        case .list(let options): try List.execute(options)
        case .add(let options): try Add.execute(options)
        case .study(let options): try Study.execute(db: options.db, now: options.now, command: options.command)
        case .version: print(PlannerCommand.version)
        }
    }
}
