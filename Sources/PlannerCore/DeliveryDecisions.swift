/// What the ticker must do with the requests that are due, and how a one-off enters the plan.
/// Pure: `now`, the policy and the rows in; a decision out.

public struct DueDecision: Equatable, Sendable {
    /// The one request to deliver now: the latest due request still within its grace period.
    public var deliver: PendingRequest?
    /// Due requests that will not be delivered: past the grace period, or superseded by a later due one
    /// (after a sleep several are due at once: deliver one, never a burst).
    public var missed: [(request: PendingRequest, reason: String)]

    public static func == (a: DueDecision, b: DueDecision) -> Bool {
        a.deliver == b.deliver && a.missed.map(\.request) == b.missed.map(\.request) && a.missed.map(\.reason) == b.missed.map(\.reason)
    }
}

public enum MissReason {
    public static let pastGrace = "past grace period"
    public static let superseded = "superseded by a later request due at the same time"
}

/// `due` are pending requests with fireAt <= now (any order).
public func decideDue(now: Instant, policy: PlanPolicy = PlanPolicy(), due: [PendingRequest]) -> DueDecision {
    let staleBefore = now - policy.graceMilliseconds
    let inGrace = due.filter { $0.fireAt >= staleBefore && $0.fireAt <= now }
        .sorted { ($0.fireAt, $0.identifier) < ($1.fireAt, $1.identifier) }
    var missed = due.filter { $0.fireAt < staleBefore }
        .sorted { ($0.fireAt, $0.identifier) < ($1.fireAt, $1.identifier) }
        .map { (request: $0, reason: MissReason.pastGrace) }
    missed += inGrace.dropLast().map { (request: $0, reason: MissReason.superseded) }
    return DueDecision(deliver: inGrace.last, missed: missed)
}

/// A one-off request a user asks for (`planner add`).
public struct NewRequest: Equatable, Sendable {
    public var identifier: String
    public var fireAt: Instant
    public var title: String
    public var body: String

    public init(identifier: String, fireAt: Instant, title: String, body: String) {
        self.identifier = identifier
        self.fireAt = fireAt
        self.title = title
        self.body = body
    }
}

public struct AddDecision: Equatable, Sendable {
    /// The pending request with the same identifier, replaced by the new one.
    public var replaced: PendingRequest?
    /// Pending requests pushed out of the cap by the new, sooner one.
    public var displaced: [PendingRequest]
    /// False when 64 sooner requests are pending: the new one waits as `displaced`, and a refill
    /// brings it in once it is among the soonest 64.
    public var pending: Bool
}

/// The soonest `cap` win: the new request goes in, and whatever is then beyond the cap is displaced.
public func decideAdd(now: Instant, policy: PlanPolicy = PlanPolicy(), request: NewRequest, pending: [PendingRequest]) -> AddDecision {
    let replaced = pending.first { $0.identifier == request.identifier }
    var others = pending.filter { $0.identifier != request.identifier }
    others.sort { ($0.fireAt, $0.identifier) < ($1.fireAt, $1.identifier) }
    let sooner = others.filter { ($0.fireAt, $0.identifier) < (request.fireAt, request.identifier) }.count
    guard sooner < policy.cap else {
        return AddDecision(replaced: replaced, displaced: Array(others.dropFirst(policy.cap)), pending: false)
    }
    // One place is taken by the new request: keep the soonest cap-1 of the others.
    return AddDecision(replaced: replaced, displaced: Array(others.dropFirst(policy.cap - 1)), pending: true)
}

/// Retry delays after a failed delivery: 1 s, 2 s, 4 s … capped at a minute, only while the request is
/// still within its grace period; after that it is recorded as failed.
public func nextRetry(after attempt: Int, fireAt: Instant, now: Instant, policy: PlanPolicy = PlanPolicy()) -> Instant? {
    let delay = Int64(1000) << Int64(min(max(attempt - 1, 0), 6))
    let at = now + min(delay, 60_000)
    return at <= fireAt + policy.graceMilliseconds ? at : nil
}
