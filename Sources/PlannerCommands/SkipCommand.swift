import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner skip`: days off (holidays, a trip). No study slot on a skipped date; removing the skip brings
/// back the ones still ahead.
public enum SkipCommand {
    public static let maxDays = 3_660

    public struct Options {
        public var db: String?
        public var now: String?
        public var dates: String?
        public var reason: String?
        public var remove = false
        public var list = false
        public var json = false

        public init(
            db: String? = nil, now: String? = nil, dates: String? = nil, reason: String? = nil,
            remove: Bool = false, list: Bool = false, json: Bool = false
        ) {
            (self.db, self.now, self.dates, self.reason) = (db, now, dates, reason)
            (self.remove, self.list, self.json) = (remove, list, json)
        }
    }

    public enum Outcome {
        /// --list: the skipped dates and why.
        case listed([(date: String, reason: String?)])
        case skipped(dates: Int, retired: Int)
        case removed(skips: Int, added: Int)
    }

    public static func run(_ ctx: RunContext, _ options: Options) throws(PlannerError) -> Outcome {
        if options.list {
            guard options.dates == nil, !options.remove, options.reason == nil else {
                throw PlannerError.usage("--list takes no dates, --remove or --reason")
            }
            return .listed(try ctx.readingContext(db: options.db, now: options.now).database.skippedDates())
        }
        guard let dates = options.dates else { throw PlannerError.usage("give a date (YYYY-MM-DD) or a range (DATE..DATE), or --list") }
        if options.json { throw PlannerError.usage("--json goes with --list") }
        if options.remove, options.reason != nil { throw PlannerError.usage("--reason goes with a new skip, not --remove") }
        if let reason = options.reason, let problem = SettingKey.body.problem(reason) { throw PlannerError.usage("invalid --reason: \(problem)") }
        let range = try parse(dates)
        let context = try ctx.commandContext(db: options.db, now: options.now)
        if options.remove {
            let (removed, decision) = try context.database.unskip(range, now: context.now)
            return .removed(skips: removed, added: decision.added.count)
        }
        let decision = try context.database.skip(range, reason: options.reason, now: context.now)
        return .skipped(dates: range.count, retired: decision.retired.filter { $0.state == .skipped }.count)
    }

    /// `DATE` or `DATE..DATE` (inclusive, not backwards, at most `maxDays` days).
    public static func parse(_ text: String) throws(PlannerError) -> [LocalDate] {
        let ends = text.split(separator: "..", omittingEmptySubsequences: false)
        let dates = ends.compactMap { LocalDate(iso: String($0)) }
        guard (1...2).contains(ends.count), dates.count == ends.count, dates.allSatisfy({ (1970...9990).contains($0.year) }) else {
            throw .usage("invalid date \(TerminalText.quoted(text)): expected YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD")
        }
        let first = dates[0]
        let last = dates[dates.count - 1]
        guard first <= last else { throw .usage("the range \(text) runs backwards: give the earlier date first") }
        let count = Int(last.dayNumber - first.dayNumber) + 1
        guard count <= maxDays else { throw .usage("the range \(text) has \(count) days: at most \(maxDays) at once") }
        return (0..<count).map { first.adding(days: $0) }
    }
}
