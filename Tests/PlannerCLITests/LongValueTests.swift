import Foundation
import PlannerHarness
import Testing

/// A refused value is quoted by its start and its length, never whole (issue 19 item 15: a 50,000-word
/// `study-command` made a 100 KB error line), and no error line is long, whatever it echoes.
@Suite struct LongValueTests {
    /// 100,000 characters.
    static let essay = String(repeating: "word ", count: 20_000)
    static let longPath = String(repeating: "d/", count: 30_000) + "x.db"

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var args: [String]
        var env: [String: String] = [:]
        var exitCode: Int32 = 64
        /// The planner's own message quotes the value: its start, then its length.
        var quotes: String? = essay
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "study-command", args: ["config", "set", "study-command", essay]),
        Case(name: "title", args: ["config", "set", "title", essay]),
        Case(name: "body", args: ["config", "set", "body", essay]),
        Case(name: "an unknown setting", args: ["config", "set", essay, "x"]),
        Case(
            name: "zone", args: ["config", "set", "zone", essay.replacingOccurrences(of: " ", with: "_")],
            quotes: essay.replacingOccurrences(of: " ", with: "_")),
        Case(name: "add --in", args: ["add", "--in", essay, "--title", "t"]),
        Case(name: "add --at", args: ["add", "--at", essay, "--title", "t"]),
        // A one-off travels to the other devices as one line: refused without echoing it.
        Case(name: "add --title", args: ["add", "--in", "1h", "--title", essay], quotes: nil),
        Case(name: "add --body", args: ["add", "--in", "1h", "--title", "t", "--body", essay], quotes: nil),
        Case(name: "--now", args: ["refill", "--now", essay]),
        Case(name: "--grace", args: ["refill", "--grace", essay]),
        Case(name: "tick --urgency", args: ["tick", "--once", "--urgency", essay]),
        Case(name: "skip", args: ["skip", essay]),
        Case(name: "pause --until", args: ["pause", "--until", essay]),
        Case(name: "pause --for", args: ["pause", "--for", essay]),
        Case(name: "study's program", args: ["study", "--", essay], exitCode: 127),
        Case(name: "TZ", args: ["list"], env: ["TZ": essay]),
        Case(name: "PLANNER_NOW", args: ["refill"], env: ["PLANNER_NOW": essay]),
        // Echoed by ArgumentParser or as a path, not quoted by the planner: the line is still short.
        Case(name: "tick --sink (ArgumentParser)", args: ["tick", "--once", "--sink", essay], quotes: nil),
        Case(name: "an unknown option (ArgumentParser)", args: ["--" + essay], quotes: nil),
        Case(name: "--db", args: ["refill", "--db", longPath], exitCode: 74, quotes: nil),
        Case(name: "PLANNER_DB", args: ["refill"], env: ["PLANNER_DB": longPath], exitCode: 74, quotes: nil),
    ]

    @Test(arguments: cases)
    func aLongValueIsQuotedByItsStart(_ c: Case) throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        let before = h.bytes(h.db)
        // Options after the subcommand (config's after its own subcommand); none after `study --`.
        let (head, rest) =
            c.args[0] == "config"
            ? (Array(c.args.prefix(2)), Array(c.args.dropFirst(2)))
            : (Array(c.args.prefix(1)), Array(c.args.dropFirst()))
        let dbGiven = c.args.contains("--db") || c.env["PLANNER_DB"] != nil
        let defaults =
            (dbGiven ? [] : ["--db", h.db]) + (c.args.contains("--now") || c.env["PLANNER_NOW"] != nil ? [] : ["--now", "2026-11-23T12:00"])
        let args = c.args[0].hasPrefix("--") ? c.args : head + defaults + rest
        let r = try h.planner(args, env: c.env)
        #expect(r.status == c.exitCode, "\(r.err.prefix(300))")
        #expect(r.err.hasPrefix("error: ") && r.err.filter { $0 == "\n" }.count == 1, "\(r.err.prefix(300))")
        #expect(r.err.unicodeScalars.count <= 1_000, "\(r.err.unicodeScalars.count) characters: \(r.err.prefix(300))")
        if let value = c.quotes {
            // Its start, cut, and how long it was.
            #expect(r.err.contains("'" + value.prefix(40)), "\(r.err.prefix(300))")
            #expect(r.err.contains("…' (\(value.unicodeScalars.count) characters)"), "\(r.err.prefix(300))")
            #expect(r.err.unicodeScalars.count <= 600, "\(r.err.unicodeScalars.count) characters: \(r.err.prefix(300))")
        }
        #expect(h.bytes(h.db) == before)
    }

    /// A short value is quoted whole, as before.
    @Test func aShortValueIsQuotedWhole() throws {
        let h = try Harness()
        let r = try h.planner(["config", "set", "interval", "7s", "--db", h.db])
        #expect(r.status == 64 && r.err.hasPrefix("error: invalid interval '7s': expected "), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: h.db))
    }
}
