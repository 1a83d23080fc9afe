import Glibc
import PlannerCore

public enum DatabaseLocation {
    /// `--db`, else `PLANNER_DB`, else `$XDG_DATA_HOME/planner/planner.db`, else
    /// `~/.local/share/planner/planner.db`. A relative XDG_DATA_HOME is ignored, as the XDG spec says.
    public static func resolve(option: String?, environment: (String) -> String?) throws(PlannerError) -> String {
        if let option {
            guard !option.isEmpty else { throw .usage("--db needs a file path") }
            return option
        }
        if let fromEnv = environment("PLANNER_DB"), !fromEnv.isEmpty { return fromEnv }
        if let xdg = environment("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/planner/planner.db" }
        guard let home = environment("HOME").flatMap({ $0.isEmpty ? nil : $0 }) ?? passwdHome() else {
            throw .usage("cannot find a home folder for the default database: set HOME, PLANNER_DB or pass --db PATH")
        }
        return home + "/.local/share/planner/planner.db"
    }

    private static func passwdHome() -> String? {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }
}

public enum Environment {
    public static func get(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
