/// Where a request is in its life. Rows are never deleted: each change is a transition you can see with
/// `sqlite3`. The schema holds the same states and the transitions it allows as rows (`request_state`,
/// `request_transition`; RequestStateTableTests compares): a new state is a case here and a migration
/// inserting its rows.
public enum RequestState: String, CaseIterable, Sendable {
    /// Waiting for its time; at most 64 at any moment.
    case pending
    /// Claimed by a ticker, delivery in progress.
    case delivering
    case delivered
    /// Its time passed more than the grace period ago without delivery.
    case missed
    /// Every delivery attempt failed.
    case failed
    /// Removed by an app-open (`planner open`): that day is done.
    case cancelled
    /// Pushed out of the 64 by a sooner request; may come back.
    case displaced
    /// A request with the same identifier was added in its place.
    case replaced
    /// Its time falls in a pause; planned again (a new row) when still ahead after `resume`.
    case paused
    /// Its date was skipped; planned again when the skip is removed and it is still ahead.
    case skipped
    /// No longer part of the plan as it is now (schedule, zone or content changed); the plan decides anew.
    case retired
    /// Its time came in measurement mode and it was held back at random instead of shown (`MeasurementMode`).
    case withheld

    /// A study slot whose identifier has a row in one of these is never planned again: it was shown, is
    /// being shown, may have been shown (failed), or its day is done. A missed one was never shown: in the
    /// same zone its time is past anyway, and after a zone change its wall-clock time there may still come.
    /// The store reads it from `request_state.ends_slot`, which must agree.
    public var endsTheSlot: Bool {
        switch self {
        case .delivering, .delivered, .failed, .cancelled, .withheld: true
        case .pending, .missed, .displaced, .replaced, .paused, .skipped, .retired: false
        }
    }

    /// Still in the plan, to be delivered at its time: pending, or displaced (it comes back when room frees).
    public var isWaiting: Bool {
        switch self {
        case .pending, .displaced: true
        case .delivering, .delivered, .missed, .failed, .cancelled, .replaced, .paused, .skipped, .retired, .withheld: false
        }
    }

    /// Happened to the user: shown, or its time came and it was missed or failed. `history` lists these
    /// (and answers and opens); the rest is the plan's bookkeeping.
    public var happenedToTheUser: Bool {
        switch self {
        case .delivered, .missed, .failed: true
        case .pending, .delivering, .cancelled, .displaced, .replaced, .paused, .skipped, .retired, .withheld: false
        }
    }

    /// The states a rule holds for, as an SQL list: `('pending', 'displaced')`. Statements spell a set of
    /// states with these, so each rule is written once, here (and a new state must be placed in each switch).
    public static func sqlList(_ rule: (RequestState) -> Bool) -> String {
        "(" + allCases.filter(rule).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }

    /// `state IN` these: waiting to be delivered (`isWaiting`).
    public static let waitingSQL = sqlList(\.isWaiting)
    /// `state IN` these: happened to the user (`happenedToTheUser`).
    public static let happenedSQL = sqlList(\.happenedToTheUser)
}
