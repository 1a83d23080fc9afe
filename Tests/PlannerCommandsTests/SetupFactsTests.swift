import PlannerCommands
import PlannerCore
import PlannerTestSupport
import Testing

/// `planner setup` reads its facts from the context (HOME, XDG_*, the current folder, its own path, the
/// account, what systemctl and crontab say) and, without --install, writes nothing.
@Suite struct SetupFactsTests {
    static let extras = SetupExtras(
        bashCompletion: "# bash\n", zshCompletion: "# zsh\n", fishCompletion: "# fish\n",
        manual: ".TH PLANNER 1\n")

    @Test func factsComeFromTheContext() throws {
        let home = temporaryFolder()
        writeFile(home + "/.bash_login", "# mine\n")
        let process = FakeProcess(environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": "relative/ignored"])
        process.currentFolder = home + "/work"
        process.account = Account(uid: 4242, shell: "/usr/bin/zsh")
        let facts = try SetupCommand.facts(process.context, db: "my.db")
        #expect(
            facts
                == SetupFacts(
                    home: home, binary: "/opt/test/bin/planner", database: home + "/work/my.db",
                    shell: "/usr/bin/zsh", existingFiles: [".bash_login"], systemdUser: false, uid: 4242,
                    configHome: nil, dataHome: home + "/data"))
        #expect(process.ran == [["systemctl", "--user", "is-system-running"]])
        // A running user manager, as systemctl says it.
        process.answer = { $0.first == "systemctl" ? (0, "running\n") : nil }
        #expect(try SetupCommand.facts(process.context, db: nil).systemdUser)
        #expect(try SetupCommand.facts(process.context, db: nil).database == home + "/data/planner/planner.db")
    }

    @Test func withoutItsOwnPathOrAnAccountSetupStops() throws {
        let process = FakeProcess(environment: ["HOME": temporaryFolder()])
        process.programPath = nil
        #expect(throws: PlannerError.self) { try SetupCommand.facts(process.context, db: nil) }
        process.programPath = "/opt/test/bin/planner"
        process.account = nil
        #expect(throws: PlannerError.self) { try SetupCommand.facts(process.context, db: nil) }
    }

    @Test func theDryRunPlansFilesUnderTheContextsHomeAndWritesNothing() throws {
        let home = temporaryFolder()
        writeFile(home + "/.profile", "# mine\n")
        let process = FakeProcess(environment: [
            "HOME": home, "XDG_CONFIG_HOME": home + "/cfg", "XDG_STATE_HOME": home + "/state",
            "PATH": temporaryFolder(),
        ])
        process.currentFolder = home
        // No user manager; the user's crontab holds one line of their own.
        process.answer = { $0 == ["crontab", "-l"] ? (0, "MAILTO=me\n") : nil }
        try SetupCommand.run(process.context, SetupCommand.Options(db: "p.db"), extras: Self.extras)

        #expect(filesBelow(home) == [".profile"])
        #expect(process.ran.contains(["crontab", "-l"]))
        #expect(!process.ran.contains { $0.first == "crontab" && $0 != ["crontab", "-l"] })
        let lines = process.lines
        #expect(lines.first == "planner setup would (run with --install to do it; database \(home)/p.db):")
        // No login hook unless asked (issue 23): the day closes when the lessons start, and setup says so.
        #expect(!lines.contains { $0.contains(".profile") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("what closes the day: ") && $0.contains("logging in does not") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  change crontab: ") })
        #expect(lines.contains("      */15 * * * * '/opt/test/bin/planner' refill --db '\(home)/p.db'"))
        #expect(lines.contains("  create \(home)/.local/share/bash-completion/completions/planner: bash completion"))
        #expect(lines.contains("  create \(home)/.local/share/man/man1/planner.1: the manual (man planner)"))
        // zsh and fish are not on the context's PATH: no completion for them.
        #expect(!lines.contains { $0.contains("zsh") || $0.contains("fish") })
        // Every file it names is under the fake home.
        for line in lines.dropFirst() where line.hasPrefix("  create ") || line.hasPrefix("  change ") || line.hasPrefix("  keep ") {
            let path = line.split(separator: " ", maxSplits: 3)[1]
            #expect(path == "crontab:" || path.hasPrefix(home + "/"), "\(line)")
        }
    }

    @Test func uninstallLooksForItsBackupsInTheContextsStateFolder() throws {
        let home = temporaryFolder()
        let state = temporaryFolder()
        let process = FakeProcess(environment: ["HOME": home, "XDG_STATE_HOME": state])
        try SetupCommand.run(process.context, SetupCommand.Options(uninstall: true), extras: Self.extras)
        #expect(process.lines == ["nothing to uninstall: planner setup --install has not been run (or was undone)"])
        // A manifest there (an install's) is read, and its one backup put back.
        writeFile(home + "/.profile", "# mine\n[planner]\n")
        try? makeFolder(state + "/planner")
        try? makeFolder(state + "/planner/setup")
        writeFile(state + "/planner/setup/manifest", "file\t\(home)/.profile\t1\n")
        writeFile(state + "/planner/setup/0.before", "# mine\n")
        writeFile(state + "/planner/setup/0.after", "# mine\n[planner]\n")
        try SetupCommand.run(process.context, SetupCommand.Options(uninstall: true), extras: Self.extras)
        #expect(process.lines.dropFirst() == ["restored \(home)/.profile", "the database is kept"])
        #expect(readFile(home + "/.profile") == "# mine\n")
        #expect(filesBelow(state) == ["planner"])
    }
}
