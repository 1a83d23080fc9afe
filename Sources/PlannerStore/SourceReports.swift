import PlannerCore
import PlannerSystem

/// What one pass over the sync folder did, for `planner sync` and `status`.
public struct SyncReport: Sendable {
    public var folder: String
    /// This device's id (nil before it has one): the ticker's watch ignores its own appends to its own file.
    public var selfDevice: String?
    /// Other devices' events applied now for the first time.
    public var applied = 0
    /// Of those, changes older than one already in force (last writer wins), left out.
    public var superseded = 0
    /// Days another device opened, newly closed here.
    public var openedElsewhere: [LocalDate] = []
    /// This device's events written to the folder.
    public var published = 0
    /// Events of another device whose file was put back, to be written again by this one (`relay`).
    public var relayed = 0
    /// This device's own events that came back from the folder (it was restored from a backup).
    public var cameBack = 0
    /// One line per file or folder the planner could not use.
    public var problems: [String] = []
    /// The read stopped at `SourceLimits.syncReadBytes`: more is waiting in the folder.
    public var more = false
    /// Another process held this device's file's lock past the wait: this device's changes wait in the
    /// database, and that process letting go wakes no live ticker (`Wakeups.watchSyncFolder`).
    public var lockBusy = false
    /// The folder was listed and every file in it read to its end (a plan-zone claim may be made: any other
    /// device's there was seen).
    package var readWhole = false
    /// The file each event read now came from, in the order of the events: recorded as its `carrier` when
    /// it applies, so a file put back later has its events relayed. (An array: a dictionary's hashing cost
    /// more than the rest of recording a carrier.)
    package var carriers: [String] = []

    package init(folder: String) { self.folder = folder }
}

/// What one pass over the calendar folder did, for `planner sync`, `status` and the ticker's log.
public struct CalendarReport: Sendable {
    public var folder: String
    /// Days ticked off in the folder (a phone's task app), opened now.
    public var ticks: [LocalDate] = []
    /// Planner items written and removed after the commit.
    public var written = 0
    public var removed = 0
    /// One line per file or folder the planner could not use.
    public var problems: [String] = []

    package init(folder: String) { self.folder = folder }
}

/// What reading Anki's collection found during one change.
public struct AnkiReport: Sendable {
    /// The `anki-collection` setting.
    public var collection: String
    /// Whether this change read it (false: unchanged since the last read, or the ticker did not ask).
    public var read = false
    /// The study days newly recorded as opened by a review (past days fill the record).
    public var opened: [LocalDate] = []
    /// Days left for the next change (`SourceLimits.ankiOpens`): the ticker comes back at once.
    public var more = false
    /// Why it could not be read, one line (nil: it was, or was not needed).
    public var problem: String?
    /// The problem may pass by itself (a stall, Anki writing through every try): the ticker tries again soon.
    public var retry = false

    package init(collection: String) { self.collection = collection }
}
