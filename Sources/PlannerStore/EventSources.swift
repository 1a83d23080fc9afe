import CSQLite
import PlannerCore

/// What the outside sources found and did during one change: returned by the change that applied them
/// (`PlannerDatabase.change`), never kept on the database.
public struct SourcesReport: Sendable {
    /// nil: this device does not sync, or the change did not read the folder (`open`).
    public var sync: SyncReport?
    /// nil: no calendar folder, or the change did not read it (`open`).
    public var calendar: CalendarReport?
    /// nil: no Anki collection set, or the change did not look (`open`).
    public var anki: AnkiReport?

    public init(sync: SyncReport? = nil, calendar: CalendarReport? = nil, anki: AnkiReport? = nil) {
        self.sync = sync
        self.calendar = calendar
        self.anki = anki
    }
}

/// An event a source found.
package struct SourcedEvent {
    package var event: PlanEvent
    /// Another device's: applied as it came, its stamp kept. Otherwise this device's own (saved by another
    /// process): stamped here when applied, unless it comes stamped (an open read from a record: `RecordOpens`).
    package var fromAnotherDevice: Bool
    /// The sync folder file whose line it came in (`event.carrier`).
    package var carrier: String? = nil
    /// This device's, stamped, and applied with the others like it as one batch planned once at now, not
    /// each at its own instant (Anki's opens: years of study days are one plan, not one per past day
    /// whose refill at that instant would leave a request row for every past slot).
    package var together = false

    package init(event: PlanEvent, fromAnotherDevice: Bool, carrier: String? = nil, together: Bool = false) {
        (self.event, self.fromAnotherDevice, self.carrier, self.together) = (event, fromAnotherDevice, carrier, together)
    }
}

/// What applying a source's events did: each one applied (nil: recorded before) and each refused by the
/// schema, with why (the others still applied).
package struct SourcedOutcome {
    package var outcomes: [EventOutcome] = []
    package var refused: [(event: PlanEvent, why: String)] = []
}

/// A place changes made outside this process come from: the inbox (opens saved while another program held
/// the database), the sync folder (other devices' files), the calendar folder (a day ticked on a phone),
/// Anki's collection (a card answered).
/// Each turns what it reads into events, which `PlannerDatabase.change` applies in one place, and after
/// the commit brings its folder in line (publishes this device's events, rewrites the calendar, removes
/// applied inbox files). A new source is one type conforming here and one entry in `EventSources`.
package protocol EventSource: AnyObject {
    /// Before the write transaction, outside the database's lock: slow work on the source's files that
    /// needs no decision from the database's state (Anki's collection copied).
    func prepare(_ db: PlannerDatabase, now: Instant) throws
    /// Inside the write transaction, before the command's own change: the events it holds now (its own
    /// bookkeeping rows, such as what was read of each file, are written here too).
    func collect(_ t: Transaction, now: Instant) throws -> [SourcedEvent]
    /// Inside the transaction: what applying them did.
    func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws
    /// Inside the transaction, after the command's change: what the step after the commit will need.
    func seal(_ t: Transaction, now: Instant) throws
    /// After the commit, outside the database's lock. Never throws: a folder that cannot be written is a
    /// warning, and the next change tries again.
    func finish(_ db: PlannerDatabase, now: Instant)
    /// Instead of `finish`, when the change failed (rolled back): lets go of what the source holds for
    /// after the commit (a folder child and the folder's lock).
    func abandon()
    /// What it found and did, into the change's report.
    func report(into report: inout SourcesReport)
    /// After `collect`: it holds more than it read now (a read cut short by its budget), read by a later
    /// pass. A change that must not act on a partial view (a late reminder) waits for that pass.
    var leftUnread: Bool { get }
}

extension EventSource {
    package func prepare(_ db: PlannerDatabase, now: Instant) throws {}
    package func applied(_ outcome: SourcedOutcome, _ t: Transaction, now: Instant) throws {}
    package func seal(_ t: Transaction, now: Instant) throws {}
    package func finish(_ db: PlannerDatabase, now: Instant) {}
    package func abandon() {}
    package func report(into report: inout SourcesReport) {}
    package var leftUnread: Bool { false }
}

