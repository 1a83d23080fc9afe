import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner add`: a one-off request at a time or after a delay.
public enum AddCommand {
    /// The options of a validated add (ArgumentParser's `validate()`, or the quick path, which accepts
    /// only what passes it).
    public struct Options: Equatable {
        public var db: String?
        public var now: String?
        public var at: String?
        public var delay: String?
        public var title: String
        public var body = ""
        public var id: String?

        public init(
            db: String? = nil, now: String? = nil, at: String? = nil, delay: String? = nil, title: String,
            body: String = "", id: String? = nil
        ) {
            (self.db, self.now, self.at, self.delay, self.title, self.body, self.id) = (db, now, at, delay, title, body, id)
        }
    }

    public struct Outcome {
        public var identifier: String
        public var fireAt: Instant
        public var decision: AddDecision
        public var context: CommandContext
    }

    public static func run(_ ctx: RunContext, _ options: Options) throws(PlannerError) -> Outcome {
        // Every value is checked before the database is opened: a refused add creates no file.
        let setting = try ctx.resolveSetting(db: options.db, now: options.now)
        let fireAt = try Self.fireAt(at: options.at, delay: options.delay, now: setting.now, zone: setting.zone)
        // It travels to the other devices as one line (`PlanChange.add`), escaped.
        guard PlanEventText.fitsALine(.add(identifier: options.id ?? "", fireAt: fireAt, title: options.title, body: options.body)) else {
            throw .usage(
                "--title and --body are too long together: they must fit in \(PlanEventText.maximumLineBytes / 1024) KiB once written for your other devices (each space, % or line break takes 3 bytes)"
            )
        }
        let context = try setting.open()
        let local = context.zone.local(fireAt)
        let defaultID =
            "Noti_Reminder_\(local.date.year)_\(pad(local.date.month, 2))_\(pad(local.date.day, 2))_"
            + "\(pad(local.hour, 2))_\(pad(local.minute, 2))_\(pad(local.second, 2))"
        let (identifier, decision) = try context.database.add(
            NewRequest(identifier: options.id ?? defaultID, fireAt: fireAt, title: options.title, body: options.body),
            makeUnique: options.id == nil, now: context.now, zone: context.zone)
        return Outcome(identifier: identifier, fireAt: fireAt, decision: decision, context: context)
    }

    /// The instant `--at TIME` or `--in DURATION` names: in the future and within the supported years.
    public static func fireAt(at: String?, delay: String?, now: Instant, zone: Zone) throws(PlannerError) -> Instant {
        let fireAt: Instant
        if let delay {
            guard let ms = parseDuration(delay), ms > 0 else {
                if delay.hasPrefix("-") {
                    throw .usage(
                        "invalid --in \(TerminalText.quoted(delay)): a delay cannot be negative; give a positive duration such as 90s, 15m or 2h, or a time with --at"
                    )
                }
                throw .usage("invalid --in \(TerminalText.quoted(delay)): expected a positive duration such as 90s, 15m or 2h")
            }
            fireAt = now + ms
        } else {
            let at = at ?? ""
            do { fireAt = try parseTime(at, in: zone) } catch { throw .usage("--at: \(error.message)") }
            guard fireAt > now else {
                throw .usage("--at \(at) is not in the future (now is \(zone.rfc3339(now)))")
            }
        }
        // Stored as a 4-digit local date, with room for the plan's two years ahead: the same limit as
        // --now, applied in the planner's zone (an --at with an offset can cross into the next year).
        guard zone.local(fireAt).date.year <= supportedYears.upperBound else {
            let given = delay.map { "--in \(TerminalText.quoted($0))" } ?? "--at \(TerminalText.quoted(at ?? ""))"
            throw .usage("invalid \(given): that is after the year \(supportedYears.upperBound) in \(zone.name); give an earlier time")
        }
        return fireAt
    }
}
