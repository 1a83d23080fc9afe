import PlannerCore
import PlannerFolders
import PlannerStore

/// A plan in a new temporary database, filled as `planner refill` would at `at`.
public func refilledPlan(at time: String, in clock: TestTime = .seoul, path: String = temporaryDatabasePath()) throws -> PlannerDatabase {
    let database = try PlannerDatabase(path: path, zoneForNewPlan: clock.zone.name)
    try database.refill(now: clock.at(time), zone: clock.zone)
    return database
}
