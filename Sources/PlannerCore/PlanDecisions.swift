/// What `refill` and `open` must change, decided from `now`, the zone, the user's settings and the
/// current state alone.
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
    /// Its text, when read (a slot whose text differs from the settings' is planned again).
    public var title: String?
    public var body: String?

    public init(
        rowID: Int64, identifier: String, kind: RequestKind, fireAt: Instant, localDate: LocalDate, zone: String = "",
        title: String? = nil, body: String? = nil
    ) {
        self.rowID = rowID
        self.identifier = identifier
        self.kind = kind
        self.fireAt = fireAt
        self.localDate = localDate
        self.zone = zone
        self.title = title
        self.body = body
    }
}

/// What the planner needs to know about the store to decide.
public struct PlanState: Sendable {
    /// Every pending request.
    public var pending: [PendingRequest]
    /// Slot identifiers of requests that must not come back: delivered, being delivered, missed,
    /// failed or cancelled (only those after `now` matter).
    public var finishedSlotIdentifiers: Set<String>
    /// Opened and skipped dates and the pause (only today and later matter).
    public var exclusions: Exclusions
    /// One-off requests waiting outside the cap (state `displaced`): they come back when among the soonest.
    public var waitingOneOffs: [PendingRequest]

    public init(
        pending: [PendingRequest], finishedSlotIdentifiers: Set<String> = [], openedDates: Set<LocalDate> = [],
        waitingOneOffs: [PendingRequest] = [], exclusions: Exclusions = Exclusions()
    ) {
        self.pending = pending
        self.finishedSlotIdentifiers = finishedSlotIdentifiers
        self.exclusions = exclusions
        self.exclusions.openedDates.formUnion(openedDates)
        self.waitingOneOffs = waitingOneOffs
    }

    /// Local dates on which the app was opened.
    public var openedDates: Set<LocalDate> {
        get { exclusions.openedDates }
        set { exclusions.openedDates = newValue }
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
    /// Pending slots that the plan as it is now no longer has there (paused, skipped, schedule, zone or
    /// content changed), each with its new state and why.
    public var retired: [Retirement] = []

    public init() {}

    public var isEmpty: Bool { missed.isEmpty && displaced.isEmpty && added.isEmpty && readmitted.isEmpty && retired.isEmpty }
}

public struct Retirement: Equatable, Sendable {
    public var request: PendingRequest
    public var state: RequestState
    public var reason: String
}

public struct OpenDecision: Equatable, Sendable {
    /// The local date the app was opened on.
    public var date: LocalDate
    /// That date's pending study slots, past ones included.
    public var cancelled: [PendingRequest]
    public var refill: RefillDecision

