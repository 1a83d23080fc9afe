import PlannerCommands

/// `open` and `refill`'s options (PlannerCommands), visible to this module's tests by this name.
typealias PlanCommandOptions = PlannerCommands.PlanCommandOptions

extension PlanCommandOptions {
    /// What ArgumentParser read for `open` or `refill`.
    init(_ common: CommonOptions, _ change: PlanChangeOptions) {
        self.init(db: common.db, now: common.now, grace: change.grace, verbose: change.verbose)
    }
}
