/// What the ticker must do with the requests that are due, and how a one-off enters the plan.
/// Pure: `now`, the policy and the rows in; a decision out.

public struct DueDecision: Equatable, Sendable {
    /// The requests to deliver now, soonest first: every one-off within its grace period, and of the
    /// study slots only the latest within its grace period.
    public var deliver: [PendingRequest]
    /// Due requests that will not be delivered: past the grace period, or study slots superseded by a
    /// later due slot (after a sleep several are due at once: one nudge to study, never a burst).
    /// One-offs are never superseded: each is a distinct reminder someone asked for.
    public var missed: [(request: PendingRequest, reason: String)]

    public static func == (a: DueDecision, b: DueDecision) -> Bool {
        a.deliver == b.deliver && a.missed.map(\.request) == b.missed.map(\.request) && a.missed.map(\.reason) == b.missed.map(\.reason)
    }
}

public enum MissReason {
    public static let pastGrace = "past grace period"
    public static let superseded = "superseded by a later study reminder due at the same time"
}

/// `due` are pending requests with fireAt <= now (any order).
public func decideDue(now: Instant, policy: PlanPolicy = PlanPolicy(), due: [PendingRequest]) -> DueDecision {
    let staleBefore = now - policy.graceMilliseconds
    let byTime = { (a: PendingRequest, b: PendingRequest) in (a.fireAt, a.identifier) < (b.fireAt, b.identifier) }
    let inGrace = due.filter { $0.fireAt >= staleBefore && $0.fireAt <= now }.sorted(by: byTime)
    var missed = due.filter { $0.fireAt < staleBefore }.sorted(by: byTime)
        .map { (request: $0, reason: MissReason.pastGrace) }
    let slots = inGrace.filter { $0.kind == .slot }
    missed += slots.dropLast().map { (request: $0, reason: MissReason.superseded) }
    let deliver = inGrace.filter { $0.kind != .slot || $0 == slots.last }
    return DueDecision(deliver: deliver, missed: missed)
}

/// A study reminder, which can be answered and which its study day's open closes: a slot, or a snoozed one
/// (`<slot identifier>_snoozed`).
public func isStudyReminder(identifier: String, kind: RequestKind) -> Bool {
    kind == .slot || (identifier.hasPrefix(SlotIdentifier.prefix) && identifier.hasSuffix(snoozedSuffix))
}

/// What a snoozed reminder's identifier ends with.
public let snoozedSuffix = "_snoozed"

/// Whether a due request is left unshown because its study day was opened: open cancels the day's pending
/// slots, but a snoozed reminder stays pending and is recorded missed at its time. The ticker asks this
/// before showing; `nextShown` too.
public func closedByOpen(identifier: String, kind: RequestKind, dayOpened: @autoclosure () -> Bool) -> Bool {
    isStudyReminder(identifier: identifier, kind: kind) && dayOpened()
}

/// The next request the ticker will really show, by its own decisions: of those already due, what
/// `decideDue` delivers (not the ones past their grace, nor study slots superseded by a later due one);
/// then the ones ahead; never one `closedByOpen`. `openedDays`: the study days opened.
/// `withholding`: the settings whose measurement mode withholds slots (`MeasurementMode`; nil: none).
public func nextShown(
    now: Instant, policy: PlanPolicy = PlanPolicy(), pending: [PendingRequest],
    openedDays: Set<LocalDate>, withholding: PlanSettings? = nil
) -> PendingRequest? {
    let byTime = { (a: PendingRequest, b: PendingRequest) in (a.fireAt, a.identifier) < (b.fireAt, b.identifier) }
    // Withheld ones first, as the claim does: they are never shown, and never supersede a slot that is.
    let shown =
        withholding.map { plan in pending.filter { !MeasurementMode.withholds(identifier: $0.identifier, kind: $0.kind, plan: plan) } } ?? pending
    let due = decideDue(now: now, policy: policy, due: shown.filter { $0.fireAt <= now }).deliver
    let ahead = shown.filter { $0.fireAt > now }.sorted(by: byTime)
    return (due + ahead).first {
        !closedByOpen(identifier: $0.identifier, kind: $0.kind, dayOpened: openedDays.contains($0.localDate))
    }
}

/// Pending requests whose time passed more than the grace period ago: they can never be delivered,
/// so they must not hold a place under the cap (a one-off added after days without a refill).
public func staleRequests(now: Instant, policy: PlanPolicy = PlanPolicy(), among requests: [PendingRequest]) -> [PendingRequest] {
    requests.filter { $0.fireAt < now - policy.graceMilliseconds }
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
    /// Pending requests already past their grace period (no refill ran for a while): retired as missed
    /// before the cap is counted, so they never push a live request out.
    public var missed: [PendingRequest] = []
}

/// The soonest `cap` live requests win: stale ones are retired first, the new request goes in, and
/// whatever is then beyond the cap is displaced.
public func decideAdd(now: Instant, policy: PlanPolicy = PlanPolicy(), request: NewRequest, pending: [PendingRequest]) -> AddDecision {
    let replaced = pending.first { $0.identifier == request.identifier }
    let stale = staleRequests(now: now, policy: policy, among: pending.filter { $0.identifier != request.identifier })
    let staleIDs = Set(stale.map(\.rowID))
    var others = pending.filter { $0.identifier != request.identifier && !staleIDs.contains($0.rowID) }
    others.sort { ($0.fireAt, $0.identifier) < ($1.fireAt, $1.identifier) }
    let sooner = others.filter { ($0.fireAt, $0.identifier) < (request.fireAt, request.identifier) }.count
    guard sooner < policy.cap else {
        return AddDecision(replaced: replaced, displaced: Array(others.dropFirst(policy.cap)), pending: false, missed: stale)
    }
    // One place is taken by the new request: keep the soonest cap-1 of the others.
    return AddDecision(replaced: replaced, displaced: Array(others.dropFirst(policy.cap - 1)), pending: true, missed: stale)
}

/// Retry delays after a failed delivery: 1 s, 2 s, 4 s … capped at a minute, only while the request is
/// still within its grace period; after that it is recorded as failed.
public func nextRetry(after attempt: Int, fireAt: Instant, now: Instant, policy: PlanPolicy = PlanPolicy()) -> Instant? {
    let delay = Int64(1000) << Int64(min(max(attempt - 1, 0), 6))
    let at = now + min(delay, 60_000)
    return at <= fireAt + policy.graceMilliseconds ? at : nil
}
