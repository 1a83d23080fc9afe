/// The one user-facing error: what kind of failure it is, for callers and tests to match on, and a message
/// saying what is wrong and what to do. The exit code follows from the kind, here only (sysexits(3), and a
/// shell's 126/127 for the study program; listed in the README).
public struct PlannerError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A bad option, argument or environment value.
        case usage
        /// The database file is not one the planner can use (not SQLite, corrupt, foreign, newer).
        case data
        /// A file or folder cannot be created, read or written (a full disk among them).
        case io
        /// Another process held the database for longer than the busy timeout: retry.
        case busy
        /// A change failed in the database while triggers of the user's own are on the planner's tables
        /// (one of them may be what failed): nothing changed, and the change can wait for them to be fixed
        /// (a login's open is saved for later, as when the database is busy).
        case ownTrigger
        /// Anything else that went wrong at run time.
        case failure
        /// The study program was not found (as a shell says: 127).
        case programNotFound
        /// The study program was found but cannot be run (126).
        case programNotRunnable

        public var exitCode: Int32 {
            switch self {
            case .usage: 64  // EX_USAGE
            case .data, .ownTrigger: 65  // EX_DATAERR
            case .io: 74  // EX_IOERR
            case .busy: 75  // EX_TEMPFAIL
            case .failure: 1
            case .programNotFound: 127
            case .programNotRunnable: 126
            }
        }
    }

    public var kind: Kind
    public var message: String
    public var exitCode: Int32 { kind.exitCode }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func usage(_ message: String) -> PlannerError { PlannerError(.usage, message) }
    public static func data(_ message: String) -> PlannerError { PlannerError(.data, message) }
    public static func io(_ message: String) -> PlannerError { PlannerError(.io, message) }
    public static func busy(_ message: String) -> PlannerError { PlannerError(.busy, message) }
    public static func failure(_ message: String) -> PlannerError { PlannerError(.failure, message) }

    public var description: String { message }
}
