import Foundation
import PlannerHarness

extension Harness {
    /// A harness whose `planner` is the binary SwiftPM built (each command a process of its own).
    init() throws {
        try self.init(planner: { args, env, dir in try Harness.run(Harness.binary, args, env: env, in: dir) })
    }
}
