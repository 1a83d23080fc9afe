import Glibc
import PlannerCore
import PlannerFolders
import PlannerSystem

/// What a command reads from the process it runs in, passed in rather than read from globals (swiftly's
/// `run(_ ctx:)`): the binary passes `RunContext.process`; a test passes its own environment, a fixed
/// clock and an output that keeps the lines, and runs the command in-process on a temporary database.
public struct RunContext {
    /// An environment variable's value: TZ, PLANNER_NOW, PLANNER_DB, HOME, XDG_*, PATH, NO_COLOR …
    public var environment: (String) -> String?
    /// The wall clock: a command's `now` when neither --now nor PLANNER_NOW names one.
    public var clock: () -> Instant
    /// Where the command's report and its notices go.
    public var output: CommandOutput
    /// The current folder (setup makes a relative --db absolute with it); nil when it cannot be read.
    public var currentFolder: () -> String?
    /// This program's own absolute path (setup's login line and units run it); nil when unknown.
    public var programPath: () -> String?
    /// The user's account as the password database has it (setup's login shell).
    public var account: () -> Account?
    /// Runs another program directly (no shell): setup's crontab and systemctl.
    public var runProgram: ProgramRunner
    /// Replaces this process with the study program (`study`'s exec); returns only when it cannot.
    public var becomeProgram: (StudyCommand.Launch) throws(PlannerError) -> Void
    /// Starts a program that outlives this command (`ProgramRunner.startDetached`): setup's live ticker.
    public var startDetached: ([String]) -> Bool
    /// Where the databases it opens say what is wrong but not fatal, each once: `warning: …` lines on
    /// `output`'s notices (a live ticker gives its database its log instead).
    public var warnings: Warnings
    /// How long the databases it opens wait for their folder children (`PLANNER_FOLDER_DEADLINE_MS`), and
    /// what they remember of a folder that stalled: this run's.
    public var folderTiming: FolderTiming
    /// What is wrong with `PLANNER_FOLDER_DEADLINE_MS` (then `folderTiming` is the standard one): `Main.run`
    /// refuses the command with it before anything runs.
    public var folderTimingProblem: PlannerError?

    public init(
        environment: @escaping (String) -> String?, clock: @escaping () -> Instant, output: CommandOutput,
        currentFolder: @escaping () -> String?, programPath: @escaping () -> String?,
        account: @escaping () -> Account?, runProgram: ProgramRunner,
        becomeProgram: @escaping (StudyCommand.Launch) throws(PlannerError) -> Void = { launch throws(PlannerError) in
            try StudyProgram.exec(launch)
        },
        startDetached: @escaping ([String]) -> Bool = ProgramRunner.startDetached
    ) {
        self.environment = environment
        self.clock = clock
        self.output = output
        self.currentFolder = currentFolder
        self.programPath = programPath
        self.account = account
        self.runProgram = runProgram
        self.becomeProgram = becomeProgram
        self.startDetached = startDetached
        warnings = Warnings { message in output.notice(RunContext.warning(message)) }
        switch FolderTiming.reading(environment(FolderTiming.variable)) {
        case .success(let timing): (folderTiming, folderTimingProblem) = (timing, nil)
        case .failure(let problem): (folderTiming, folderTimingProblem) = (FolderTiming(), problem)
        }
    }

    /// A warning's line: the command goes on.
    public static func warning(_ message: String) -> String { "warning: \(TerminalText.escaped(message))" }

    /// The real one: this process's environment, clock, stdout and stderr, folder and executable.
    public static var process: RunContext {
        RunContext(
            environment: Environment.get, clock: SystemClock.now, output: .standard,
            currentFolder: ProcessFacts.currentFolder, programPath: ProcessFacts.programPath,
            account: ProcessFacts.account, runProgram: .spawning)
    }
}

/// The login account's facts setup needs.
public struct Account: Equatable {
    public var uid: UInt32
    /// The login shell's path, e.g. /bin/bash (from the password database).
    public var shell: String

    public init(uid: UInt32, shell: String) {
        self.uid = uid
        self.shell = shell
    }
}

/// Where a command writes: its report on standard output, notices on standard error.
public struct CommandOutput {
    /// One line (or several, joined by newlines) of the report; the final newline is added.
    public var line: (String) -> Void
    /// One line for the person at the terminal (the login goes on, and they know why); the newline is added.
    public var notice: (String) -> Void
    /// Whether the report goes to a terminal (`stats` colours its heatmap only there).
    public var isTerminal: () -> Bool
    /// Text written at once, exactly as given (no newline added, nothing buffered): a delivery line of the
    /// stdout sink, `export`'s calendar. Nil once written, else why it could not be (the system's words).
    public var immediate: (String) -> String?

    /// `immediate` by default hands the text to `line`, without the final newline `line` adds back.
    public init(
        line: @escaping (String) -> Void, notice: @escaping (String) -> Void, isTerminal: @escaping () -> Bool = { false },
        immediate: ((String) -> String?)? = nil
    ) {
        self.line = line
        self.notice = notice
        self.isTerminal = isTerminal
        self.immediate =
            immediate ?? { text in
                line(text.utf8.last == 10 ? String(decoding: text.utf8.dropLast(), as: UTF8.self) : text)
                return nil
            }
    }

    /// stdout through Swift's `print` (buffered; `Main` checks it was all written), stderr unbuffered.
    public static var standard: CommandOutput {
        CommandOutput(
            line: { print($0) },
            notice: { message in
                var line = message + "\n"
                line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            }, isTerminal: { isatty(1) == 1 }, immediate: StandardOutput.write)
    }
}

/// The process facts `RunContext.process` reads.
enum ProcessFacts {
    static func currentFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return text(buffer)
    }

    static func programPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath("/proc/self/exe", &buffer) != nil else { return nil }
        return text(buffer)
    }

    /// A C string in a buffer, up to its NUL.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func account() -> Account? {
        guard let entry = getpwuid(getuid()) else { return nil }
        let shell = entry.pointee.pw_shell.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
        return Account(uid: getuid(), shell: shell)
    }
}
