/// What `refill` and `open` must change, decided from `now`, the zone and the current state alone.
/// The store reads the state and applies the decision inside one transaction.

public enum RequestKind: String, Sendable {
    case slot
    case oneoff
}

/// A request that is waiting for its time.
public struct PendingRequest: Hashable, Sendable {
    public var rowID: Int64
    public var identifier: String
    public var kind: RequestKind
    public var fireAt: Instant
    public var localDate: LocalDate
    /// The zone the request was planned in.
    public var zone: String

    public init(rowID: Int64, identifier: String, kind: RequestKind, fireAt: Instant, localDate: LocalDate, zone: String = "") {
        self.rowID = rowID
        self.identifier = identifier
        self.kind = kind
        self.fireAt = fireAt
        self.localDate = localDate
        self.zone = zone
    }
}

/// What the planner needs to know about the store to decide.
public struct PlanState: Sendable {
    /// Every pending request.
    public var pending: [PendingRequest]
    /// Slot identifiers of requests that must not come back: delivered, being delivered, missed,
    /// failed or cancelled (only those after `now` matter).
    public var finishedSlotIdentifiers: Set<String>
    /// Local dates on which the app was opened (only today and later matter).
    public var openedDates: Set<LocalDate>
    /// One-off requests waiting outside the cap (state `displaced`): they come back when among the soonest.
    public var waitingOneOffs: [PendingRequest]

    public init(pending: [PendingRequest], finishedSlotIdentifiers: Set<String> = [], openedDates: Set<LocalDate> = [],
                waitingOneOffs: [PendingRequest] = []) {
        self.pending = pending
        self.finishedSlotIdentifiers = finishedSlotIdentifiers
        self.openedDates = openedDates
        self.waitingOneOffs = waitingOneOffs
    }
}

public struct PlanPolicy: Sendable {
    /// iOS's limit on pending local notifications, kept here.
    public static let cap = 64
    public static let defaultGraceMilliseconds: Int64 = 15 * 60 * 1000

    public var cap: Int
    public var graceMilliseconds: Int64

    public init(cap: Int = PlanPolicy.cap, graceMilliseconds: Int64 = PlanPolicy.defaultGraceMilliseconds) {
        self.cap = cap
        self.graceMilliseconds = graceMilliseconds
    }
}

public struct RefillDecision: Equatable, Sendable {
    /// Pending requests whose time passed more than the grace period ago.
    public var missed: [PendingRequest] = []
    /// Pending requests pushed out of the cap by sooner ones.
    public var displaced: [PendingRequest] = []
    /// New slots to add, soonest first.
    public var added: [Slot] = []
    /// Waiting one-offs that are among the soonest again and become pending.
    public var readmitted: [PendingRequest] = []
    /// Slots planned in another zone (TZ changed): replaced, and planned again at the same wall-clock
    /// time in the current zone when still ahead.
    public var rezoned: [PendingRequest] = []

    public var isEmpty: Bool { missed.isEmpty && displaced.isEmpty && added.isEmpty && readmitted.isEmpty && rezoned.isEmpty }
}

public struct OpenDecision: Equatable, Sendable {
    /// The local date the app was opened on.
    public var date: LocalDate
    /// That date's pending study slots, past ones included.
    public var cancelled: [PendingRequest]
    public var refill: RefillDecision
}

/// Refill: stale requests become missed, then the pending set becomes the soonest `cap` of
/// (what is pending) ∪ (waiting one-offs) ∪ (slots strictly after now on dates the app was not opened,
/// not finished before).
public func decideRefill(now: Instant, zone: Zone, policy: PlanPolicy = PlanPolicy(), state: PlanState) -> RefillDecision {
    var decision = RefillDecision()
    let staleBefore = now - policy.graceMilliseconds
    var live: [PendingRequest] = []
    for request in state.pending {
        if request.kind == .slot, request.zone != zone.name, let reading = SlotIdentifier.parse(request.identifier),
           zone.instant(for: reading) != request.fireAt {
            decision.rezoned.append(request)
        } else if request.fireAt < staleBefore {
            decision.missed.append(request)
        } else {
            live.append(request)
        }
    }
    var waiting: [PendingRequest] = []
    for request in state.waitingOneOffs {
        if request.fireAt < staleBefore { decision.missed.append(request) } else { waiting.append(request) }
    }
    let candidates = SlotIdentifier.upcoming(
        after: now, in: zone, skippingDates: state.openedDates,
        // An identifier names one request: one taken by a pending or waiting one-off (`add --id` with a
        // slot's identifier) is not planned again as a slot.
        skippingIdentifiers: state.finishedSlotIdentifiers.union(live.map(\.identifier)).union(waiting.map(\.identifier)),
        limit: policy.cap)

    // Merge both sorted-by-time lists and keep the soonest `cap`; ties broken by identifier so the
    // outcome never depends on the order rows came out of the database.
    enum Entry { case kept(PendingRequest), waiting(PendingRequest), new(Slot) }
    var entries = live.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.kept($0)) }
    entries += waiting.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.waiting($0)) }
    entries += candidates.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.new($0)) }
    entries.sort { ($0.at, $0.id) < ($1.at, $1.id) }
    for (index, item) in entries.enumerated() {
        switch item.entry {
        case .kept(let request) where index >= policy.cap: decision.displaced.append(request)
        case .waiting(let request) where index < policy.cap: decision.readmitted.append(request)
        case .new(let slot) where index < policy.cap: decision.added.append(slot)
        default: break
        }
    }
    return decision
}

/// Open ("the app opened"): cancel every pending study slot of today's local date, remember the
/// date so nothing re-adds its slots, then refill.
public func decideOpen(now: Instant, zone: Zone, policy: PlanPolicy = PlanPolicy(), state: PlanState) -> OpenDecision {
    let today = zone.local(now).date
    var remaining = state
    let cancelled = state.pending.filter { $0.kind == .slot && $0.localDate == today }
    let cancelledIDs = Set(cancelled.map(\.rowID))
    remaining.pending.removeAll { cancelledIDs.contains($0.rowID) }
    remaining.openedDates.insert(today)
    return OpenDecision(date: today, cancelled: cancelled, refill: decideRefill(now: now, zone: zone, policy: policy, state: remaining))
}
