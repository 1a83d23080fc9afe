import Foundation
import PlannerCore
import SchemaFingerprint
import Testing

/// Nothing a user controls is ever spliced into SQL text: every SQL string the store passes to SQLite
/// is a literal without interpolation, except the planner's own constants listed here.
@Suite struct SQLTextTests {
    static let allowed = [
        "PRAGMA application_id = \\(Self.applicationID)",
        "PRAGMA user_version = \\(migration.version)",
    ]
    /// Sets of request states spelled once, from the enum (`RequestState.sqlList`): constants, never input.
    static let allowedConstants = ["\\(RequestState.waitingSQL)", "\\(RequestState.happenedSQL)"]

    @Test func storeSQLHasNoInterpolation() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PlannerStore").path
        var checked = 0
        var offenders: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            // HotQueries.swift is nothing but SQL text: no interpolation anywhere in it but the state sets.
            if file == "HotQueries.swift" {
                let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
                offenders += lines.enumerated().filter { line in
                    Self.allowedConstants.reduce(String(line.element)) { $0.replacingOccurrences(of: $1, with: "") }.contains("\\(")
                }.map { "\(file):\($0.offset + 1)" }
                checked += lines.filter { $0.contains("static let") }.count
                continue
            }
            let scan = SQLScan(source)
            checked += scan.literals
            offenders += scan.offenders.map { "\(file):\($0)" }
        }
        #expect(checked > 20, "the scan found too few SQL strings to mean anything")
        #expect(offenders.isEmpty, "SQL text with interpolation: \(offenders)")
    }

    /// The schema check's query (written once in SchemaFingerprint, for the build tool too) splices in only
    /// the planner's own object names, each quoted: SchemaCheck passes `plannerObjects`, tests their own.
    @Test func schemaFingerprintQueryTakesOnlyNames() throws {
        #expect(
            SchemaFingerprint.query(quotedNames: SchemaFingerprint.quoted(["a", "b"]))
                == "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name IN ('a','b') ORDER BY name")
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PlannerStore").path
        let source = try String(contentsOfFile: folder + "/SchemaCheck.swift", encoding: .utf8)
        #expect(source.contains("SchemaFingerprint.query(quotedNames: objects.map(SchemaFingerprint.quoted) ?? plannerObjectsQuoted)"))
        #expect(source.contains("static let plannerObjectsQuoted = SchemaFingerprint.quoted(plannerObjects)"))
        #expect(
            SchemaFingerprint.foreignTriggersQuery(quotedNames: SchemaFingerprint.quoted(["a"]))
                == "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name COLLATE NOCASE IN ('a') AND name NOT IN ('a') ORDER BY name"
        )
        #expect(
            SchemaFingerprint.foreignUniqueIndexQuery(quotedNames: SchemaFingerprint.quoted(["a"]))
                == #"SELECT i.name, t.name FROM sqlite_schema AS t, pragma_index_list(t.name) AS i WHERE t.type = 'table' AND t.name COLLATE NOCASE IN ('a') AND i."unique" = 1 AND i.origin = 'c' AND i.name NOT IN ('a') ORDER BY i.name LIMIT 1"#
        )
        let triggers = try String(contentsOfFile: folder + "/ForeignTriggers.swift", encoding: .utf8)
        #expect(source.contains("try checkForeignTriggers(quotedPlannerObjects: PlannerDatabase.plannerObjectsQuoted)"))
        #expect(triggers.contains("SchemaFingerprint.foreignTriggersQuery(quotedNames: quotedPlannerObjects)"))
        #expect(triggers.contains("SchemaFingerprint.foreignTriggersQuery(quotedNames: PlannerDatabase.plannerObjectsQuoted)"))
        #expect(triggers.contains("SchemaFingerprint.foreignUniqueIndexQuery(quotedNames: quotedPlannerObjects)"))
        #expect(source.contains("SchemaFingerprint.sharedNameQuery(quotedNames: PlannerDatabase.plannerObjectsQuoted)"))
        #expect(
            SchemaFingerprint.sharedNameQuery(quotedNames: SchemaFingerprint.quoted(["a"]))
                == "SELECT name FROM sqlite_schema WHERE name IN ('a') GROUP BY name HAVING count(*) > 1 ORDER BY name LIMIT 1")
        // The probes quote every name, so even a name with a quote in it stays one identifier.
        #expect(
            SchemaFingerprint.Change.allCases.map { SchemaFingerprint.triggerProbe($0, table: "a\"b", columns: ["c", "d"]) } == [
                #"INSERT INTO "a""b" SELECT * FROM "a""b" WHERE 0"#, #"UPDATE "a""b" SET "c" = "c", "d" = "d" WHERE 0"#,
                #"DELETE FROM "a""b" WHERE 0"#,
            ])
        #expect(triggers.contains("SchemaFingerprint.triggerProbe(change, table: table, columns: columns)"))
    }

    /// A state spelled in the store's SQL (`state = 'pending'`, `SET state = 'delivered'`, `r.state <> '…'`) is
    /// a `RequestState`: a typo in a WHERE would match nothing, silently; a state renamed or removed from the
    /// enum must be renamed here too. (Sets of states are made from the enum: `RequestState.sqlList`.)
    @Test func everyStateSpelledInStoreSQLIsARequestState() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PlannerStore").path
        let pattern = try Regex(#"state\s*(=|<>|!=)\s*'([a-z_]*)'"#)
        let known = Set(RequestState.allCases.map(\.rawValue))
        var seen = 0
        var unknown: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in source.matches(of: pattern) {
                let name = String(match.output[2].substring ?? "")
                seen += 1
                if !known.contains(name) { unknown.append("\(file): '\(name)'") }
            }
        }
        #expect(seen > 20, "the scan found too few state names to mean anything")
        #expect(unknown.isEmpty, "not a RequestState: \(unknown)")
    }

    /// The scan itself: SQL wherever the call's argument starts (issue 19 item 16: SQL on the line after
    /// `prepare(` was not looked at), and an argument it cannot read is reported, not passed.
    @Test(arguments: [
        ("same line", "let s = try connection.prepare(\"SELECT \\(column) FROM request\")"),
        ("next line", "let s = try connection.prepare(\n    \"SELECT \\(column) FROM request WHERE id = ?\")"),
        ("next line, block", "try connection.execute(\n    \"\"\"\n    UPDATE request\n    SET title = '\\(title)'\n    \"\"\")"),
        ("block", "try connection.prepare(\"\"\"\n    SELECT 1\n    FROM \\(table)\n    \"\"\").run()"),
        ("integer", "let n = try connection.integer(\n    \"SELECT count(*) FROM request WHERE kind = '\\(kind)'\",\n    .integer(1))"),
        ("a variable", "let s = try connection.prepare(query)"),
        ("a variable named sql", "let s = try connection.prepare(sql)"),
        ("a constant plus text", "let s = try connection.prepare(HotQueries.due + \" LIMIT \\(n)\")"),
    ])
    func scanFindsInterpolatedSQL(_ name: String, _ source: String) {
        let scan = SQLScan(source)
        #expect(scan.offenders.count == 1, "\(name): \(scan.offenders)")
    }

    @Test func scanPassesPlainSQLAndBindings() {
        let source = """
            let s = try connection.prepare(
                "SELECT identifier FROM request WHERE id = ?")
            try connection.prepare(\"\"\"
                UPDATE request SET state = 'missed' WHERE id = ?
                \"\"\").run(.integer(now.milliseconds), .text("\\(reason)"))
            let n = try connection.integer(HotQueries.pendingCount) ?? 0
            let w = try connection.prepare(HotQueries.waitingOneOffs + " ORDER BY fire_at_ms LIMIT ?")
            try connection.execute("PRAGMA user_version = \\(migration.version)")
            let text = stmt.text(0)
            """
        let scan = SQLScan(source)
        #expect(scan.offenders.isEmpty, "\(scan.offenders)")
        #expect(scan.literals == 4)
    }
}

