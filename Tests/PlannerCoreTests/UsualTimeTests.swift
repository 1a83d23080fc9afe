import Foundation
import Testing

@testable import PlannerCore

/// The `usual-time` schedule makes the same decisions as the simulator's reference (`usual_time_minutes` in
/// bench/nudges/sim.py, policy B3g) on random records: studied days, their starts, how far back.
@Suite struct UsualTimeTests {
    static let sim = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../bench/nudges").path

    /// Random records (fixed seeds; PLANNER_PROPERTY_SEEDS for more): each a run of weekdays before Monday
    /// 2026-11-30, each studied or not, with a start around a usual time of its own spread.
    @Test func decidesAsTheSimulatorsReference() throws {
        let count = Int(ProcessInfo.processInfo.environment["PLANNER_PROPERTY_SEEDS"] ?? "") ?? 400
        var random = SplitMix64(seed: 2026)
        func uniform() -> Double { Double(random.next() >> 11) / 9_007_199_254_740_992 }
        let day = LocalDate(year: 2026, month: 11, day: 30)
        var lines: [String] = []
        var decisions: [[Int]?] = []
        for _ in 0..<count {
            let length = 5 + Int(uniform() * 60)
            let share = uniform()
            let usual = 420 + uniform() * 1020  // 07:00 to 24:00
            let spread = [10.0, 40.0, 85.0, 95.0, 200.0][Int(uniform() * 5)]
            // The study days before `day`, newest first, then written oldest first for the reference.
            var studyDays: [LocalDate] = []
            var date = day
            while studyDays.count < length {
                date = date.adding(days: -1)
                if date.isoWeekday <= 5 { studyDays.append(date) }
            }
            var opens: [LocalDate: Int] = [:]
            var history: [String] = []
            for date in studyDays.reversed() {
                if uniform() < share {
                    // Box-Muller, kept inside the day (a start is a time of that day).
                    let z = (-2 * log(1 - uniform())).squareRoot() * cos(2 * Double.pi * uniform())
                    let start = min(max(Int((usual + spread * z).rounded(.down)), 0), 1439)
                    opens[date] = start
                    history.append("[1, \(start)]")
                } else {
                    history.append("[0, null]")
                }
            }
            lines.append("[" + history.joined(separator: ", ") + "]")
            decisions.append(UsualTime.decide(day: day, firstOpens: opens, skipped: [], schedule: .standard).minutes)
        }
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            import sim
            for line in sys.stdin:
                minutes = sim.usual_time_minutes([(bool(s), t) for s, t in json.loads(line)])
                print("grid" if minutes is None else " ".join(map(str, minutes)))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, Self.sim]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "the reference failed (numpy missing? scripts/test installs python3-numpy)")
        let reference = text.split(separator: "\n").map { $0 == "grid" ? nil : $0.split(separator: " ").map { Int($0)! } }
        try #require(reference.count == count)
        var usual = 0
        for i in 0..<count {
            #expect(decisions[i] == reference[i], "record \(i): \(lines[i])")
            if decisions[i] != nil { usual += 1 }
        }
        // Both outcomes are exercised.
        #expect(usual > count / 10 && usual < count * 9 / 10, "\(usual) of \(count) took the usual time")
    }

    /// A skipped day is no study day: it neither counts for the 10 of 20 nor against them.
    @Test func aSkippedDayNeitherCountsForNorAgainst() {
        let day = LocalDate(year: 2026, month: 11, day: 30)
        var opens: [LocalDate: Int] = [:]
        var skipped: Set<LocalDate> = []
        var date = day
        var n = 0
        while n < 20 {
            date = date.adding(days: -1)
            guard date.isoWeekday <= 5 else { continue }
            // 10 studied, then 10 not studied but skipped: still the usual time (without the skips, 10 of 20).
            if n % 2 == 0 { opens[date] = 1140 } else { skipped.insert(date) }
            n += 1
        }
        let decided = UsualTime.decide(day: day, firstOpens: opens, skipped: skipped, schedule: .standard)
        #expect(decided.minutes == [1125, 1185, 1275], "\(decided)")
        #expect(decided.why == "usual start 19:00 from your last 10 starts: 18:45, 19:45, last call 21:15")
        // Without a record: the grid, and why.
        #expect(
            UsualTime.decide(day: day, firstOpens: [:], skipped: [], schedule: .standard).why
                == "the grid: 0 studied days in the last 20, fewer than 10")
    }
}
