import Foundation
import PlannerHarness
import Testing

/// `planner setup` and the user's own files: a dotfiles repository's links, odd paths in the crontab, a
/// crontab that refuses, a HOME that is not one. Every refusal is one `error:` line with nothing written.
extension SetupTests {
    /// A `crontab` on PATH that keeps the table in a file beside it; `refuse` makes `crontab -` fail as a
    /// denied user's does (two lines on stderr, exit 1).
    static func fakeCrontab(in dir: String, refuse: Bool = false) throws -> String {
        let bin = dir + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let table = dir + "/fake-crontab"
        let install =
            refuse
            ? "cat >/dev/null; echo 'You (student) are not allowed to use this program (crontab)' >&2; echo 'See crontab(1) for more information' >&2; exit 1"
            : "cat > '\(table)'"
        try Harness.writeProgram(
            """
            #!/bin/sh
            case "$1" in
              -l) [ -f '\(table)' ] || { echo 'no crontab for student' >&2; exit 1; }; cat '\(table)' ;;
              -r) rm -f '\(table)' ;;
              -) \(install) ;;
              *) exit 2 ;;
            esac
            """, to: bin + "/crontab")
        return bin
    }

    static func expectOneErrorLine(
        _ r: Harness.Result, status: Int32, mentioning words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status == status, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        #expect(
            r.err.hasPrefix("error: ") && r.err.hasSuffix("\n") && r.err.filter { $0 == "\n" }.count == 1,
            "one error line: \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(words), "\(r.err)", sourceLocation: sourceLocation)
    }

