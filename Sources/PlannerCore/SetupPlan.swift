/// What `planner setup` installs, as values: the pure part. The shell gathers the facts (home, the
/// binary's and the database's absolute paths, the login shell, whether a systemd user manager runs),
/// this decides every file's content, and the shell writes, backs up and reverts.

public struct SetupFacts: Sendable, Equatable {
    public var home: String
    public var binary: String
    public var database: String
    /// The login shell's path (from the password database), e.g. /bin/bash.
    public var shell: String
    /// Which of ~/.bash_profile, ~/.bash_login, ~/.profile exist (bash reads the first that does).
    public var existingFiles: Set<String>
    public var systemdUser: Bool
    public var uid: UInt32
    /// `$XDG_CONFIG_HOME`, `$XDG_DATA_HOME` when set to absolute paths, else the defaults under `home`.
    public var configHome: String
    public var dataHome: String
    /// --login-hook: a login counts as starting to study (an account or machine used only for study).
    public var loginHook = false

    public init(
        home: String, binary: String, database: String, shell: String, existingFiles: Set<String>,
        systemdUser: Bool, uid: UInt32, configHome: String? = nil, dataHome: String? = nil
    ) {
        self.home = home
        self.binary = binary
        self.database = database
        self.shell = shell
        self.existingFiles = existingFiles
        self.systemdUser = systemdUser
        self.uid = uid
        self.configHome = configHome ?? home + "/.config"
        self.dataHome = dataHome ?? home + "/.local/share"
    }
}

public struct SetupItem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A marked block inside a file that may hold the user's own lines (login scripts).
        case block
        /// A whole file the planner owns (units, completions, the manual).
        case file
        /// A marked block in the user's crontab.
        case crontab
    }
    public var kind: Kind
    /// The file (for `.crontab`, a label).
    public var path: String
    public var content: String
    public var why: String

    public init(kind: Kind, path: String, content: String, why: String) {
        self.kind = kind
        self.path = path
        self.content = content
        self.why = why
    }
}

public enum SetupPlan {
    public static let begin = "# >>> planner setup >>>"
    public static let end = "# <<< planner setup <<<"

    /// Single-quoted for sh: safe for any path.
    public static func quoted(_ s: String) -> String { "'" + s.replacing("'", with: "'\\''") + "'" }

    /// Single-quoted for the sh that cron starts, after cron itself has read the line: cron turns an unescaped
    /// `%` into a line break (crontab(5)), so it is written `\%`.
    public static func cronQuoted(_ s: String) -> String { quoted(s).replacing("%", with: "\\%") }

    /// Why a path cannot be written into the login file or crontab, or nil. Cron reads a backslash before `%`
    /// or another backslash differently from one implementation to another (Debian's drops it, cronie keeps it).
    public static func pathProblem(_ path: String, cron: Bool) -> String? {
        if path.contains(where: { $0.isNewline || $0 == "\0" }) {
            return "a path with a line break cannot go into a login script or crontab: \(path)"
        }
        if cron, path.contains("\\\\") || path.contains("\\%") {
            return "cron cannot run a path with a backslash before % or another backslash: \(path) (use another path, or --scheduler systemd)"
        }
        return nil
    }

    /// The login file the user's login shell really reads, and the line for it.
    public static func loginItem(_ f: SetupFacts) -> SetupItem {
        let shell = f.shell.split(separator: "/").last.map(String.init) ?? "sh"
        let open = "\(quoted(f.binary)) open --login --db \(quoted(f.database))"
        let why = "a login counts as starting to study: 'planner open --login', once per login session"
        // The first login shell's pid, exported: tmux panes, whose server left the login, find it there.
        let sh = "[ -x \(quoted(f.binary)) ] && { [ -n \"${PLANNER_LOGIN-}\" ] || { PLANNER_LOGIN=$$; export PLANNER_LOGIN; }; \(open); }"
        switch shell {
        case "zsh":
            return SetupItem(kind: .block, path: f.home + "/.zprofile", content: sh, why: why)
        case "fish":
            let fish = "if status is-login; and test -x \(quoted(f.binary)); set -q PLANNER_LOGIN; or set -gx PLANNER_LOGIN $fish_pid; \(open); end"
            return SetupItem(kind: .file, path: f.configHome + "/fish/conf.d/planner.fish", content: fish + "\n", why: why)
        default:
            // bash reads the first of these that exists, and only that one; sh and dash read ~/.profile.
            var file = f.home + "/.profile"
            if shell == "bash", let first = [".bash_profile", ".bash_login", ".profile"].first(where: { f.existingFiles.contains($0) }) {
                file = f.home + "/" + first
            }
            return SetupItem(kind: .block, path: file, content: sh, why: why)
        }
    }

