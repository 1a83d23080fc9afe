import PlannerCommands

/// `open` and `refill`'s options (PlannerCommands), visible to this module's tests by this name.
typealias PlanCommandOptions = PlannerCommands.PlanCommandOptions

extension PlanCommandOptions {
    /// What ArgumentParser read for `open` or `refill`.
    init(_ common: CommonOptions, _ change: PlanChangeOptions) {
        self.init(db: common.db, now: common.now, grace: change.grace, verbose: change.verbose)
    }
}

/// `planner open` runs at every login and `planner refill` every few minutes from cron. ArgumentParser's
/// start-up (reflection over every command and option) costs as much CPU as their whole database work
/// (bench/RESULTS.md), so their plain forms are parsed here. Anything else (help, a typo, a repeated
/// option, another command) goes through ArgumentParser; FastPathTests checks that both agree.
enum FastPath {
    static func parse(_ args: [String]) -> (command: String, options: PlanCommandOptions)? {
        guard let command = args.first, command == "open" || command == "refill" else { return nil }
        var options = PlanCommandOptions()
        var seen: [String] = []  // a few: no Set (its first use costs ~0.1 M instructions of type lookups)
        var i = 1
        while i < args.count {
            let name = args[i]
            guard !seen.contains(name) else { return nil }
            seen.append(name)
            if name == "--verbose" || (name == "--login" && command == "open") {
                if name == "--verbose" { options.verbose = true } else { options.login = true }
                i += 1
                continue
            }
            guard i + 1 < args.count, !args[i + 1].hasPrefix("-") else { return nil }
            switch name {
            case "--db": options.db = args[i + 1]
            case "--now": options.now = args[i + 1]
            case "--grace": options.grace = args[i + 1]
            default: return nil
            }
            i += 2
        }
        return (command, options)
    }

    static func run(_ command: String, _ options: PlanCommandOptions) throws {
        if command == "open" { try Open.execute(options) } else { try Refill.execute(options) }
    }
}