    public init(date: LocalDate, cancelled: [PendingRequest], refill: RefillDecision) {
        self.date = date
        self.cancelled = cancelled
        self.refill = refill
    }
}

/// Refill: pending slots the plan no longer has are retired and stale requests become missed, then the
/// pending set becomes the soonest `cap` of (what is pending) ∪ (waiting one-offs) ∪ (the schedule's
/// slots strictly after now on dates not excluded, not finished before).
public func decideRefill(
    now: Instant, zone: Zone, policy: PlanPolicy = PlanPolicy(), state: PlanState,
    plan: PlanSettings = .standard
) -> RefillDecision {
    var decision = RefillDecision()
    let staleBefore = now - policy.graceMilliseconds
    var live: [PendingRequest] = []
    // Slots planned again with new text whose time has come but that were not shown yet: due now, not lost.
    var dueAgain: [Slot] = []
    for request in state.pending {
        guard request.kind == .slot, let reading = SlotIdentifier.parse(request.identifier) else {
            if request.fireAt < staleBefore { decision.missed.append(request) } else { live.append(request) }
            continue
        }
        func retire(_ to: RequestState, _ why: String) { decision.retired.append(Retirement(request: request, state: to, reason: why)) }
        let instant = zone.instant(for: reading)
        // A slot already due but not yet delivered is in a pause that is in force now.
        switch state.exclusions.reason(date: plan.schedule.studyDay(of: reading), at: max(instant ?? request.fireAt, now)) {
        case .skipped?:
            retire(.skipped, "date skipped")
            continue
        case .paused?:
            retire(.paused, state.exclusions.pause?.until.map { "paused until \(zone.rfc3339($0))" } ?? "paused until resume")
            continue
        case .opened?, nil: break
        }
        if !plan.schedule.contains(reading) {
            retire(.retired, "schedule changed")
        } else if instant != request.fireAt {
            // Same wall-clock time in the new zone, planned again only when still ahead (refill's rule:
            // strictly after now). A time already past there is missed, never fired late at once.
            if let instant, instant > now {
                retire(.retired, "zone changed to \(zone.name)")
            } else {
                retire(.missed, "zone changed to \(zone.name): its time there is already past")
            }
        } else if let title = request.title, title != plan.title || request.body != plan.body {
            retire(.retired, "content changed")
            // Due but not yet shown: shown with the new text, not lost.
            if request.fireAt <= now, request.fireAt >= staleBefore {
                dueAgain.append(Slot(local: reading, fireAt: request.fireAt, day: plan.schedule.studyDay(of: reading)))
            }
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
    // An identifier names one request: one taken by a pending or waiting one-off (`add --id` with a slot's
    // identifier) is not planned again as a slot.
    var taken = SlotIdentifier.Taken(state.finishedSlotIdentifiers)
    for request in live { taken.insert(request.identifier) }
    for request in waiting { taken.insert(request.identifier) }
    let due = dueAgain.filter { !taken.contains($0.local) }
    // New slots only while they can still be among the soonest `cap`: once those so far, the due ones and
    // the kept ones no later than the last fill it, every later slot would be left out by the merge below.
    var keptTimes = live.map(\.fireAt) + waiting.map(\.fireAt)
    sortNearlySorted(&keptTimes, by: <)
    var keptSoFar = 0
    let candidates =
        due
        + SlotIdentifier.upcoming(
            after: now, in: zone, schedule: plan.schedule, excluding: state.exclusions, skipping: taken
        ) { count, last in
            while keptSoFar < keptTimes.count, keptTimes[keptSoFar] <= last { keptSoFar += 1 }
            return count + due.count + keptSoFar >= policy.cap
        }

    // Merge both sorted-by-time lists and keep the soonest `cap`; ties broken by identifier so the
    // outcome never depends on the order rows came out of the database.
    enum Entry {
        case kept(PendingRequest)
        case waiting(PendingRequest)
        case new(Slot)
    }
    var entries = live.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.kept($0)) }
    entries += waiting.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.waiting($0)) }
    entries += candidates.map { (at: $0.fireAt, id: $0.identifier, entry: Entry.new($0)) }
    sortNearlySorted(&entries) { ($0.at, $0.id) < ($1.at, $1.id) }
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

/// An open closes its study day: every study slot of that day still pending (past ones not yet delivered
/// too) is cancelled, and the day is remembered so that nothing adds its slots again. The rule, once:
/// `decideEvents` applies it to each open it decides, and `decideOpen` to one at now.
/// `waitingDays`: the days with a slot waiting, when the caller knows them (a day outside finds nothing).
public func closeStudyDay(_ date: LocalDate, in state: inout PlanState, waitingDays: Set<LocalDate>? = nil) -> [PendingRequest] {
    if let waitingDays, !waitingDays.contains(date) {
        state.openedDates.insert(date)
        return []
    }
    let cancelled = state.pending.filter { $0.kind == .slot && $0.localDate == date }
    let cancelledIDs = Set(cancelled.map(\.rowID))
    state.pending.removeAll { cancelledIDs.contains($0.rowID) }
    state.openedDates.insert(date)
    return cancelled
}

/// Open ("the app opened") at now: today's study day (`Schedule.studyDay`) closed, then a refill. What
/// `decideEvents` decides for an open event stamped now, without the events (tests state rules with it).
public func decideOpen(
    now: Instant, zone: Zone, policy: PlanPolicy = PlanPolicy(), state: PlanState,
    plan: PlanSettings = .standard
) -> OpenDecision {
    let today = plan.schedule.studyDay(at: now, in: zone)
    var remaining = state
    let cancelled = closeStudyDay(today, in: &remaining)
    return OpenDecision(date: today, cancelled: cancelled, refill: decideRefill(now: now, zone: zone, policy: policy, state: remaining, plan: plan))
}

/// Sorts `items` in place (stable) by insertion: linear for what `decideRefill` merges (runs already in time order,
/// each after the other), and it allocates nothing. The standard library's sort of more than 20 elements
/// allocates its runs as a `[Range<Int>]`, whose type the first use finds by mangled name, a scan of every
/// conformance in the binary (a few percent of an `open`).
func sortNearlySorted<T>(_ items: inout [T], by less: (T, T) -> Bool) {
    // Quadratic at worst: a long list (thousands of waiting one-offs) takes the standard library's sort.
    guard items.count <= 256 else { return items.sort(by: less) }
    guard items.count > 1 else { return }
    for index in 1..<items.count {
        var hole = index
        if !less(items[hole], items[hole - 1]) { continue }
        let item = items[hole]
        while hole > 0, less(item, items[hole - 1]) {
            items[hole] = items[hole - 1]
            hole -= 1
        }
        items[hole] = item
    }
}
