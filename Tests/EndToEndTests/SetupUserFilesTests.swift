import Foundation
import Testing

/// `planner setup` and the user's own files. Every refusal is one `error:` line with nothing written.
extension SetupTests {
    static func expectOneErrorLine(_ r: Harness.Result, status: Int32, mentioning words: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.hasPrefix("error: ") && r.err.hasSuffix("\n") && r.err.filter { $0 == "\n" }.count == 1,
                "one error line: \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(words), "\(r.err)", sourceLocation: sourceLocation)
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
