import ArgumentParser
import CLinux
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// `planner study`: "the app opened" made true — record the open (today's reminders stop), then become the
/// study program (exec), so a launcher or an alias starts the lessons and silences the day in one step.
struct Study: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Record that you started studying, then run your study program in this process's place.",
        discussion: """
            Records an open exactly like 'planner open' (the rest of today's study reminders are cancelled, \
            in one transaction; a database held by another program never holds it up: the open is saved and \
            applied later), then replaces itself with the study program: the one after --, else the \
            study-command setting. The program is run directly, never through a shell, found on PATH like a \
            shell would. It is looked up before anything is recorded: a program that is not found or not \
            executable (exit 127), or a file that is neither an executable nor a #! script (exit 126), changes \
            nothing. With no program at all, the open is recorded and a note says how to set one.

              planner config set study-command 'xdg-open https://example.org/lesson'
              planner study
              planner study -- anki
            """)

    @OptionGroup var common: CommonOptions
    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run and its arguments (after --).",
                                                           valueName: "command"))
    var command: [String] = []

    func run() throws {
        let setting = try resolveSetting(db: common.db, now: common.now)
        var words = command
        if words.isEmpty {
            // The setting is read from the plan's database (it exists after this, as after any command).
            words = try setting.open().database.planSettings().settings.studyCommand
        }
        let program: String? = words.isEmpty ? nil : try Self.find(words[0])
        let outcome = try LoginOpen.run(now: setting.now, zone: setting.zone, path: setting.path, policy: nil, origin: "study")
        if case .saved(let folder) = outcome {
            LoginOpen.notice("the database \(setting.path) is locked by another program; this open was saved in \(folder)/ and will be applied at its time by the next planner command that writes", from: "study")
        }
        guard let program else {
            LoginOpen.notice("recorded the open; no study program to run: set one with planner config set study-command PROGRAM, or give it after --", from: "study")
            return
        }
        try Self.exec(program, words)
    }

    /// The file `name` runs, as a shell finds it: a name with a slash as it is, else the first executable
    /// regular file of that name in a PATH folder (an empty entry is the current folder).
    static func find(_ name: String) throws(PlannerError) -> String {
        let shown = TerminalText.quoted(name)
        if name.isEmpty { throw PlannerError("cannot run '': the study command is empty", exitCode: 127) }
        var found: String?
        if name.contains("/") {
            guard ExecutableFile.isExecutable(name) else {
                throw PlannerError("cannot run \(shown): \(String(cString: strerror(errno)))", exitCode: 127)
            }
            found = name
        } else {
            let path = Environment.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
            found = path.split(separator: ":", omittingEmptySubsequences: false)
                .map { ($0.isEmpty ? "." : String($0)) + "/" + name }
                .first(where: ExecutableFile.isExecutable)
        }
        guard let found else { throw PlannerError("cannot run \(shown): not found on PATH", exitCode: 127) }
        // exec would refuse anything else, but only after the open is recorded: look now (no shell runs a
        // file without #! here, unlike execvp).
        guard looksLikeProgram(found) else {
            throw PlannerError("cannot run \(shown): not a program (neither an executable nor a script starting with #!)", exitCode: 126)
        }
        return found
    }

    static func looksLikeProgram(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }  // execute-only: exec will say
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        let n = read(fd, &head, 4)
        return (n >= 2 && head[0] == 0x23 && head[1] == 0x21) || (n == 4 && head == [0x7F, 0x45, 0x4C, 0x46])
    }

    /// Becomes the program (the open is already committed). Returns only when exec failed.
    static func exec(_ program: String, _ words: [String]) throws(PlannerError) -> Never {
        _ = clinux_stdout_failed()  // flush: nothing this process printed may be lost by exec
        let argv = words.map { strdup($0) } + [nil]
        execv(program, argv)
        let why = String(cString: strerror(errno))
        throw PlannerError("recorded the open, but cannot run \(TerminalText.quoted(program)): \(why)", exitCode: 126)
    }
}
