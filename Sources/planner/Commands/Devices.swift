import ArgumentParser
import PlannerCommands
import PlannerCore
import PlannerStore

/// `planner devices`: who shares this plan through the sync folder.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices seen in the sync folder: name, id, last change, apparent clock offset.",
        discussion: """
            This device first. The offset is the other device's clock minus this one's as its changes suggest \
            (at most: the sync engine's carriage counts against it); a large one is worth fixing (NTP), though \
            the latest change still wins everywhere whatever the clocks say. The same rows are in the devices view.
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Print a JSON array.") var json = false

    func run() throws {
        let (rows, zone) = try SyncCommand.devices(.process, db: common.db, now: common.now)
        if json {
            let objects = rows.map { d in
                Formatting.jsonObject([
                    ("id", Formatting.json(d.id)),
                    ("name", Formatting.json(d.name)),
                    ("this_device", d.isSelf ? "true" : "false"),
                    ("last_event_at", d.lastEvent.map { Formatting.json(zone.rfc3339($0)) } ?? "null"),
                    ("offset_ms", d.offsetMilliseconds.map(String.init) ?? "null"),
                    ("events", String(d.events)),
                ])
            }
            print(objects.isEmpty ? "[]" : "[\n  " + objects.joined(separator: ",\n  ") + "\n]")
            return
        }
        guard !rows.isEmpty else {
            print("no devices yet: set a sync folder (planner config set sync-folder DIR) on each device")
            return
        }
        print(Formatting.table([["NAME", "ID", "LAST CHANGE", "CLOCK OFFSET"]] + rows.map { d in
            [d.name + (d.isSelf ? " (this device)" : ""), d.id,
             d.lastEvent.map { Formatting.wallTime($0, in: zone) } ?? "-",
             d.isSelf ? "-" : d.offsetMilliseconds.map(Self.offset) ?? "-"]
        }))
    }

    static func offset(_ ms: Int64) -> String {
        let seconds = (abs(ms) + 500) / 1000
        let text = seconds >= 3600 ? "\(seconds / 3600)h\(seconds % 3600 / 60)m" : seconds >= 60 ? "\(seconds / 60)m\(seconds % 60)s" : "\(seconds)s"
        return (ms < 0 ? "-" : "+") + text + " (at most)"
    }
}
