/// The last round of the calendar job (`planner calendar-sync`: vdirsyncer, the phone's ticks, vdirsyncer),
/// as the job leaves it for `planner status`: when it ended, and when it failed, what vdirsyncer said, since
/// when the rounds have been failing and what to do. A failed job is otherwise seen only in a systemd unit's
/// state or a cron mail, and the phone quietly stops hearing from this computer.
public struct CalendarRound: Equatable, Sendable {
    public var at: Instant
    /// What went wrong (nil: the round carried everything).
    public var failure: String?
    /// The first of the failed rounds in a row (nil when this one worked).
    public var failingSince: Instant?

    public init(at: Instant, failure: String? = nil, failingSince: Instant? = nil) {
        (self.at, self.failure, self.failingSince) = (at, failure, failure == nil ? nil : failingSince ?? at)
    }

    /// The round that ended at `at`, after `previous`: a failure after failures keeps when they began.
    public static func after(_ previous: CalendarRound?, at: Instant, failure: String?) -> CalendarRound {
        CalendarRound(at: at, failure: failure, failingSince: failure == nil ? nil : previous?.failingSince ?? at)
    }

    static let header = "planner-calendar-round 1"

    /// One line: `planner-calendar-round 1 at=<ms>[ since=<ms> failure=<escaped>]`.
    public var line: String {
        var pairs = [("at", String(at.milliseconds))]
        if let failure, let failingSince {
            // Short enough that the escaped line (up to 12 bytes a character) fits the 4 KiB the reader takes.
            pairs += [("since", String(failingSince.milliseconds)), ("failure", String(failure.prefix(300)))]
        }
        return Self.header + " " + PlanEventText.fields(pairs) + "\n"
    }

    /// The first line of `bytes`, or nil when it is not one (an empty file: no round yet; anything else is
    /// ignored, never trusted further).
    public init?(bytes: ArraySlice<UInt8>) {
        let head = Array((Self.header + " ").utf8)
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")), bytes.starts(with: head),
            let pairs = PlanEventText.fields(of: bytes[(bytes.startIndex + head.count)..<end])
        else { return nil }
        var at: Int64?
        var since: Int64?
        var failure: String?
        for (name, value) in pairs {
            switch name {
            case "at": at = Int64(value)
            case "since": since = Int64(value)
            case "failure": failure = value
            default: break  // a newer planner's: ignored
            }
        }
        guard let at, at >= 0 else { return nil }
        self.init(at: Instant(milliseconds: at), failure: failure.map(TerminalText.flattened), failingSince: since.map(Instant.init(milliseconds:)))
    }

    /// Whether vdirsyncer's `failure` is a race lost with another computer writing the same items: a stale
    /// copy refused (HTTP 412), or an item it listed removed before it fetched it (HTTP 404, in a vdirsyncer
    /// round with two computers rewriting the same series after a shared change). Run again, it is gone.
    public static func lostRace(_ failure: String) -> Bool {
        failure.contains("Precondition Failed") || failure.contains("Unknown error occurred for") && failure.contains(": Not Found")
    }

    /// What the user can do about `failure`, as one clause.
    public static func advice(_ failure: String) -> String {
        func has(_ words: String...) -> Bool { words.contains { failure.contains($0) } }
        if has("was completely emptied") {
            return
                "one side of the calendar was emptied: when it is the server's (another computer's uninstall, or by hand), planner calendar-sync puts the planner's items back; when it is this computer's folder (not mounted?), mount it or run planner refill"
        }
        if lostRace(failure) {
            return
                "another computer rewrote the same items at the same moment (both carry this calendar): the job tried again and runs again at the next change"
        }
        if has("401", "Unauthorized", "403", "Forbidden") {
            return "the server refused the user name or password in vdirsyncer's config: fix them, then run planner calendar-sync"
        }
        if has("Cannot connect", "Connection refused", "ClientConnectorError", "Name or service not known", "timed out", "Timeout", "took over") {
            return "the server did not answer: check the network and the url in vdirsyncer's config; the job asks again by itself"
        }
        if has("not installed", "could not start") {
            return "install vdirsyncer (Debian: sudo apt install vdirsyncer), then run planner calendar-sync"
        }
        return "run planner calendar-sync to try now (vdirsyncer sync shows vdirsyncer's own words whole)"
    }
}