/// Every call that hands SQL text to the connection (`connection.prepare(`, `execute(`, `integer(`,
/// `text(`, or the same called inside `Connection`), its first argument read as Swift: string literals
/// (one-line or `"""` blocks, on the call's line or the next), `HotQueries` constants and `+` between them.
struct SQLScan {
    private(set) var literals = 0
    /// `line: source` of each call whose SQL is interpolated or cannot be read.
    private(set) var offenders: [String] = []

    static let calls = ["prepare(", "execute(", "integer(", "text("]

    init(_ source: String) {
        let chars = Array(source)
        var i = 0
        while i < chars.count {
            guard let call = Self.calls.first(where: { Self.matches(chars, at: i, $0) }), Self.isSQLCall(chars, at: i) else {
                i += 1
                continue
            }
            let line = chars[..<i].filter { $0 == "\n" }.count + 1
            var j = i + call.count
            // Inside `Connection`, its wrappers pass on their own parameter: their callers are checked.
            let bare = !(i >= 11 && String(chars[(i - 11)..<i]) == "connection.")
            if bare && (Self.matches(chars, at: j, "sql)") || Self.matches(chars, at: j, "sql,")) {
                i = j
                continue
            }
            if !checkArgument(chars, &j) {
                offenders.append("\(line): \(Self.lineText(chars, at: i))")
            }
            i = max(j, i + 1)
        }
    }

