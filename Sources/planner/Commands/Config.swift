import ArgumentParser
import PlannerCore
import PlannerStore
import PlannerSystem

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

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Every setting, its value and whether it is the default (the default subcommand).")
        @OptionGroup var common: CommonOptions
        @Flag(name: .long, help: "Print one JSON object keyed by setting name: {\"value\": …, \"default\": true|false}.") var json = false

        func run() throws {
            let rows = try common.readingContext().database.settingRows()
            if json {
                print(Formatting.jsonObject(rows.map {
                    ($0.key.rawValue, Formatting.jsonObject([("value", Formatting.json($0.value)), ("default", $0.isDefault ? "true" : "false")]))
                }))
                return
            }
            print(Formatting.table([["KEY", "VALUE", ""]] + rows.map { [$0.key.rawValue, $0.value, $0.isDefault ? "(default)" : ""] }))
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one setting's value.")
        @OptionGroup var common: CommonOptions
        @Argument(help: "The setting's name.") var key: String

        func run() throws {
            let key = try Config.key(key)
            let setting = try common.setting()
            let rows = try setting.open(forWriting: false).database.settingRows()
            print(TerminalText.flattened(rows.first { $0.key == key }?.value ?? ""))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set one or more settings in one transaction (all or nothing), then re-plan.",
            discussion: "Example: planner config set window 08:00-20:00 interval 45m days mon-sat")
        @OptionGroup var common: CommonOptions
        @Flag(name: .long, help: "Say what the re-plan changed.") var verbose = false
        @Argument(help: ArgumentHelp("KEY VALUE pairs.", valueName: "key value"),
                  completion: .custom { words, index, _ in Config.completePair(words, at: index) }) var pairs: [String] = []

        func run() throws {
            guard !pairs.isEmpty, pairs.count % 2 == 0 else {
                throw PlannerError.usage("config set takes KEY VALUE pairs (e.g. config set window 08:00-20:00); keys: \(Config.keyList)")
            }
            var values: [(SettingKey, String)] = []
            for i in stride(from: 0, to: pairs.count, by: 2) {
                let key = try Config.key(pairs[i])
                values.append((key, try Config.canonical(key, pairs[i + 1])))
            }
            // Every value is checked before the database is opened: a refused set changes nothing.
            let ctx = try common.setting().open()
            let decision = try ctx.database.configure(set: values, reset: [], now: ctx.now)
            if verbose { print(Summary.refill(decision, ctx: try common.readingContext())) }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Put settings back to their defaults (all of them without KEY), then re-plan.")
        @OptionGroup var common: CommonOptions
        @Argument(help: "The settings to reset.", completion: .list(SettingKey.allCases.map(\.rawValue))) var keys: [String] = []

        func run() throws {
            let chosen = try keys.isEmpty ? SettingKey.allCases : keys.map { try Config.key($0) }
            let ctx = try common.setting().open()
            try ctx.database.configure(set: [], reset: chosen, now: ctx.now)
        }
    }

    static var keyList: String { SettingKey.allCases.map(\.rawValue).joined(separator: ", ") }

    /// `config set <Tab>`: a key at a key's place, and for a value the key's declared default and the
    /// forms it names (from the declaration, so a new setting completes without more code).
    static func completePair(_ words: [String], at index: Int) -> [String] {
        guard let set = words.firstIndex(of: "set"), set < index else { return [] }
        var position = 0, i = set + 1
        var previousKey: String?
        while i < index {
            if ["--db", "--now"].contains(words[i]) { i += 2; continue }
            if words[i].hasPrefix("-") { i += 1; continue }
            previousKey = words[i]
            position += 1
            i += 1
        }
        guard position % 2 == 1 else { return SettingKey.allCases.map(\.rawValue) }
        guard let key = previousKey.flatMap(SettingKey.init(rawValue:)) else { return [] }
        switch key {
        case .urgency: return ["low", "normal", "critical"]
        case .days: return ["mon-fri", "daily", "weekdays", "weekends", "sat-sun"]
        case .zone: return ["system"] + (Environment.get("TZ").map { [$0] } ?? [])
        default: return key.defaultValue.isEmpty ? [] : [key.defaultValue]
        }
    }

    static func key(_ text: String) throws(PlannerError) -> SettingKey {
        guard let key = SettingKey(rawValue: text) else {
            throw .usage("unknown setting \(TerminalText.quoted(text)): the settings are \(keyList)")
        }
        return key
    }

    /// The value as stored, after every check (a zone must exist in this system's tz database).
    static func canonical(_ key: SettingKey, _ text: String) throws(PlannerError) -> String {
        let value: String
        do { value = try key.canonical(text) } catch { throw .usage(error.message) }
        if key == .zone, value != "system" {
            do { _ = try SystemZone.named(value) } catch {
                throw .usage("invalid zone \(TerminalText.quoted(value)): expected \(key.accepts) (see /usr/share/zoneinfo)")
            }
        }
        return value
    }
}
