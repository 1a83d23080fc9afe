import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner sync` and `planner devices`: the sync folder on demand, and who shares the plan through it.
public enum SyncCommand {
    /// Applies the other devices' new events and writes this device's, reads the calendar folder's ticks
    /// and writes it again, reads Anki's new reviews; throws when this device has none of the three.
    public static func sync(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> SourcesReport {
        let context = try ctx.resolveSetting(db: db, now: now).open()
        let found = try context.database.sync(now: context.now)
        guard found.sync != nil || found.calendar != nil || found.anki != nil else {
            throw .usage(
                "this device does not sync: set a folder your sync engine shares with planner config set sync-folder DIR, a calendar folder with planner config set calendar-folder DIR, or Anki's collection with planner config set anki-collection FILE"
            )
        }
        return found
    }

    /// The devices seen in the sync folder, this one first, and the plan's zone to show their times in.
    public static func devices(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (devices: [DeviceRow], zone: Zone) {
        let context = try ctx.readingContext(db: db, now: now)
        return (try context.database.devices(), context.zone)
    }
}
