import PlannerCore
import PlannerStore

/// `planner sync` and `planner devices`: the sync folder on demand, and who shares the plan through it.
public enum SyncCommand {
    /// Applies the other devices' new events and writes this device's; throws when this device does not sync.
    public static func sync(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> SyncReport {
        let context = try ctx.resolveSetting(db: db, now: now).open()
        guard let report = try context.database.sync(now: context.now) else {
            throw .usage("this device does not sync: set a folder your sync engine shares with planner config set sync-folder DIR")
        }
        return report
    }

    /// The devices seen in the sync folder, this one first, and the plan's zone to show their times in.
    public static func devices(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (devices: [DeviceRow], zone: Zone) {
        let context = try ctx.readingContext(db: db, now: now)
        return (try context.database.devices(), context.zone)
    }
}
