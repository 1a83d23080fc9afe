import Foundation
import PlannerHarness
import Testing

/// Hostile values on the command line, in the environment and in the database: every refusal is one
/// `error:` line (exit 64, nothing on stdout, no file created or changed), nothing traps, and nothing
/// a title or identifier holds reaches the terminal as a line break or a control sequence.
@Suite struct HostileInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var args: [String]
        var env: [String: String] = [:]
        var says: String
        var testDescription: String { name }
    }

    static let family = "👩‍👩‍👧‍👦"  // 1 Character, 7 Unicode scalars: SQLite's length() counts 7

    static let cases: [Case] = [
        Case(name: "--in past Int64 year range", args: ["add", "--in", "999999999d", "--title", "t"], says: "after the year 9990"),
        Case(name: "--in past year 9990", args: ["add", "--in", "3000000d", "--title", "t"], says: "after the year 9990"),
        Case(
            name: "--at past year 9990 in TZ", args: ["add", "--at", "9990-12-31T23:59-23:59", "--title", "t"],
            says: "after the year 9990 in Asia/Seoul"),
        Case(name: "--in negative", args: ["add", "--in", "-5m", "--title", "t"], says: "cannot be negative"),
        Case(name: "--in bad unit", args: ["add", "--in", "15min", "--title", "t"], says: "invalid --in '15min'"),
        Case(name: "--in with a line break", args: ["add", "--in", "5\nm", "--title", "t"], says: "invalid --in '5\\nm'"),
        Case(name: "--at garbage", args: ["add", "--at", "garbage", "--title", "t"], says: "invalid time 'garbage'"),
        Case(name: "--at in the past", args: ["add", "--at", "2026-11-23T12:00", "--title", "t"], says: "not in the future"),
        Case(
            name: "--id of 150 emoji (1050 code points)", args: ["add", "--in", "5m", "--title", "t", "--id", String(repeating: family, count: 150)],
            says: "1 to 200 characters"),
        Case(
            name: "--id of 201 code points", args: ["add", "--in", "5m", "--title", "t", "--id", String(repeating: "é", count: 201)],
            says: "1 to 200 characters"),
        Case(name: "--id with a tab", args: ["add", "--in", "5m", "--title", "t", "--id", "a\tb"], says: "control characters"),
        Case(name: "--id with CR-LF", args: ["add", "--in", "5m", "--title", "t", "--id", "a\r\nb"], says: "control characters"),
        Case(name: "--id with LF", args: ["add", "--in", "5m", "--title", "t", "--id", "a\nb"], says: "control characters"),
        Case(name: "--id with ESC", args: ["add", "--in", "5m", "--title", "t", "--id", "a\u{1B}[2Jb"], says: "control characters"),
        Case(name: "--id with NEL", args: ["add", "--in", "5m", "--title", "t", "--id", "a\u{85}b"], says: "control characters"),
        Case(name: "--id with U+2028", args: ["add", "--in", "5m", "--title", "t", "--id", "a\u{2028}b"], says: "control characters"),
        Case(name: "--id only spaces", args: ["add", "--in", "5m", "--title", "t", "--id", "   "], says: "--id must not be only spaces"),
        Case(name: "--title only spaces", args: ["add", "--in", "5m", "--title", " \t "], says: "--title must contain some visible text"),
        Case(name: "--now with a line break", args: ["list", "--now", "2026-11-23T12:00\nx"], says: "invalid time '2026-11-23T12:00\\nx'"),
        Case(
            name: "PLANNER_NOW with ESC", args: ["status"], env: ["PLANNER_NOW": "\u{1B}]0;pwned\u{07}"], says: "invalid time '\\u{1B}]0;pwned\\u{7}'"
        ),
        Case(name: "TZ with a line break", args: ["list"], env: ["TZ": "Asia/Seoul\nX"], says: "unknown time zone 'Asia/Seoul\\nX'"),
        Case(name: "--limit negative", args: ["history", "--limit", "-5"], says: "--limit must be at least 1"),
        Case(name: "--limit with a line break", args: ["history", "--limit", "1\n2"], says: "the value '1\\n2' is invalid"),
        Case(name: "--grace negative (refill)", args: ["refill", "--grace", "-5m"], says: "invalid --grace '-5m'"),
        Case(name: "--grace negative (open)", args: ["open", "--grace", "-5m"], says: "invalid --grace '-5m'"),
        Case(name: "--grace negative (tick)", args: ["tick", "--once", "--grace", "-5m"], says: "invalid --grace '-5m'"),
        Case(name: "--grace too long a number", args: ["refill", "--grace", "99999999999999999999d"], says: "invalid --grace"),
    ]

    /// Runs `c` against `path`, with --db and (unless the case sets PLANNER_NOW or --now) --now.
    static func refuse(_ c: Case, _ h: Harness, path: String) throws -> Harness.Result {
        var args = [c.args[0], "--db", path]
        if c.env["PLANNER_NOW"] == nil && !c.args.contains("--now") { args += ["--now", "2026-11-23T12:30"] }
        return try h.planner(args + c.args.dropFirst(), env: c.env)
    }

    static func expectOneLineRefusal(_ r: Harness.Result, _ c: Case) {
        #expect(r.status == 64, "\(r.err)")
        #expect(r.out.isEmpty, "\(r.out)")
        #expect(r.err.hasPrefix("error: "), "\(r.err)")
        #expect(
            Array(r.err.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 }) == ["\n"], "\(r.err)")
        #expect(r.err.hasSuffix("\n"))
        #expect(r.err.contains(c.says), "\(r.err)")
        #expect(!r.err.contains("Fatal error") && !r.err.contains("Backtrac") && !r.err.contains("constraint"), "\(r.err)")
    }

    @Test(arguments: cases)
    func refusedBeforeAnyFileIsCreated(_ c: Case) throws {
        let h = try Harness()
        let r = try Self.refuse(c, h, path: h.db)
        Self.expectOneLineRefusal(r, c)
        #expect(!FileManager.default.fileExists(atPath: h.db), "a file was created")
        #expect(!FileManager.default.fileExists(atPath: h.db + "-wal"))
    }

    @Test(arguments: cases)
    func refusedWithTheDatabaseUnchanged(_ c: Case) throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.sqlite("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = h.bytes(h.db)
        let walBefore = h.bytes(h.db + "-wal")
        let r = try Self.refuse(c, h, path: h.db)
        Self.expectOneLineRefusal(r, c)
        #expect(h.bytes(h.db) == before, "the file changed")
        #expect(h.bytes(h.db + "-wal") == walBefore, "its WAL changed")
    }

    /// What the refusals must not catch: titles and bodies starting with '-', long emoji identifiers
    /// within the schema's 200 code points, the last supported year.
    @Test func acceptsWhatLooksOddButIsValid() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        let id = String(repeating: Self.family, count: 28)  // 196 code points
        let out = try h.plannerOK(["add", "--in", "5m", "--title", "-5 push-ups", "--body", "-x", "--id", id], now: now)
        #expect(out.hasPrefix("added \(id) for "))
        #expect(try h.sqlite("SELECT length(identifier), title, body FROM request WHERE kind = 'oneoff'") == "196|-5 push-ups|-x")
        _ = try h.plannerOK(["add", "--at", "9990-12-31T23:59", "--title", "late", "--id", "late"], now: now)
        _ = try h.plannerOK(["add", "--in", "2900000d", "--title", "far", "--id", "far"], now: now)  // year 9966
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE identifier IN ('late', 'far')") == "2")
    }

    /// `tick --once --sink stdout` with a title and (from a hand-edited file) an identifier holding every
    /// kind of line break and control: exactly one line, three tab-separated fields.
    @Test func stdoutSinkWritesOneLineOfThreeFields() throws {
        let h = try Harness()
        let title = "a\r\nb\u{0B}c\u{0C}d\u{1B}[31mred\u{85}e\u{2028}f\u{2029}g\u{7F}h\u{9B}i\tj\nk"
        _ = try h.plannerOK(["add", "--at", "2026-11-23T12:05", "--title", title, "--id", "x"], now: "2026-11-23T12:00")
        _ = try h.sqlite(
            "UPDATE request SET identifier = 'i' || char(13, 10) || 'd' || char(9) || 'e' || char(27) || '[2J' || char(133) || char(8232) WHERE identifier = 'x'"
        )
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:05")
        #expect(out.hasSuffix("\n"))
        let controls: [Unicode.Scalar] = out.unicodeScalars.filter {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
        }
        #expect(controls == ["\t", "\t", "\n"], "\(out.unicodeScalars.map { String($0.value, radix: 16) })")
        let fields = out.dropLast().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 3)
        #expect(fields.first == "i  d e [2J  ")
        #expect(fields.dropFirst().first == "2026-11-23T12:05:00+09:00")
        #expect(fields.last == "a  b c d [31mred e f g h i j k")  // CR and LF: a space each
    }

    /// Identifiers, titles and errors from a hand-edited database in the human output of list, status and
    /// history: one line per row, no control character. --json keeps them exact, escaped.
    @Test func humanOutputIsSanitizedAndJSONStaysExact() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["add", "--in", "1m", "--title", "t\u{1B}]0;x\u{07}", "--id", "a"], now: now)
        _ = try h.plannerOK(["add", "--in", "2m", "--title", "t", "--id", "b"], now: now)
        let hostile = "'e' || char(13, 10) || 'vil' || char(27) || '[2J' || char(133) || char(8232) || char(127)"
        _ = try h.sqlite("UPDATE request SET identifier = \(hostile) WHERE identifier = 'a'")
        _ = try h.sqlite("UPDATE request SET state = 'failed', error = \(hostile) WHERE identifier = 'b'")
        func isControl(_ s: Unicode.Scalar) -> Bool {
            s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
        }
        for command in [["list"], ["status"], ["history"]] {
            let out = try h.plannerOK(command, now: now)
            #expect(out.unicodeScalars.filter(isControl).allSatisfy { $0 == "\n" }, "\(command): \(out)")
            // status names the next reminder by its time and title (flattened), not by its identifier.
            #expect(out.contains(command == ["status"] ? "\"t ]0;x \"" : "e  vil [2J   "), "\(command): \(out)")
        }
        #expect(try h.plannerOK(["list"], now: now).split(separator: "\n").count == 3)  // header, one row, the count
        #expect(try h.plannerOK(["history"], now: now).split(separator: "\n").count == 2)  // header, the failed row
        let expected = "e\r\nvil\u{1B}[2J\u{85}\u{2028}\u{7F}"
        let list = try h.plannerOK(["list", "--json"], now: now)
        #expect(list.unicodeScalars.filter(isControl).allSatisfy { $0 == "\n" }, "\(list)")
        #expect(try parseList(list).first?["identifier"] == expected)
        let history = try h.plannerOK(["history", "--json"], now: now)
        #expect(history.unicodeScalars.filter(isControl).allSatisfy { $0 == "\n" }, "\(history)")
        let entries = try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [[String: Any]] ?? []
        #expect(entries.compactMap { $0["error"] as? String } == [expected])
        let status = try h.plannerOK(["status", "--json"], now: now)
        let object = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
        #expect(object?["next_id"] as? String == expected)
    }

    /// Instants at Int64's ends (a hand-edited or damaged file): every command reports them, none traps.
    @Test func extremeInstantsInTheDatabaseDoNotCrash() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        _ = try h.sqlite(
            """
            UPDATE request SET fire_at_ms = -9223372036854775808 WHERE id = (SELECT min(id) FROM request WHERE state = 'pending');
            UPDATE request SET fire_at_ms = 9223372036854775807 WHERE id = (SELECT max(id) FROM request WHERE state = 'pending');
            """)
        for command in [
            ["list"], ["list", "--json"], ["status"], ["status", "--json"], ["history"], ["history", "--json"],
            ["tick", "--once", "--sink", "stdout"], ["refill", "--verbose"], ["open"],
        ] {
            let r = try h.planner([command[0], "--db", h.db, "--now", now] + command.dropFirst())
            #expect(r.status == 0, "\(command): \(r.err)")
            #expect(!r.err.contains("Fatal error") && !r.err.contains("Backtrac"), "\(command): \(r.err)")
        }
    }
}
