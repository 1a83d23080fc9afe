/// The one user-facing error: a message saying what is wrong and what to do, and a deliberate exit code.
/// Exit codes follow sysexits(3) and are listed in the README.
public struct PlannerError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// 64 (EX_USAGE): a bad option, argument or environment value.
    public static func usage(_ message: String) -> PlannerError { PlannerError(message, exitCode: 64) }
    /// 65 (EX_DATAERR): the database file is not one the planner can use (not SQLite, corrupt, foreign, newer).
    public static func data(_ message: String) -> PlannerError { PlannerError(message, exitCode: 65) }
    /// 74 (EX_IOERR): the file or folder cannot be created, read or written.
    public static func io(_ message: String) -> PlannerError { PlannerError(message, exitCode: 74) }
    /// 75 (EX_TEMPFAIL): another process held the database for longer than the busy timeout; retry.
    public static func busy(_ message: String) -> PlannerError { PlannerError(message, exitCode: 75) }
    /// 1: anything else that went wrong at run time.
    public static func failure(_ message: String) -> PlannerError { PlannerError(message, exitCode: 1) }

    public var description: String { message }
}
