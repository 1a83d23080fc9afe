import PlannerCore
import PlannerSystem

/// How long one run of the planner (a command, a live ticker) waits for its folder children, and what it
/// remembers of a folder that stalled. Given to the database by whoever opens it (`RunContext.folderTiming`,
/// from `PLANNER_FOLDER_DEADLINE_MS`), never a global: two in-process commands each have their own.
public final class FolderTiming: @unchecked Sendable {  // one run's: used by one thread at a time
    public static let variable = "PLANNER_FOLDER_DEADLINE_MS"
    public static let standardMilliseconds: Int64 = 600
    /// The deadline while a folder has stalled in the last `stalledMemoryMilliseconds`.
    public static let stalledDeadlineMilliseconds: Int64 = 100
    static let stalledMemoryMilliseconds: Int64 = 5_000

    /// How long a command waits for a folder that makes no progress: a login returns within a second
    /// whatever the folder does. A long job (a calendar of 60 days) says it is still moving
    /// (`FolderChild.progress`), and each sign of life gives it this long again; a frozen file system gives
    /// none. Nor does a `syncfs` that waits behind other programs' writes on a busy disk:
    /// `PLANNER_FOLDER_DEADLINE_MS` gives such a disk longer (the end-to-end tests run beside hundreds of
    /// other fsyncs), at the price of a login waiting as long on a folder that really stalled.
    public let deadlineMilliseconds: Int64
    /// Monotonic milliseconds until which a stall is remembered.
    private var stalledUntil: Int64 = 0

    public init(deadlineMilliseconds: Int64 = FolderTiming.standardMilliseconds) {
        self.deadlineMilliseconds = deadlineMilliseconds
    }

    /// `PLANNER_FOLDER_DEADLINE_MS` as the environment has it (nil or empty: the standard 600 ms), or what is
    /// wrong with it when it is not whole milliseconds from 100 to 60000.
    public static func reading(_ text: String?) -> Result<FolderTiming, PlannerError> {
        guard let text, !text.isEmpty else { return .success(FolderTiming()) }
        guard let milliseconds = Int64(text), (100...60_000).contains(milliseconds) else {
            return .failure(
                .usage(
                    "\(variable) must be whole milliseconds from 100 to 60000 (how long a command waits for a folder "
                        + "that makes no progress; unset: 600), not '\(text)'"))
        }
        return .success(FolderTiming(deadlineMilliseconds: milliseconds))
    }

    /// A folder stalled (or stayed locked by another process): the next few seconds' folder work waits less.
    public func stalled() { stalledUntil = SystemClock.monotonicMilliseconds() + Self.stalledMemoryMilliseconds }

    /// How long to wait now. Once a folder stalled, the next few seconds' folder work gets a short deadline:
    /// a login with two frozen folders, a ticker pass, pay the full deadline once, not once per folder and
    /// per pass. Asked at each wait: a held child's job may come after another folder stalled.
    public var limit: Int64 {
        SystemClock.monotonicMilliseconds() < stalledUntil ? min(deadlineMilliseconds, Self.stalledDeadlineMilliseconds) : deadlineMilliseconds
    }

    /// How long a child made now may wait for a folder's lock that another process holds: half of what its
    /// parent waits for it (290 ms at most), so that it says "busy" in time and is reaped. A child that waited
    /// 290 ms against a parent's 100 (a folder stalled) was left behind, and in the live ticker its end woke
    /// the next pass, which made the next child: ~13 a second while a writer sat frozen holding the lock.
    public var lockWaitMilliseconds: Int64 { min(290, limit / 2) }
}
