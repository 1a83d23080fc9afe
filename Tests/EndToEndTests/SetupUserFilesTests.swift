import Foundation
import Testing

/// `planner setup` and the user's own files: odd paths in the crontab, a crontab that refuses, a HOME that
/// is not one. Every refusal is one `error:` line with nothing written.
extension SetupTests {
    /// A `crontab` on PATH that keeps the table in a file beside it; `refuse` makes `crontab -` fail as a
    /// denied user's does (two lines on stderr, exit 1).
    static func fakeCrontab(in dir: String, refuse: Bool = false) throws -> String {
        let bin = dir + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let table = dir + "/fake-crontab"
        let install = refuse
            ? "cat >/dev/null; echo 'You (student) are not allowed to use this program (crontab)' >&2; echo 'See crontab(1) for more information' >&2; exit 1"
            : "cat > '\(table)'"
        try """
            #!/bin/sh
            case "$1" in
              -l) [ -f '\(table)' ] || { echo 'no crontab for student' >&2; exit 1; }; cat '\(table)' ;;
              -r) rm -f '\(table)' ;;
              -) \(install) ;;
              *) exit 2 ;;
            esac
            """.write(toFile: bin + "/crontab", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/crontab")
        return bin
    }

    static func expectOneErrorLine(_ r: Harness.Result, status: Int32, mentioning words: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.hasPrefix("error: ") && r.err.hasSuffix("\n") && r.err.filter { $0 == "\n" }.count == 1,
                "one error line: \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(words), "\(r.err)", sourceLocation: sourceLocation)
    }

    /// Issue 19 item 10: cron turns an unescaped % into a line break (crontab(5)), so a % in the binary's or
    /// the database's path is written \%. (scripts/setup-check proves a real cron daemon runs such lines.)
    @Test func aPercentSignInThePathsIsEscapedForCron() throws {
        let (h, env) = try home()
        let bin = h.dir + "/tools 100%/planner", db = h.dir + "/study 100% sure/planner.db"
        try FileManager.default.createDirectory(atPath: h.dir + "/tools 100%", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: bin)
        let full = h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir) + ":/usr/bin:/bin"]) { $1 }
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "cron", "--db", db], env: full)
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
    @Test func aCrontabThatRefusesLeavesEverythingAsItWas() throws {
        let (h, env) = try home()
        let bin = h.dir + "/.local/bin/planner"
        let refusing = h.env.merging(env) { $1 }.merging(["PATH": try Self.fakeCrontab(in: h.dir, refuse: true) + ":/usr/bin:/bin"]) { $1 }
        let before = try Self.snapshot(h.dir)
        let r = try h.run(bin, ["setup", "--install", "--scheduler", "cron"], env: refusing)
        Self.expectOneErrorLine(r, status: 1, mentioning: "cannot change the crontab: crontab: You (student) are not allowed to use this program (crontab)")
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