    /// The hardening lines a user service can have: `systemd-analyze --user verify` accepts them, and
    /// scripts/systemd-check proves each applies to the ticker and its delivery programs under a real user
    /// manager. A filtered system call fails with EPERM rather than killing a user's `--exec` program.
    static let hardening = [
        "NoNewPrivileges=yes", "LockPersonality=yes", "MemoryDenyWriteExecute=yes", "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes", "RestrictNamespaces=yes", "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service", "SystemCallErrorNumber=EPERM", "RestrictAddressFamilies=AF_UNIX",
        "UMask=0077",
    ]

    public static func items(_ f: SetupFacts) -> [SetupItem] {
        var items = f.loginHook ? [loginItem(f)] : []
        let bin = f.binary
        let db = f.database
        // The live ticker starts with the desktop session however it starts: freedesktop autostart (every
        // desktop's session, and systemd's xdg-autostart generator), and the unit below where a session
        // reaches graphical-session.target. The tick lock lets one of them run; the other exits 0 at once.
        items.append(
            SetupItem(
                kind: .file, path: f.configHome + "/autostart/planner-tick.desktop",
                content: autostartEntry(binary: bin, database: db),
                why: "the live ticker starts with your desktop session (freedesktop autostart)"))
        if f.systemdUser {
            let folder = f.configHome + "/systemd/user"
            items += units(binary: bin, database: db).map {
                SetupItem(kind: .file, path: folder + "/" + $0.name, content: $0.content, why: $0.why)
            }
        } else {
            // cron has no session: name the user's bus so `tick --once` reaches the desktop when there is one.
            let runtime = "/run/user/\(f.uid)"
            items.append(
                SetupItem(
                    kind: .crontab, path: "crontab",
                    content: """
                        */15 * * * * \(cronQuoted(bin)) refill --db \(cronQuoted(db))
                        * * * * * XDG_RUNTIME_DIR=\(runtime) DBUS_SESSION_BUS_ADDRESS=unix:path=\(runtime)/bus \(cronQuoted(bin)) tick --once --sink notify --db \(cronQuoted(db))
                        """, why: "refill every 15 minutes and deliver every minute (cron: no systemd user manager)"))
        }
        return items
    }

    /// The systemd user units. `database` nil (the Debian package's units) leaves the planner's own default,
    /// resolved at each run like any command's.
    /// `calendarJob`: the ticker's `--calendar-job` (setup --calendar: the unit below carries the calendar).
    public static func units(binary: String, database: String?, calendarJob: String? = nil) -> [(name: String, content: String, why: String)] {
        let db = database.map { " --db " + systemdQuoted($0) } ?? ""
        let job = calendarJob.map { " --calendar-job " + systemdQuoted($0) } ?? ""
        let installer = database == nil ? "the planner package" : "'planner setup'"
        return [
            (
                "planner-refill.service",
                """
                # Installed by \(installer): keeps 64 study reminders pending.
                [Unit]
                Description=planner: top the study plan up to 64 pending reminders

                [Service]
                Type=oneshot
                ExecStart=\(systemdQuoted(binary)) refill\(db)
                \(hardening.joined(separator: "\n"))

                """, "refill, run by the timer"
            ),
            (
                "planner-refill.timer",
                """
                # Installed by \(installer): refill every 15 minutes, and at once after a sleep that missed one.
                [Unit]
                Description=planner: refill every 15 minutes

                [Timer]
                OnCalendar=*:0/15
                Persistent=true

                [Install]
                WantedBy=timers.target

                """, "the refill schedule (systemd user timer)"
            ),
            (
                "planner-tick.service",
                """
                # Installed by \(installer): delivers each reminder at its time while the desktop session runs.
                [Unit]
                Description=planner: deliver study reminders at their time
                PartOf=graphical-session.target
                After=graphical-session.target

                [Service]
                ExecStart=\(systemdQuoted(binary)) tick --unless-running\(job)\(db)
                Restart=on-failure
                RestartSec=5
                # 64 bad usage, 65 not a usable database, 75 another ticker: restarting cannot help.
                RestartPreventExitStatus=64 65 75
                \(hardening.joined(separator: "\n"))

                [Install]
                WantedBy=graphical-session.target

                """, "the ticker, bound to the graphical session"
            ),
        ]
    }

