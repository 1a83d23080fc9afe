import PlannerCore

/// The user's crontab, read and replaced through the `crontab` program.
struct Crontab {
    var run: ProgramRunner

    /// The crontab, or nil when they have none.
    func read() -> String? {
        guard let r = run(["crontab", "-l"]), r.status == 0 else { return nil }
        return r.output
    }

    /// Installs `text` as the crontab (nil: removes it); a refusal is one line with crontab's own words.
    func set(_ text: String?) throws(PlannerError) {
        guard let r = run(["crontab", text == nil ? "-r" : "-"], input: text, errors: .merged) else {
            throw .failure("cannot change the crontab: the crontab program cannot be started (apt-get install cron)")
        }
        guard r.status == 0 else {
            let said = r.output.split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }.filter { !$0.isEmpty }
            throw .failure("cannot change the crontab: " + (said.isEmpty ? "crontab exited \(r.status)" : "crontab: " + said.joined(separator: "; ")))
        }
    }
}
