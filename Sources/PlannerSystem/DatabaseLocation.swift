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
        do {
            return try home(environment: environment) + "/.local/share/planner/planner.db"
        } catch {
            throw .usage(error.message + ", or choose the database with --db PATH or PLANNER_DB")
        }
    }

    /// The one home folder every command and `planner setup` use: `HOME`, else (unset or empty) the password
    /// database's. A relative one would put files under the current folder, and a missing one would be created
    /// by whoever writes first: both are refused.
    public static func home(environment: (String) -> String?) throws(PlannerError) -> String {
        let fromEnv = environment("HOME").flatMap { $0.isEmpty ? nil : $0 }
        guard let home = fromEnv ?? passwdHome() else {
            throw .usage("cannot find your home folder: set HOME")
        }
        let name = fromEnv == nil ? "your home folder \(home) (from the password database)" : "HOME (\(home))"
        guard home.hasPrefix("/") else { throw .usage("\(name) is not an absolute path: set HOME to your home folder") }
        var info = stat()
        guard stat(home, &info) == 0 else {
            throw .usage("\(name) does not exist (\(String(cString: strerror(errno)))): set HOME to your home folder")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .usage("\(name) is not a folder: set HOME to your home folder") }
        return home
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
