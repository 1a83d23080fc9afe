import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

struct Status: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the next reminder, how many are pending, whether the app was opened today, the last refill.")

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print a JSON object instead of text.") var json = false

    func run(_ ctx: RunContext) throws { try Self.execute(ctx, QuickPath.Reading(db: common.db, now: common.now, json: json)) }

    static func execute(_ ctx: RunContext, _ options: QuickPath.Reading) throws {
        try StatusCommand.run(ctx, db: options.db, now: options.now).print(json: options.json, to: ctx.output)
    }
}

extension StatusReport: Report {
    var json: JSON {
        let (s, r) = (status, self)
        func time(_ i: Instant?) -> JSON { .time(i, in: r.zone) }
        return .object([
            ("now", time(r.now)),
            ("zone", .string(r.zone.name)),
            ("tz", .text(r.environmentTZ)),
            ("environment_zone", .string(r.environmentZone)),
            ("database", .string(r.databasePath)),
            ("next_id", .text(s.next?.identifier)),
            ("next_fire_at", time(s.next?.fireAt)),
            ("pending", .int(s.pendingCount)),
            ("cap", .int(PlanPolicy.cap)),
            ("opened_today", .bool(s.firstOpenToday != nil)),
            ("first_open_today", time(s.firstOpenToday)),
            ("opens_waiting", .int(r.inbox?.opensWaiting ?? 0)),
            ("first_open_today_waiting", time(r.inbox?.firstOpenTodayWaiting)),
            ("spool_set_aside", .int(r.inbox?.setAside ?? 0)),
            ("spool_ignored", .int(r.inbox?.ignored ?? 0)),
            ("last_refill", time(s.lastRefill)),
            ("paused", .bool(s.pause != nil)),
            ("paused_until", time(s.pause?.until)),
            ("sync_folder", .text(r.syncFolder)),
            ("sync_problems", .array(r.syncProblems.map(JSON.string))),
            ("calendar_folder", .text(r.calendarFolder)),
            ("calendar_problems", .array(r.calendarProblems.map(JSON.string))),
            ("calendar_round_at", time(r.calendarRound?.at)),
            ("calendar_round_failure", .text(r.calendarRound?.failure)),
            ("calendar_failing_since", time(r.calendarRound?.failingSince)),
            ("anki_collection", .text(r.ankiCollection)),
            ("anki_problem", .text(r.ankiProblem)),
            ("anki_synced_at", time(r.ankiSynced)),
            ("anki_last_review_at", time(r.ankiLastReview)),
            ("usual_time", .text(r.usualTime)),
        ])
    }

