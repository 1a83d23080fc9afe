import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

/// `planner open`: the login's open, recorded now or saved for the next write (`LoginOpen`).
public enum OpenCommand {
    public enum Outcome {
        /// Recorded; the context (the plan's zone) only when --verbose asks for a report.
        case applied(OpenDecision, CommandContext?)
        /// Saved in the inbox folder (a notice says so).
        case saved(String)
        /// --login in a shell of a login that has ended (a tmux pane after logout): nothing recorded.
        case outlived
    }

    public static func run(_ ctx: RunContext, _ options: PlanCommandOptions) throws(PlannerError) -> Outcome {
        let policy = try options.policy()
        let setting = try ctx.resolveSetting(db: options.db, now: options.now)
        // --login: one open per login session, recorded as the event that session always makes.
        var id: String?
        var inside: [String] = []
        if options.login {
            switch LoginSession.decide(.current(environment: ctx.environment)) {
            case .outlived: return .outlived
            case .unknown: break
            case .record(let session, let unlessRecorded): (id, inside) = (session, unlessRecorded)
            }
        }
        switch try LoginOpen.run(
            setting, policy: policy, origin: options.login ? "login" : "open", id: id, unlessRecorded: inside, reporting: options.verbose)
        {
        case .saved(let folder, let why):
            ctx.output.notice(
                why.kind == .busy
                    ? "the database \(setting.path) is locked by another program; this open (\(setting.zone.rfc3339(setting.now))) was saved in \(folder)/ and will be applied at its time by the next planner command that writes once the database is free"
                    : "this open (\(setting.zone.rfc3339(setting.now))) was saved in \(folder)/ and will be applied at its time by the next planner command that writes once it can: \(why.message)",
                from: "open")
            return .saved(folder)
        case .applied(let recorded, let database):
            // The plan is read only for the report, in the open's own transaction.
            return .applied(
                recorded.decision,
                recorded.plan.map { CommandContext(now: setting.now, zone: $0.zone, database: database, settings: $0.settings) })
        }
    }
}

/// `planner refill`.
public enum RefillCommand {
    public static func run(_ ctx: RunContext, _ options: PlanCommandOptions) throws(PlannerError) -> (RefillDecision, CommandContext) {
        let policy = try options.policy()
        let context = try ctx.commandContext(db: options.db, now: options.now)
        return (try context.database.refill(now: context.now, policy: policy), context)
    }
}
