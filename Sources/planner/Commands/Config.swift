import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner config`: the plan's settings, stored in the database. A change re-plans in the same
/// transaction, so `list` and `status` show it at once.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or change your plan's settings (hours, interval, days, text, zone, grace, study command).",
        discussion: """
            Settings live in the database (view `settings`), so login, cron and the ticker agree whatever \
            their environment. Keys:
            \(SettingKey.helpLines.map { "  " + $0 }.joined(separator: "\n"))

            A change re-plans at once: pending study slots that no longer fit are retired with the reason \
            (schedule changed, zone changed, content changed), the soonest fitting ones are added up to 64. \
            Opened days stay closed; one-off requests are untouched.
            """,
        subcommands: [Show.self, Get.self, Set.self, Reset.self],
        defaultSubcommand: Show.self)

    struct Show: ContextCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Every setting, its value and whether it is the default (the default subcommand).")
        @OptionGroup var common: CommonOptions
        @Flag(name: .long, help: "Print one JSON object keyed by setting name: {\"value\": …, \"default\": true|false}.") var json = false

        func run(_ ctx: RunContext) throws {
            ConfigReport(rows: try ConfigCommand.show(ctx, db: common.db, now: common.now)).print(json: json, to: ctx.output)
        }
    }

    struct Get: ContextCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one setting's value.")
        @OptionGroup var common: CommonOptions
        @Argument(help: "The setting's name.") var key: String

        func run(_ ctx: RunContext) throws {
            ctx.output.line(TerminalText.flattened(try ConfigCommand.get(ctx, db: common.db, now: common.now, key: key)))
        }
    }

    struct Set: ContextCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set one or more settings in one transaction (all or nothing), then re-plan.",
            discussion: "Example: planner config set window 08:00-20:00 interval 45m days mon-sat")
        @OptionGroup var common: CommonOptions
        @Flag(name: .long, help: "Say what the re-plan changed.") var verbose = false
        @Argument(
            help: ArgumentHelp("KEY VALUE pairs.", valueName: "key value"),
            completion: .custom { words, index, _ in Config.completePair(words, at: index) }) var pairs: [String] = []

        func run(_ ctx: RunContext) throws {
            let (decision, plan) = try ConfigCommand.set(ctx, db: common.db, now: common.now, pairs: pairs, verbose: verbose)
            if let plan { ctx.output.line(Summary.refill(decision, ctx: plan)) }
        }
    }

    struct Reset: ContextCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Put settings back to their defaults (all of them without KEY), then re-plan.")
        @OptionGroup var common: CommonOptions
        @Argument(help: "The settings to reset.", completion: .list(SettingKey.allCases.map(\.rawValue))) var keys: [String] = []

        func run(_ ctx: RunContext) throws {
            try ConfigCommand.reset(ctx, db: common.db, now: common.now, keys: keys)
        }
    }

    /// `config set <Tab>`: a key at a key's place, and for a value the key's declared default and the
    /// forms it names (from the declaration, so a new setting completes without more code).
    static func completePair(_ words: [String], at index: Int) -> [String] {
        guard let set = words.firstIndex(of: "set"), set < index else { return [] }
        var position = 0
        var i = set + 1
        var previousKey: String?
        while i < index {
            if ["--db", "--now"].contains(words[i]) {
                i += 2
                continue
            }
            if words[i].hasPrefix("-") {
                i += 1
                continue
            }
            previousKey = words[i]
            position += 1
            i += 1
        }
        guard position % 2 == 1 else { return SettingKey.allCases.map(\.rawValue) }
        guard let key = previousKey.flatMap(SettingKey.init(rawValue:)) else { return [] }
        // The shell's TZ is the likeliest zone, and only the process knows it.
        if key == .zone { return key.declaration.completions + (RunContext.process.environment("TZ").map { [$0] } ?? []) }
        return key.declaration.completions
    }
}

/// Every setting, its value and whether it is the default.
struct ConfigReport: Report {
    let rows: [SettingRow]

    var json: JSON { .object(rows.map { ($0.key.rawValue, .object([("value", .string($0.value)), ("default", .bool($0.isDefault))])) }) }

    var text: String { Formatting.table([["KEY", "VALUE", ""]] + rows.map { [$0.key.rawValue, $0.value, $0.isDefault ? "(default)" : ""] }) }
}