    /// Issue 19 item 9: ~/.profile is a link into a dotfiles repository (outside HOME, through a chain of two
    /// links). The repository's file gets the block and a real `bash -l` runs it; the links are never
    /// replaced, and --uninstall leaves every byte and every link as it was.
    @Test func aLinkedLoginFileIsEditedThroughItsLinkAndPutBack() throws {
        let (h, _) = try home()
        let home = h.dir + "/home"
        let repo = h.dir + "/dotfiles"
        try FileManager.default.createDirectory(atPath: home + "/.local/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: home + "/.local/bin/planner")
        try "# my dotfiles\nexport EDITOR=vi\n".write(toFile: repo + "/profile", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: home + "/.dotfiles-profile", withDestinationPath: "../dotfiles/profile")
        try FileManager.default.createSymbolicLink(atPath: home + "/.profile", withDestinationPath: ".dotfiles-profile")
        let env = h.env.merging(["HOME": home, "SHELL": "/bin/bash"]) { $1 }
        let before = try Self.snapshot(h.dir)

        let r = try h.run(home + "/.local/bin/planner", ["setup", "--install", "--login-hook", "--scheduler", "systemd"], env: env)
        #expect(r.status == 0, "\(r.err)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: home + "/.profile")) == ".dotfiles-profile", "the link is kept")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: home + "/.dotfiles-profile")) == "../dotfiles/profile")
        let edited = try String(contentsOfFile: repo + "/profile", encoding: .utf8)
        #expect(edited.hasPrefix("# my dotfiles\nexport EDITOR=vi\n# >>> planner setup >>>\n") && edited.contains(" open --login --db "), "\(edited)")
        #expect(r.out.contains("changed \(home)/.profile (a link: its file \(repo)/profile)"), "\(r.out)")
        let login = try h.run("/bin/bash", ["-lc", "true"], env: env)
        #expect(login.status == 0, "\(login.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open", db: home + "/.local/share/planner/planner.db") == "1")

        let undo = try h.run(home + "/.local/bin/planner", ["setup", "--uninstall"], env: env)
        #expect(undo.status == 0, "\(undo.err)")
        let after = try Self.snapshot(h.dir).filter { !$0.key.hasPrefix("home/.local/share/planner") && $0.key != "home/.local/share" }
        #expect(after == before.filter { $0.key != "home/.local/share" })
    }

    /// Issue 29: an install killed between writing a file aside and renaming it in left `*.planner-setup.tmp`
    /// in the dotfiles repository, and `--uninstall` said "nothing to uninstall" and left it. Every run
    /// removes what setup itself left (only regular files of the user's own; never anything else).
    @Test func temporariesLeftByAKilledSetupAreRemovedByTheNextRun() throws {
        let (h, _) = try home()
        let home = h.dir + "/home"
        let repo = h.dir + "/dotfiles"
        try FileManager.default.createDirectory(atPath: home + "/.local/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: home + "/.local/bin/planner")
        try "export EDITOR=vi\n".write(toFile: repo + "/profile", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: home + "/.profile", withDestinationPath: "../dotfiles/profile")
        let left = [repo + "/profile.planner-setup.tmp", home + "/.config/autostart/planner-tick.desktop.planner-setup.tmp"]
        try FileManager.default.createDirectory(atPath: home + "/.config/autostart", withIntermediateDirectories: true)
        for path in left { try "half".write(toFile: path, atomically: false, encoding: .utf8) }
        let env = h.env.merging(["HOME": home, "SHELL": "/bin/bash"]) { $1 }
        let undo = try h.run(home + "/.local/bin/planner", ["setup", "--uninstall"], env: env)
        #expect(undo.status == 0, "\(undo.err)")
        for path in left {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there: \(undo.out)")
            #expect(undo.out.contains("removed \(path), left by an interrupted planner setup"), "\(undo.out)")
        }
        #expect(try String(contentsOfFile: repo + "/profile", encoding: .utf8) == "export EDITOR=vi\n")
    }

    /// An install killed while saving its own record (`~/.local/state/planner/setup`) left its temporaries
    /// and a backup the manifest never listed; `--uninstall` left them and the folder. Now it removes every
    /// file setup itself makes there, and the folder; a file of the user's own there is kept.
    @Test func anInstallKilledWhileSavingItsRecordLeavesNothingAfterUninstall() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let state = h.dir + "/.local/state/planner/setup"
        let install = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(install.status == 0, "\(install.err)")
        for name in ["manifest.planner-setup.tmp", "0.after.planner-setup.tmp", "41.before", "41.after"] {
            try "half".write(toFile: state + "/" + name, atomically: false, encoding: .utf8)
        }
        let undo = try h.run(bin, ["setup", "--uninstall"], env: h.env.merging(env) { $1 })
        #expect(undo.status == 0, "\(undo.err)")
        #expect(!FileManager.default.fileExists(atPath: state), "\((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? [])")
        // The user's own file in that folder is never removed (nor, then, the folder).
        let again = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(again.status == 0, "\(again.err)")
        try "mine".write(toFile: state + "/notes.txt", atomically: false, encoding: .utf8)
        _ = try h.run(bin, ["setup", "--uninstall"], env: h.env.merging(env) { $1 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["notes.txt"])

        // Killed before its record listed anything: "nothing to uninstall", and nothing left either.
        let (fresh, freshEnv) = try home()
        let freshState = fresh.dir + "/.local/state/planner/setup"
        try FileManager.default.createDirectory(atPath: freshState, withIntermediateDirectories: true)
        for name in ["manifest.planner-setup.tmp", "0.after"] {
            try "half".write(toFile: freshState + "/" + name, atomically: false, encoding: .utf8)
        }
        let none = try fresh.run(fresh.dir + "/.local/bin/planner", ["setup", "--uninstall"], env: fresh.env.merging(freshEnv) { $1 })
        #expect(none.status == 0 && none.out.contains("nothing to uninstall"), "\(none.out) \(none.err)")
        #expect(!FileManager.default.fileExists(atPath: freshState))
    }

    /// A link to nothing would become a regular file (and --uninstall then deleted it): refused, link kept.
    @Test func aDanglingLinkedLoginFileIsRefused() throws {
        let (h, env) = try home()
        try FileManager.default.removeItem(atPath: h.dir + "/.profile")
        try FileManager.default.createSymbolicLink(atPath: h.dir + "/.profile", withDestinationPath: "dotfiles/profile")
        let before = try Self.snapshot(h.dir)
        for args in [["setup", "--login-hook", "--scheduler", "systemd"], ["setup", "--install", "--login-hook", "--scheduler", "systemd"]] {
            let r = try h.run(h.dir + "/.local/bin/planner", args, env: h.env.merging(env) { $1 })
            Self.expectOneErrorLine(r, status: 64, mentioning: "\(h.dir)/.profile is a symbolic link to dotfiles/profile, which does not exist")
            #expect(try Self.snapshot(h.dir) == before, "\(args): nothing written")
        }
    }

    /// Writing through the link would hand another user's file to this one (or fail half-way): refused.
    @Test(.enabled(if: getuid() == 0, "needs a second user")) func aLoginFileLinkedToAnotherUsersFileIsRefused() throws {
        let (h, env) = try home()
        let theirs = h.dir + "/shared-profile"
        try "# someone else's\n".write(toFile: theirs, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: theirs)
        try FileManager.default.removeItem(atPath: h.dir + "/.profile")
        try FileManager.default.createSymbolicLink(atPath: h.dir + "/.profile", withDestinationPath: theirs)
        let before = try Self.snapshot(h.dir)
        let r = try h.run(
            h.dir + "/.local/bin/planner", ["setup", "--install", "--login-hook", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        Self.expectOneErrorLine(r, status: 74, mentioning: "\(h.dir)/.profile (a link to \(theirs)) belongs to another user")
        #expect(try Self.snapshot(h.dir) == before)
    }

    /// Issue 19 item 10: cron turns an unescaped % into a line break (crontab(5)), so a % in the binary's or
    /// the database's path is written \%. (scripts/setup-check proves a real cron daemon runs such lines.)
    @Test func aPercentSignInThePathsIsEscapedForCron() throws {
        let (h, env) = try home()
        let bin = h.dir + "/tools 100%/planner"
        let db = h.dir + "/study 100% sure/planner.db"
        try FileManager.default.createDirectory(atPath: h.dir + "/tools 100%", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: bin)
        let full = h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir) + ":/usr/bin:/bin"]) { $1 }
        let r = try h.run(bin, ["setup", "--install", "--login-hook", "--scheduler", "cron", "--db", db], env: full)
        #expect(r.status == 0, "\(r.err)")
        let table = try String(contentsOfFile: h.dir + "/fake-crontab", encoding: .utf8)
        let lines = table.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == 2, "\(table)")
        for line in lines {
            #expect(line.contains("'\(h.dir)/tools 100\\%/planner' ") && line.contains(" --db '\(h.dir)/study 100\\% sure/planner.db'"), "\(line)")
            #expect(!line.replacingOccurrences(of: "\\%", with: "").contains("%"), "an unescaped %: \(line)")
        }
        // The login file is read by sh, not cron: its % stays as it is.
        #expect(try String(contentsOfFile: h.dir + "/.profile", encoding: .utf8).contains("--db '\(db)'"))
        let undo = try h.run(bin, ["setup", "--uninstall"], env: full)
        #expect(undo.status == 0, "\(undo.err)")
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/fake-crontab"), "the crontab it made is removed")
    }