    /// Reads the first argument from `j`; false when it is interpolated or not made of readable parts.
    private mutating func checkArgument(_ chars: [Character], _ j: inout Int) -> Bool {
        var clean = true
        while true {
            Self.skipSpace(chars, &j)
            if Self.matches(chars, at: j, "\"") {
                guard let literal = Self.stringLiteral(chars, &j) else { return false }
                literals += 1
                let rest = SQLTextTests.allowedConstants.reduce(literal) { $0.replacingOccurrences(of: $1, with: "") }
                if rest.contains("\\(") && !SQLTextTests.allowed.contains(literal) { clean = false }
            } else if Self.matches(chars, at: j, "HotQueries.") {
                j += "HotQueries.".count
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" { j += 1 }
            } else if let call = [
                "SchemaFingerprint.query(", "SchemaFingerprint.foreignTriggersQuery(", "SchemaFingerprint.foreignUniqueIndexQuery(",
                "SchemaFingerprint.sharedNameQuery(",
                "SchemaFingerprint.triggerProbe(",
            ].first(
                where: {
                    Self.matches(chars, at: j, $0)
                })
            {
                // The planner's own object names, quoted (`schemaFingerprintQueryTakesOnlyNames`).
                j += call.count
                var depth = 1
                while j < chars.count, depth > 0 {
                    if chars[j] == "(" { depth += 1 } else if chars[j] == ")" { depth -= 1 }
                    j += 1
                }
            } else if Self.matches(chars, at: j, "migration.sql)") {
                return clean  // the embedded migration files, checked by SchemaCheckTests
            } else {
                return false
            }
            Self.skipSpace(chars, &j)
            guard Self.matches(chars, at: j, "+") else { return clean }
            j += 1
        }
    }

    /// A call of the connection, not a declaration (`func text(`, `case integer(`) nor another value's
    /// method (`stmt.text(0)`, `.integer(now)` bindings). Inside `Connection` its own calls have no receiver.
    static func isSQLCall(_ chars: [Character], at i: Int) -> Bool {
        if i >= 11, String(chars[(i - 11)..<i]) == "connection." { return true }
        guard i > 0, !(chars[i - 1].isLetter || chars[i - 1].isNumber || chars[i - 1] == "." || chars[i - 1] == "_") else { return false }
        return !(i >= 5 && ["func ", "case "].contains(String(chars[(i - 5)..<i])))
    }

    /// A `"…"` or `"""…"""` literal starting at `j`; `j` moves past it. Its text as written (escapes kept).
    static func stringLiteral(_ chars: [Character], _ j: inout Int) -> String? {
        let block = matches(chars, at: j, "\"\"\"")
        let delimiter = block ? "\"\"\"" : "\""
        j += delimiter.count
        let start = j
        while j < chars.count {
            if chars[j] == "\\" {
                j += 2
                continue
            }
            if !block && chars[j] == "\n" { return nil }
            if matches(chars, at: j, delimiter) {
                let text = String(chars[start..<j])
                j += delimiter.count
                return text
            }
            j += 1
        }
        return nil
    }

    static func skipSpace(_ chars: [Character], _ j: inout Int) {
        while j < chars.count, chars[j].isWhitespace { j += 1 }
    }

    static func matches(_ chars: [Character], at i: Int, _ word: String) -> Bool {
        var k = i
        for c in word {
            guard k < chars.count, chars[k] == c else { return false }
            k += 1
        }
        return true
    }

    static func lineText(_ chars: [Character], at i: Int) -> String {
        var start = i
        var end = i
        while start > 0, chars[start - 1] != "\n" { start -= 1 }
        while end < chars.count, chars[end] != "\n" { end += 1 }
        return String(chars[start..<end]).trimmingCharacters(in: .whitespaces)
    }
}
