import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerStore

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the next reminder, how many are pending, whether the app was opened today, the last refill.")

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print a JSON object instead of text.") var json = false

    func run() throws { try Self.execute(QuickPath.Reading(db: common.db, now: common.now, json: json)) }

    static func execute(_ options: QuickPath.Reading) throws {
        let json = options.json
        let setting = try RunContext.process.resolveSetting(db: options.db, now: options.now)
        let ctx = try setting.open(forWriting: false)
        let s = try ctx.database.status(now: ctx.now, zone: ctx.zone)
        // Opens saved while the database was held are recorded by the next write; files the spool will
        // not apply stay there until someone removes them: both are said here, once.
        let spool = Inbox.report(resolvedPath: ctx.database.resolvedPath)
        let today = ctx.zone.local(ctx.now).date
        let opensWaiting = spool?.waiting.filter { if case .open = $0.change { true } else { false } } ?? []
        let othersWaiting = (spool?.waiting.count ?? 0) - opensWaiting.count
        let waitingToday = opensWaiting.filter { ctx.zone.local($0.at).date == today }
        let spoolNote = spool.flatMap { r -> String? in
            var parts: [String] = []
            if !opensWaiting.isEmpty { parts.append("\(opensWaiting.count) open\(opensWaiting.count == 1 ? "" : "s") waiting to be recorded by the next planner command that writes") }
            if othersWaiting > 0 { parts.append("\(othersWaiting) other change\(othersWaiting == 1 ? "" : "s") waiting to be applied by the next planner command that writes") }
            if r.setAside > 0 { parts.append("\(r.setAside) refused and set aside (*.rejected: read, then delete)") }
            if r.ignored > 0 { parts.append("\(r.ignored) ignored (not a saved open of yours: remove)") }
            return parts.isEmpty ? nil : "\(r.folder): " + parts.joined(separator: "; ")
        }
        // The plan keeps its own zone; say so when this shell's TZ names another one.
        let tzNote = setting.zoneForNewPlan.flatMap { $0 == ctx.zone.name ? nil :
            "TZ is \($0) but the plan's zone is \(ctx.zone.name): to move the plan, planner config set zone \($0)" }
        let paused = s.pause.map { p in
            (p.since > ctx.now ? "from \(Formatting.wallTime(p.since, in: ctx.zone)) " : "")
                + (p.until.map { "until \(Formatting.wallTime($0, in: ctx.zone))" } ?? "until 'planner resume'")
        }
        if json {
            func time(_ i: Instant?) -> String { i.map { Formatting.json(ctx.zone.rfc3339($0)) } ?? "null" }
            print(Formatting.jsonObject([
                ("now", time(ctx.now)),
                ("zone", Formatting.json(ctx.zone.name)),
                ("database", Formatting.json(ctx.database.path)),
                ("next_id", s.next.map { Formatting.json($0.identifier) } ?? "null"),
                ("next_fire_at", time(s.next?.fireAt)),
                ("pending", String(s.pendingCount)),
                ("cap", String(PlanPolicy.cap)),
                ("opened_today", s.firstOpenToday == nil ? "false" : "true"),
                ("first_open_today", time(s.firstOpenToday)),
                ("opens_waiting", String(opensWaiting.count)),
                ("first_open_today_waiting", time(waitingToday.map(\.at).min())),
                ("spool_set_aside", String(spool?.setAside ?? 0)),
                ("spool_ignored", String(spool?.ignored ?? 0)),
                ("last_refill", time(s.lastRefill)),
                ("paused", s.pause == nil ? "false" : "true"),
                ("paused_until", time(s.pause?.until)),
            ]))
            return
        }
        let next = s.next.map {
            "\($0.identifier) at \(Formatting.wallTime($0.fireAt, in: ctx.zone)) (\(describeRelative($0.fireAt, from: ctx.now)))"
        } ?? "nothing pending (run 'planner refill')"
        let opened = s.firstOpenToday.map {
            "yes, first at \(Formatting.wallTime($0, in: ctx.zone))" + (s.opensToday > 1 ? " (\(s.opensToday) times)" : "")
        } ?? waitingToday.map(\.at).min().map {
            "yes, at \(Formatting.wallTime($0, in: ctx.zone)) (saved while the database was held; recorded by the next planner command that writes)"
        } ?? "not today"
        let refilled = s.lastRefill.map {
            "\(Formatting.wallTime($0, in: ctx.zone)) (\(describeRelative($0, from: ctx.now)))"
        } ?? "never (run 'planner refill')"
        print(Formatting.table([
            ["next", next],
        ] + (paused.map { [["paused", $0]] } ?? []) + [
            ["pending", "\(s.pendingCount)/\(PlanPolicy.cap)"],
            ["opened", opened],
            ["refilled", refilled],
            ["zone", ctx.zone.name],
            ["database", ctx.database.path],
        ] + (spoolNote.map { [["spool", $0]] } ?? []) + (tzNote.map { [["note", $0]] } ?? [])))
    }
}
