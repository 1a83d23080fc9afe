import Foundation
import PlannerHarness
import Testing

/// What scripts read — every `--json` key and every SQL view's column — is pinned in `Interface.txt` beside
/// this file. A key or column that disappears fails here unless CHANGELOG.md names it (a removal or a
/// rename is a breaking change: docs/compatibility.md); one that appears fails until it is pinned and
/// CHANGELOG.md names it. The keys are read from the commands' real output on a database that has a bit of
/// everything, the columns from SQLite itself.
@Suite struct InterfaceTests {
    /// Every key path in a JSON value: `key`, `key.sub`, `key[].sub`; a top-level array's elements as `[]`.
    static func paths(_ value: Any, prefix: String = "") -> Set<String> {
        var found: Set<String> = []
        if let object = value as? [String: Any] {
            for (key, inner) in object {
                let path = prefix.isEmpty ? key : prefix + "." + key
                found.insert(path)
                found.formUnion(paths(inner, prefix: path))
            }
        } else if let array = value as? [Any] {
            for element in array { found.formUnion(paths(element, prefix: prefix + "[]")) }
        }
        return found
    }

    /// The current interface, one line each: `json <command> <key path>`, `view <view> <column>`.
    static func current() throws -> Set<String> {
        let h = try Harness()
        let other = try Harness()
        let folder = h.dir + "/shared"
        let calendar = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (harness, name) in [(h, "desktop"), (other, "laptop")] {
            try harness.configOK(["set", "sync-folder", folder, "device-name", name], now: "2026-11-23T08:00")
        }
        try h.configOK(["set", "calendar-folder", calendar], now: "2026-11-23T08:00")
        // Measurement mode, so that `stats --nudges` has a decision point (10:00, after the day's first).
        try h.configOK(["set", "experiment", "on"], now: "2026-11-23T08:00")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try other.plannerOK(["skip", "2026-12-02", "--reason", "dentist"], now: "2026-11-23T08:01")
        _ = try h.plannerOK(["add", "--at", "2026-11-23T09:10", "--title", "Call", "--body", "mum"], now: "2026-11-23T08:02")
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T09:31", stderrAllowed: true)
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T10:00", stderrAllowed: true)
        _ = try h.plannerOK(["open"], now: "2026-11-23T10:05")
        var lines: Set<String> = []
        let commands: [(String, [String])] = [
            ("status", ["status", "--json"]), ("list", ["list", "--json"]), ("history", ["history", "--all", "--json"]),
            ("stats", ["stats", "--json"]), ("stats --nudges", ["stats", "--nudges", "--json"]), ("sync", ["sync", "--json"]),
            ("devices", ["devices", "--json"]),
            ("config", ["config", "--json"]), ("plan", ["plan", "--json"]), ("skip", ["skip", "--list", "--json"]),
        ]
        for (name, args) in commands {
            let out = try h.plannerOK(args, now: "2026-11-23T10:06", stderrAllowed: true)
            let value = try JSONSerialization.jsonObject(with: Data(out.utf8))
            for path in paths(value) { lines.insert("json \(name) \(path)") }
        }
        let views = try h.sqlite("SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name").split(separator: "\n")
        for view in views {
            for column in try h.sqlite("SELECT name FROM pragma_table_info('\(view)')").split(separator: "\n") {
                lines.insert("view \(view) \(column)")
            }
        }
        return lines
    }

    static var pinnedPath: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interface.txt") }

    @Test func everyKeyAndColumnThatCameOrWentIsInTheChangelog() throws {
        let pinned = Set(
            try String(contentsOf: Self.pinnedPath, encoding: .utf8).split(separator: "\n").map(String.init).filter {
                !$0.isEmpty && !$0.hasPrefix("#")
            })
        let now = try Self.current()
        let changelog = try Harness.repositoryText("CHANGELOG.md")
        // The last word of a path is what a changelog entry names: `calendar_round_at`, `days[].opened`'s `opened`.
        func named(_ line: String) -> Bool {
            let leaf = line.split(separator: " ").last!.split(separator: ".").last!.replacingOccurrences(of: "[]", with: "")
            return changelog.contains("`\(leaf)`")
        }
        let gone = pinned.subtracting(now).sorted()
        let came = now.subtracting(pinned).sorted()
        #expect(
            gone.filter { !named($0) }.isEmpty,
            "gone without a CHANGELOG.md entry naming it (a breaking change: docs/compatibility.md):\n\(gone.filter { !named($0) }.joined(separator: "\n"))"
        )
        #expect(came.filter { !named($0) }.isEmpty, "new, and not named in CHANGELOG.md:\n\(came.filter { !named($0) }.joined(separator: "\n"))")
        #expect(
            gone.isEmpty && came.isEmpty,
            "then make Interface.txt the interface as it is (remove the first, add the second):\n- \(gone.joined(separator: "\n- "))\n+ \(came.joined(separator: "\n+ "))"
        )
    }
}
