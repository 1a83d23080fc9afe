import Glibc
import PlannerCore

/// Arguments arrive as bytes. Swift's `CommandLine.arguments` repairs bytes that are not UTF-8 into U+FFFD,
/// so a title typed in a Latin-1 terminal would be stored as "caf\u{FFFD}" without a word (and a path would
/// name another file): the raw argv is checked first, and such an argument refused (exit 64).
enum ArgumentBytes {
    /// Why an argument cannot be read as text, or nil when every one can.
    static func problem() -> String? {
        let argv = CommandLine.unsafeArgv
        for i in 1..<Int(CommandLine.argc) {
            guard let bytes = argv[i], String(validatingCString: bytes) == nil else { continue }
            let previous = i > 1 ? argv[i - 1].flatMap { String(validatingCString: $0) } : nil
            return "argument \(i)\(previous.map { " (after \(TerminalText.quoted($0)))" } ?? "") is not valid UTF-8 text: "
                + "the planner reads and stores text as UTF-8; check the terminal's or the script's encoding (iconv -t UTF-8 converts)"
        }
        return nil
    }

    /// The environment values that name files, times and zones: repaired into U+FFFD they would name
    /// another file (`PLANNER_DB`) or another zone, silently.
    static let namingVariables = ["PLANNER_DB", "PLANNER_NOW", "TZ", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"]

    /// Why one of those variables cannot be read as text, or nil.
    static func environmentProblem() -> String? {
        for name in namingVariables {
            guard let bytes = getenv(name), String(validatingCString: bytes) == nil else { continue }
            return "the environment variable \(name) is not valid UTF-8 text: the planner would read another path or value "
                + "than the one meant; set it again in UTF-8 (iconv -t UTF-8 converts)"
        }
        return nil
    }
}
