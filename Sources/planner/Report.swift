import PlannerCommands
import PlannerCore

/// What a command prints, as one value: `--json` renders `json`, plain output renders `text`. A command
/// builds its report once and `Report.print(json:to:)` is the one place that chooses (swiftly's OutputFormatter,
/// without Foundation: JSONEncoder would load ICU at every start and could not keep the keys in order).
protocol Report {
    var json: JSON { get }
    var text: String { get }
}

extension Report {
    func print(json wanted: Bool, to output: CommandOutput) {
        output.line(wanted ? json.rendered : text)
    }
}

/// A JSON value, keys in the order given. Rendered as the planner always printed it: an object on one line
/// (`{"a": 1, "b": "x"}`), an array of values on one line, and an array of objects one object per line
/// (`[\n  {…},\n  {…}\n]`, `[]` when empty), so a script can also read the rows line by line.
indirect enum JSON {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])
    /// A number already written (`0.734`).
    case number(String)

    /// A string, or null when there is none.
    static func text(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    /// An instant as RFC 3339 with `zone`'s offset, or null.
    static func time(_ instant: Instant?, in zone: Zone) -> JSON { instant.map { .string(zone.rfc3339($0)) } ?? .null }
    static func int(_ value: Int) -> JSON { .int(Int64(value)) }
    /// A share from 0 to 1 with three decimals (`0.734`).
    static func share(_ value: Double) -> JSON {
        let thousandths = Int((min(max(value, 0), 1) * 1000).rounded())
        if thousandths == 1000 { return .number("1.000") }
        let digits = String(thousandths)
        return .number("0." + String(repeating: "0", count: 3 - digits.count) + digits)
    }
    /// A number with three decimals and its sign (`-0.062`, `1.250`): a difference of shares, a ratio.
    static func decimal(_ value: Double) -> JSON {
        let thousandths = Int((min(max(value, -1e9), 1e9) * 1000).rounded())
        let digits = String(abs(thousandths) % 1000)
        return .number((thousandths < 0 ? "-" : "") + "\(abs(thousandths) / 1000)." + String(repeating: "0", count: 3 - digits.count) + digits)
    }
    /// An instant in UTC (`2026-11-24T00:30:00Z`, milliseconds when it has them), as the SQL views' `*_at`
    /// columns give it, or null.
    static func utc(_ instant: Instant?) -> JSON {
        instant.map { .string(Zone.utc.rfc3339($0).replacingSuffix("+00:00", with: "Z")) } ?? .null
    }
    /// The same always with milliseconds (`2026-11-24T00:30:00.004Z`), as `delivered_notifications.delivered_at`.
    static func utcMilliseconds(_ instant: Instant?) -> JSON {
        instant.map { i in
            let text = Zone.utc.rfc3339(i).replacingSuffix("+00:00", with: "")
            return .string((i.milliseconds % 1000 == 0 ? text + ".000" : text) + "Z")
        } ?? .null
    }

    var isObject: Bool { if case .object = self { true } else { false } }

    var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    /// Appends to one string (`stats --weeks 1000 --json` is 7,000 rows: no string per row or field).
    func render(into out: inout String) {
        switch self {
        case .string(let s): out += Formatting.json(s)
        case .int(let n): out += String(n)
        case .number(let text): out += text
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            let rows = !items.isEmpty && items.allSatisfy(\.isObject)
            out += "["
            for (i, item) in items.enumerated() {
                out += rows ? (i == 0 ? "\n  " : ",\n  ") : (i == 0 ? "" : ", ")
                item.render(into: &out)
            }
            out += rows ? "\n]" : "]"
        case .object(let fields):
            out += "{"
            for (i, field) in fields.enumerated() {
                if i > 0 { out += ", " }
                out += Formatting.json(field.0)
                out += ": "
                field.1.render(into: &out)
            }
            out += "}"
        }
    }
}
