/// What the planner reads of vdirsyncer's configuration file (INI sections whose values are JSON): where it
/// keeps its status, and each storage's type. Only what recovering an emptied server needs
/// (`CalendarSyncCommand`); anything else in the file is left to vdirsyncer.
public struct VdirsyncerConfig: Equatable, Sendable {
    /// `[general] status_path`, as written (`~/` not yet expanded).
    public var statusPath: String?
    /// `[storage NAME] type`, by NAME.
    public var storageTypes: [String: String] = [:]
    /// `[storage NAME] path` (a filesystem storage's folder), by NAME, as written.
    public var storagePaths: [String: String] = [:]
    /// `[pair NAME] a` and `b`, by NAME.
    public var pairs: [String: (a: String, b: String)] = [:]

    public static func == (x: VdirsyncerConfig, y: VdirsyncerConfig) -> Bool {
        x.statusPath == y.statusPath && x.storageTypes == y.storageTypes && x.storagePaths == y.storagePaths
            && x.pairs.mapValues { [$0.a, $0.b] } == y.pairs.mapValues { [$0.a, $0.b] }
    }

    /// nil when a line is not one vdirsyncer would read either (then nothing of it is trusted).
    public init?(_ text: String) {
        var section: (kind: Substring, name: Substring)?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { return nil }
                let inside = line.dropFirst().dropLast().trimmingSpaces
                let kind = inside.prefix { $0 != " " }
                section = (kind, inside.dropFirst(kind.count).trimmingSpaces)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { return nil }
            let key = line[..<equals].trimmingSpaces
            guard let section, let value = Self.string(line[line.index(after: equals)...].trimmingSpaces) else { continue }
            if section.kind == "general", key == "status_path" { statusPath = value }
            let name = String(section.name)
            if section.kind == "storage", key == "type", !name.isEmpty { storageTypes[name] = value }
            if section.kind == "storage", key == "path", !name.isEmpty { storagePaths[name] = value }
            if section.kind == "pair", key == "a" || key == "b", !name.isEmpty {
                var pair = pairs[name] ?? ("", "")
                if key == "a" { pair.a = value } else { pair.b = value }
                pairs[name] = pair
            }
        }
    }

    /// A JSON string's value (`"…"` with backslash escapes of `"` and `\`), or nil for anything else.
    static func string(_ text: Substring) -> String? {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
        var result = ""
        var escaped = false
        for c in text.dropFirst().dropLast() {
            if escaped {
                result.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "\"" {
                return nil
            } else {
                result.append(c)
            }
        }
        return escaped ? nil : result
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" && $0 != "\r" } ?? endIndex
        let end = self[start...].lastIndex { $0 != " " && $0 != "\t" && $0 != "\r" }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
