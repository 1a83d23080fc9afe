import Foundation
import Testing

@testable import PlannerCore

/// `planner stats --nudges`'s estimator, fitted to the nudge simulator's students in measurement mode
/// (`bench/nudges/run.py measure`: the grid until studied, each slot after the day's first withheld with
/// probability 0.2): it must find the ρ they were simulated with, and tell a world where each further reminder
/// is worth 0.6 of the one before from one where it is worth as much.
@Suite struct NudgeEffectsTests {
    static let bench = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../bench/nudges/run.py").path

    /// The simulator's decision points for `rho` (fixed seeds: the same rows every run).
    static func simulated(rho: Double, students: Int = 200, days: Int = 40, seeds: String = "6") throws -> [NudgeEffects.Point] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [bench, "measure", "--rho", "\(rho)", "--students", "\(students)", "--days", "\(days)", "--seeds", seeds]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "run.py measure failed (numpy missing? scripts/test installs python3-numpy)")
        var points: [NudgeEffects.Point] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: "\t").map { Double($0)! }
            points.append(
                NudgeEffects.Point(
                    cluster: Int(f[0]), minute: Int(f[1]), shownBefore: Int(f[2]), shown: f[3] == 1, withholdProbability: f[4],
                    startedWithin60: f[5] == 1, startedBeforeNext: f[6] == 1))
        }
        return points
    }

    @Test(arguments: [0.6, 1.0]) func recoversTheSimulatedDecay(rho: Double) throws {
        let estimates = NudgeEffects.estimate(try Self.simulated(rho: rho), resamples: 200)
        let decay = try #require(estimates.decay, "no estimate from \(estimates.points) points")
        #expect(decay.low <= rho && rho <= decay.high, "ρ = \(rho): estimated \(decay)")
        #expect(abs(decay.estimate - rho) < 0.1, "ρ = \(rho): estimated \(decay)")
        // Each world's interval leaves the other world out.
        let other = rho == 0.6 ? 1.0 : 0.6
        #expect(!(decay.low <= other && other <= decay.high), "ρ = \(rho): \(decay) does not tell it from \(other)")
        // A shown reminder helps (the simulator's reminders convert), and the interval says so.
        #expect((estimates.overall.low ?? 0) > 0, "\(estimates.overall)")
    }

    /// The weighting by recorded probabilities: with every point shown or withheld by a coin of its own
    /// chance, a group whose shown and withheld points start alike has no effect, whatever the chances.
    @Test func equalStartsHaveNoEffect() {
        var points: [NudgeEffects.Point] = []
        for day in 0..<399 {
            for slot in 0..<4 {
                let p = slot < 2 ? 0.2 : 0.5
                // The same coins for the three days of each outcome: the arms see the outcomes alike.
                let shown = ((day / 3) * 7 + slot * 3) % 10 >= Int(p * 10)
                points.append(
                    NudgeEffects.Point(
                        cluster: day, minute: 600 + 30 * slot, shownBefore: 1 + slot, shown: shown, withholdProbability: p,
                        startedWithin60: day % 3 == 0, startedBeforeNext: day % 3 == 0))
            }
        }
        let estimates = NudgeEffects.estimate(points, resamples: 200)
        #expect(abs(estimates.overall.difference ?? 1) < 1e-9, "\(estimates.overall)")
        let (low, high) = (estimates.overall.low ?? -1, estimates.overall.high ?? -1)
        #expect(low <= 0 && 0 <= high)
        // The day's first slot (chance 0) and a point certain to be shown are not randomised: left out.
        let unrandomised = NudgeEffects.Point(
            cluster: 0, minute: 570, shownBefore: 0, shown: true, withholdProbability: 0, startedWithin60: true, startedBeforeNext: true)
        #expect(NudgeEffects.estimate(points + [unrandomised], resamples: 200).points == points.count)
    }

    /// Too few withheld reminders give counts, never an interval.
    @Test func fewPointsGiveNoInterval() {
        let points = (0..<6).map {
            NudgeEffects.Point(
                cluster: $0, minute: 600, shownBefore: 1, shown: $0 > 1, withholdProbability: 0.2, startedWithin60: $0 % 2 == 0,
                startedBeforeNext: false)
        }
        let estimates = NudgeEffects.estimate(points, resamples: 100)
        #expect(estimates.overall.shown == 4 && estimates.overall.withheld == 2)
        #expect(estimates.overall.low == nil && estimates.overall.high == nil && estimates.decay == nil)
    }
}
