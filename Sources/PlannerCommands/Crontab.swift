import Glibc
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
        let r: (status: Int32, output: String)
        switch run.start(["crontab", text == nil ? "-r" : "-"], text, .merged) {
        case .success(let ran): r = ran
        case .failure(let failure) where failure.errno == ENOENT:
            throw .failure("cannot change the crontab: there is no crontab program on PATH (apt-get install cron)")
        case .failure(let failure):
            throw .failure("cannot change the crontab: the crontab program cannot be started: \(String(cString: strerror(failure.errno)))")
        }
        guard r.status == 0 else {
            let said = r.output.split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }.filter { !$0.isEmpty }
            throw .failure("cannot change the crontab: " + (said.isEmpty ? "crontab exited \(r.status)" : "crontab: " + said.joined(separator: "; ")))
        }
    }
}
