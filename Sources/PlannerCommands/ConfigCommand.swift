import Glibc
import PlannerCore
import PlannerFolders
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
    public static func set(
        _ ctx: RunContext, db: String?, now: String?, pairs: [String],
        verbose: Bool = false
    ) throws(PlannerError) -> (RefillDecision, CommandContext?) {
        guard !pairs.isEmpty, pairs.count % 2 == 0 else {
            throw PlannerError.usage("config set takes KEY VALUE pairs (e.g. config set window 08:00-20:00); keys: \(keyList)")
        }
        var values: [(SettingKey, String)] = []
        for i in stride(from: 0, to: pairs.count, by: 2) {
            let key = try Self.key(pairs[i])
            values.append((key, try canonical(key, pairs[i + 1])))
        }
        if let i = values.firstIndex(where: { $0.0 == .zone && $0.1 == "system" }) {
            values[i].1 = try systemZoneName()
            ctx.output.notice("zone: this system's zone is \(values[i].1); the plan's zone is now \(values[i].1), by name")
        }
        let setting = try ctx.resolveSetting(db: db, now: now)
        let context = try setting.open()
        if let folder = values.last(where: { $0.0 == .calendarFolder })?.1 {
            // The new one first: when it cannot be made, the old one is left as it is.
            try makeCalendarFolder(folder, timing: context.database.folderTiming)
            try leaveCalendarFolder(ctx, context, for: folder)
        }
        let decision = try context.database.configure(set: values, reset: [], now: context.now)
        if values.contains(where: { $0.0 == .schedule && $0.1 == "usual-time" }) {
            // Opt-in, and said plainly what the evidence says about it (docs/nudging.md).
            ctx.output.notice(
                "warning: usual-time passed the acceptance rules in no cell of the simulator's map (it keeps most reminders: its guards fall back to the grid); planner plan says what it decides each day, and planner stats --nudges measures what reminders do for you (docs/nudging.md)"
            )
        }
        if values.contains(where: { $0.0 == .syncFolder && !$0.1.isEmpty }) {
            // Joining: the folder is read at once, so that this device finds another's claim of the plan's zone
            // (and takes that zone) before it would make its own (`claimPlanZone`).
            _ = try context.database.sync(now: context.now)
        }
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
        if chosen.contains(.calendarFolder) { try leaveCalendarFolder(ctx, context, for: "") }
        try context.database.configure(set: [], reset: chosen, now: context.now)
    }

    /// A calendar folder given up (reset, or another set): the planner's items leave it first, so a phone
    /// that syncs it stops ringing once the calendar job carries that out; the user's own stay.
    static func leaveCalendarFolder(_ ctx: RunContext, _ context: CommandContext, for next: String) throws(PlannerError) {
        guard let old = try context.database.settingRows().first(where: { $0.key == .calendarFolder })?.value,
            !old.isEmpty, old != next, !sameFolder(old, next, timing: context.database.folderTiming)
        else { return }
        do {
            // The job's lock first: a calendar-sync under way would write the folder again in between.
            let lock = try CalendarSyncCommand.lockJob(database: context.database.path)
            defer { close(lock) }
            let (removed, left) = try context.database.emptyCalendarFolder(old, now: context.now)
            guard removed > 0 else { return }
            // vdirsyncer refuses to empty a whole calendar on the server without --force-delete: given only
            // when the planner's items were all the folder held.
            let force = left == 0 ? " (with --force-delete if it refuses to empty the calendar)" : ""
            guard CalendarSyncCommand.vdirsyncerReady(ctx) else {
                ctx.output.notice(
                    "removed \(removed) of the planner's items from the old calendar folder \(old): vdirsyncer sync\(force) carries that to the server"
                )
                return
            }
            // Once, now, so the phone stops ringing; bounded: a config command does not wait on a server for long.
            let report = try CalendarSyncCommand.carryOut(ctx, vdirsyncer: nil, emptied: left == 0, limitMilliseconds: 30_000)
            if let failure = report.failure {
                ctx.output.notice(
                    "removed \(removed) of the planner's items from the old calendar folder \(old), but carrying that to the server failed: \(failure); run vdirsyncer sync\(force) to finish"
                )
            } else {
                ctx.output.notice(
                    "removed \(removed) of the planner's items from the old calendar folder \(old) and from the server (vdirsyncer deleted \(report.deleted))"
                )
            }
        } catch {
            ctx.output.notice(
                "warning: could not take the planner's items out of the old calendar folder \(old): \(error); it is no longer the planner's folder, so nothing tries again: delete its planner-*.ics files, and any hidden .planner-*.tmp files, by hand"
            )
        }
    }

    /// The same folder by another name (a trailing slash, a link): the same device and inode. Asked of a
    /// folder child, as every folder is: a folder on a mount that stopped answering is not the same one
    /// (the old folder's emptying, a child too, then says it did not answer).
    static func sameFolder(_ a: String, _ b: String, timing: FolderTiming) -> Bool {
        guard !b.isEmpty else { return false }
        guard
            let answer = inChild(
                folder: a, timing: timing,
                { () -> [UInt8] in
                    var x = stat()
                    var y = stat()
                    var out = Wire.Writer()
                    out.int(stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino ? 1 : 0)
                    return out.bytes
                }
            ).answer
        else { return false }
        var r = Wire.Reader(answer)
        return r.int() == 1
    }

    /// The calendar folder is made when it is set (and its parents, private to the user): vdirsyncer and
    /// the planner need it, and `vdirsyncer discover` asks to create only the server's side. By a folder
    /// child: a folder on a mount that stopped answering costs the command the folder deadline and one
    /// line, never a wait as long as the mount's.
    static func makeCalendarFolder(_ folder: String, timing: FolderTiming) throws(PlannerError) {
        guard !folder.isEmpty else { return }
        let (answer, why) = inChild(folder: folder, timing: timing) { () -> [UInt8] in
            var out = Wire.Writer()
            var path = ""
            for part in folder.split(separator: "/") {
                path += "/" + part
                if mkdir(path, 0o700) != 0 && errno != EEXIST {
                    out.int(Int64(errno))
                    out.text(path)
                    return out.bytes
                }
            }
            out.int(0)
            return out.bytes
        }
        guard let answer else {
            throw .io("cannot create the calendar folder \(folder) (\(why ?? "it said nothing")): set it again once it answers")
        }
        var r = Wire.Reader(answer)
        let failure = Int32(truncatingIfNeeded: r.int() ?? Int64(EIO))
        guard failure == 0 else {
            throw .io(
                "cannot create the calendar folder \(folder) (\(String(cString: strerror(failure))) at \(r.text() ?? folder)): create it, then set it again"
            )
        }
    }

    /// `work` done by a folder child touching `folder`: what it said, or why it said nothing.
    private static func inChild(folder: String, timing: FolderTiming, _ work: () -> [UInt8]) -> (answer: [UInt8]?, why: String?) {
        let outcome: FolderChild.Outcome
        do {
            outcome = try FolderChild.run(folder: folder, timing: timing, observe: work, decide: { _ in nil }, act: { _ in [] })
        } catch {
            return (nil, "\(error)")
        }
        if let why = outcome.unfinished { return (nil, why) }
        guard case .done(let observed, _) = outcome else { return (nil, "it said nothing") }
        return (observed, nil)
    }

    public static var keyList: String { SettingKey.allCases.map(\.rawValue).joined(separator: ", ") }

    public static func key(_ text: String) throws(PlannerError) -> SettingKey {
        guard let key = SettingKey(rawValue: text) else {
            throw .usage("unknown setting \(TerminalText.quoted(text)): the settings are \(keyList)")
        }
        return key
    }

    /// What `config set zone system` records: the zone /etc/localtime names now. A set zone is an event
    /// every device applies, and the word `system` would be each device's own zone there (one open, two
    /// days); only the default, never shared, follows /etc/localtime at every run.
    static func systemZoneName() throws(PlannerError) -> String {
        let name = SystemZone.systemDefault().name
        guard name != "system", (try? SettingKey.zone.canonical(name)) == name, (try? SystemZone.named(name)) != nil else {
            throw .usage(
                "this system's zone has no name (/etc/localtime is not a link into /usr/share/zoneinfo): planner config set zone NAME (e.g. Europe/Berlin)"
            )
        }
        return name
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
