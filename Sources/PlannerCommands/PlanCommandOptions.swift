import PlannerCore

/// The options of `refill` and `open`, however they were parsed (ArgumentParser or the binary's fast path).
public struct PlanCommandOptions: Equatable {
    public var db: String?
    public var now: String?
    public var grace: String?
    public var verbose = false
    /// `open --login`: once per login session (`LoginSession`).
    public var login = false

    public init(db: String? = nil, now: String? = nil, grace: String? = nil, verbose: Bool = false, login: Bool = false) {
        self.db = db
        self.now = now
        self.grace = grace
        self.verbose = verbose
        self.login = login
    }

    /// `--grace` as a policy; nil when not given (the grace setting applies).
    public func policy() throws(PlannerError) -> PlanPolicy? {
        guard let grace else { return nil }
        guard let ms = parseDuration(grace) else {
            throw .usage("invalid --grace \(TerminalText.quoted(grace)): expected a duration such as 90s, 15m or 2h")
        }
        return PlanPolicy(graceMilliseconds: ms)
    }
}
