import Foundation
import PlannerHarness
import Testing

/// `planner setup` in a throwaway HOME, with the systemd user units (no real crontab is touched here: a fake
/// `crontab` on PATH stands in; the cron path runs in .ci/run as a user made for it, with a real cron daemon).
@Suite struct SetupTests {
    /// Every file under `dir` with its bytes (folders as nil), to compare before and after.
    static func snapshot(_ dir: String) throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let relative = enumerator?.nextObject() as? String {
            let path = dir + "/" + relative
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            // A link (systemctl enable's) is compared by its target.
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                result[relative] = Data(("-> " + target).utf8)
            } else {
                result[relative] = isDir.boolValue ? nil : FileManager.default.contents(atPath: path)
            }
        }
        return result
    }

    func home() throws -> (Harness, [String: String]) {
        let h = try Harness()
        let profile = "# the user's own\nexport EDITOR=vi\n"
        try profile.write(toFile: h.dir + "/.profile", atomically: true, encoding: .utf8)
        // The binary in its installed place, as the README's install line puts it.
        let bin = h.dir + "/.local/bin/planner"
        try FileManager.default.createDirectory(atPath: h.dir + "/.local/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: bin)
        return (h, ["HOME": h.dir, "SHELL": "/bin/bash"])
    }

    @Test func installIsIdempotentAndUninstallPutsBackEveryByte() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let before = try Self.snapshot(h.dir)

        let dry = try h.run(bin, ["setup", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(dry.status == 0, "\(dry.err)")
        #expect(try Self.snapshot(h.dir) == before, "a dry run changes nothing")

        let first = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(first.status == 0, "\(first.err)")
        let db = h.dir + "/.local/share/planner/planner.db"
        let units = h.dir + "/.config/systemd/user"
        for file in [
            units + "/planner-refill.service", units + "/planner-refill.timer", units + "/planner-tick.service",
            h.dir + "/.local/share/bash-completion/completions/planner", h.dir + "/.local/share/man/man1/planner.1", db,
        ] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        // Absolute paths everywhere: the login, the timer and the ticker use this binary and this database.
        // No login hook without --login-hook (issue 23): logging in does not close the day.
        #expect(try String(contentsOfFile: h.dir + "/.profile", encoding: .utf8) == "# the user's own\nexport EDITOR=vi\n")
        let tick = try String(contentsOfFile: units + "/planner-tick.service", encoding: .utf8)
        #expect(tick.contains("ExecStart=\"\(bin)\" tick --unless-running --db \"\(db)\""))
        let autostart = try String(contentsOfFile: h.dir + "/.config/autostart/planner-tick.desktop", encoding: .utf8)
        #expect(autostart.contains("\nExec=\(bin) tick --unless-running --db \(db)\n"), "\(autostart)")
        #expect(tick.contains("RestartPreventExitStatus=64 65 75") && tick.contains("PartOf=graphical-session.target"))

        let installed = try Self.snapshot(h.dir)
        let second = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(second.status == 0, "\(second.err)")
        #expect(!second.out.split(separator: "\n").contains { $0.hasPrefix("created ") || $0.hasPrefix("changed ") }, "\(second.out)")
        #expect(
            try Self.snapshot(h.dir).filter { !$0.key.hasPrefix(".local/share/planner") }
                == installed.filter { !$0.key.hasPrefix(".local/share/planner") }, "a second install changes nothing")

        let undo = try h.run(bin, ["setup", "--uninstall"], env: h.env.merging(env) { $1 })
        #expect(undo.status == 0, "\(undo.err)")
        // Everything as before, except the database (the user's record is never removed) and its folder.
        let after = try Self.snapshot(h.dir).filter { !$0.key.hasPrefix(".local/share/planner") && $0.key != ".local/share" }
        #expect(after == before.filter { $0.key != ".local/share" })
        #expect(FileManager.default.fileExists(atPath: db))
    }

    /// The units and timer as systemd itself reads them: no unknown key, no bad value, a valid calendar.
    @Test func systemdAcceptsTheUnits() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(r.status == 0, "\(r.err)")
        let runtime = h.dir + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let units = h.dir + "/.config/systemd/user"
        let verify = try Harness.run(
            "/usr/bin/systemd-analyze",
            ["--user", "verify", "planner-refill.service", "planner-refill.timer", "planner-tick.service"],
            env: h.env.merging(env) { $1 }.merging(["XDG_RUNTIME_DIR": runtime]) { $1 }, in: units)
        #expect(verify.status == 0 && verify.err.isEmpty, "systemd-analyze verify: \(verify.err)")
        let timer = try String(contentsOfFile: units + "/planner-refill.timer", encoding: .utf8)
        let calendar = try #require(timer.split(separator: "\n").first { $0.hasPrefix("OnCalendar=") }).dropFirst("OnCalendar=".count)
        let check = try Harness.run("/usr/bin/systemd-analyze", ["calendar", "--iterations", "3", String(calendar)], env: h.env)
        #expect(check.status == 0 && check.out.contains("Normalized form: *-*-* *:00/15:00"), "\(check.out)\(check.err)")
        #expect(timer.contains("Persistent=true"))
    }

    /// With --login-hook a real login shell runs the line: the open is recorded in the database setup names,
    /// once for the login session these shells all run in (this test's), and the login is not slowed by
    /// more than 50 ms (median of 5, against the same login without the line).
    @Test func aLoginShellRecordsTheOpen() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let full = h.env.merging(env) { $1 }
        func login() throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            let r = try h.run("/bin/bash", ["-lc", "true"], env: full)
            #expect(r.status == 0, "\(r.err)")
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        let without = (0..<5).map { _ in (try? login()) ?? 0 }.sorted()[2]
        _ = try h.run(bin, ["setup", "--install", "--login-hook", "--scheduler", "systemd"], env: full)
        let db = h.dir + "/.local/share/planner/planner.db"
        #expect(try h.sqlite("SELECT count(*) FROM app_open", db: db) == "0")
        let with = (0..<5).map { _ in (try? login()) ?? 0 }.sorted()[2]
        #expect(try h.sqlite("SELECT count(*) FROM app_open", db: db) == "1", "five shells of one session: one login")
        #expect(try h.sqlite("SELECT origin FROM app_open", db: db) == "login")
        #expect(with - without < 50, "login took \(with) ms with the line, \(without) ms without")
        // sh reads ~/.profile too, and a hand-run `planner open` always records.
        _ = try h.run("/bin/sh", ["-lc", "true"], env: full)
        _ = try h.run(bin, ["open", "--db", db], env: full)
        #expect(try h.sqlite("SELECT group_concat(origin) FROM app_open", db: db) == "login,open")
    }

    @Test func bashReadsTheFirstOfItsLoginFilesAndZshItsOwn() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        // With a ~/.bash_profile, bash never reads ~/.profile: the line must go there.
        try "# mine\n".write(toFile: h.dir + "/.bash_profile", atomically: true, encoding: .utf8)
        let r = try h.run(bin, ["setup", "--install", "--login-hook", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        #expect(r.status == 0, "\(r.err)")
        #expect(try String(contentsOfFile: h.dir + "/.bash_profile", encoding: .utf8).contains("open --login --db"))
        #expect(try String(contentsOfFile: h.dir + "/.profile", encoding: .utf8) == "# the user's own\nexport EDITOR=vi\n")
    }

    @Test func theManualIsInstalledWhereManFindsIt() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        _ = try h.run(bin, ["setup", "--install", "--scheduler", "systemd"], env: h.env.merging(env) { $1 })
        // man-db derives ~/.local/share/man from ~/.local/bin on PATH.
        let path = h.dir + "/.local/bin:/usr/bin:/bin"
        let found = try h.run("/usr/bin/man", ["-w", "planner"], env: h.env.merging(env) { $1 }.merging(["PATH": path]) { $1 })
        #expect(found.out.trimmingCharacters(in: .whitespacesAndNewlines) == h.dir + "/.local/share/man/man1/planner.1", "\(found.err)")
        let page = try h.run(
            "/usr/bin/man", ["planner"], env: h.env.merging(env) { $1 }.merging(["PATH": path, "MANWIDTH": "100", "MANPAGER": "cat"]) { $1 })
        for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] { #expect(page.out.contains(section), "\(section)") }
        // Every subcommand's abstract, as --help gives it, is in the page: it was made from these definitions.
        let help = try h.planner(["--help"]).out
        let names = help.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .prefix { !$0.isEmpty }
            .compactMap { line -> String? in
                let t = line.trimmingCharacters(in: .whitespaces)
                return line.hasPrefix("  ") && !line.hasPrefix("    ") ? t.split(separator: " ").first.map(String.init) : nil
            }
        #expect(names.count >= 15)
        let manual = try String(contentsOfFile: h.dir + "/.local/share/man/man1/planner.1", encoding: .utf8)
        for name in names where name != "help" {
            #expect(manual.contains(".It Em \(name)"), "\(name) is missing: run scripts/manual")
            // And each of its options.
            let lines = try h.planner([name, "--help"]).out.split(separator: "\n").drop { !$0.hasPrefix("OPTIONS:") }
            var options: [String] = []
            for line in lines {
                let words = line.split(separator: " ")
                guard let first = words.first, first.hasPrefix("--") else { continue }
                options.append(String(first.dropFirst(2).prefix { $0 != "," }))
            }
            #expect(!options.isEmpty, "\(name)")
            for option in options where !["help", "version"].contains(option) {
                #expect(manual.contains("Fl -\(option)"), "\(name) --\(option) is missing: run scripts/manual")
            }
        }
    }
}