    /// A backslash before % or another backslash is read differently by Debian's cron and cronie: refused.
    @Test func aPathCronCannotCarryIsRefused() throws {
        let (h, env) = try home()
        let full = h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir) + ":/usr/bin:/bin"]) { $1 }
        let before = try Self.snapshot(h.dir)
        let r = try h.run(h.dir + "/.local/bin/planner", ["setup", "--install", "--scheduler", "cron", "--db", h.dir + "/a\\%b.db"], env: full)
        Self.expectOneErrorLine(r, status: 64, mentioning: "cron cannot run a path with a backslash")
        #expect(try Self.snapshot(h.dir) == before)
    }

    /// Issue 19 item 11: crontab refuses (a denied user): one error line with crontab's own words, and nothing
    /// written — not the login block, not the backups — on a first install and on one over an earlier install.
    /// A --db that is not a planner database is refused before anything is written (it used to fail at
    /// the final refill, with every file already installed).
    @Test func aDatabaseThatIsNotOneIsRefusedBeforeAnyFile() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let text = h.dir + "/notes.txt"
        try "not a database\n".write(toFile: text, atomically: false, encoding: .utf8)
        let before = try Self.snapshot(h.dir)
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "systemd", "--db", text], env: h.env.merging(env) { $1 })
        Self.expectOneErrorLine(r, status: 65, mentioning: "is not a SQLite database")
        #expect(try Self.snapshot(h.dir) == before, "nothing written")
    }

    /// Debian's crontab refuses a user in cron.deny before it reads its input: setup's write then meets a
    /// closed pipe (always, with a table larger than a pipe holds). One error line, not death by SIGPIPE.
    @Test func aCrontabThatRefusesBeforeReadingIsOneErrorLine() throws {
        let (h, env) = try home()
        let bin = h.dir + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try Harness.writeProgram(
            """
            #!/bin/sh
            case "$1" in
              -l) i=0; while [ $i -lt 2000 ]; do echo "# a long line of the user's own crontab, number $i, kept as it is"; i=$((i+1)); done ;;
              -) echo 'You (student) are not allowed to use this program (crontab)' >&2; exit 1 ;;
              *) exit 2 ;;
            esac
            """, to: bin + "/crontab")
        let before = try Self.snapshot(h.dir)
        let r = try h.run(
            h.dir + "/.local/bin/planner", ["setup", "--install", "--scheduler", "cron"],
            env: h.env.merging(env) { $1 }.merging(["PATH": bin + ":/usr/bin:/bin"]) { $1 })
        Self.expectOneErrorLine(r, status: 1, mentioning: "not allowed to use this program")
        #expect(try Self.snapshot(h.dir) == before, "nothing written")
    }

    @Test func aCrontabThatRefusesLeavesEverythingAsItWas() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let refusing = h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir, refuse: true) + ":/usr/bin:/bin"]) { $1 }
        let before = try Self.snapshot(h.dir)
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "cron"], env: refusing)
        Self.expectOneErrorLine(
            r, status: 1, mentioning: "cannot change the crontab: crontab: You (student) are not allowed to use this program (crontab)")
        #expect(!r.err.contains("is cron installed"), "\(r.err)")
        #expect(try Self.snapshot(h.dir) == before, "nothing written")

        let first = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: refusing)
        #expect(first.status == 0, "\(first.err)")
        let installed = try Self.snapshot(h.dir)
        let again = try h.run(bin, ["setup", "--install", "--scheduler", "cron"], env: refusing)
        Self.expectOneErrorLine(again, status: 1, mentioning: "not allowed to use this program")
        #expect(try Self.snapshot(h.dir) == installed, "the earlier install and its backups as they were")
        let undo = try h.run(bin, ["setup", "--uninstall"], env: refusing)
        #expect(undo.status == 0, "\(undo.err)")
        #expect(try String(contentsOfFile: h.dir + "/.profile", encoding: .utf8) == "# the user's own\nexport EDITOR=vi\n")
    }

    /// Issue 19 item 12: a relative HOME put the login file under the password database's home and the
    /// database under the current folder; a missing one was created. Both refused, nothing written anywhere.
    @Test func aRelativeOrMissingHomeIsRefused() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let before = try Self.snapshot(h.dir)
        let relative = h.env.merging(env) { $1 }.merging(["HOME": "home"]) { $1 }
        // The dry run first: a planner that accepts the relative HOME would --install into your real home.
        let dry = try h.run(bin, ["setup", "--scheduler", "systemd"], env: relative)
        Self.expectOneErrorLine(dry, status: 64, mentioning: "HOME (home) is not an absolute path")
        try #require(dry.status == 64)
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: relative)
        Self.expectOneErrorLine(r, status: 64, mentioning: "HOME (home) is not an absolute path")
        #expect(try Self.snapshot(h.dir) == before)

        let missing = h.dir + "/gone/home"
        let m = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 }.merging(["HOME": missing]) { $1 })
        Self.expectOneErrorLine(m, status: 64, mentioning: "HOME (\(missing)) does not exist")
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/gone"))
        #expect(try Self.snapshot(h.dir) == before)
    }
}
