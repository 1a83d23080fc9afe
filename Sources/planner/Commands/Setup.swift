import ArgumentParser
import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem
import PlannerTicker

struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Set up login open, refill schedule, ticker, completions and manual in one step.",
        discussion: """
            Without an option, prints what it would do. --install does it, idempotently: the login line in the file \
            your login shell really reads, a systemd user timer for refill and the ticker as a service bound to the \
            graphical session (or, without a systemd user manager, crontab entries merged into yours), shell \
            completions and the manual page — every path absolute, so login, cron and the ticker share one \
            database. Each file it edits is backed up first (in $XDG_STATE_HOME/planner/setup); --uninstall \
            puts back exactly what was there. The database itself is never removed.
            """)

    @OptionGroup var common: CommonOptions
    @Flag(name: .long, help: "Make the changes (else only print them).") var install = false
    @Flag(name: .long, help: "Revert what --install changed.") var uninstall = false
    @Option(name: .long, help: ArgumentHelp(
        "What runs refill and the ticker: systemd (user units), cron, or auto (systemd when a user manager runs).",
        valueName: "auto|systemd|cron"))
    var scheduler = "auto"
    /// For scripts/deb: the units, completions and manual as a package installs them, under DIR.
    @Option(name: .customLong("package-files"), help: .hidden) var packageFiles: String?

    func validate() throws {
        if install && uninstall { throw ValidationError("choose one of --install and --uninstall") }
        if !["auto", "systemd", "cron"].contains(scheduler) {
            throw ValidationError("--scheduler must be auto, systemd or cron")
        }
    }

    func run() throws {
        if let packageFiles { return try Self.writePackageFiles(under: packageFiles) }
        var facts = try Self.facts(db: common.db)
        if scheduler != "auto" { facts.systemdUser = scheduler == "systemd" }
        let state = Self.stateFolder(home: facts.home)
        var manifest = SetupManifest.load(from: state)
        if uninstall {
            try Self.uninstall(&manifest, systemd: facts.systemdUser)
            return
        }
        for (path, cron) in [(facts.home, false), (facts.binary, !facts.systemdUser), (facts.database, !facts.systemdUser)] {
            if let problem = SetupPlan.pathProblem(path, cron: cron) { throw PlannerError.usage(problem) }
        }
        // Where each edit goes (a link's file) and what refuses it, settled before anything is written.
        let changes = try (SetupPlan.items(facts) + Self.extras(facts)).map { item throws(PlannerError) in try SetupChange(item) }
        if !install {
            print("planner setup would (run with --install to do it; database \(facts.database)):")
            for change in changes {
                let verb = change.current == change.next ? "keep" : change.current == nil ? "create" : "change"
                print("  \(verb) \(change.shownPath): \(change.item.why)")
                if change.item.kind != .file, change.current != change.next {
                    change.item.content.split(separator: "\n").forEach { print("      \($0)") }
                }
            }
            if facts.systemdUser { print("  run systemctl --user daemon-reload, enable --now planner-refill.timer, enable planner-tick.service") }
            return
        }
        // A database path that is not a usable planner database (a text file, someone else's) is refused
        // before any file is written: the refill at the end would fail after the install (all or nothing).
        if access(facts.database, F_OK) == 0 {
            _ = try PlannerDatabase(path: facts.database, zoneForNewPlan: nil)
        }
        try Self.install(changes, manifest: &manifest, facts: facts)
        if manifest.entries.contains(where: { $0.path.hasSuffix("/planner-refill.timer") }) {
            // Without a running user manager (an ssh session, a container) enable still links the units; the
            // timer then starts at the next graphical login.
            _ = SetupFiles.run(["systemctl", "--user", "daemon-reload"])
            let timer = SetupFiles.run(["systemctl", "--user", "enable", "--now", "planner-refill.timer"])
            let tick = SetupFiles.run(["systemctl", "--user", "enable", "planner-tick.service"])
            if SetupFiles.run(["systemctl", "--user", "is-active", "--quiet", "graphical-session.target"])?.status == 0 {
                _ = SetupFiles.run(["systemctl", "--user", "start", "planner-tick.service"], quiet: false)
            }
            if timer?.status == 0 && tick?.status == 0 {
                print("enabled planner-refill.timer and planner-tick.service (systemctl --user)")
            } else {
                print("could not enable the units (is a systemd user manager running?): run systemctl --user enable --now planner-refill.timer planner-tick.service after logging in")
            }
        }
        // The database is made now, in this shell's zone: cron and systemd may have another TZ.
        try Refill.execute(PlanCommandOptions(db: facts.database, now: common.now))
        print("backups of what was changed: \(state)")
        print("database: \(facts.database)")
    }

    /// The files of the Debian package: units that run /usr/bin/planner on the user's default database,
    /// completions where each shell looks for packaged ones, and the manual (gzipped by scripts/deb).
    static func writePackageFiles(under root: String) throws {
        guard root.hasPrefix("/") else { throw PlannerError.usage("--package-files needs an absolute folder") }
        for unit in SetupPlan.units(binary: "/usr/bin/planner", database: nil) {
            try SetupFiles.write(root + "/usr/lib/systemd/user/" + unit.name, unit.content)
        }
        // bash-completion sources the file: a #! line there is noise (lintian: bash-completion-with-hashbang).
        let bash = PlannerCommand.completionScript(for: .bash)
        let sourced = bash.hasPrefix("#!") ? String(bash.drop { $0 != "\n" }.dropFirst()) : bash
        try SetupFiles.write(root + "/usr/share/bash-completion/completions/planner", sourced)
        try SetupFiles.write(root + "/usr/share/zsh/vendor-completions/_planner", PlannerCommand.completionScript(for: .zsh))
        try SetupFiles.write(root + "/usr/share/fish/vendor_completions.d/planner.fish", PlannerCommand.completionScript(for: .fish))
        try SetupFiles.write(root + "/usr/share/man/man1/planner.1", Manual.page)
        try SetupFiles.write(root + "/usr/share/applications/planner-study.desktop",
                             SetupPlan.desktopEntry(binary: "planner", database: nil))
        try SetupFiles.write(root + "/usr/share/" + PlannerIcon.relativePath, PlannerIcon.xpm)
    }

    /// Completions for the shells installed, and the manual.
    static func extras(_ f: SetupFacts) -> [SetupItem] {
        var items = [SetupItem(kind: .file, path: f.dataHome + "/bash-completion/completions/planner",
                               content: PlannerCommand.completionScript(for: .bash), why: "bash completion")]
        if SetupFiles.onPath("zsh") {
            items.append(SetupItem(kind: .file, path: f.dataHome + "/zsh/site-functions/_planner",
                                   content: PlannerCommand.completionScript(for: .zsh),
                                   why: "zsh completion (add this folder to fpath before compinit)"))
        }
        if SetupFiles.onPath("fish") {
            items.append(SetupItem(kind: .file, path: f.configHome + "/fish/completions/planner.fish",
                                   content: PlannerCommand.completionScript(for: .fish), why: "fish completion"))
        }
        items.append(SetupItem(kind: .file, path: f.dataHome + "/man/man1/planner.1", content: Manual.page,
                               why: "the manual (man planner)"))
        items.append(SetupItem(kind: .file, path: f.dataHome + "/" + PlannerIcon.relativePath, content: PlannerIcon.xpm,
                               why: "the planner's icon, for its notifications and launcher"))
        items.append(SetupItem(kind: .file, path: f.dataHome + "/applications/planner-study.desktop",
                               content: SetupPlan.desktopEntry(binary: f.binary, database: f.database),
                               why: "the launcher Start studying (planner study)"))
        return items
    }

    static func current(_ item: SetupItem) -> String? {
        item.kind == .crontab ? crontab() : SetupFiles.read(item.path)
    }

    static func next(_ item: SetupItem, _ current: String?) -> String {
        item.kind == .file ? item.content : SetupPlan.withBlock(current ?? "", item.content)
    }

    /// The user's crontab, or nil when they have none.
    static func crontab() -> String? {
        guard let r = SetupFiles.run(["crontab", "-l"]), r.status == 0 else { return nil }
        return r.output
    }

    /// Installs `text` as the crontab (nil: removes it); a refusal is one line with crontab's own words.
    static func setCrontab(_ text: String?) throws(PlannerError) {
        guard let r = SetupFiles.run(["crontab", text == nil ? "-r" : "-"], input: text, mergeErrors: true) else {
            throw .failure("cannot change the crontab: the crontab program cannot be started (apt-get install cron)")
        }
        guard r.status == 0 else {
            let said = r.output.split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }.filter { !$0.isEmpty }
            throw .failure("cannot change the crontab: " + (said.isEmpty ? "crontab exited \(r.status)" : "crontab: " + said.joined(separator: "; ")))
        }
    }

    static func uninstall(_ manifest: inout SetupManifest, systemd: Bool) throws {
        guard !manifest.entries.isEmpty else {
            print("nothing to uninstall: planner setup --install has not been run (or was undone)")
            return
        }
        if manifest.entries.contains(where: { $0.path.hasSuffix("/planner-refill.timer") }) {
            _ = SetupFiles.run(["systemctl", "--user", "disable", "--now", "planner-refill.timer", "planner-tick.service"])
        }
        for entry in manifest.entries.reversed() {
            let current = entry.kind == .crontab ? crontab() : SetupFiles.read(entry.path)
            if current == entry.before && entry.before != entry.after { continue }  // never changed (a failed install)
            if current == entry.after {
                if entry.kind == .crontab {
                    try setCrontab(entry.before)
                } else if let before = entry.before {
                    try SetupFiles.write(try SetupFiles.editTarget(entry.path), before)
                } else {
                    try SetupFiles.remove(entry.path)
                }
                print("\(entry.before == nil ? "removed" : "restored") \(entry.path)")
            } else if entry.kind != .file, let current, let without = SetupPlan.withoutBlock(current) {
                // Edited since: take out only the planner's block, keep the user's changes.
                if entry.kind == .crontab { try setCrontab(without) } else { try SetupFiles.write(try SetupFiles.editTarget(entry.path), without) }
                print("removed the planner block from \(entry.path) (edited since --install: the rest is kept)")
            } else if current != nil {
                print("left \(entry.path): edited since --install")
            }
        }
        if manifest.entries.contains(where: { $0.path.hasSuffix("/planner-refill.timer") }) {
            _ = SetupFiles.run(["systemctl", "--user", "daemon-reload"])
        }
        for leftover in manifest.leftovers { unlink(leftover) }
        try manifest.remove()
        for folder in manifest.folders.reversed() { rmdir(folder) }
        print("the database is kept")
    }

    /// Where systemd keeps a persistent timer's last trigger time.
    static func timerStamp(_ f: SetupFacts) -> String { f.dataHome + "/systemd/timers/stamp-planner-refill.timer" }

    static func stateFolder(home: String) -> String {
        if let xdg = Environment.get("XDG_STATE_HOME"), xdg.hasPrefix("/") { return xdg + "/planner/setup" }
        return home + "/.local/state/planner/setup"
    }

    static func facts(db: String?) throws(PlannerError) -> SetupFacts {
        guard let entry = getpwuid(getuid()) else { throw .failure("cannot read your account (getpwuid)") }
        // The same home the database's default path and every other command use.
        let home = try DatabaseLocation.home(environment: Environment.get)
        let shell = entry.pointee.pw_shell.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath("/proc/self/exe", &buffer) != nil else { throw .failure("cannot find this program's path (/proc/self/exe)") }
        let binary = String(cString: buffer)
        var database = try DatabaseLocation.resolve(option: db, environment: Environment.get)
        if !database.hasPrefix("/") {
            guard getcwd(&buffer, buffer.count) != nil else { throw .io("cannot read the current folder") }
            database = String(cString: buffer) + "/" + database
        }
        let existing = Set([".bash_profile", ".bash_login", ".profile"].filter { SetupFiles.exists(home + "/" + $0) })
        let state = SetupFiles.run(["systemctl", "--user", "is-system-running"])?.output ?? ""
        let systemd = state.hasPrefix("running") || state.hasPrefix("degraded")
        func xdg(_ name: String) -> String? { Environment.get(name).flatMap { $0.hasPrefix("/") ? $0 : nil } }
        return SetupFacts(home: home, binary: binary, database: database, shell: shell, existingFiles: existing,
                          systemdUser: systemd, uid: getuid(), configHome: xdg("XDG_CONFIG_HOME"), dataHome: xdg("XDG_DATA_HOME"))
    }
}