/// Makes the sources of each kind of change (`FolderSources` in PlannerFolders, which holds them all):
/// given to the database by whoever opens it, so the store itself touches no folder.
package protocol SourceMaker: Sendable {
    func make(_ sources: EventSources) -> [EventSource]
    /// After a change and its sources' `finish`: what a source left for more changes of its own to read
    /// at once (Anki's history, in slices), into the change's report.
    func afterChange(_ db: PlannerDatabase, now: Instant, active: [EventSource], report: inout SourcesReport)
}

/// No source at all: a database opened without PlannerFolders (the store's own tests).
package struct NoSources: SourceMaker {
    package init() {}
    package func make(_ sources: EventSources) -> [EventSource] { [] }
    package func afterChange(_ db: PlannerDatabase, now: Instant, active: [EventSource], report: inout SourcesReport) {}
}

/// Which sources a change reads and writes.
public enum EventSources: Sendable {
    /// Every command that writes: the inbox, the other devices' files, the calendar's ticks, Anki's new
    /// reviews read first; this device's events published and the calendar rewritten after.
    case all
    /// A login's `open`: nothing outside is read but the inbox (a login must never wait on a folder);
    /// its event is published and today's calendar files rewritten from the rows.
    case login
    /// A login's `open` while a live ticker watches the database (`TickerLock.liveTickerWatches`): the inbox
    /// only. The commit wakes the ticker, whose pass publishes the event and rewrites the calendar (open's
    /// rows of today's files are left alone, so its plan keys see the change); the login pays for no folder.
    case loginLeavingFolders
    /// What `.all` reads, within the ticker's limits for one pass.
    case limited(SourceLimits)
}

/// How much of the outside one change reads. A command reads all of it (`whole`); the ticker, in passes
/// between deliveries, a slice at a time.
public struct SourceLimits: Sendable {
    /// At most this many bytes of the sync folder (nil: all of it): a huge peer file is applied in passes;
    /// `SyncReport.more` says what is left.
    public var syncReadBytes: Int64?
    /// At most this many opens from Anki's review log, the rest left for the next pass (nil: a command applies
    /// them all, `PlannerDatabase.ankiOpensPerSlice` to a transaction).
    public var ankiOpens: Int?
    /// Whether Anki's collection is read (`anki-collection`): the ticker reads it only when its files changed;
    /// a command always (an unchanged collection costs a look, not a copy).
    public var readsAnki = true

    public init(syncReadBytes: Int64? = nil, ankiOpens: Int? = nil, readsAnki: Bool = true) {
        self.syncReadBytes = syncReadBytes
        self.ankiOpens = ankiOpens
        self.readsAnki = readsAnki
    }

    public static let whole = SourceLimits()
}

extension PlannerDatabase {
    /// The one way a change happens: in one IMMEDIATE transaction, the events `sources` hold are applied
    /// (each source in turn, through `applySourced`), then `body` (the command's own change, itself an
    /// event through `applyEvent`, or the store's bookkeeping); after the commit each source brings its
    /// folder in line. Returns `body`'s value and what the sources found.
    package func change<T>(at now: Instant, from sources: EventSources, _ body: (Transaction) throws -> T) throws(PlannerError) -> (T, SourcesReport)
    {
        try change(at: now, from: sources) { (t: Transaction, _: Bool) throws -> T in try body(t) }
    }

    /// The same, telling `body` whether a source left something unread for a later pass (`leftUnread`).
    package func change<T>(
        at now: Instant, from sources: EventSources, _ body: (Transaction, _ leftUnread: Bool) throws -> T
    ) throws(PlannerError) -> (T, SourcesReport) {
        let active = sourceMaker.make(sources)
        var (result, report) = try change(at: now, active: active, body)
        sourceMaker.afterChange(self, now: now, active: active, report: &report)
        return (result, report)
    }

    /// One change with these sources.
    package func change<T>(
        at now: Instant, active: [EventSource], _ body: (Transaction, _ leftUnread: Bool) throws -> T
    ) throws(PlannerError) -> (T, SourcesReport) {
        do {
            for source in active { try source.prepare(self, now: now) }
        } catch {
            throw Self.plannerError(error, path: path)
        }
        let result: T
        do {
            result = try change(active: active, now: now, body)
        } catch {
            for source in active { source.abandon() }
            throw error
        }
        var report = SourcesReport()
        for source in active {
            source.finish(self, now: now)
            source.report(into: &report)
        }
        return (result, report)
    }