extension SetupTests {
    /// The launcher: setup installs one with absolute paths, the package and contrib/ the same entry with
    /// `planner study`; desktop-file-validate (desktop-file-utils) accepts both, even for a path with
    /// spaces, quotes and a dollar sign.
    @Test func theStudyLauncherIsAValidDesktopEntry() throws {
        let (h, env) = try home()
        let odd = h.dir + "/my \"study\" $tuff"
        try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: true)
        let r = try h.run(
            h.dir + "/.local/bin/planner", ["setup", "--install", "--scheduler", "systemd", "--db", odd + "/p.db"],
            env: h.env.merging(env) { $1 })
        #expect(r.status == 0, "\(r.err)")
        let installed = h.dir + "/.local/share/applications/planner-study.desktop"
        let entry = try String(contentsOfFile: installed, encoding: .utf8)
        #expect(
            entry.contains(
                "Exec=\(h.dir)/.local/bin/planner study --db \"\(odd.replacingOccurrences(of: "\"", with: "\\\\\"").replacingOccurrences(of: "$", with: "\\\\$"))/p.db\"\n"
            ), "\(entry)")
        // systemd would expand $tuff and %x: the unit escapes them.
        let tick = try String(contentsOfFile: h.dir + "/.config/systemd/user/planner-tick.service", encoding: .utf8)
        #expect(
            tick.contains(" --db \"\(odd.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "$", with: "$$"))/p.db\""), "\(tick)")
        let package = h.dir + "/package"
        #expect(try h.run(Harness.binary, ["setup", "--package-files", package], env: h.env).status == 0)
        let packaged = try String(contentsOfFile: package + "/usr/share/applications/planner-study.desktop", encoding: .utf8)
        let contrib = try Harness.repositoryText("contrib/planner-study.desktop")
        #expect(packaged == contrib, "contrib/planner-study.desktop must be what the package installs")
        for file in [installed, package + "/usr/share/applications/planner-study.desktop"] {
            let check = try h.run("/usr/bin/desktop-file-validate", [file], env: h.env)
            #expect(check.status == 0 && check.out.isEmpty && check.err.isEmpty, "\(file): \(check.out)\(check.err)")
        }
    }
}
