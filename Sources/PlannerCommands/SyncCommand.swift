import PlannerCore
import PlannerStore

/// `planner sync` and `planner devices`: the sync folder on demand, and who shares the plan through it.
public enum SyncCommand {
    /// Applies the other devices' new events and writes this device's, reads the calendar folder's ticks
    /// and writes it again; throws when this device has neither folder.
    public static func sync(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (sync: SyncReport?, calendar: CalendarReport?) {
        let context = try ctx.resolveSetting(db: db, now: now).open()
        let found = try context.database.sync(now: context.now)
        let (report, calendar) = (found.sync, found.calendar)
        guard report != nil || calendar != nil else {
            throw .usage("this device does not sync: set a folder your sync engine shares with planner config set sync-folder DIR, or a calendar folder with planner config set calendar-folder DIR")
        }
        return (report, calendar)
    }

    /// The devices seen in the sync folder, this one first, and the plan's zone to show their times in.
    public static func devices(_ ctx: RunContext, db: String?, now: String?) throws(PlannerError) -> (devices: [DeviceRow], zone: Zone) {
        let context = try ctx.readingContext(db: db, now: now)
        return (try context.database.devices(), context.zone)
    }
}