    var text: String {
        let r = self
        let (s, zone, now) = (r.status, r.zone, r.now)
        let next =
            s.next.map {
                // When, and what it is to a person; its identifier is in --json (next_id) and `planner list`.
                "\(Formatting.wallTime($0.fireAt, in: zone)) (\(describeRelative($0.fireAt, from: now))), "
                    + ($0.kind == .slot
                        ? "a study reminder"
                        : $0.identifier.hasSuffix("_snoozed")
                            ? "a snoozed study reminder" : "\"\(TerminalText.flattened($0.title))\" (added with planner add)")
            } ?? "nothing pending (run 'planner refill')"
        let paused = s.pause.map { p in
            (p.since > now ? "from \(Formatting.wallTime(p.since, in: zone)) " : "")
                + (p.until.map { "until \(Formatting.wallTime($0, in: zone))" } ?? "until 'planner resume'")
        }
        let opened =
            s.firstOpenToday.map {
                "yes, first at \(Formatting.wallTime($0, in: zone))" + (s.opensToday > 1 ? " (\(s.opensToday) times)" : "")
            } ?? r.inbox?.firstOpenTodayWaiting.map {
                "yes, at \(Formatting.wallTime($0, in: zone)) (saved while the database was held; recorded by the next planner command that writes)"
            } ?? "not today"
        let refilled =
            s.lastRefill.map {
                "\(Formatting.wallTime($0, in: zone)) (\(describeRelative($0, from: now)))"
            } ?? "never (run 'planner refill')"
        // The plan keeps its own zone; say so when this shell's TZ names another one.
        let tzNote = r.otherEnvironmentZone.map {
            "TZ is \($0) but the plan's zone is \(zone.name): to move the plan, planner config set zone \($0)"
        }
        return Formatting.table(
            [
                ["next", next]
            ] + (paused.map { [["paused", $0]] } ?? []) + (r.usualTime.map { [["schedule", "usual-time: \($0)"]] } ?? []) + [
                ["pending", "\(s.pendingCount)/\(PlanPolicy.cap)"],
                ["opened", opened],
                ["refilled", refilled],
                ["zone", zone.name],
                ["TZ", Status.tzText(r)],
                ["database", r.databasePath],
            ] + (r.inbox.flatMap(Status.inboxNote).map { [["spool", $0]] } ?? [])
                + (r.syncFolder.map {
                    [
                        [
                            "sync",
                            $0
                                + (r.syncProblems.isEmpty
                                    ? "" : " (\(r.syncProblems.count) problem\(r.syncProblems.count == 1 ? "" : "s"): see below)"),
                        ]
                    ]
                } ?? [])
                + r.syncProblems.map { ["sync problem", $0] }
                + (r.calendarFolder.map {
                    [
                        [
                            "calendar",
                            $0
                                + (r.calendarProblems.isEmpty
                                    ? "" : " (\(r.calendarProblems.count) problem\(r.calendarProblems.count == 1 ? "" : "s"): see below)"),
                        ]
                    ]
                } ?? [])
                + (r.calendarFolder == nil
                    ? []
                    : [
                        [
                            "calendar job",
                            r.calendarRound.map {
                                ($0.failure == nil ? "last round worked, " : "last round failed, ")
                                    + "\(Formatting.wallTime($0.at, in: zone)) (\(describeRelative($0.at, from: now)))"
                            } ?? "no round yet (planner setup --calendar --install runs it; planner calendar-sync once)",
                        ]
                    ])
                + r.calendarProblems.map { ["calendar problem", $0] }
                + (r.ankiCollection.map { [["anki", $0]] } ?? [])
                + (r.ankiCollection != nil && r.ankiRead ? [["anki synced", Status.ankiSyncedText(r)]] : [])
                + (r.ankiProblem.map { [["anki problem", $0]] } ?? [])
                + (tzNote.map { [["note", $0]] } ?? []))
    }
}

extension Status {
    /// When Anki last synced the collection: reviews made on the phone or another computer are here only
    /// since then (docs/anki.md).
    static func ankiSyncedText(_ r: StatusReport) -> String {
        let review = r.ankiLastReview.map { "; latest review \(Formatting.wallTime($0, in: r.zone))" } ?? ""
        guard let synced = r.ankiSynced else {
            return "never by Anki here: only reviews made on this computer count\(review)"
        }
        return
            "\(Formatting.wallTime(synced, in: r.zone)) (\(describeRelative(synced, from: r.now))): a review on the phone counts once Anki here syncs\(review)"
    }

    /// TZ as set, or that it is unset and what the system zone is then: `Etc/UTC` alone would not say which.
    static func tzText(_ r: StatusReport) -> String {
        if r.environmentTZ != nil { return r.environmentZone }
        return r.hasLocaltimeFile ? "unset (using /etc/localtime: \(r.environmentZone))" : "unset (no /etc/localtime: using UTC)"
    }

    /// Opens saved while the database was held are recorded by the next write; files the inbox will not
    /// apply stay there until someone removes them: both are said here, once.
    static func inboxNote(_ inbox: InboxSummary) -> String? {
        var parts: [String] = []
        let (opens, others) = (inbox.opensWaiting, inbox.othersWaiting)
        if opens > 0 { parts.append("\(opens) open\(opens == 1 ? "" : "s") waiting to be recorded by the next planner command that writes") }
        if others > 0 {
            parts.append("\(others) other change\(others == 1 ? "" : "s") waiting to be applied by the next planner command that writes")
        }
        if inbox.setAside > 0 { parts.append("\(inbox.setAside) refused and set aside (*.rejected: read, then delete)") }
        if inbox.ignored > 0 { parts.append("\(inbox.ignored) ignored (not a saved open of yours: remove)") }
        return parts.isEmpty ? nil : "\(inbox.folder): " + parts.joined(separator: "; ")
    }
}
