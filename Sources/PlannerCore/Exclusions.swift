/// Why a study slot is not in the plan although the schedule has it: the day was opened (studying
/// started), skipped (a holiday), or the time falls in a pause. One concept, consulted by refill, open and
/// every planning view.
public enum Exclusion: String, Sendable {
    case opened, skipped, paused
}

/// A pause from `since` until `until` (nil: until `resume`).
public struct Pause: Equatable, Sendable {
    public var since: Instant
    public var until: Instant?

    public init(since: Instant, until: Instant?) {
        self.since = since
        self.until = until
    }

    public func covers(_ instant: Instant) -> Bool { instant >= since && (until.map { instant < $0 } ?? true) }
}

public struct Exclusions: Sendable {
    public var openedDates: Set<LocalDate>
    public var skippedDates: Set<LocalDate>
    /// The pause in force (or later: a pause may start in the future), if any.
    public var pause: Pause?

    public init(openedDates: Set<LocalDate> = [], skippedDates: Set<LocalDate> = [], pause: Pause? = nil) {
        self.openedDates = openedDates
        self.skippedDates = skippedDates
        self.pause = pause
    }

    /// Why a slot on `date` at `instant` is left out, or nil when it belongs to the plan.
    public func reason(date: LocalDate, at instant: Instant) -> Exclusion? {
        if openedDates.contains(date) { return .opened }
        if skippedDates.contains(date) { return .skipped }
        if let pause, pause.covers(instant) { return .paused }
        return nil
    }
}
