import PlannerCore
import PlannerStore
import PlannerSystem

/// `planner config`: the plan's settings, stored in the database. A change re-plans in the same
/// transaction, so `list` and `status` show it at once.
public enum ConfigCommand {
    /// Every setting, its value and whether it is the default.
    public static func show(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> [SettingRow] {
        try ctx.readingContext(db: db, now: now).database.settingRows()
    }

    /// One setting's value.
    public static func get(_ ctx: RunContext, db: String?, now: String?, key text: String) throws(PlannerError) -> String {
        let key = try Self.key(text)
        let rows = try ctx.resolveSetting(db: db, now: now).open(forWriting: false).database.settingRows()
        return rows.first { $0.key == key }?.value ?? ""
    }

    /// `KEY VALUE` pairs, all checked before the database is opened (a refused set changes nothing),
    /// then set in one transaction that re-plans. With `verbose`, the context to report in: the plan's
    /// zone as the change left it.
    public static func set(_ ctx: RunContext, db: String?, now: String?, pairs: [String],
                           verbose: Bool = false) throws(PlannerError) -> (RefillDecision, CommandContext?) {
        guard !pairs.isEmpty, pairs.count % 2 == 0 else {
            throw PlannerError.usage("config set takes KEY VALUE pairs (e.g. config set window 08:00-20:00); keys: \(keyList)")
        }
        var values: [(SettingKey, String)] = []
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let key = try Self.key(pairs[i])
            values.append((key, try canonical(key, pairs[i + 1])))
        }
        let setting = try ctx.resolveSetting(db: db, now: now)
        let context = try setting.open()
        let decision = try context.database.configure(set: values, reset: [], now: context.now)
        return (decision, verbose ? try setting.context(context.database) : nil)
    }

    /// Puts `keys` (all of them when empty) back to their defaults, then re-plans.
    public static func reset(_ ctx: RunContext, db: String?, now: String?, keys: [String]) throws(PlannerError) {
        var chosen = SettingKey.allCases
        if !keys.isEmpty {
            chosen = []
            for text in keys { chosen.append(try key(text)) }
        }
        let context = try ctx.resolveSetting(db: db, now: now).open()
        try context.database.configure(set: [], reset: chosen, now: context.now)
    }

    public static var keyList: String { SettingKey.allCases.map(\.rawValue).joined(separator: ", ") }

    public static func key(_ text: String) throws(PlannerError) -> SettingKey {
        guard let key = SettingKey(rawValue: text) else {
            throw .usage("unknown setting \(TerminalText.quoted(text)): the settings are \(keyList)")
        }
        return key
    }

    /// The value as stored, after every check (a zone must exist in this system's tz database).
    public static func canonical(_ key: SettingKey, _ text: String) throws(PlannerError) -> String {
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
