import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner devices`: who shares this plan through the sync folder.
struct Devices: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices seen in the sync folder: name, id, last change, apparent clock offset.",
        discussion: """
            This device first. The offset is the other device's clock minus this one's as its changes suggest \
            (at most: the sync engine's carriage counts against it); under 2 s it is that carriage, and shows as \
            "in step". A large one is worth fixing (NTP), though the latest change still wins everywhere whatever \
            the clocks say. --json and the devices view give the measurement itself (offset_ms).
            """)

    @OptionGroup var common: CommonOptions
    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Print a JSON array with the devices view's names: "
                + DevicesReport.fields.filter { !$0.deprecated }.map { $0.key + ($0.note.map { " (\($0))" } ?? "") }.joined(separator: ", ")
                + ".")) var json = false

    func run(_ ctx: RunContext) throws {
        let (rows, zone) = try SyncCommand.devices(ctx, db: common.db, now: common.now)
        DevicesReport(rows: rows, zone: zone).print(json: json, to: ctx.output)
    }

    /// Below this an offset says nothing about the clocks. The estimate is a change's own time minus when it
    /// was applied here: on clocks in step that is minus the sync engine's carriage, which Syncthing with the
    /// watcher delay docs/sync.md sets (1 s) takes 0.65-1.25 s (docs/benchmarks.md), so two accounts on one
    /// clock read "-1s"; and it can read a little ahead when a command's clock reading came before it waited
    /// for the database. Both are under 2 s; a clock off by more shows.
    static let inStepMilliseconds: Int64 = 2_000

    static func offset(_ ms: Int64) -> String {
        if abs(ms) < inStepMilliseconds { return "in step" }
        let seconds = (abs(ms) + 500) / 1000
        let text = seconds >= 3600 ? "\(seconds / 3600)h\(seconds % 3600 / 60)m" : seconds >= 60 ? "\(seconds / 60)m\(seconds % 60)s" : "\(seconds)s"
        return (ms < 0 ? "-" : "+") + text + " (at most)"
    }
}

/// The devices seen in the sync folder, this one first.
struct DevicesReport: Report {
    let rows: [DeviceRow]
    let zone: Zone

    /// Each row's fields, in order: `json` and `--json`'s help are both made from this list. The devices
    /// view's names and values; `this_device` and `last_event_at` (local time) are the names this printed
    /// before (deprecated: docs/guide.md), printed but not offered in the help.
    static let fields: [(key: String, note: String?, deprecated: Bool, value: @Sendable (DeviceRow, Zone) -> JSON)] = [
        ("id", nil, false, { d, _ in .string(d.id) }),
        ("name", nil, false, { d, _ in .string(d.name) }),
        ("is_self", nil, false, { d, _ in .bool(d.isSelf) }),
        ("last_event", "UTC", false, { d, _ in .utc(d.lastEvent.map { Instant(milliseconds: $0.milliseconds / 1000 * 1000) }) }),
        ("offset_ms", nil, false, { d, _ in d.offsetMilliseconds.map(JSON.int) ?? .null }),
        ("events", nil, false, { d, _ in .int(d.events) }),
        ("this_device", nil, true, { d, _ in .bool(d.isSelf) }),
        ("last_event_at", nil, true, { d, zone in .time(d.lastEvent, in: zone) }),
    ]

    var json: JSON { .array(rows.map { d in .object(Self.fields.map { ($0.key, $0.value(d, zone)) }) }) }

    var text: String {
        guard !rows.isEmpty else { return "no devices yet: set a sync folder (planner config set sync-folder DIR) on each device" }
        return Formatting.table(
            [["NAME", "ID", "LAST CHANGE", "CLOCK OFFSET"]]
                + rows.map { d in
                    [
                        d.name + (d.isSelf ? " (this device)" : ""), d.id,
                        d.lastEvent.map { Formatting.wallTime($0, in: zone) } ?? "-",
                        d.isSelf ? "-" : d.offsetMilliseconds.map(Devices.offset) ?? "-",
                    ]
                })
    }
}
