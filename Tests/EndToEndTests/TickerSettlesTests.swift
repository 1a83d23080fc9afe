import Foundation
import PlannerHarness
import Testing

/// A live ticker with a sync folder settles after a change: a few passes, then sleep. On the previous main
/// each pass left its folder child behind (the parent stopped looking for its exit at once), the child's end
/// woke the loop, and that pass made the next child: a change cost the ticker dozens of passes and forks
/// (278–1,047 voluntary context switches for three changes, against 55–69 now).
@Suite struct TickerSettlesTests {
    /// The ticker's voluntary context switches so far (/proc/PID/status): one at least for every wake.
    static func switches(_ pid: Int32) -> Int {
        let text = String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/status") ?? Data(), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Waits until the count stops moving for 300 ms (at most 10 s), and says it.
    static func settled(_ pid: Int32) -> Int {
        var last = switches(pid)
        for _ in 0..<33 {
            usleep(300_000)
            let now = switches(pid)
            if now == last { return now }
            last = now
        }
        return last
    }

    @Test func threeChangesCostALiveTickerAFewPassesNotDozens() throws {
        let h = try Harness()
        let folder = h.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(try h.planner(["config", "set", "sync-folder", folder, "device-name", "laptop", "--db", h.db]).status == 0)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        let before = Self.settled(ticker.processIdentifier)
        for day in 1...3 {
            #expect(try h.planner(["skip", "2030-01-0\(day)", "--db", h.db]).status == 0)
            usleep(400_000)
        }
        let after = Self.settled(ticker.processIdentifier)
        #expect(after - before < 150, "\(after - before) voluntary context switches for three changes")
        #expect(try h.stop(ticker).status == 0)
    }
}
