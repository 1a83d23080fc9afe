import Foundation
import PlannerHarness

extension Harness {
    /// A harness whose `planner` is the binary SwiftPM built (each command a process of its own).
    ///
    /// Its commands wait 5 s, not 600 ms, for a folder that makes no progress: beside the suite's hundreds of
    /// fsyncs, a calendar's `syncfs` once took longer than 600 ms and its command left the writing to the
    /// next one, so a test of what the folder holds failed (CI on af91a4c). `productDeadline` gives the
    /// product's wait back to the tests of stalled folders.
    init(productDeadline: Bool = false) throws {
        try self.init(planner: { args, env, dir in try Harness.run(Harness.binary, args, env: env, in: dir) })
        if !productDeadline { env["PLANNER_FOLDER_DEADLINE_MS"] = "5000" }
    }
}
