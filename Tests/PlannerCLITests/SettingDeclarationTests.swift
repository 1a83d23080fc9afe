import Foundation
import PlannerHarness
import Testing

/// Each setting is declared once (issue 20): `config` and its help, bash completion of keys and values, and
/// a database that does not hold a declared key yet all follow the declaration, with no migration.
@Suite struct SettingDeclarationTests {
    /// The keys the database holds, through the `settings` view users query.
    func storedKeys(_ h: Harness) throws -> [String] {
        try h.sqlite("SELECT key FROM settings").split(separator: "\n").map(String.init).sorted()
    }

    /// A setting newer than the file (its row absent, as for a key added without a migration) reads as
    /// its default, shows in `config`, and the next write adds its row; `config set` works on it.
    @Test func aDeclaredKeyWithoutARowNeedsNoMigration() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let all = try storedKeys(h)
        _ = try h.sqlite("DELETE FROM setting WHERE key IN ('snooze', 'sound')")
        let shown = try h.config(["--json"], now: "2026-11-23T12:01")
        #expect(shown.status == 0 && shown.err.isEmpty, "\(shown.err)")
        let json = try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: [String: Any]] ?? [:]
        #expect(json.keys.sorted() == all)
        #expect(json["snooze"]?["value"] as? String == "15m" && json["snooze"]?["default"] as? Bool == true)
        #expect(try h.config(["get", "sound"], now: "2026-11-23T12:02").out == "\n")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:03")
        #expect(try storedKeys(h) == all, "the write did not add the rows")
        _ = try h.sqlite("DELETE FROM setting WHERE key = 'sound'")
        try h.configOK(["set", "sound", "complete"], now: "2026-11-23T12:04")
        #expect(try h.sqlite("SELECT value, is_default FROM settings WHERE key = 'sound'") == "complete|0")
    }

    /// `config --help` names every key the database holds, with its default.
    @Test func theHelpListsEveryKey() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let help = try h.planner(["config", "--help"]).out
        for key in try storedKeys(h) {
            #expect(help.contains("\n  \(key) "), "\(key) missing from config --help")
        }
        for (key, value) in try h.sqlite("SELECT key || '=' || value FROM settings WHERE key IN ('window', 'interval', 'snooze')")
            .split(separator: "\n").map({ $0.split(separator: "=").map(String.init) }).map({ ($0[0], $0[1]) })
        {
            #expect(help.replacingOccurrences(of: "\n", with: " ").contains("default \"\(value)\""), "\(key)'s default")
        }
    }

    /// A real bash with the generated completion script: `config set <Tab>` offers the keys, and a key's
    /// values after it.
    @Test func configSetCompletesKeysAndValues() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let script = """
            source <("$1" --generate-completion-script bash)
            complete_line() {
                COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$2"
                [[ "$2" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _planner; printf '%s\\n' "${COMPREPLY[@]}"
            }
            complete_line "$1" "planner config set "
            echo ==
            complete_line "$1" "planner config set urgency "
            echo ==
            complete_line "$1" "planner config set urgency low "
            """
        let r = try h.run(
            "/bin/bash", ["-c", script, "bash", Harness.binary],
            env: h.env.merging(["PATH": URL(fileURLWithPath: Harness.binary).deletingLastPathComponent().path + ":/usr/bin:/bin"]) { $1 })
        let parts = r.out.components(separatedBy: "==\n").map { $0.split(separator: "\n").map(String.init) }
        #expect(parts.count == 3, "\(r.out) \(r.err)")
        #expect(parts.first?.sorted() == (try storedKeys(h)))
        #expect(parts.dropFirst().first.map(Set.init) == ["low", "normal", "critical"])  // README: urgency accepts these
        #expect(parts.last?.sorted() == (try storedKeys(h)))
    }
}
