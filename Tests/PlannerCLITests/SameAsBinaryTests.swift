import Foundation
import PlannerHarness
import Testing

/// The in-process harness is the binary: the same command lines, run once through `Main.run` in this
/// process and once through the built binary, each on a database of its own made by the same earlier
/// lines, print the same bytes and exit alike (reports, `--json`, `--help`, errors of every kind, a tick's
/// deliveries, an export). The tests moved in-process rely on it.
@Suite struct SameAsBinaryTests {
    static let lines: [[String]] = [
        ["refill", "--now", "2026-11-23T08:00", "--verbose"],
        ["list", "--now", "2026-11-23T08:00"],
        ["list", "--json", "--now", "2026-11-23T08:00"],
        ["status", "--now", "2026-11-23T09:00"],
        ["status", "--json", "--now", "2026-11-23T09:00"],
        ["add", "--title", "Call", "--in", "10m", "--now", "2026-11-23T09:00"],
        // Before the tick: a tick's delivery time has the milliseconds the tick itself took.
        ["history", "--json", "--now", "2026-11-23T10:00"],
        ["tick", "--once", "--sink", "stdout", "--now", "2026-11-23T10:05"],
        ["open", "--verbose", "--now", "2026-11-23T10:20"],
        ["config", "set", "window", "08:00-20:00", "interval", "45m", "--now", "2026-11-23T10:30", "--verbose"],
        ["config", "show", "--now", "2026-11-23T10:31"],
        ["config", "get", "window", "--now", "2026-11-23T10:31"],
        ["skip", "2026-11-25", "--now", "2026-11-23T10:32"],
        ["pause", "--for", "2h", "--now", "2026-11-24T10:00"],
        ["resume", "--now", "2026-11-24T11:00"],
        ["plan", "--days", "3", "--now", "2026-11-24T11:00"],
        ["stats", "--weeks", "2", "--now", "2026-11-24T11:00"],
        ["export", "--ics", "--days", "2", "--now", "2026-11-24T11:00"],
        ["devices", "--now", "2026-11-24T11:00"],
        // Errors: usage (64), a bad value, an unknown setting, a bad time.
        ["list", "--bogus"],
        ["config", "set", "interval", "7x", "--now", "2026-11-24T11:00"],
        ["config", "get", "nope", "--now", "2026-11-24T11:00"],
        ["open", "--now", "yesterday"],
        ["add", "--title", "x", "--now", "2026-11-24T11:00"],
        ["--version"],
        ["--help"],
        ["config", "--help"],
    ]

    @Test func everyLineAlike() throws {
        let inProcess = try Harness()
        let binary = try Harness()
        for line in Self.lines {
            // --db right after the subcommand(s), as a user would put it anywhere ArgumentParser takes it.
            let args = line.first!.hasPrefix("-") ? line : line + ["--db", "DB"]
            let a = try inProcess.planner(args.map { $0 == "DB" ? inProcess.db : $0 })
            let b = try binary.planner(args.map { $0 == "DB" ? binary.db : $0 }, binary: Harness.binary)
            let mine = (a.status, a.out.replacingOccurrences(of: inProcess.dir, with: "D"), a.err.replacingOccurrences(of: inProcess.dir, with: "D"))
            let its = (b.status, b.out.replacingOccurrences(of: binary.dir, with: "D"), b.err.replacingOccurrences(of: binary.dir, with: "D"))
            #expect(mine.0 == its.0, "\(line): exit \(mine.0) in-process, \(its.0) binary")
            #expect(mine.1 == its.1, "\(line): stdout differs: \(Self.firstDifference(mine.1, its.1))")
            #expect(mine.2 == its.2, "\(line): stderr differs: \(Self.firstDifference(mine.2, its.2))")
        }
    }

    /// Lines that find their database by the environment (PLANNER_DB, else XDG_DATA_HOME, else HOME), use a
    /// sync folder, and size help by COLUMNS: `D` stands for each harness's own folder.
    static let environmentLines: [(args: [String], env: [String: String])] = [
        (["refill", "--now", "2026-11-23T08:00"], ["PLANNER_DB": "D/env.db"]),
        (["status", "--now", "2026-11-23T08:00"], ["PLANNER_DB": "D/env.db"]),
        (["status", "--now", "2026-11-23T08:00"], ["XDG_DATA_HOME": "D/data"]),
        (["list", "--json", "--now", "2026-11-23T08:00"], ["HOME": "D"]),
        (["config", "set", "sync-folder", "D/shared", "--now", "2026-11-23T08:01"], ["PLANNER_DB": "D/env.db"]),
        (["open", "--now", "2026-11-23T10:00"], ["PLANNER_DB": "D/env.db"]),
        (["sync", "--json", "--now", "2026-11-23T10:01"], ["PLANNER_DB": "D/env.db"]),
        (["history", "--now", "2026-11-23T10:02"], ["PLANNER_DB": "D/env.db"]),
        (["--help"], ["COLUMNS": "120"]),
        (["help", "config"], ["COLUMNS": "60"]),
        (["open", "--now", "2026-11-23T10:00"], ["TZ": "Mars/Base", "PLANNER_DB": "D/env.db"]),
    ]

    @Test func environmentLinesAlike() throws {
        let inProcess = try Harness()
        let binary = try Harness()
        try FileManager.default.createDirectory(atPath: inProcess.dir + "/shared", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: binary.dir + "/shared", withIntermediateDirectories: true)
        for (args, env) in Self.environmentLines {
            func run(_ h: Harness, binary path: String?) throws -> (Int32, String, String) {
                let resolved = env.mapValues { $0.replacingOccurrences(of: "D", with: h.dir, options: .anchored) }
                let r = try h.planner(
                    args.map { $0.replacingOccurrences(of: "D/", with: h.dir + "/", options: .anchored) }, env: resolved, binary: path)
                return (r.status, r.out.replacingOccurrences(of: h.dir, with: "D"), r.err.replacingOccurrences(of: h.dir, with: "D"))
            }
            let mine = try run(inProcess, binary: nil)
            let its = try run(binary, binary: Harness.binary)
            #expect(mine.0 == its.0, "\(args) \(env): exit \(mine.0) in-process, \(its.0) binary")
            #expect(mine.1 == its.1, "\(args) \(env): stdout differs: \(Self.firstDifference(mine.1, its.1))")
            #expect(mine.2 == its.2, "\(args) \(env): stderr differs: \(Self.firstDifference(mine.2, its.2))")
        }
    }

    /// The first line that differs, in-process then binary.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let (x, y) = (a.split(separator: "\n", omittingEmptySubsequences: false), b.split(separator: "\n", omittingEmptySubsequences: false))
        for i in 0..<max(x.count, y.count) where i >= x.count || i >= y.count || x[i] != y[i] {
            return "line \(i + 1): \(i < x.count ? String(reflecting: x[i]) : "(none)") against \(i < y.count ? String(reflecting: y[i]) : "(none)")"
        }
        return "none"
    }
}
