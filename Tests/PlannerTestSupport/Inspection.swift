import PlannerStore

extension PlannerDatabase {
    /// The connection, for a test's own look at the file between the planner's steps (a count, a row the
    /// planner wrote). The planner's code reaches it only through a `Transaction`; a test is not the
    /// planner's code, and `Connection.transactionsOnly` lets its statements run outside one.
    package var inspection: Connection { outsideTransactions { $0 } }
}