    /// The transaction of one change: every source's events, then `body`, then each source's seal.
    private func change<T>(active: [EventSource], now: Instant, _ body: (Transaction, _ leftUnread: Bool) throws -> T) throws(PlannerError) -> T {
        try write { t throws -> T in
            var applied = false
            for source in active {
                let events = try source.collect(t, now: now)
                let outcome = try t.applySourced(events, now: now)
                applied = applied || !outcome.outcomes.isEmpty
                try source.applied(outcome, t, now: now)
            }
            // The usual-time schedule decides today from the record before it: events dated at their own
            // instant (an open saved in the inbox before midnight) planned at that instant, with the record as
            // it was before them, and Anki's opens planned once at now. Planned again at now, with them all.
            if applied, try t.readPlan().0.usualTime { _ = try t.replan(now: now) }
            let result = try body(t, active.contains { $0.leftUnread })
            try t.addMissingSettingRows()
            for source in active { try source.seal(t, now: now) }
            return result
        }
    }
}

extension Transaction {
    /// Applies what a source found, inside the caller's transaction: this device's own events one by one
    /// (each at its own instant, stamped here) but those that come `together` (Anki's opens: one batch,
    /// planned once at now), another device's as one batch (decided together, planned once). An event the schema refuses is undone alone and reported; the others still apply (unless
    /// triggers of the user's own could be what refused it: `stopIfForeignTriggers`).
    package func applySourced(_ events: [SourcedEvent], now: Instant) throws -> SourcedOutcome {
        var result = SourcedOutcome()
        guard !events.isEmpty else { return result }
        func alone(_ item: SourcedEvent) throws {
            try connection.execute("SAVEPOINT sourced_event")
            do {
                let outcome =
                    item.fromAnotherDevice
                    ? try applyEvents([item.event], now: now, receivedAt: now, carriers: [item.carrier])
                    : item.together
                        ? try applyEvents([item.event], now: now, receivedAt: nil)
                        : try applyEvent(item.event, decidedAt: now)
                if let outcome { result.outcomes.append(outcome) }
                try connection.execute("RELEASE sourced_event")
            } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                try stopIfRolledBack(error.message)
                try connection.execute("ROLLBACK TO sourced_event")
                try connection.execute("RELEASE sourced_event")
                try stopIfForeignTriggers(refused: error.message, event: item.event)
                result.refused.append((item.event, error.message))
            }
        }
        var seen: Set<String> = []
        seen.reserveCapacity(events.count)
        // Another device's line with an id already in this batch (a file and its edited conflict copy read
        // together): applied after the batch, where the version every device keeps is settled
        // (`settleTwoPayloads`: the greater hash, whatever the order). Dropped, the first read would win here
        // while devices that read the two apart keep the other.
        var later: [SourcedEvent] = []
        let foreign = events.filter { item in
            guard item.fromAnotherDevice else { return false }
            if seen.insert(item.event.id).inserted { return true }
            later.append(item)
            return false
        }
        let together = events.filter { !$0.fromAnotherDevice && $0.together && seen.insert($0.event.id).inserted }
        for item in events where !item.fromAnotherDevice && !item.together { try alone(item) }
        // Decided together, planned once; a batch the schema refuses is applied again one by one.
        func batch(_ items: [SourcedEvent], receivedAt: Instant?) throws {
            guard !items.isEmpty else { return }
            try connection.execute("SAVEPOINT sourced_batch")
            do {
                if let outcome = try applyEvents(items.map(\.event), now: now, receivedAt: receivedAt, carriers: items.map(\.carrier)) {
                    result.outcomes.append(outcome)
                }
                try connection.execute("RELEASE sourced_batch")
            } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                try stopIfRolledBack(error.message)
                try connection.execute("ROLLBACK TO sourced_batch")
                try connection.execute("RELEASE sourced_batch")
                for item in items { try alone(item) }
            }
        }
        try batch(foreign, receivedAt: now)
        try batch(together, receivedAt: nil)
        // One copy of each repeated id a round (a third version of one id is rarer still).
        while !later.isEmpty {
            var ids: Set<String> = []
            var round: [SourcedEvent] = []
            var rest: [SourcedEvent] = []
            for item in later {
                if ids.insert(item.event.id).inserted { round.append(item) } else { rest.append(item) }
            }
            try batch(round, receivedAt: now)
            later = rest
        }
        return result
    }
}