    /// The desktop session's autostart entry for the live ticker: `--unless-running` makes a second one
    /// (the unit's, or a second session's) exit 0 at once, with nothing in the session's log.
    /// `calendarJob`: the ticker's `--calendar-job`; `environment`: NAME=value words run through env(1)
    /// (an autostart entry cannot set them otherwise).
    public static func autostartEntry(binary: String, database: String, calendarJob: String? = nil, environment: [String] = []) -> String {
        let exec = autostartCommand(binary: binary, database: database, calendarJob: calendarJob, environment: environment)
            .map(desktopQuoted).joined(separator: " ")
        return """
            [Desktop Entry]
            Type=Application
            Name=planner reminders
            Comment=Shows each study reminder at its time while you are logged in
            Exec=\(exec)
            Icon=planner
            Terminal=false
            NoDisplay=true
            X-GNOME-Autostart-enabled=true

            """
    }

    /// The command the autostart entry runs (`setup --install` runs it too, when a desktop session is there).
    public static func autostartCommand(binary: String, database: String, calendarJob: String? = nil, environment: [String] = []) -> [String] {
        let env = environment.isEmpty ? [] : ["/usr/bin/env"] + environment
        let job = calendarJob.map { ["--calendar-job", $0] } ?? []
        return env + [binary, "tick", "--unless-running"] + job + ["--db", database]
    }

    /// The launcher "Start studying": `planner study` records the open and runs the study command.
    /// `database` nil (the package's and contrib/'s entry) leaves the planner's default.
    public static func desktopEntry(binary: String, database: String?) -> String {
        let exec = ([binary, "study"] + (database.map { ["--db", $0] } ?? [])).map(desktopQuoted).joined(separator: " ")
        return """
            [Desktop Entry]
            Type=Application
            Name=Start studying
            GenericName=Study launcher
            Comment=Open your lessons and stop today's study reminders
            Exec=\(exec)
            Icon=planner
            Terminal=false
            Categories=Education;
            Keywords=study;lesson;reminder;planner;

            """
    }

    /// An Exec argument (Desktop Entry Specification): plain when safe, else in "…" with ", `, $ and \
    /// escaped, and every backslash doubled once more for the file's own string escaping.
    static func desktopQuoted(_ s: String) -> String {
        let safe =
            !s.isEmpty
            && s.unicodeScalars.allSatisfy { "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,@".unicodeScalars.contains($0) }
        if safe { return s }
        var quoted = ""
        for c in s.unicodeScalars {
            if "\"`$\\".unicodeScalars.contains(c) { quoted += "\\" }
            quoted.unicodeScalars.append(c)
        }
        return "\"" + quoted.replacing("\\", with: "\\\\").replacing("%", with: "%%") + "\""
    }

    /// A path in a unit's ExecStart: quoted, with `%`, `$` and `\` escaped as systemd wants (it expands
    /// `$NAME` and `%x` even inside quotes).
    static func systemdQuoted(_ s: String) -> String {
        "\""
            + s.replacing("\\", with: "\\\\").replacing("%", with: "%%").replacing("$", with: "$$")
            .replacing("\"", with: "\\\"") + "\""
    }

    /// `text` with the marked block set to `content`: replaced where it is, else appended (after a line break
    /// if the text does not end with one).
    public static func withBlock(_ text: String, _ content: String) -> String {
        let block = "\(begin)\n\(content)\n\(end)\n"
        if let range = blockRange(text) { return String(text[..<range.lowerBound]) + block + String(text[range.upperBound...]) }
        if text.isEmpty { return block }
        return text + (text.hasSuffix("\n") ? "" : "\n") + block
    }

    /// `text` without the marked block (nil when there is none).
    public static func withoutBlock(_ text: String) -> String? {
        guard let range = blockRange(text) else { return nil }
        return String(text[..<range.lowerBound]) + String(text[range.upperBound...])
    }

    static func blockRange(_ text: String) -> Range<String.Index>? {
        guard let start = text.firstRange(of: begin + "\n"),
            let stop = text[start.upperBound...].firstRange(of: end + "\n")
        else { return nil }
        return start.lowerBound..<stop.upperBound
    }
}
