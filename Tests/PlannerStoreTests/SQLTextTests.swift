import Foundation
import Testing

/// Nothing a user controls is ever spliced into SQL text: every SQL string the store passes to SQLite
/// is a literal without interpolation, except the planner's own constants listed here.
@Suite struct SQLTextTests {
    static let allowed = [
        "PRAGMA application_id = \\(Self.applicationID)",
        "PRAGMA user_version = \\(migration.version)",
    ]

    @Test func storeSQLHasNoInterpolation() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PlannerStore").path
        var checked = 0
        var offenders: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            // HotQueries.swift is nothing but SQL text: no interpolation anywhere in it.
            if file == "HotQueries.swift" {
                offenders += lines.enumerated().filter { $0.element.contains("\\(") }.map { "\(file):\($0.offset + 1)" }
                checked += lines.filter { $0.contains("static let") }.count
                continue
            }
            var inSQLBlock = false
            for (n, line) in lines.enumerated() {
                let text = String(line)
                if inSQLBlock {
                    if text.contains("\\(") { offenders.append("\(file):\(n + 1): \(text)") }
                    if text.trimmingCharacters(in: .whitespaces).hasPrefix("\"\"\"") { inSQLBlock = false }
                    continue
                }
                for call in ["prepare(", "execute(", "integer(", "connection.text("] where text.contains(call + "\"") {
                    checked += 1
                    if text.contains(call + "\"\"\"") { inSQLBlock = true; continue }
                    let literal = text.components(separatedBy: call + "\"")[1].components(separatedBy: "\"")[0]
                    if literal.contains("\\(") && !Self.allowed.contains(literal) { offenders.append("\(file):\(n + 1): \(text)") }
                }
            }
        }
        #expect(checked > 20, "the scan found too few SQL strings to mean anything")
        #expect(offenders.isEmpty, "SQL text with interpolation: \(offenders)")
    }
}
