import CLinux
import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

/// `planner study`: "the app opened" made true — record the open (today's reminders stop), then become the
/// study program (exec), so a launcher or an alias starts the lessons and silences the day in one step.
public enum StudyCommand {
    /// The program to become and its words (the first is its name as given).
    public struct Launch: Equatable {
        public var program: String
        public var words: [String]
    }

    /// Looks the program up (the words after --, else the study-command setting), then records the open.
    /// Nil when there is no program to run (a notice says how to set one).
    public static func run(_ ctx: RunContext, db: String?, now: String?, command: [String]) throws(PlannerError) -> Launch? {
        let setting = try ctx.resolveSetting(db: db, now: now)
        var words = command
        if words.isEmpty {
            // The setting is read from the plan's database (it exists after this, as after any command).
            words = try setting.open().settings.studyCommand
        }
        let program: String? = words.isEmpty ? nil : try StudyProgram.find(words[0], path: ctx.environment("PATH"))
        let outcome = try LoginOpen.run(setting, policy: nil, origin: "study")
        if case .saved(let folder, let why) = outcome {
            ctx.output.notice(
                why.kind == .busy
                    ? "the database \(setting.path) is locked by another program; this open was saved in \(folder)/ and will be applied at its time by the next planner command that writes"
                    : "this open was saved in \(folder)/ and will be applied at its time by the next planner command that writes once it can: \(why.message)",
                from: "study")
        }
        guard let program else {
            ctx.output.notice(
                "recorded the open; no study program to run: set one with planner config set study-command PROGRAM, or give it after --",
                from: "study")
            return nil
        }
        return Launch(program: program, words: words)
    }
}

/// Finding and starting the study program as a shell would, but refusing before the open is recorded
/// what exec would refuse after it.
public enum StudyProgram {
    /// The file `name` runs, as a shell finds it: a name with a slash as it is, else the first executable
    /// regular file of that name in a `path` folder (an empty entry is the current folder). `path`: PATH.
    public static func find(_ name: String, path: String?) throws(PlannerError) -> String {
        let shown = TerminalText.quoted(name)
        if name.isEmpty { throw PlannerError(.programNotFound, "cannot run '': the study command is empty") }
        var found: String?
        if name.contains("/") {
            guard ExecutableFile.isExecutable(name) else {
                throw PlannerError(.programNotFound, "cannot run \(shown): \(String(cString: strerror(errno)))")
            }
            found = name
        } else {
            found = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
                .map { ($0.isEmpty ? "." : String($0)) + "/" + name }
                .first(where: ExecutableFile.isExecutable)
        }
        guard let found else { throw PlannerError(.programNotFound, "cannot run \(shown): not found on PATH") }
        // exec would refuse anything else, but only after the open is recorded: look now (no shell runs a
        // file without #! here, unlike execvp).
        guard looksLikeProgram(found) else {
            throw PlannerError(.programNotRunnable, "cannot run \(shown): not a program (neither an executable nor a script starting with #!)")
        }
        return found
    }

    /// An ELF file or a #! script (or one this user may run but not read: exec will say).
    public static func looksLikeProgram(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }  // execute-only: exec will say
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        let n = read(fd, &head, 4)
        return (n >= 2 && head[0] == 0x23 && head[1] == 0x21) || (n == 4 && head == [0x7F, 0x45, 0x4C, 0x46])
    }

    /// Becomes the program (the open is already committed). Returns only when exec failed.
    public static func exec(_ launch: StudyCommand.Launch) throws(PlannerError) -> Never {
        _ = clinux_stdout_failed()  // flush: nothing this process printed may be lost by exec
        let argv = launch.words.map { strdup($0) } + [nil]
        execv(launch.program, argv)
        let why = String(cString: strerror(errno))
        throw PlannerError(.programNotRunnable, "recorded the open, but cannot run \(TerminalText.quoted(launch.program)): \(why)")
    }
}
