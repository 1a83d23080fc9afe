import Foundation
import PlannerCore
import PlannerHarness
import Testing

/// `planner study`: the open is recorded, then the process becomes the study program; a program that
/// cannot run changes nothing. And `study-command` is split into words exactly as Python's shlex does.
@Suite struct StudyTests {
    static let monday = "2026-11-23T12:00"

    func planned() throws -> Harness {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        return h
    }

    /// `planner config ARGS… --db DB` (config's options come after its subcommand), asserting success.
    func config(_ h: Harness, _ args: [String]) throws {
        let r = try h.planner(["config"] + args + ["--db", h.db, "--now", Self.monday])
        guard r.status == 0 else { throw HarnessError("config \(args) exited \(r.status): \(r.err)") }
    }

    func todayPending(_ h: Harness) throws -> String {
        try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND kind = 'slot' AND local_date = '2026-11-23'")
    }

    @Test func recordsTheOpenThenBecomesTheProgram() throws {
        let h = try planned()
        #expect(try todayPending(h) == "25")
        // The program sees the open already committed, and its parent is whoever ran `planner study`: the
        // planner replaced itself (exec) instead of waiting for a child.
        let script = """
            echo opens=$(sqlite3 "$1" 'SELECT count(*) FROM app_open')
            echo parent=$(cat /proc/$PPID/comm)
            echo self=$(cat /proc/$$/comm)
            """
        let r = try h.planner(["study", "--db", h.db, "--now", Self.monday, "--", "/bin/sh", "-c", script, "sh", h.db])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.isEmpty, "\(r.err)")
        #expect(r.out.contains("opens=1\n"), "\(r.out)")
        #expect(!r.out.contains("parent=planner\n"), "the program must replace the planner, not be its child: \(r.out)")
        #expect(r.out.contains("self=sh\n"), "\(r.out)")
        #expect(try todayPending(h) == "0")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending'") == "64")
    }

    @Test func runsTheStudyCommandSettingWithItsWords() throws {
        let h = try planned()
        let value = #"python3 -c 'import sys; print(sys.argv[1:])' "a  b" c\ d '' "say \"hi\"""#
        try config(h, ["set", "study-command", value])
        #expect(try h.sqlite("SELECT value FROM settings WHERE key = 'study-command'") == value)
        let r = try h.planner(["study", "--db", h.db, "--now", Self.monday])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "['a  b', 'c d', '', 'say \"hi\"']\n", "\(r.out)")
        #expect(try todayPending(h) == "0")
    }

    @Test func aProgramThatCannotRunChangesNothing() throws {
        let h = try planned()
        // Not executable; executable but not a program (no #! line, not ELF: exec would fail after the open).
        let text = h.dir + "/notes.txt"
        let notProgram = h.dir + "/lesson.txt"
        for path in [text, notProgram] { try "vocabulary\n".write(toFile: path, atomically: true, encoding: .utf8) }
        chmod(text, 0o644)
        chmod(notProgram, 0o755)
        let before = h.bytes(h.db)
        for program in ["/nonexistent/anki", "no-such-study-program-here", h.dir, text, notProgram] {
            let r = try h.planner(["study", "--db", h.db, "--now", Self.monday, "--", program, "--flag"])
            #expect(r.status == (program == notProgram ? 126 : 127), "\(program): \(r.status) \(r.err)")
            #expect(r.err.hasPrefix("error: cannot run '") && r.err.split(separator: "\n").count == 1, "\(r.err)")
            #expect(h.bytes(h.db) == before, "\(program): the database must be untouched")
        }
        // The same through the setting.
        try config(h, ["set", "study-command", "no-such-study-program-here --deck Japanese"])
        let settled = h.bytes(h.db)
        let r = try h.planner(["study", "--db", h.db, "--now", Self.monday])
        #expect(r.status == 127 && r.err.contains("not found on PATH"), "\(r.err)")
        #expect(h.bytes(h.db) == settled)
        #expect(try todayPending(h) == "20")
    }

    @Test func withoutAProgramTheOpenIsRecordedAndANoteSaysHow() throws {
        let h = try planned()
        let r = try h.planner(["study", "--db", h.db, "--now", Self.monday])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(r.err.contains("planner config set study-command") && r.err.split(separator: "\n").count == 1, "\(r.err)")
        // Its notes say which command wrote them (issue 19 item 15: they said "planner open:").
        #expect(r.err.hasPrefix("planner study: recorded the open; "), "\(r.err)")
        #expect(try h.sqlite("SELECT count(*) FROM app_open") == "1")
        #expect(try todayPending(h) == "0")
    }

    /// A held database: the open is saved for later, and the note naming the folder says `planner study`.
    @Test func aHeldDatabaseSavesTheOpenAndTheNoteIsStudys() throws {
        let h = try planned()
        let holder = try SQLiteHolder(h, "BEGIN IMMEDIATE;")
        defer { holder.release() }
        let r = try h.planner(["study", "--db", h.db, "--now", Self.monday, "--", "/bin/true"])
        #expect(r.status == 0, "\(r.err)")
        #expect(
            r.err.hasPrefix("planner study: the database \(h.db) is locked by another program; this open was saved in ")
                && r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(h.spoolFiles().count == 1)
    }

    @Test func badStudySettingsAreRefusedAndChangeNothing() throws {
        let h = try planned()
        let before = h.bytes(h.db)
        for (key, value) in [
            ("study-command", "anki 'unclosed"), ("study-command", "anki \"x"), ("study-command", "anki \\"),
            ("study-command", "'' --deck"), ("study-command", "anki\u{1B}[2J"), ("snooze", "30s"),
            ("snooze", "25h"), ("snooze", "soon"),
        ] {
            let r = try h.planner(["config", "set", key, value, "--db", h.db])
            #expect(r.status == 64, "\(key) \(value): \(r.status) \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
            #expect(h.bytes(h.db) == before, "\(key) \(value)")
        }
        try config(h, ["set", "snooze", "10m", "study-command", ""])
        #expect(
            try h.sqlite("SELECT key || '=' || value || '=' || is_default FROM settings WHERE key IN ('snooze', 'study-command') ORDER BY key")
                == "snooze=10m=0\nstudy-command==1")
    }

    /// The splitting rules against Python's shlex.split (posix), an independent implementation: hand-made
    /// cases, then random strings over the characters that matter.
    @Test func studyCommandWordsAreSplitLikeShlex() throws {
        var cases = [
            "anki", "  anki  ", "xdg-open https://example.org/lesson?a=1&b=2", "a 'b c' d", #"a "b c" d"#,
            #"a\ b"#, #"'it'\''s'"#, #""a\"b""#, #""a\\b""#, #""a\nb""#, #"'a\nb'"#, "a''b", "''", #""""#,
            "a \"\" b", #"a\\"#, "x 'é 日本' y", "a\tb", "$HOME ~ *.txt ; | &&", #""$HOME""#,
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"ab '"\ $"#)
        for _ in 0..<300 {
            cases.append(String((0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        let script = """
            import json, shlex, sys
            out = []
            for s in json.load(sys.stdin):
                try: out.append(shlex.split(s))
                except ValueError: out.append(None)
            print(json.dumps(out))
            """
        let input = String(decoding: try JSONEncoder().encode(cases), as: UTF8.self)
        let h = try Harness()
        let path = h.dir + "/cases.json"
        try input.write(toFile: path, atomically: true, encoding: .utf8)
        let expected = try JSONDecoder().decode(
            [[String]?].self,
            from: Data(
                try h.python(
                    "import sys; sys.stdin = open(sys.argv[1]); exec(sys.argv[2])", [path, script]
                ).utf8))
        for (text, shlex) in zip(cases, expected) {
            let ours = try? CommandWords.split(text)
            #expect(ours == shlex, "\(text.debugDescription): ours \(String(describing: ours)), shlex \(String(describing: shlex))")
            if let ours { #expect(try CommandWords.split(CommandWords.join(ours)) == ours, "join of \(ours)") }
        }
    }
}
